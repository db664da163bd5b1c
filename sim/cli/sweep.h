// sweep.h: `sim sweep`, one problem of any registered family over many tile
// widths and stage counts (and, where given, kernels, clusters, tile groups
// and K splits: SweepAxes) in timing mode, ranked by predicted time.
//
// Invariants: every point is one value of each axis (parse_sweep_args's axes
// hold no duplicates, so each combination runs once); every configuration
// runs in its own process (run_isolated), so one that crashes or hangs is an
// error row, never the end of the sweep;
// configurations the family refuses (its validate) are skipped with the
// reason and never run; the ranking and everything printed, except the wall
// time in the text report, depend only on the inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/cli/distributed_args.h"
#include "sim/cli/problem.h"
#include "sim/cli/progress.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "engine/isolate.h"
#include "runner/result/run_result.h"

namespace sk::cli {

struct SweepPoint {
  sim::MatmulRequest q;
  bool ran = false;       // a result came back from the simulation process
  sim::RunResult result;  // when ran
  std::string error;      // when not ran: why
};

struct Skipped {
  uint32_t tile_n = 0, stages = 0;
  std::string reason;
  std::string variant;  // the architecture's kernel (ArchSpace::variants), or ""
  std::string cluster;  // "MxN" when the sweep varies the cluster (--cluster list), or ""
  uint32_t tile_group = 1;  // q.tile_group; printed where the sweep names them (show_tile_group)
  uint32_t split_k = 1;     // q.split_k; printed when over 1
  bool pingpong = false;    // q.pingpong; printed as /pingpong
  uint32_t tile_m = 128;    // q.tile_m (--tile-m list); printed as the family's tile M where 128
};

// The SM90 kernel schedule's name (--kernel-schedule, "kernel_schedule" in JSON).
const char* kernel_schedule_name(bool pingpong);

// A thread-block cluster of the sweep (--cluster MxN,...): CTAs along M and N.
struct ClusterDims {
  uint32_t m = 1, n = 1;
};

// The axes of a sweep: it runs every combination of one value of each. An
// empty axis other than tile_ns and stages stands for base's value.
struct SweepAxes {
  std::vector<uint32_t> tile_ns, stages;  // q.tile_n, q.stages
  std::vector<std::string> variants;      // the arch's kernels (ArchSpace::variants, q.amd_kernel)
  std::vector<ClusterDims> clusters;      // q.cluster_m, q.cluster_n (--cluster list)
  std::vector<uint32_t> tile_groups;      // q.tile_group (--tile-group list)
  std::vector<uint32_t> split_ks;         // q.split_k (--split-k list)
  std::vector<bool> pingpongs;            // q.pingpong (--kernel-schedule list: cooperative, pingpong)
  std::vector<uint32_t> tile_ms;          // q.tile_m (--tile-m list: 128, 192, 256; sm90 matmul)
};

struct Sweep {
  std::vector<SweepPoint> points;  // ranked
  std::vector<Skipped> skipped;    // in plan order (plan_sweep)
  double wall_s = 0;
};

// Runs `base` at every point of `axes`, `jobs` processes at a time, each
// under `wall_limit_s`, and ranks the outcomes: completed runs fastest first,
// then runs that did not complete, then errors (ties by tile N, stages,
// kernel, cluster, tile group, K split, kernel schedule). It is plan_sweep, run_sweep_points over every
// point and rank_sweep.
Sweep run_sweep(const Problem& problem, const sim::MatmulRequest& base, const SweepAxes& axes,
                int jobs, double wall_limit_s,
                const std::function<sim::RunResult(const sim::MatmulRequest&)>& run);

// The pieces of run_sweep, for a sweep split over machines (sim/cli/distributed.h).
// plan_sweep: the points to run (by kernel schedule, K split, cluster, tile group, kernel, tile
// N, then stages; none run yet) and the skipped configurations, without simulating;
// the same arguments give the same plan.
Sweep plan_sweep(const Problem& problem, const sim::MatmulRequest& base, const SweepAxes& axes);
// Throws UsageError when no configuration of the plan can run (every one
// skipped): the problem itself is refused, as sim run refuses it; one line,
// the reason when all share it.
void require_runnable(const Sweep& plan);
// Runs s.points[i] for each i of `which` (in that order, `jobs` at a time)
// and fills in their results; `raw`, when given, also gets each point's index
// and what its simulation process handed back.
void run_sweep_points(Sweep& s, const std::vector<size_t>& which, int jobs, double wall_limit_s,
                      const std::function<sim::RunResult(const sim::MatmulRequest&)>& run,
                      const std::function<void(size_t, const sim::IsolatedResult&)>& raw = {});
// The point's result as the simulation process hands it back.
void set_sweep_result(SweepPoint& p, const sim::IsolatedResult& res);
// Orders the points as run_sweep ranks them (stable: equal keys keep the plan's order).
void rank_sweep(Sweep& s);

// True when a point counts against the exit status (findings, not completed,
// or no result).
bool failed(const SweepPoint& p);
// The sweep's exit status (sim/cli/exit_codes.h): 1 when a point has
// findings, a failed check, or no result or ended stuck; else 3 when a point
// stopped at a limit; else 0.
int sweep_exit_code(const std::vector<SweepPoint>& points);

// Whether the table and the JSON name each row's tile group: when a point, a
// skipped configuration or base has one other than 1 (the sweep varies it,
// or its one tile group is not the default).
bool show_tile_group(const Sweep& s, const sim::MatmulRequest& base);

// The table and the JSON; the JSON holds the family's fields under "problem"
// unless they are only the GEMM's m, n and k. With show_tile_group, the table
// shows it after the tile (and cluster): "128x256x64/2x1/g8", and each result
// and skipped configuration of the JSON has "tile_group".
std::string format_sweep_text(const Sweep& s, const Problem& problem,
                              const sim::MatmulRequest& base);
boost::json::object sweep_to_json(const Sweep& s, const Problem& problem,
                                  const sim::MatmulRequest& base);

// The parsed command: the axes (--tile-n, --stages, --amd-kernel, and the
// --cluster, --tile-group and --split-k lists, whose first values are
// base's), and the rest.
struct SweepArgs : SweepAxes {
  const SweepAxes& axes() const { return *this; }
  Problem problem;          // the family and its fields
  sim::MatmulRequest base;  // its GEMM view, arch and output type
  int jobs = 2;
  double wall = 600;      // seconds per configuration
  std::string json_path;  // "", "-" or a writable path
  bool help = false;      // --help was given (and printed); nothing else is set
  DistributedArgs dist;   // --slurm ... or an array task's --slice (docs/slurm.md)
  ProgressMode progress;  // --progress / --no-progress: done/total on stderr
};

// Parses the `sim sweep` options (argv[0] is "sweep"); throws UsageError.
// The options of `sim sweep` (the family fields, the sweep axes, Slurm).
po::options_description sweep_options();
SweepArgs parse_sweep_args(int argc, char** argv);

// `sim sweep` run here (parsed args without --slurm or --slice); returns the
// exit status and throws UsageError on bad input. sim/main.cc sends the
// distributed forms to sim/cli/distributed.h.
int sweep_locally(const SweepArgs& a);

}  // namespace sk::cli
