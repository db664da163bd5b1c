// main.cc: the `sim` command line.
//
//   sim list
//   sim run --kernel matmul --arch sm100|sm90 --m M --n N --k K [--stages S]
//           [--tile-n 64|128|256] [--out-dtype bf16|f32] [--scheduler static|clc]
//           [--seed S] [--functional]
//           [--trace FILE [--trace-sms LIST]] [--timeline FILE.svg [--timeline-cta N]
//           [--timeline-window FROM:TO]] [--json FILE|-] [--max-cycles C] [--wall-limit SECONDS]
//   sim verify <run options> [--schedules N] [--jobs J]   (seeds --seed .. --seed+N-1)
//   sim sweep --kernel matmul --arch sm100 --m M --n N --k K [--stages LIST]
//           [--tile-n LIST] [--out-dtype bf16|f32] [--jobs J] [--json FILE|-]
//           [--wall-limit SECONDS]   (LIST: 2,4,6 or 2-8; ranked by predicted time)
//
// Exit status: 0 no findings (and, with --functional, a passing check);
// 1 findings or a failed check; 2 bad usage or input (one line on stderr).
// Each simulation runs in a child process (sim/core/isolate.h), so the CLI
// itself never crashes or hangs on a misbehaving kernel.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "sim/cli/args.h"
#include "sim/cli/options.h"
#include "sim/cli/report.h"
#include "sim/cli/sweep.h"
#include "sim/core/isolate.h"
#include "sim/kernels/matmul_dispatch.h"
#include "sim/kernels/sm90_matmul_run.h"
#include "verify/explore/explorer.h"
#include "verify/explore/report.h"

namespace po = boost::program_options;
using sk::cli::UsageError;

namespace {

constexpr const char* kUsage =
    "usage: sim <command> [options]\n"
    "commands:\n"
    "  list        kernels and architectures the simulator knows\n"
    "  run         simulate one kernel launch (sim run --help)\n"
    "  verify      explore many schedules with the race detector (sim verify --help)\n"
    "  sweep       rank tile widths and stage counts by predicted time (sim sweep --help)\n";

int cmd_list() {
  std::cout << "kernels:\n"
               "  matmul    SM100 structured matmul: 7 warps (epilogue 0-3, scheduler 4, load 5,\n"
               "            MMA 6), BF16 in, FP32 accumulate, BF16 or F32 out, persistent\n"
               "            (static scheduler, or CLC with --scheduler clc),\n"
               "            "
            << sk::sim::sm100_matmul_configs_help()
            << "\n"
               "            on sm90: 1 producer + 2 consumer warpgroups, wgmma into registers,\n"
               "            BF16 out, "
            << sk::sim::sm90_matmul_configs_help()
            << "\n"
               "architectures:\n"
               "  sm100     NVIDIA B200 model (functional and timing)\n"
               "  sm90      NVIDIA H200 model (functional and timing; parameters measured on an H200)\n";
  return 0;
}

po::options_description run_options() {
  po::options_description o("sim run options");
  sk::cli::add_problem_options(o);
  o.add_options()
      ("stages", po::value<std::string>()->default_value("4"), "input pipeline stages (2-8)")
      ("tile-n", po::value<std::string>()->default_value("256"), "tile N: 64, 128 or 256 (tile M is 128, K 64)")
      ("out-dtype", po::value<std::string>()->default_value("bf16"), "output type: bf16 or f32")
      ("scheduler", po::value<std::string>()->default_value("static"),
       "tile scheduler: static (persistent, grid = min(tiles, SMs)) or clc (cluster launch "
       "control, grid = tiles)")
      ("seed", po::value<std::string>()->default_value("0"),
       "seed for the input data and the schedule: 0 is the nominal schedule; a seed printed by "
       "sim verify replays that schedule")
      ("functional", "move real bytes and check D against a host reference")
      ("trace", po::value<std::string>(), "write a Perfetto trace (.pftrace)")
      ("trace-sms", po::value<std::string>(),
       "SMs the trace covers, e.g. 0,1 or 0-3 (default: all; one CTA runs per SM)")
      ("timeline", po::value<std::string>(), "draw one CTA's roles as an SVG timeline to FILE.svg")
      ("timeline-cta", po::value<std::string>()->default_value("0"), "the CTA --timeline draws")
      ("timeline-window", po::value<std::string>(),
       "FROM:TO cycles --timeline draws (default: the whole run)")
      ("json", po::value<std::string>(), "write the JSON summary to FILE, or - for stdout")
      ("max-cycles", po::value<std::string>()->default_value("4000000000"),
       "simulated-cycle bound; a run that reaches it is reported as a livelock")
      ("wall-limit", po::value<std::string>()->default_value("3600"),
       "wall-clock seconds before the simulation process is stopped");
  return o;
}

struct Parsed {
  sk::sim::MatmulRequest q;
  std::string json_path;
  double wall = 3600;
  uint64_t schedules = 0;
  int jobs = 2;
  bool help = false;
};

// Parses the options `sim run` and `sim verify` share (verify adds its own).
Parsed parse_matmul(int argc, char** argv, const char* cmd, po::options_description opts) {
  const po::variables_map vm = sk::cli::parse_options(argc, argv, cmd, opts);
  Parsed out;
  out.help = sk::cli::print_help(vm, cmd, opts);
  if (out.help) return out;
  const sk::cli::Shape shape = sk::cli::parse_problem(vm, cmd);
  sk::sim::MatmulRequest& q = out.q;
  q.arch = shape.arch;
  q.m = shape.m;
  q.n = shape.n;
  q.k = shape.k;
  q.stages = static_cast<uint32_t>(sk::cli::parse_uint("--stages", vm["stages"].as<std::string>(), 2, 8));
  q.tile_n = static_cast<uint32_t>(sk::cli::parse_uint("--tile-n", vm["tile-n"].as<std::string>(), 1, 4096));
  q.seed = sk::cli::parse_uint("--seed", vm["seed"].as<std::string>(), 0, UINT64_MAX / 2);
  q.max_cycles = sk::cli::parse_uint("--max-cycles", vm["max-cycles"].as<std::string>(), 1000,
                                     1ull << 50);
  out.wall = static_cast<double>(
      sk::cli::parse_uint("--wall-limit", vm["wall-limit"].as<std::string>(), 1, 86400));
  q.out_f32 = sk::cli::parse_out_f32(vm);
  const std::string scheduler = vm["scheduler"].as<std::string>();
  if (scheduler != "static" && scheduler != "clc")
    throw UsageError(fmt::format("--scheduler must be static or clc, got '{}'", scheduler));
  q.clc = scheduler == "clc";
  q.functional = vm.count("functional") > 0;
  if (vm.count("schedules")) {
    q.functional = true;  // race detection needs the per-lane data accesses
    out.schedules = sk::cli::parse_uint("--schedules", vm["schedules"].as<std::string>(), 1, 1000000);
    out.jobs = static_cast<int>(sk::cli::parse_uint("--jobs", vm["jobs"].as<std::string>(), 1, 64));
  }
  if (std::string err = sk::sim::validate_matmul(q); !err.empty()) throw UsageError(err);
  out.json_path = sk::cli::parse_json_path(vm);
  if (vm.count("trace")) {
    q.trace_path = sk::cli::resolve_path(vm["trace"].as<std::string>());
    sk::cli::require_writable("--trace", q.trace_path);
  }
  if (vm.count("trace-sms")) {
    if (q.trace_path.empty()) throw UsageError("--trace-sms needs --trace FILE");
    for (uint64_t sm : sk::cli::parse_uint_list("--trace-sms", vm["trace-sms"].as<std::string>(), 0, 4095))
      q.trace_sms.push_back(static_cast<int>(sm));
  }
  if (vm.count("timeline")) {
    q.timeline_path = sk::cli::resolve_path(vm["timeline"].as<std::string>());
    q.timeline_cta = static_cast<int>(
        sk::cli::parse_uint("--timeline-cta", vm["timeline-cta"].as<std::string>(), 0, 4095));
    if (vm.count("timeline-window")) {
      const std::string w = vm["timeline-window"].as<std::string>();
      const auto colon = w.find(':');
      if (colon == std::string::npos)
        throw UsageError(fmt::format("--timeline-window must be FROM:TO cycles, got '{}'", w));
      q.timeline_from = sk::cli::parse_uint("--timeline-window FROM", w.substr(0, colon), 0, 1ull << 50);
      q.timeline_to = sk::cli::parse_uint("--timeline-window TO", w.substr(colon + 1), 1, 1ull << 50);
    }
    if (std::string err = sk::sim::validate_matmul(q); !err.empty()) throw UsageError(err);
    sk::cli::require_writable("--timeline", q.timeline_path);
  } else if (vm.count("timeline-window") || !vm["timeline-cta"].defaulted()) {
    throw UsageError("--timeline-cta and --timeline-window need --timeline FILE.svg");
  }
  q.progress = isatty(2) != 0;

  return out;
}

int cmd_run(int argc, char** argv) {
  Parsed in = parse_matmul(argc, argv, "run", run_options());
  if (in.help) return 0;
  const sk::sim::MatmulRequest& q = in.q;
  const std::string& json_path = in.json_path;
  const double wall = in.wall;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_matmul(q))); }, wall);
  if (!res.ok) {
    std::cerr << "sim: " << res.error << "\n";
    return 1;
  }
  sk::sim::RunResult r = sk::sim::run_result_from_json(boost::json::parse(res.payload));
  const std::string json = boost::json::serialize(sk::sim::to_json(r));
  std::ostream& text = json_path == "-" ? std::cerr : std::cout;
  text << sk::cli::format_text(r);
  if (json_path == "-") {
    std::cout << json << "\n";
  } else if (!json_path.empty()) {
    std::ofstream(json_path) << json << "\n";
  }
  if (!q.trace_path.empty()) text << "  trace       " << q.trace_path << "\n";
  if (!q.timeline_path.empty()) text << "  timeline    " << q.timeline_path << "\n";
  const bool clean = r.findings.empty() && (!r.check.ran || r.check.passed);
  return clean ? 0 : 1;
}

std::string replay_command(const sk::sim::MatmulRequest& q) {
  return fmt::format("sim run --kernel matmul --arch {} --m {} --n {} --k {} --stages {} "
                     "--tile-n {} --out-dtype {}{} --functional",
                     q.arch, q.m, q.n, q.k, q.stages, q.tile_n, q.out_f32 ? "f32" : "bf16",
                     q.clc ? " --scheduler clc" : "");
}

int cmd_verify(int argc, char** argv) {
  po::options_description opts = run_options();
  opts.add_options()("schedules", po::value<std::string>()->default_value("100"),
                     "number of schedules to explore (seeds --seed, --seed + 1, ...)")
      ("jobs", po::value<std::string>()->default_value("2"), "simulations run in parallel");
  Parsed in = parse_matmul(argc, argv, "verify", opts);
  if (in.help) return 0;
  if (!in.q.trace_path.empty() || !in.q.timeline_path.empty())
    throw UsageError("sim verify: --trace and --timeline are per schedule; replay a seed with sim "
                     "run --trace or --timeline");
  in.q.progress = false;  // schedules run in parallel; their reports would interleave
  sk::verify::ExploreOptions eo;
  for (uint64_t i = 0; i < in.schedules; ++i) eo.seeds.push_back(in.q.seed + i);
  eo.jobs = in.jobs;
  eo.wall_limit_s = in.wall;
  const sk::sim::MatmulRequest base = in.q;
  const auto rep = sk::verify::explore(
      [&base](uint64_t seed) {
        sk::sim::MatmulRequest q = base;
        q.seed = seed;
        return sk::sim::run_matmul(q);
      },
      eo);
  const std::string replay = replay_command(base);
  std::ostream& text = in.json_path == "-" ? std::cerr : std::cout;
  text << fmt::format("verify matmul on {}: M={} N={} K={}, tile 128x{}x64, {} stages{}; "
                      "seeds {}..{}\n",
                      base.arch, base.m, base.n, base.k, base.tile_n, base.stages,
                      base.clc ? ", CLC scheduler" : "", base.seed, base.seed + in.schedules - 1)
       << sk::verify::format_report(rep, replay);
  if (!in.json_path.empty()) {
    boost::json::array fs;
    for (const auto& f : rep.findings) {
      boost::json::object o = sk::sim::finding_to_json(f.finding);
      o["seed"] = f.seed;
      o["schedules"] = f.schedules;
      o["replay"] = fmt::format("{} --seed {}", replay, f.seed);
      fs.push_back(std::move(o));
    }
    boost::json::array errs;
    for (const auto& e : rep.errors) errs.push_back(boost::json::string(e));
    boost::json::object doc{{"kernel", "matmul"}, {"arch", base.arch},
                            {"explored", rep.explored}, {"findings", std::move(fs)},
                            {"errors", std::move(errs)}, {"wall_s", rep.wall_s}};
    const std::string json = boost::json::serialize(doc);
    if (in.json_path == "-")
      std::cout << json << "\n";
    else
      std::ofstream(in.json_path) << json << "\n";
  }
  return rep.findings.empty() && rep.errors.empty() ? 0 : 1;
}

}  // namespace

// SystemC's own main() calls sc_main (C linkage, declared in sc_externs.h).
extern "C" int sc_main(int argc, char* argv[]) {
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
    if (cmd == "sweep") return sk::cli::cmd_sweep(argc - 1, argv + 1);
    throw UsageError(fmt::format("unknown command '{}' (sim --help)", cmd));
  } catch (const UsageError& e) {
    std::cerr << "sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "sim: " << e.what() << "\n";
    return 2;
  }
}
