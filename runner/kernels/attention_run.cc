// attention_run.cc: see attention_run.h.
#include "runner/kernels/attention_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/sm100_attention.h"
#include "kernels/attention/sm90_attention.h"
#include "models/sm100/gpu.h"
#include "models/sm100/phase_clock.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/kernels/attention_host.h"
#include "runner/kernels/attention_stamps.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/power_clocks.h"
#include "runner/kernels/sm100_launch.h"
#include "runner/kernels/sm100_summary.h"
#include "runner/kernels/sm90_launch.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

models::sm100::KernelActivity activity(const AttentionRequest& req, const RunResult& r) {
  const AttentionShape& s = req.shape;
  models::sm100::KernelActivity a;
  a.flops = s.flops();
  // Q once per tile, K and V once per tile and block read (the causal blocks
  // past the diagonal are skipped: about half).
  const double bn = r.tile_n;  // keys per K/V block (the config's BN)
  const double tiles = std::ceil(s.seqlen_q / 128.0) * s.heads * s.batch;
  const double blocks = std::ceil(s.seqlen_k / bn) * (s.causal ? 0.5 : 1.0);
  a.tma_bytes = tiles * s.head_dim * 2 * (128.0 + 2 * blocks * bn);
  if (r.status != "completed" && a.tma_bytes > 0) {
    // Stopped (the clock search's window): the share of the launch done is
    // the share of its loads the tensor cores have taken, which is what TMA
    // brought less what each producer holds ahead of them (its Q tile and
    // S - 1 stages of K and V).
    const double ahead = static_cast<double>(r.ctas) * s.head_dim * 2 *
                         (128.0 + 2.0 * (std::max<uint32_t>(r.stages, 1) - 1) * bn);
    const double done = std::max(0.0, static_cast<double>(r.smem_fill_bytes) - ahead) / a.tma_bytes;
    a.flops *= done;
    a.tma_bytes *= done;
  }
  a.hbm_bytes = static_cast<double>(r.hbm_bytes);
  a.cycles = r.cycles;
  a.tensor_cycles = r.tensor_phase_cycles;
  a.active_sms = static_cast<int>(r.ctas);
  return a;
}

// The fields of a run's result that both kernels fill alike.
RunResult describe(const AttentionShape& s, const MatmulRequest& q, const char* arch,
                   std::string config_name, uint32_t tile_m, uint32_t tile_n, uint32_t stages,
                   int grid, RunStatus status) {
  RunResult r;
  r.kernel = "attention";
  r.arch = arch;
  r.m = s.seqlen_q;
  r.n = s.seqlen_k;
  r.k = s.head_dim;
  r.batch = s.batch * s.heads;
  r.config_name = std::move(config_name);
  r.tile_m = tile_m;
  r.tile_n = tile_n;
  r.tile_k = s.head_dim;
  r.stages = stages;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = s.f16 ? "f16" : "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = run_status_name(status);
  return r;
}

// The end of both runs: the check in functional mode, the output files and
// the wall time since t0.
void finish(Gpu& gpu, const AttentionShape& s, const AttentionBuffers& b, float softmax_scale,
            const MatmulRequest& q, RunStatus status, std::chrono::steady_clock::time_point t0,
            RunResult& r) {
  settle_incomplete(r, gpu.engine().limit_reason());
  if (q.functional && status == RunStatus::kCompleted) r.check = check_attention(gpu, s, b, softmax_scale);
  r.output_errors = write_run_files(gpu, q, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <int D, int S, class Elem>
RunResult run_config(const AttentionRequest& req, const MatmulRequest& q,
                     models::sm100::LaunchClocks f) {
  using C = Sm90AttentionConfig<D, S, Elem>;
  // The probe costs nothing unless a StampLog is installed (--stamp-tiles).
  using Kernel = Sm90Attention<C, AttentionBug::kNone, StampLog::Probe>;
  const AttentionShape& s = req.shape;
  const auto t0 = std::chrono::steady_clock::now();
  Gpu gpu(models::sm90::gpu_params(), q.functional);
  start_sm90_launch(gpu, f);
  configure_run(gpu, q, t0);
  std::mt19937_64 rng(q.operand_seed());
  const AttentionBuffers b = allocate_attention(gpu, s, rng);
  const auto p = attention_params<typename Kernel::Params>(s, b, req.softmax_scale, C::BN);
  const auto races = attach_race_detector(gpu, q);
  const uint64_t tiles = uint64_t{(s.seqlen_q + 127) / 128} * s.heads * s.batch;
  const int grid = static_cast<int>(std::min<uint64_t>(tiles, gpu.params().num_sms));
  StampLog stamps;
  const StampLog::Scope stamping(req.stamp_tiles ? &stamps : nullptr);
  const std::string err = gpu.launch(grid, C::kThreads / 32, C::kSmemBytes, [&p] { Kernel::run(p); });
  if (!err.empty()) throw std::runtime_error(err);
  const RunStatus status = gpu.run(q.max_cycles);

  RunResult r = describe(s, q, "sm90",
                         fmt::format("sm90_attention_{}d{}_128x{}_s{}{}", C::kF16 ? "f16_" : "", D,
                                     C::BN, S, s.causal ? "_causal" : ""),
                         128, C::BN, S, grid, status);
  summarize_sm100(gpu, s.flops(), r, 1.0, AccumulatorWait::kTensorCore);
  // The work is one 128-row query tile per (tile, head, batch), not the
  // GEMM view's M x N tiles.
  set_waves(r, tiles, static_cast<uint32_t>(gpu.params().num_sms));
  finish_sm90_launch(gpu, s.flops(), f, r, [&req](const RunResult& x) { return activity(req, x); });
  if (req.stamp_tiles) r.stamps = stamps.to_json(static_cast<uint32_t>(grid));
  finish(gpu, s, b, p.softmax_scale, q, status, t0, r);
  return r;
}

// The SM100 (FlashAttention-4 style) kernel: two 128-row Q tiles per CTA
// work unit.
template <int D, int S, class Elem>
RunResult run_config_sm100(const AttentionRequest& req, const MatmulRequest& q,
                           models::sm100::LaunchClocks f, models::sm100::KernelActivity& act) {
  using C = Sm100AttentionConfig<D, S, Elem>;
  using Kernel = Sm100Attention<C>;
  const AttentionShape& s = req.shape;
  const auto t0 = std::chrono::steady_clock::now();
  models::sm100::Params params = models::sm100::Params::builtin();
  if (q.num_sms > 0) params.num_sms = q.num_sms;
  Gpu gpu(params, q.functional);
  models::sm100::phase_clock().start(gpu, {f.tensor_ghz, f.rest_ghz, params.clock_hold_ns});
  configure_run(gpu, q, t0);
  std::mt19937_64 rng(q.operand_seed());
  const AttentionBuffers b = allocate_attention(gpu, s, rng);
  const auto p = sm100_attention_params<typename Kernel::Params>(s, b, req.softmax_scale);
  const auto races = attach_race_detector(gpu, q);
  const uint32_t units = Kernel::work_units(p);
  const int grid = static_cast<int>(std::min<uint32_t>(units, static_cast<uint32_t>(params.num_sms)));
  const std::string err = gpu.launch(grid, C::kThreads / 32, C::kSmemBytes, [&p] { Kernel::run(p); });
  if (!err.empty()) {
    models::sm100::phase_clock().stop();
    throw std::runtime_error(err);
  }
  const RunStatus status = gpu.run(q.max_cycles);
  models::sm100::phase_clock().stop();

  RunResult r = describe(s, q, "sm100",
                         fmt::format("sm100_attention_{}d{}_2x128x{}_s{}{}", C::kF16 ? "f16_" : "",
                                     D, C::BN, S, s.causal ? "_causal" : ""),
                         256, C::BN, S, grid, status);
  summarize_sm100(gpu, s.flops(), r, 1.0, AccumulatorWait::kTensorCore);
  set_waves(r, units, static_cast<uint32_t>(params.num_sms));
  act = finish_sm100_clocks(gpu, params, f, s.flops(), r);
  finish(gpu, s, b, p.softmax_scale, q, status, t0, r);
  return r;
}

// The kernel's work units for a shape (its persistent CTAs share them).
template <int D, int S, class Elem>
uint32_t sm100_work_units(const AttentionShape& s) {
  using Kernel = Sm100Attention<Sm100AttentionConfig<D, S, Elem>>;
  typename Kernel::Params p{};
  p.batch = s.batch, p.heads = s.heads, p.seqlen_q = s.seqlen_q;
  return Kernel::work_units(p);
}

// A configuration's runner and its work units; run is null where it does not
// fit in shared memory or tensor memory.
struct Sm100Runner {
  RunResult (*run)(const AttentionRequest&, const MatmulRequest&, models::sm100::LaunchClocks,
                   models::sm100::KernelActivity&) = nullptr;
  uint32_t (*work_units)(const AttentionShape&) = nullptr;
};
template <int D, int S, class Elem>
Sm100Runner sm100_if_fits() {
  if constexpr (Sm100AttentionConfig<D, S, Elem>::kFits)
    return {&run_config_sm100<D, S, Elem>, &sm100_work_units<D, S, Elem>};
  else
    return {};
}
template <int D, class Elem>
Sm100Runner sm100_by_stages(uint32_t stages) {
  switch (stages) {
    case 2: return sm100_if_fits<D, 2, Elem>();
    case 3: return sm100_if_fits<D, 3, Elem>();
    case 4: return sm100_if_fits<D, 4, Elem>();
    default: return {};
  }
}
template <class Elem>
Sm100Runner sm100_by_head_dim(const AttentionRequest& req) {
  switch (req.shape.head_dim) {
    case 64: return sm100_by_stages<64, Elem>(req.run.stages);
    case 128: return sm100_by_stages<128, Elem>(req.run.stages);
    default: return {};
  }
}
Sm100Runner sm100_lookup(const AttentionRequest& req) {
  return req.shape.f16 ? sm100_by_head_dim<f16_t>(req) : sm100_by_head_dim<bf16_t>(req);
}

using Runner = RunResult (*)(const AttentionRequest&, const MatmulRequest&, models::sm100::LaunchClocks);
// The configuration's runner, or null where it does not fit in shared memory.
template <int D, int S, class Elem>
Runner if_fits() {
  if constexpr (Sm90AttentionConfig<D, S, Elem>::kFits)
    return &run_config<D, S, Elem>;
  else
    return nullptr;
}
template <int D, class Elem>
Runner by_stages(uint32_t stages) {
  switch (stages) {
    case 2: return if_fits<D, 2, Elem>();
    case 3: return if_fits<D, 3, Elem>();  // not at head dim 256
    default: return nullptr;
  }
}
template <class Elem>
Runner by_head_dim(const AttentionRequest& req) {
  switch (req.shape.head_dim) {
    case 64: return by_stages<64, Elem>(req.run.stages);
    case 128: return by_stages<128, Elem>(req.run.stages);
    case 256: return by_stages<256, Elem>(req.run.stages);
    default: return nullptr;
  }
}
Runner lookup(const AttentionRequest& req) {
  return req.shape.f16 ? by_head_dim<f16_t>(req) : by_head_dim<bf16_t>(req);
}
}  // namespace

double AttentionShape::flops() const {
  const double f = 4.0 * batch * heads * seqlen_q * static_cast<double>(seqlen_k) * head_dim;
  return causal ? f / 2 : f;
}

std::string validate_attention(const AttentionRequest& req) {
  const AttentionShape& s = req.shape;
  const bool sm100 = req.run.arch == "sm100";
  if (req.run.arch != "sm90" && !sm100)
    return fmt::format("--kernel attention runs on --arch sm90 or sm100, not {}", req.run.arch);
  if (sm100 ? s.head_dim != 64 && s.head_dim != 128
            : s.head_dim != 64 && s.head_dim != 128 && s.head_dim != 256)
    return fmt::format("--head-dim {} is not supported on {} ({})", s.head_dim, req.run.arch,
                       sm100 ? "64 or 128: S, P and O of two Q tiles fill TMEM's 512 columns at 128"
                             : "64, 128 or 256");
  if (s.batch == 0 || s.heads == 0 || s.kv_heads == 0 || s.seqlen_q == 0 || s.seqlen_k == 0)
    return "--batch, --heads, --kv-heads, --seqlen-q and --seqlen-k must be at least 1";
  if (s.heads % s.kv_heads != 0)
    return fmt::format("--heads {} is not a multiple of --kv-heads {}", s.heads, s.kv_heads);
  if (sm100 && req.stamp_tiles)
    return "--stamp-tiles reads the SM90 kernel's probe points; the sm100 kernel has none";
  if (req.run.tile_n != 128)
    return fmt::format("--tile-n {} is not supported: attention's tiles are 128 query rows by 128 keys "
                       "(64 at head dim 256)",
                       req.run.tile_n);
  if (sm100 ? req.run.stages < 2 || req.run.stages > 4 : req.run.stages < 2 || req.run.stages > 3)
    return fmt::format("--stages {} is outside {} ({})", req.run.stages, sm100 ? "2-4" : "2-3",
                       sm100 ? "one ring of K and V tiles of 128 x head-dim"
                             : "K and V rings of 128 x head-dim tiles");
  if (sm100 ? sm100_lookup(req).run == nullptr : lookup(req) == nullptr)
    return fmt::format("{} stages of K and V at head dim {} do not fit in 227 KB of shared memory",
                       req.run.stages, s.head_dim);
  if (uint64_t{s.batch} * s.heads * ((s.seqlen_q + 127) / 128) > (1u << 31))
    return "the grid of query tiles exceeds 2^31";
  if (req.run.functional &&
      static_cast<double>(s.batch) * s.heads * s.seqlen_q * static_cast<double>(s.seqlen_k) * s.head_dim >
          static_cast<double>(1ull << 33))
    return "--functional is limited to batch*heads*seqlen_q*seqlen_k*head_dim <= 2^33 (it computes "
           "real products); use timing mode for larger shapes";
  return "";
}

namespace {
// The SM90 clock search's first window (power_clocks.h): 200,000 cycles
// where that is at most 40 % of the launch at the tensor cores' peak (4,096
// dense FLOP per SM and cycle: an m64nNk16 op's 2,048 N FLOP in N / 2
// cycles) on the SMs it occupies, a bound below the launch's time (softmax
// and the loads only add to it); 0 (the whole launch) otherwise.
uint64_t sm90_attention_window(const AttentionShape& s, uint32_t num_sms) {
  const double ctas = std::min<double>(std::ceil(s.seqlen_q / 128.0) * s.heads * s.batch, num_sms);
  if (ctas <= 0) return 0;
  const double peak = 2.0 * 64 * 16 / models::sm90::extras().wgmma_ii_per_n;
  return window_if_short(s.flops() / (peak * ctas));
}
}  // namespace

RunResult run_attention(const AttentionRequest& req) {
  const std::string err = validate_attention(req);
  if (!err.empty()) throw std::invalid_argument(err);
  if (req.run.arch == "sm100") {
    const Sm100Runner runner = sm100_lookup(req);
    models::sm100::Params params = models::sm100::Params::builtin();
    if (req.run.num_sms > 0) params.num_sms = req.run.num_sms;
    models::sm100::KernelActivity act;
    // The window's rule is the SM100 matmul's: its launch at the tensor
    // cores' peak, on the SMs the work units occupy.
    Sm100Launch launch;
    launch.flops = req.shape.flops();
    const int sms = static_cast<int>(
        std::min<uint32_t>(runner.work_units(req.shape), static_cast<uint32_t>(params.num_sms)));
    return run_power_limited(
        req.run, params.power, params.clock_ghz,
        [&](const MatmulRequest& q, models::sm100::LaunchClocks f) {
          return runner.run(req, q, f, act);
        },
        [&act](const RunResult&) { return act; }, sm100_clock_window(params, launch, sms));
  }
  const Runner run = lookup(req);
  const models::sm100::Params& params = models::sm90::gpu_params();
  return run_power_limited(
      req.run, params.power, params.clock_ghz,
      [&req, run](const MatmulRequest& q, models::sm100::LaunchClocks f) { return run(req, q, f); },
      [&req](const RunResult& r) { return activity(req, r); },
      sm90_attention_window(req.shape, req.run.num_sms > 0 ? req.run.num_sms : params.num_sms));
}

}  // namespace sk::sim
