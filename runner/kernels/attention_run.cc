// attention_run.cc: see attention_run.h.
#include "runner/kernels/attention_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/attention/sm90_attention.h"
#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/power_clocks.h"
#include "runner/kernels/sm100_summary.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

struct Buffers {
  uint64_t q = 0, k = 0, v = 0, o = 0, lse = 0;
};

std::string encode(models::sm100::TensorMapModel& map, uint64_t base, uint32_t d, uint32_t rows,
                   uint32_t matrices) {
  const uint64_t dims[3] = {d, rows, matrices};
  const uint64_t strides[2] = {uint64_t{d} * 2, uint64_t{d} * rows * 2};
  return models::sm100::encode_tiled_3d(map, base, 2, dims, strides, 64, 128,
                                        models::sm100::Swizzle::k128B);
}

void fill(Gpu& gpu, uint64_t addr, uint64_t elements, std::mt19937_64& rng) {
  if (!gpu.functional()) return;
  std::normal_distribution<float> dist(0.0f, 1.0f);
  auto* p = reinterpret_cast<bf16_t*>(gpu.gmem().host(addr));
  for (uint64_t i = 0; i < elements; ++i) p[i] = to_bf16(dist(rng));
}

// FP64 softmax(Q K^T * scale) V of every row against O (BF16) and LSE.
CheckResult check(Gpu& gpu, const AttentionRequest& req, const Buffers& b, float scale) {
  CheckResult c;
  c.reference = "FP64 softmax(Q K^T * scale) V over the BF16 inputs";
  const AttentionShape& s = req.shape;
  const uint32_t d = s.head_dim;
  const auto* q = reinterpret_cast<const bf16_t*>(gpu.gmem().host(b.q));
  const auto* k = reinterpret_cast<const bf16_t*>(gpu.gmem().host(b.k));
  const auto* v = reinterpret_cast<const bf16_t*>(gpu.gmem().host(b.v));
  const auto* o = reinterpret_cast<const bf16_t*>(gpu.gmem().host(b.o));
  const auto* lse = reinterpret_cast<const float*>(gpu.gmem().host(b.lse));
  const uint64_t lse_stride = (s.seqlen_q + 3) / 4 * 4;
  c.ran = true;
  c.passed = true;
  std::vector<double> p(s.seqlen_k), out(d);
  const int64_t diag = int64_t{s.seqlen_k} - s.seqlen_q;
  for (uint32_t bi = 0; bi < s.batch; ++bi)
    for (uint32_t h = 0; h < s.heads; ++h) {
      const uint64_t qm = uint64_t{bi} * s.heads + h;
      const uint64_t km = uint64_t{bi} * s.kv_heads + h / (s.heads / s.kv_heads);
      for (uint32_t r = 0; r < s.seqlen_q; ++r) {
        const bf16_t* qr = q + (qm * s.seqlen_q + r) * d;
        const int64_t last = s.causal ? std::min<int64_t>(int64_t{r} + diag, s.seqlen_k - 1)
                                      : int64_t{s.seqlen_k} - 1;
        double mx = -INFINITY;
        for (int64_t cidx = 0; cidx <= last; ++cidx) {
          const bf16_t* kr = k + (km * s.seqlen_k + cidx) * d;
          double dot = 0;
          for (uint32_t x = 0; x < d; ++x) dot += double{to_float(qr[x])} * to_float(kr[x]);
          p[cidx] = dot * scale;
          mx = std::max(mx, p[cidx]);
        }
        double sum = 0;
        for (int64_t cidx = 0; cidx <= last; ++cidx) sum += (p[cidx] = std::exp(p[cidx] - mx));
        std::fill(out.begin(), out.end(), 0.0);
        double mag = 0;  // a bound on |O| elements' scale: max |V| over the row's keys
        for (int64_t cidx = 0; cidx <= last; ++cidx) {
          const bf16_t* vr = v + (km * s.seqlen_k + cidx) * d;
          for (uint32_t x = 0; x < d; ++x) {
            out[x] += p[cidx] / sum * to_float(vr[x]);
            mag = std::max(mag, std::fabs(double{to_float(vr[x])}));
          }
        }
        const double want_lse = last < 0 ? -INFINITY : mx + std::log(sum);
        const float got_lse = lse[qm * lse_stride + r];
        const bool lse_ok = last < 0 ? std::isinf(got_lse) && got_lse < 0
                                     : std::fabs(got_lse - want_lse) <= 1e-3 * (1 + std::fabs(want_lse));
        if (!lse_ok && c.passed) {
          c.passed = false;
          c.detail = fmt::format("LSE[b={}, h={}, row {}] = {}, expected {:.6g}", bi, h, r, got_lse,
                                 want_lse);
        }
        for (uint32_t x = 0; x < d; ++x) {
          const double got = to_float(o[(qm * s.seqlen_q + r) * d + x]);
          const double err = std::fabs(got - out[x]);
          // P is rounded to BF16 before P V (2^-8 relative per term) and O to
          // BF16 at the end: a bound of 2^-7 of the row's largest |V|.
          const double tol = std::ldexp(1.0, -7) * std::max(mag, 1e-30) + std::ldexp(1.0, -8) * std::fabs(out[x]);
          c.max_abs_err = std::max(c.max_abs_err, err);
          if (std::fabs(out[x]) > 0) c.max_rel_err = std::max(c.max_rel_err, err / std::fabs(out[x]));
          c.max_tolerance_fraction = std::max(c.max_tolerance_fraction, err / tol);
          if (err > tol && c.passed) {
            c.passed = false;
            c.detail = fmt::format("O[b={}, h={}, row {}, col {}] = {:.6g}, expected {:.6g}", bi, h, r,
                                   x, got, out[x]);
          }
        }
      }
    }
  return c;
}

models::sm100::KernelActivity activity(const AttentionRequest& req, const RunResult& r) {
  const AttentionShape& s = req.shape;
  models::sm100::KernelActivity a;
  a.flops = s.flops();
  // Q once per tile, K and V once per tile and block read (the causal blocks
  // past the diagonal are skipped: about half).
  const double tiles = std::ceil(s.seqlen_q / 128.0) * s.heads * s.batch;
  const double blocks = std::ceil(s.seqlen_k / 128.0) * (s.causal ? 0.5 : 1.0);
  a.tma_bytes = tiles * (128.0 * s.head_dim * 2) * (1 + 2 * blocks);
  a.hbm_bytes = static_cast<double>(r.hbm_bytes);
  a.cycles = r.cycles;
  a.tensor_cycles = r.tensor_phase_cycles;
  a.active_sms = static_cast<int>(r.ctas);
  return a;
}

template <int D, int S>
RunResult run_config(const AttentionRequest& req, const MatmulRequest& q,
                     models::sm100::LaunchClocks f) {
  using C = Sm90AttentionConfig<D, S>;
  using Kernel = Sm90Attention<C>;
  const AttentionShape& s = req.shape;
  const auto t0 = std::chrono::steady_clock::now();
  Gpu gpu(models::sm90::gpu_params(), q.functional);
  models::sm90::api::reset();
  models::sm90::api::phase_clock().start(
      gpu, {f.tensor_ghz, f.rest_ghz, models::sm90::gpu_params().clock_hold_ns});
  configure_run(gpu, q, t0);
  Buffers b;
  const uint64_t q_elems = uint64_t{s.batch} * s.heads * s.seqlen_q * D;
  const uint64_t kv_elems = uint64_t{s.batch} * s.kv_heads * s.seqlen_k * D;
  auto& mem = gpu.gmem();
  b.q = mem.allocate(q_elems * 2, "Q");
  b.k = mem.allocate(kv_elems * 2, "K");
  b.v = mem.allocate(kv_elems * 2, "V");
  b.o = mem.allocate(q_elems * 2, "O");
  const uint32_t lse_stride = (s.seqlen_q + 3) / 4 * 4;
  b.lse = mem.allocate(uint64_t{s.batch} * s.heads * lse_stride * 4, "LSE");
  std::mt19937_64 rng(q.seed);
  fill(gpu, b.q, q_elems, rng);
  fill(gpu, b.k, kv_elems, rng);
  fill(gpu, b.v, kv_elems, rng);
  typename Kernel::Params p{};
  fail_encode(encode(p.q, b.q, D, s.seqlen_q, s.batch * s.heads));
  fail_encode(encode(p.k, b.k, D, s.seqlen_k, s.batch * s.kv_heads));
  fail_encode(encode(p.v, b.v, D, s.seqlen_k, s.batch * s.kv_heads));
  p.o = reinterpret_cast<bf16_t*>(b.o);
  p.lse = reinterpret_cast<float*>(b.lse);
  p.lse_stride = lse_stride;
  p.batch = s.batch;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.seqlen_q = s.seqlen_q;
  p.seqlen_k = s.seqlen_k;
  p.softmax_scale = req.softmax_scale > 0 ? req.softmax_scale : 1.0f / std::sqrt(static_cast<float>(D));
  p.causal = s.causal ? 1 : 0;
  const auto races = attach_race_detector(gpu, q);
  const uint64_t tiles = uint64_t{(s.seqlen_q + 127) / 128} * s.heads * s.batch;
  const int grid = static_cast<int>(std::min<uint64_t>(tiles, gpu.params().num_sms));
  const std::string err = gpu.launch(grid, C::kThreads / 32, C::kSmemBytes, [&p] { Kernel::run(p); });
  if (!err.empty()) throw std::runtime_error(err);
  const RunStatus status = gpu.run(q.max_cycles);

  RunResult r;
  r.kernel = "attention";
  r.arch = "sm90";
  r.m = s.seqlen_q;
  r.n = s.seqlen_k;
  r.k = D;
  r.batch = s.batch * s.heads;
  r.config_name = fmt::format("sm90_attention_d{}_128x128_s{}{}", D, S, s.causal ? "_causal" : "");
  r.tile_m = 128;
  r.tile_n = 128;
  r.tile_k = D;
  r.stages = S;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = run_status_name(status);
  summarize_sm100(gpu, s.flops(), r, 1.0, AccumulatorWait::kTensorCore);
  // The work is one 128-row query tile per (tile, head, batch), not the
  // GEMM view's M x N tiles.
  r.tiles = tiles;
  r.waves = static_cast<double>(tiles) / gpu.params().num_sms;
  const uint64_t tail = tiles % static_cast<uint64_t>(gpu.params().num_sms);
  r.tail_wave_pct = tail == 0 ? 100.0 : 100.0 * static_cast<double>(tail) / gpu.params().num_sms;
  models::sm90::api::phase_clock().stop();
  const double f_max = models::sm90::gpu_params().clock_ghz;
  r.tensor_phase_ghz = f.tensor_ghz;
  r.rest_phase_ghz = f.rest_ghz;
  r.tensor_phase_cycles = models::sm90::api::phase_clock().tensor_cycles(r.cycles);
  r.predicted_time_us += models::sm90::extras().launch_overhead_cycles / (f_max * 1e3);
  r.tflops = s.flops() / (r.predicted_time_us * 1e-6) / 1e12;
  r.peak_tflops = 4096.0 * gpu.params().num_sms * f_max * 1e9 / 1e12;
  r.peak_fraction = r.tflops / r.peak_tflops;
  r.power_w = models::sm100::board_power_w(models::sm90::gpu_params().power, f_max, f, activity(req, r));
  settle_incomplete(r, gpu.engine().limit_reason());
  if (q.functional && status == RunStatus::kCompleted) r.check = check(gpu, req, b, p.softmax_scale);
  r.output_errors = write_run_files(gpu, q, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

using Runner = RunResult (*)(const AttentionRequest&, const MatmulRequest&, models::sm100::LaunchClocks);
template <int D>
Runner by_stages(uint32_t stages) {
  switch (stages) {
    case 2: return &run_config<D, 2>;
    case 3: return Sm90AttentionConfig<D, 2>::kSmemBytes + Sm90AttentionConfig<D, 2>::kKvBytes * 2 <= 232448
                       ? &run_config<D, 3>
                       : nullptr;
    default: return nullptr;
  }
}
Runner lookup(const AttentionRequest& req) {
  return req.shape.head_dim == 128 ? by_stages<128>(req.run.stages)
         : req.shape.head_dim == 64 ? by_stages<64>(req.run.stages)
                                    : nullptr;
}
}  // namespace

double AttentionShape::flops() const {
  const double f = 4.0 * batch * heads * seqlen_q * static_cast<double>(seqlen_k) * head_dim;
  return causal ? f / 2 : f;
}

std::string validate_attention(const AttentionRequest& req) {
  const AttentionShape& s = req.shape;
  if (req.run.arch != "sm90")
    return fmt::format("--kernel attention runs on --arch sm90 only so far, not {}", req.run.arch);
  if (s.head_dim != 64 && s.head_dim != 128)
    return fmt::format("--head-dim {} is not supported (64 or 128)", s.head_dim);
  if (s.batch == 0 || s.heads == 0 || s.kv_heads == 0 || s.seqlen_q == 0 || s.seqlen_k == 0)
    return "--batch, --heads, --kv-heads, --seqlen-q and --seqlen-k must be at least 1";
  if (s.heads % s.kv_heads != 0)
    return fmt::format("--heads {} is not a multiple of --kv-heads {}", s.heads, s.kv_heads);
  if (req.run.stages < 2 || req.run.stages > 3)
    return fmt::format("--stages {} is outside 2-3 (K and V rings of 128 x head-dim tiles)", req.run.stages);
  if (lookup(req) == nullptr)
    return fmt::format("{} stages of K and V at head dim {} do not fit in 227 KB of shared memory",
                       req.run.stages, s.head_dim);
  if (uint64_t{s.batch} * s.heads * (s.seqlen_q + 127) / 128 > (1u << 31))
    return "the grid of query tiles exceeds 2^31";
  if (req.run.functional &&
      static_cast<double>(s.batch) * s.heads * s.seqlen_q * static_cast<double>(s.seqlen_k) * s.head_dim >
          static_cast<double>(1ull << 33))
    return "--functional is limited to batch*heads*seqlen_q*seqlen_k*head_dim <= 2^33 (it computes "
           "real products); use timing mode for larger shapes";
  return "";
}

RunResult run_attention(const AttentionRequest& req) {
  const std::string err = validate_attention(req);
  if (!err.empty()) throw std::invalid_argument(err);
  const Runner run = lookup(req);
  return run_power_limited(
      req.run, models::sm90::gpu_params().power, models::sm90::gpu_params().clock_ghz,
      [&req, run](const MatmulRequest& q, models::sm100::LaunchClocks f) { return run(req, q, f); },
      [&req](const RunResult& r) { return activity(req, r); });
}

}  // namespace sk::sim
