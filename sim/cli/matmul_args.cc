// matmul_args.cc: see matmul_args.h.
#include "sim/cli/matmul_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/cli/args.h"
#include "sim/cli/options.h"
#include "runner/kernels/matmul_dispatch.h"

namespace sk::cli {

po::options_description run_options() {
  po::options_description o("sim run options");
  add_problem_options(o);
  o.add_options()
      ("stages", po::value<std::string>()->default_value("4"), "input pipeline stages (2-8)")
      ("tile-n", po::value<std::string>()->default_value("256"), "tile N: 64, 128 or 256 (tile M is 128, K 64)")
      ("out-dtype", po::value<std::string>()->default_value("bf16"), "output type: bf16 or f32")
      ("amd-kernel", po::value<std::string>()->default_value("pingpong"),
       "--arch mi300x: pingpong (8 waves) or wave_specialized (2 loader + 4 MFMA waves)")
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
      ("params", po::value<std::string>(),
       "timing parameters of --arch from FILE (the format of models/<arch>/params.json) instead "
       "of the built-in ones")
      ("sm-clock", po::value<std::string>(),
       "--arch sm90: run the SMs at this clock in GHz, as with locked clocks, or at T,R: the "
       "tensor phase at T and the rest at R (default: the clocks the board's power limits allow "
       "for this kernel); the memory side keeps its own")
      ("max-cycles", po::value<std::string>()->default_value("4000000000"),
       "simulated-cycle bound; a run that reaches it is reported as a livelock")
      ("wall-limit", po::value<std::string>()->default_value("3600"),
       "wall-clock seconds before the simulation process is stopped");
  po::options_description conv("conv2d (--kernel conv2d; --n is the batch, --k the output channels)");
  conv.add_options()
      ("h", po::value<std::string>(), "input height")
      ("w", po::value<std::string>(), "input width")
      ("c", po::value<std::string>(), "input channels")
      ("r", po::value<std::string>(), "filter height")
      ("s", po::value<std::string>(), "filter width")
      ("stride", po::value<std::string>()->default_value("1"), "stride (both dimensions, 1-8)")
      ("pad", po::value<std::string>()->default_value("0"), "zero padding (both dimensions)")
      ("dilation", po::value<std::string>()->default_value("1"), "filter dilation (both dimensions)")
      ("residual", "fuse D = conv + beta * C, C loaded by an 8th warp (epilogue load)")
      ("beta", po::value<std::string>(), "the residual's scale (default 1)");
  o.add(conv);
  po::options_description scaled("block-scaled matmul (--kernel block_scaled_matmul)");
  scaled.add_options()
      ("format", po::value<std::string>(),
       "mxfp8 (FP8 elements, a UE8M0 scale per 32 along K) or nvfp4 (E2M1 elements, a UE4M3 "
       "scale per 16)")
      ("fp8-type", po::value<std::string>(), "mxfp8 element type: e4m3 (default) or e5m2");
  o.add(scaled);
  return o;
}

namespace {

// --kernel conv2d: the shape, and the implicit GEMM's dimensions in q.
sim::Conv2dShape parse_conv(const po::variables_map& vm, const char* cmd, sim::MatmulRequest& q) {
  const std::string arch = vm["arch"].as<std::string>();
  if (arch != "sm100") throw UsageError(fmt::format("conv2d is modelled on sm100, not '{}'", arch));
  if (vm.count("m"))
    throw UsageError("--m is not a conv2d option (the GEMM rows are N*P*Q; give --n --h --w --c --k --r --s)");
  for (const char* f : {"n", "h", "w", "c", "k", "r", "s"})
    if (!vm.count(f)) throw UsageError(fmt::format("sim {} --kernel conv2d: --{} is required", cmd, f));
  auto get = [&](const char* f, uint64_t lo, uint64_t hi) {
    return static_cast<uint32_t>(parse_uint(std::string("--") + f, vm[f].as<std::string>(), lo, hi));
  };
  sim::Conv2dShape s;
  s.n = get("n", 1, 65536);
  s.h = get("h", 1, 65536);
  s.w = get("w", 1, 65536);
  s.c = get("c", 1, 65536);
  s.k = get("k", 1, 65536);
  s.r = get("r", 1, 64);
  s.s = get("s", 1, 64);
  s.stride_h = s.stride_w = get("stride", 1, 8);
  s.pad_h = s.pad_w = get("pad", 0, 127);
  s.dil_h = s.dil_w = get("dilation", 1, 127);
  q.arch = arch;
  q.m = static_cast<uint32_t>(std::min<uint64_t>(s.gemm_m(), UINT32_MAX));
  q.n = s.k;
  q.k = static_cast<uint32_t>(std::min<uint64_t>(s.gemm_k(), UINT32_MAX));
  return s;
}

Family parse_family(const std::string& kernel) {
  if (kernel == "conv2d") return Family::kConv2d;
  if (kernel == "block_scaled_matmul") return Family::kBlockScaled;
  if (kernel == "blockwise_fp8_matmul") return Family::kBlockwiseFp8;
  return Family::kMatmul;  // anything else is checked by parse_problem
}

sim::BlockFormat parse_format(const po::variables_map& vm, const char* cmd) {
  if (!vm.count("format"))
    throw UsageError(fmt::format("sim {} --kernel block_scaled_matmul: --format mxfp8|nvfp4 is "
                                 "required",
                                 cmd));
  const std::string f = vm["format"].as<std::string>();
  const std::string t = vm.count("fp8-type") ? vm["fp8-type"].as<std::string>() : "e4m3";
  if (f == "nvfp4") {
    if (vm.count("fp8-type")) throw UsageError("--fp8-type is an mxfp8 option (nvfp4 is E2M1)");
    return sim::BlockFormat::kNvfp4;
  }
  if (f != "mxfp8")
    throw UsageError(fmt::format("--format must be mxfp8 or nvfp4, got '{}'", f));
  if (t != "e4m3" && t != "e5m2")
    throw UsageError(fmt::format("--fp8-type must be e4m3 or e5m2, got '{}'", t));
  return t == "e4m3" ? sim::BlockFormat::kMxfp8E4m3 : sim::BlockFormat::kMxfp8E5m2;
}

}  // namespace

const char* MatmulArgs::kernel_name() const {
  switch (family) {
    case Family::kConv2d: return "conv2d";
    case Family::kBlockScaled: return "block_scaled_matmul";
    case Family::kBlockwiseFp8: return "blockwise_fp8_matmul";
    default: return "matmul";
  }
}

std::string MatmulArgs::validate(const sim::MatmulRequest& run) const {
  switch (family) {
    case Family::kConv2d: {
      sim::Conv2dRequest c = conv_request();
      c.run = run;
      return sim::validate_conv2d(c);
    }
    case Family::kBlockScaled: return sim::validate_block_scaled({format, run});
    case Family::kBlockwiseFp8: return sim::validate_blockwise_fp8(run);
    default: return sim::validate_matmul(run);
  }
}

sim::RunResult MatmulArgs::simulate(const sim::MatmulRequest& run) const {
  switch (family) {
    case Family::kConv2d: {
      sim::Conv2dRequest c = conv_request();
      c.run = run;
      return sim::run_conv2d(c);
    }
    case Family::kBlockScaled: return sim::run_block_scaled({format, run});
    case Family::kBlockwiseFp8: return sim::run_blockwise_fp8(run);
    default: return sim::run_matmul(run);
  }
}

po::options_description verify_options() {
  po::options_description o = run_options();
  o.add_options()("schedules", po::value<std::string>()->default_value("100"),
                  "number of schedules to explore (seeds --seed, --seed + 1, ...)")
      ("jobs", po::value<std::string>()->default_value("2"), "simulations run in parallel");
  add_slurm_options(o);
  return o;
}

MatmulArgs parse_matmul_args(int argc, char** argv, const char* cmd,
                             const po::options_description& opts) {
  // Options that take --slurm (verify_options) also take an array task's --slice.
  const bool slurm = opts.find_nothrow("slurm", false) != nullptr;
  const po::options_description hidden = slice_options();
  const po::variables_map vm = parse_options(argc, argv, cmd, opts, slurm ? &hidden : nullptr);
  MatmulArgs out;
  out.help = print_help(vm, cmd, opts);
  if (out.help) return out;
  sim::MatmulRequest& q = out.q;
  out.family = parse_family(vm["kernel"].as<std::string>());
  out.conv = out.family == Family::kConv2d;
  if (out.family != Family::kBlockScaled && (vm.count("format") || vm.count("fp8-type")))
    throw UsageError("--format and --fp8-type are block_scaled_matmul options");
  if (out.conv) {
    out.conv_shape = parse_conv(vm, cmd, q);
    out.residual = vm.count("residual") > 0;
    if (vm.count("beta")) {
      if (!out.residual) throw UsageError("--beta needs --residual");
      const std::string t = vm["beta"].as<std::string>();
      char* end = nullptr;
      const double b = t.empty() ? 0 : std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size() || !(b >= -1e6 && b <= 1e6))
        throw UsageError(fmt::format("--beta expects a number in [-1e6, 1e6], got '{}'", t));
      out.beta = static_cast<float>(b);
    }
  } else {
    if (vm.count("residual") || vm.count("beta"))
      throw UsageError("--residual and --beta are conv2d options (--kernel conv2d)");
    for (const char* f : {"h", "w", "c", "r", "s"})
      if (vm.count(f)) throw UsageError(fmt::format("--{} is a conv2d option (--kernel conv2d)", f));
    if (!vm["stride"].defaulted() || !vm["pad"].defaulted() || !vm["dilation"].defaulted())
      throw UsageError("--stride, --pad and --dilation are conv2d options (--kernel conv2d)");
    const Shape shape = parse_problem(vm, cmd, {"matmul", "block_scaled_matmul", "blockwise_fp8_matmul"});
    if (out.family == Family::kBlockScaled) out.format = parse_format(vm, cmd);
    q.arch = shape.arch;
    q.m = shape.m;
    q.n = shape.n;
    q.k = shape.k;
  }
  q.stages = static_cast<uint32_t>(parse_uint("--stages", vm["stages"].as<std::string>(), 2, 8));
  q.tile_n = static_cast<uint32_t>(parse_uint("--tile-n", vm["tile-n"].as<std::string>(), 1, 4096));
  // conv2d instantiates tiles 64 and 128 wide, blockwise FP8 only 128.
  if ((out.conv || out.family == Family::kBlockwiseFp8) && vm["tile-n"].defaulted()) q.tile_n = 128;
  // The CDNA3 matmuls: a 128x128 tile, three stages fill the LDS.
  if (q.arch == "mi300x") {
    if (vm["tile-n"].defaulted()) q.tile_n = 128;
    if (vm["stages"].defaulted()) q.stages = 3;
    q.amd_kernel = vm["amd-kernel"].as<std::string>();
  } else if (!vm["amd-kernel"].defaulted()) {
    throw UsageError("--amd-kernel needs --arch mi300x");
  }
  q.seed = parse_uint("--seed", vm["seed"].as<std::string>(), 0, UINT64_MAX / 2);
  q.max_cycles = parse_uint("--max-cycles", vm["max-cycles"].as<std::string>(), 1000,
                                     1ull << 50);
  out.wall = static_cast<double>(
      parse_uint("--wall-limit", vm["wall-limit"].as<std::string>(), 1, 86400));
  q.out_f32 = parse_out_f32(vm);
  const std::string scheduler = vm["scheduler"].as<std::string>();
  if (scheduler != "static" && scheduler != "clc")
    throw UsageError(fmt::format("--scheduler must be static or clc, got '{}'", scheduler));
  q.clc = scheduler == "clc";
  q.functional = vm.count("functional") > 0;
  if (vm.count("schedules")) {
    q.functional = true;  // race detection needs the per-lane data accesses
    out.schedules = parse_uint("--schedules", vm["schedules"].as<std::string>(), 1, 1000000);
    out.jobs = static_cast<int>(parse_uint("--jobs", vm["jobs"].as<std::string>(), 1, 64));
  }
  if (vm.count("sm-clock")) {
    if (q.arch != "sm90") throw UsageError("--sm-clock is modelled for --arch sm90 only");
    const std::string t = vm["sm-clock"].as<std::string>();
    auto ghz = [&t](const std::string& part) {
      char* end = nullptr;
      const double g = part.empty() ? 0 : std::strtod(part.c_str(), &end);
      if (part.empty() || end != part.c_str() + part.size() || !(g >= 0.1 && g <= 10))
        throw UsageError(fmt::format("--sm-clock expects GHz in [0.1, 10] or two of them as T,R, got '{}'", t));
      return g;
    };
    const auto comma = t.find(',');
    q.sm_clock_ghz = ghz(t.substr(0, comma));
    q.rest_clock_ghz = comma == std::string::npos ? q.sm_clock_ghz : ghz(t.substr(comma + 1));
  }
  if (vm.count("params")) {
    const std::string path = resolve_path(vm["params"].as<std::string>());
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (!(text << in.rdbuf())) throw UsageError(fmt::format("--params: cannot read '{}'", path));
    if (std::string err = sim::use_params_file(q.arch, text.str()); !err.empty())
      throw UsageError(fmt::format("--params {}: {}", path, err));
  }
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
    q.timeline_cta = static_cast<int>(
        parse_uint("--timeline-cta", vm["timeline-cta"].as<std::string>(), 0, 4095));
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

  // Again with the trace and timeline options, which have bounds of their own
  // (for conv2d, those of its implicit GEMM).
  if (std::string err = out.validate(q); !err.empty()) throw UsageError(err);
  if (out.family != Family::kMatmul) {
    if (std::string res = sim::validate_resources(q); !res.empty()) throw UsageError(res);
    if (!q.timeline_path.empty() && static_cast<uint64_t>(q.timeline_cta) >= sim::sms_used(q))
      throw UsageError(fmt::format("--timeline-cta {} does not exist: this launch has {} CTAs",
                                   q.timeline_cta, sim::sms_used(q)));
  }
  return out;
}

}  // namespace sk::cli
