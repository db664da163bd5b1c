// sweep.h: `sim sweep`, one problem of any registered family over many tile
// widths and stage counts in timing mode, ranked by predicted time.
//
// Invariants: every configuration runs in its own process (run_isolated), so
// one that crashes or hangs is an error row, never the end of the sweep;
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
};

// A thread-block cluster of the sweep (--cluster MxN,...): CTAs along M and N.
struct ClusterDims {
  uint32_t m = 1, n = 1;
};

struct Sweep {
  std::vector<SweepPoint> points;  // ranked
  std::vector<Skipped> skipped;    // by tile N, then stages
  double wall_s = 0;
};

// Runs `base` for every tile N x stages, `jobs` processes at a time, each
// under `wall_limit_s`, and ranks the outcomes: completed runs fastest first,
// then runs that did not complete, then errors (ties by tile N, stages).
// It is plan_sweep, run_sweep_points over every point and rank_sweep.
// `variants`: the kernels (ArchSpace::variants, set as q.amd_kernel) to sweep
// too; empty: base's. `clusters`: the thread-block clusters to sweep too
// (q.cluster_m, q.cluster_n); empty: base's.
Sweep run_sweep(const Problem& problem, const sim::MatmulRequest& base,
                const std::vector<uint32_t>& tile_ns, const std::vector<uint32_t>& stages,
                int jobs, double wall_limit_s,
                const std::function<sim::RunResult(const sim::MatmulRequest&)>& run,
                const std::vector<std::string>& variants = {},
                const std::vector<ClusterDims>& clusters = {});

// The pieces of run_sweep, for a sweep split over machines (sim/cli/distributed.h).
// plan_sweep: the points to run (by tile N, then stages; none run yet) and
// the skipped configurations, without simulating.
Sweep plan_sweep(const Problem& problem, const sim::MatmulRequest& base,
                 const std::vector<uint32_t>& tile_ns, const std::vector<uint32_t>& stages,
                 const std::vector<std::string>& variants = {},
                 const std::vector<ClusterDims>& clusters = {});
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

// The table and the JSON; the JSON holds the family's fields under "problem"
// unless they are only the GEMM's m, n and k.
std::string format_sweep_text(const Sweep& s, const Problem& problem,
                              const sim::MatmulRequest& base);
boost::json::object sweep_to_json(const Sweep& s, const Problem& problem,
                                  const sim::MatmulRequest& base);

struct SweepArgs {
  Problem problem;          // the family and its fields
  sim::MatmulRequest base;  // its GEMM view, arch and output type
  std::vector<uint32_t> tile_ns, stages;
  std::vector<std::string> variants;  // the arch's kernels to sweep (--amd-kernel); empty: one
  std::vector<ClusterDims> clusters;  // the clusters to sweep (--cluster list); empty: base's
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
