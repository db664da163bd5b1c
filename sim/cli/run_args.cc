// run_args.cc: see run_args.h.
#include "sim/cli/run_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "sim/cli/args.h"
#include "sim/cli/options.h"
#include "sim/cli/params_option.h"
#include "runner/kernels/matmul_dispatch.h"

namespace sk::cli {
namespace {

// --timeline-cta LIST: CTA numbers, busiest and slowest, comma-separated, at
// most kMaxTimelineCtas of them; a repeat is dropped.
constexpr size_t kMaxTimelineCtas = 8;
std::vector<int> parse_timeline_ctas(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : comma_items(text)) {
    int cta = 0;
    if (item == "busiest")
      cta = sim::MatmulRequest::kTimelineBusiest;
    else if (item == "slowest")
      cta = sim::MatmulRequest::kTimelineSlowest;
    else if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos)
      cta = static_cast<int>(parse_uint("--timeline-cta", item, 0, 4095));
    else
      throw UsageError(fmt::format("--timeline-cta expects CTA numbers, busiest or slowest, "
                                   "comma-separated (e.g. 0,busiest), got '{}'",
                                   text));
    if (std::find(out.begin(), out.end(), cta) == out.end()) out.push_back(cta);
    if (out.size() > kMaxTimelineCtas)
      throw UsageError(fmt::format("--timeline-cta draws at most {} CTAs, got '{}'",
                                   kMaxTimelineCtas, text));
  }
  return out;
}

}  // namespace

po::options_description run_options() {
  po::options_description o("sim run options");
  add_family_options(o);
  o.add_options()
      ("stages", po::value<std::string>(),
       "input pipeline stages (2-8; default: the family's on --arch, sim list)")
      ("tile-n", po::value<std::string>(),
       "tile N (default: the family's on --arch; sim list shows the widths)")
      ("tile-m", po::value<std::string>(),
       "--kernel matmul --arch sm90: tile M, 128 (default: the consumer warpgroups split the "
       "tile along M) or 192 or 256 (they split it along N, each taking every row and 64 of "
       "--tile-n 128's columns; no cluster, K split, ping-pong or TMA-store epilogue)")
      ("out-dtype", po::value<std::string>()->default_value("bf16"), "output type: bf16 or f32")
      ("amd-kernel", po::value<std::string>()->default_value("pingpong"),
       "--arch mi300x: pingpong (8 waves) or wave_specialized (2 loader + 4 MFMA waves)")
      ("scheduler", po::value<std::string>()->default_value("static"),
       "tile scheduler: static (persistent, grid = min(tiles, SMs)) or clc (cluster launch "
       "control, grid = tiles)")
      ("seed", po::value<std::string>()->default_value("0"),
       "seed for the schedule and, without --data-seed, the input data: 0 is the nominal "
       "schedule; a seed printed by sim verify replays that schedule")
      ("data-seed", po::value<std::string>(),
       "seed for the input data alone (functional runs; default: --seed). sim verify runs every "
       "schedule on the data of its first seed unless given")
      ("functional", "move real bytes and check D against a host reference")
      ("trace", po::value<std::string>(), "write a Perfetto trace (.pftrace)")
      ("trace-sms", po::value<std::string>(),
       "SMs the trace covers, e.g. 0,1 or 0-3 (default: all; one CTA runs per SM), and a "
       "--timeline's numbered CTAs wherever they run")
      ("timeline", po::value<std::string>(),
       "draw CTAs' warps and engines as an SVG timeline to FILE.svg")
      ("timeline-cta", po::value<std::string>()->default_value("0"),
       "the CTAs --timeline draws, each its own block: numbers and busiest (the busiest CTA of "
       "the busiest SM) or slowest (the CTA that ends last), e.g. 0,busiest,slowest")
      ("timeline-window", po::value<std::string>(),
       "FROM:TO cycles --timeline draws (default: the whole run)")
      ("json", po::value<std::string>(), "write the JSON summary to FILE, or - for stdout");
  add_params_option(o);
  add_sm_clock_option(o);
  o.add_options()
      ("max-cycles", po::value<std::string>()->default_value("4000000000"),
       "simulated-cycle bound: a run still going there stops with status limit (exit 3), or "
       "livelock when nothing synchronized in the last half of it")
      ("wall-limit", po::value<std::string>()->default_value("600"),
       "wall-clock seconds a simulation may take: it then stops with status limit (exit 3)");
  add_progress_options(o);
  return o;
}

po::options_description verify_options() {
  po::options_description o = run_options();
  o.add_options()("schedules", po::value<std::string>()->default_value("100"),
                  "number of schedules to explore (seeds --seed, --seed + 1, ...)")
      ("jobs", po::value<std::string>()->default_value("2"), "simulations run in parallel");
  add_slurm_options(o);
  return o;
}

RunArgs parse_run_args(int argc, char** argv, const char* cmd,
                             const po::options_description& opts) {
  // Options that take --slurm (verify_options) also take an array task's --slice.
  const bool slurm = opts.find_nothrow("slurm", false) != nullptr;
  const po::options_description hidden = slice_options();
  const po::variables_map vm = parse_options(argc, argv, cmd, opts, slurm ? &hidden : nullptr);
  RunArgs out;
  out.help = print_help(vm, cmd, opts);
  if (out.help) return out;
  sim::MatmulRequest& q = out.q;
  out.problem = parse_problem(vm, cmd, q);
  out.progress = parse_progress(vm);
  const sim::ArchSpace& space = out.problem.space(q.arch);
  q.stages = vm.count("stages") ? static_cast<uint32_t>(parse_uint(
                                      "--stages", vm["stages"].as<std::string>(), 2, 8))
                                : space.default_stages;
  q.tile_n = vm.count("tile-n") ? static_cast<uint32_t>(parse_uint(
                                      "--tile-n", vm["tile-n"].as<std::string>(), 1, 4096))
                                : space.default_tile_n;
  if (vm.count("tile-m")) {
    if (q.arch != "sm90" || out.kernel_name() != "matmul")
      throw UsageError("--tile-m needs --kernel matmul --arch sm90");
    q.tile_m = static_cast<uint32_t>(parse_uint("--tile-m", vm["tile-m"].as<std::string>(), 1, 4096));
  }
  if (q.arch == "mi300x")
    q.amd_kernel = vm["amd-kernel"].as<std::string>();
  else if (!vm["amd-kernel"].defaulted())
    throw UsageError("--amd-kernel needs --arch mi300x");
  q.seed = parse_uint("--seed", vm["seed"].as<std::string>(), 0, UINT64_MAX / 2);
  q.max_cycles = parse_uint("--max-cycles", vm["max-cycles"].as<std::string>(), 1000,
                                     1ull << 50);
  out.wall = static_cast<double>(
      parse_uint("--wall-limit", vm["wall-limit"].as<std::string>(), 1, 86400));
  q.wall_limit_s = out.wall;
  q.out_f32 = parse_out_f32(vm);
  const std::string scheduler = vm["scheduler"].as<std::string>();
  if (scheduler != "static" && scheduler != "clc")
    throw UsageError(fmt::format("--scheduler must be static or clc, got '{}'", scheduler));
  q.clc = scheduler == "clc";
  q.functional = vm.count("functional") > 0;
  if (vm.count("data-seed"))
    q.data_seed = parse_uint("--data-seed", vm["data-seed"].as<std::string>(), 0, UINT64_MAX / 2);
  if (vm.count("schedules")) {
    q.functional = true;  // race detection needs the per-lane data accesses
    out.schedules = parse_uint("--schedules", vm["schedules"].as<std::string>(), 1, 1000000);
    out.jobs = static_cast<int>(parse_uint("--jobs", vm["jobs"].as<std::string>(), 1, 64));
    // One data set for every schedule: drawn, with its reference, once
    // before the schedules are forked (Family::share_inputs).
    if (!q.data_seed) q.data_seed = q.seed;
  } else if (q.data_seed && !q.functional) {
    throw UsageError("--data-seed needs --functional: a timing run draws no input data");
  }
  // Lockstep warpgroups are a timing run's (models/sm90/lockstep.h): with the
  // race detector attached every warp runs on its own, so the flag would
  // change nothing.
  if (q.per_warp && q.functional)
    throw UsageError(fmt::format("--per-warp changes timing runs only: {} simulates every warp already",
                                 vm.count("schedules") ? "sim verify" : "a --functional run"));
  const SmClocks clocks = parse_sm_clock(vm, q.arch);
  q.sm_clock_ghz = clocks.tensor_ghz;
  q.rest_clock_ghz = clocks.rest_ghz;

  load_params_option(vm, q.arch);
  if (std::string err = out.validate(q); !err.empty()) throw UsageError(err);
  out.json_path = parse_json_path(vm);
  if (slurm) out.dist = parse_distributed_args(vm, argc, argv, cmd);
  if (vm.count("trace")) {
    q.trace_path = resolve_path(vm["trace"].as<std::string>());
    require_writable("--trace", q.trace_path);
  }
  if (vm.count("trace-sms")) {
    if (q.trace_path.empty()) throw UsageError("--trace-sms needs --trace FILE");
    for (uint64_t sm : parse_uint_list("--trace-sms", vm["trace-sms"].as<std::string>(), 0, 4095))
      q.trace_sms.push_back(static_cast<int>(sm));
  }
  if (vm.count("timeline")) {
    q.timeline_path = resolve_path(vm["timeline"].as<std::string>());
    q.timeline_ctas = parse_timeline_ctas(vm["timeline-cta"].as<std::string>());
    if (vm.count("timeline-window")) {
      const std::string w = vm["timeline-window"].as<std::string>();
      const auto colon = w.find(':');
      if (colon == std::string::npos)
        throw UsageError(fmt::format("--timeline-window must be FROM:TO cycles, got '{}'", w));
      q.timeline_from = parse_uint("--timeline-window FROM", w.substr(0, colon), 0, 1ull << 50);
      q.timeline_to = parse_uint("--timeline-window TO", w.substr(colon + 1), 1, 1ull << 50);
    }
    require_writable("--timeline", q.timeline_path);
  } else if (vm.count("timeline-window") || !vm["timeline-cta"].defaulted()) {
    throw UsageError("--timeline-cta and --timeline-window need --timeline FILE.svg");
  }

  // Two outputs to one file: one would silently overwrite the other.
  {
    const std::pair<const char*, std::string> outputs[] = {
        {"--json", out.json_path == "-" ? std::string() : out.json_path},
        {"--trace", q.trace_path},
        {"--timeline", q.timeline_path}};
    for (size_t i = 0; i < 3; ++i)
      for (size_t j = i + 1; j < 3; ++j)
        if (!outputs[i].second.empty() && same_file(outputs[i].second, outputs[j].second))
          throw UsageError(fmt::format("{} and {} name the same file '{}'; give each its own",
                                       outputs[i].first, outputs[j].first, outputs[i].second));
  }

  // Again with the trace and timeline options, which have bounds of their own
  // (for conv2d, those of its implicit GEMM).
  if (std::string err = out.validate(q); !err.empty()) throw UsageError(err);
  return out;
}

}  // namespace sk::cli
