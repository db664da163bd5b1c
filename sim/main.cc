// main.cc: the `sim` command line.
//
//   sim list
//   sim run --kernel matmul --arch sm100|sm90|mi300x --m M --n N --k K [--stages S]
//           [--batch L] [--in-dtype bf16|f16] [--lda L] [--ldb L] [--ldd L] [--pad-rows]
//   sim run --kernel conv2d --n N --h H --w W --c C --k K --r R --s S [--stride S]
//           [--pad P] [--dilation D] [the run options below]
//   sim run --kernel block_scaled_matmul --format mxfp8|nvfp4 [--fp8-type e4m3|e5m2]
//           --m M --n N --k K [the run options below]
//   sim run --kernel blockwise_fp8_matmul --m M --n N --k K [the run options below]
//           [--tile-n 64|128|256] [--out-dtype bf16|f32] [--scheduler static|clc]
//           [--seed S] [--data-seed D] [--functional]
//           [--trace FILE [--trace-sms LIST]] [--timeline FILE.svg
//           [--timeline-cta LIST] [--timeline-window FROM:TO]] [--json FILE|-]
//           [--max-cycles C] [--wall-limit SECONDS] [--progress|--no-progress]
//   sim verify <run options> [--schedules N] [--jobs J]   (seeds --seed .. --seed+N-1, data of --seed)
//   sim sweep --kernel matmul --arch sm100 --m M --n N --k K [--stages LIST]
//           [--tile-n LIST] [--out-dtype bf16|f32] [--jobs J] [--json FILE|-]
//           [--wall-limit SECONDS]   (LIST: 2,4,6 or 2-8; ranked by predicted time)
//   sim verify|sweep ... --slurm DIR [--partition P] [--tasks N] [--time-limit T] [--wait]
//   sim collect DIR [--wait] [--json FILE|-]
//   sim collect --resume DIR [--wait] [--json FILE|-] [--partition P] [--time-limit T]
//           (one Slurm array job, merged into the local run's output: docs/slurm.md)
//
// Exit status: sim/cli/exit_codes.h (0 clean, 1 findings or a failed check,
// 2 bad usage or input, 3 a limit reached or an incomplete Slurm job).
// Each simulation runs in a child process (engine/isolate.h), so the CLI
// itself never crashes or hangs on a misbehaving kernel.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "sim/cli/args.h"
#include "runner/families/registry.h"
#include "sim/cli/distributed.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/run_args.h"
#include "sim/cli/options.h"
#include "sim/cli/report.h"
#include "sim/cli/sweep.h"
#include "sim/cli/verify_report.h"
#include "engine/isolate.h"
#include "runner/kernels/matmul_dispatch.h"
#include "verify/explore/explorer.h"
#include "verify/explore/report.h"
#include "verify/hb/install.h"

using sk::cli::UsageError;

namespace {

constexpr const char* kUsage =
    "usage: sim <command> [options]\n"
    "commands:\n"
    "  list        kernels and architectures the simulator knows\n"
    "  run         simulate one kernel launch (sim run --help)\n"
    "  verify      explore many schedules with the race detector (sim verify --help)\n"
    "  sweep       rank tile widths and stage counts by predicted time (sim sweep --help)\n"
    "  collect     merge the results of a sweep or verify run with --slurm DIR (sim collect --help)\n"
    "exit status, every command:\n"
    "  0  clean: completed, no finding, the check (if any) passed\n"
    "  1  findings (deadlock and livelock among them) or a failed check\n"
    "  2  bad usage or input (one line on stderr), or an output file that could not be\n"
    "     written after simulating (the summary is printed first)\n"
    "  3  no complete answer: stopped at --max-cycles or --wall-limit (status limit),\n"
    "     or a Slurm job that is not complete\n";

// The families from the registry (runner/families/registry.h): each one's
// description, its configuration space per architecture and its check.
int cmd_list() {
  std::cout << "kernels:\n";
  for (const sk::sim::Family& f : sk::sim::families()) {
    std::string text = f.summary();
    for (const sk::sim::ArchSpace& a : f.archs) {
      std::vector<std::string> tiles;
      for (uint32_t t : a.tile_ns) tiles.push_back(std::to_string(t));
      text += fmt::format("\n{}: tile N {}, stages {}-{} (default {}x{}, {} stages), scheduler "
                          "{}, out {}",
                          a.arch, sk::sim::joined(tiles, "|"), a.stages_lo, a.stages_hi, a.tile_m,
                          a.default_tile_n, a.default_stages, sk::sim::joined(a.schedulers, "|"),
                          sk::sim::joined(a.out_dtypes, "|"));
      if (!a.variants.empty())
        text += fmt::format(", kernels {} (--amd-kernel)", sk::sim::joined(a.variants, "|"));
    }
    text += "\ncheck: " + f.reference;
    std::cout << (f.name.size() <= 8 ? fmt::format("  {:<8}  ", f.name)
                                     : fmt::format("  {}\n            ", f.name));
    for (char c : text) std::cout << (c == '\n' ? std::string("\n            ") : std::string(1, c));
    std::cout << "\n";
  }
  std::cout << "architectures:\n"
               "  sm100     NVIDIA B200 model (functional and timing)\n"
               "  sm90      NVIDIA H200 model (functional and timing; parameters measured on an H200)\n"
               "  mi300x    AMD MI300X model (functional and timing)\n";
  return 0;
}

int cmd_run(int argc, char** argv) {
  sk::cli::RunArgs in = sk::cli::parse_run_args(argc, argv, "run", sk::cli::run_options());
  if (in.help) return 0;
  // The estimate before a long run, and the progress reports during it.
  const sk::sim::RunEstimate est = in.problem.estimate(in.q);
  if (est.wall_s > sk::sim::kAnnounceWallS)
    std::cerr << "sim: " << sk::sim::estimate_line(est, in.wall) << "\n";
  in.q.progress = in.progress.on;
  in.q.progress_terminal = in.progress.terminal;
  in.q.estimate_events = est.events;
  const sk::sim::MatmulRequest& q = in.q;
  const std::string& json_path = in.json_path;
  const double wall = in.wall;
  auto res = sk::sim::run_isolated(
      [&q, &in] { return boost::json::serialize(sk::sim::to_json(in.simulate(q))); }, wall);
  if (!res.ok) {
    std::cerr << "sim: " << res.error << "\n";
    return res.killed ? sk::cli::kExitLimit : sk::cli::kExitFindings;
  }
  sk::sim::RunResult r = sk::sim::run_result_from_json(boost::json::parse(res.payload));
  const std::string json = boost::json::serialize(sk::sim::to_json(r));
  std::vector<std::string> output_errors = r.output_errors;
  if (!json_path.empty()) {
    try {
      sk::cli::write_output("--json", json_path, json);
    } catch (const UsageError& e) {
      output_errors.push_back(e.what());
    }
  }
  // The summary stands whatever could not be written.
  std::ostream& text = json_path == "-" ? std::cerr : std::cout;
  text << sk::cli::format_text(r);
  if (!q.trace_path.empty() && r.output_errors.empty()) text << "  trace       " << q.trace_path << "\n";
  if (!q.timeline_path.empty() && r.output_errors.empty())
    text << "  timeline    " << q.timeline_path << "\n";
  for (const std::string& e : output_errors) std::cerr << "sim: " << e << "\n";
  return sk::cli::run_exit_code(r, !output_errors.empty());
}

int cmd_verify(int argc, char** argv) {
  sk::cli::RunArgs in =
      sk::cli::parse_run_args(argc, argv, "verify", sk::cli::verify_options());
  if (in.help) return 0;
  if (!in.q.trace_path.empty() || !in.q.timeline_path.empty())
    throw UsageError("sim verify: --trace and --timeline are per schedule; replay a seed with sim "
                     "run --trace or --timeline");
  if (in.dist.submit() || in.dist.task()) return sk::cli::verify_distributed(in);
  in.q.progress = false;  // schedules run in parallel; their reports would interleave
  sk::verify::ExploreOptions eo;
  for (uint64_t i = 0; i < in.schedules; ++i) eo.seeds.push_back(in.q.seed + i);
  eo.jobs = in.jobs;
  eo.wall_limit_s = in.wall;
  // Each schedule is a functional run; they run --jobs at a time.
  const double est_s = in.problem.estimate(in.q).wall_s * static_cast<double>(in.schedules) /
                       std::min<double>(in.jobs, static_cast<double>(std::max<uint64_t>(1, in.schedules)));
  if (est_s > sk::sim::kAnnounceWallS)
    std::cerr << "sim verify: " << sk::cli::batch_estimate_line(in.schedules, "schedules", est_s, in.jobs, in.wall)
              << "\n";
  sk::cli::DoneCounter counter("sim verify", "schedules", in.schedules, in.progress);
  eo.on_done = [&counter] { counter.done(); };
  const sk::sim::MatmulRequest base = in.q;
  // Every schedule runs on base's data seed: draw the data once, here.
  in.problem.share_inputs(base);
  const auto rep = sk::verify::explore(
      [&base, &in](uint64_t seed) {
        sk::sim::MatmulRequest q = base;
        q.seed = seed;
        return in.simulate(q);
      },
      eo);
  // The JSON holds no wall time, so the same inputs give the same bytes
  // (here, with any --jobs, and merged from a Slurm job).
  if (!in.json_path.empty())
    sk::cli::write_output("--json", in.json_path,
                          boost::json::serialize(sk::cli::verify_to_json(in, rep)));
  std::ostream& text = in.json_path == "-" ? std::cerr : std::cout;
  text << sk::cli::verify_header(in) << sk::verify::format_report(rep, sk::cli::replay_command(in));
  return sk::cli::verify_exit_code(rep);
}

// `sim sweep` here, or sliced over a Slurm array job (sim/cli/distributed.h).
int cmd_sweep(int argc, char** argv) {
  const sk::cli::SweepArgs a = sk::cli::parse_sweep_args(argc, argv);
  if (a.help) return 0;
  if (a.dist.submit() || a.dist.task()) return sk::cli::sweep_distributed(a);
  return sk::cli::sweep_locally(a);
}

}  // namespace

// SystemC's own main() calls sc_main (C linkage, declared in sc_externs.h).
extern "C" int sc_main(int argc, char* argv[]) {
  sk::verify::install_race_detector();
  try {
    if (argc < 2) throw UsageError("no command given (sim --help lists the commands)");
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (cmd == "list") {
      if (argc > 2) throw UsageError(fmt::format("sim list takes no arguments, got '{}'", argv[2]));
      return cmd_list();
    }
    if (cmd == "run") return cmd_run(argc - 1, argv + 1);
    if (cmd == "verify") return cmd_verify(argc - 1, argv + 1);
    if (cmd == "sweep") return cmd_sweep(argc - 1, argv + 1);
    if (cmd == "collect") return sk::cli::cmd_collect(argc - 1, argv + 1);
    throw UsageError(fmt::format("unknown command '{}' (sim --help)", cmd));
  } catch (const UsageError& e) {
    std::cerr << "sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "sim: " << e.what() << "\n";
    return 2;
  }
}
