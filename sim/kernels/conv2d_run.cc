// conv2d_run.cc: see conv2d_run.h.
#include "sim/kernels/conv2d_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv2d/config.h"
#include "models/sm100/gpu.h"
#include "sim/kernels/matmul_check.h"
#include "sim/kernels/matmul_host.h"
#include "sim/kernels/sm100_summary.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;
using models::sm100::Swizzle;

constexpr uint32_t kBm = 128, kBk = 64;

uint32_t out_size(uint32_t in, uint32_t pad, uint32_t dil, uint32_t filter, uint32_t stride) {
  const int64_t span = int64_t{in} + 2 * int64_t{pad} - int64_t{dil} * (filter - 1) - 1;
  return span < 0 ? 0 : static_cast<uint32_t>(span / stride + 1);
}

// The operands: X (NHWC, channels stored with a 16-byte row pitch), the KRSC
// filters, their GEMM packing, and Y.
struct ConvBuffers {
  uint32_t c_pitch = 0, ldy = 0;  // elements
  uint64_t x = 0, b = 0, y = 0;
  std::vector<uint16_t> filters;  // KRSC, for the reference
};

template <class OutT>
ConvBuffers allocate_conv(Gpu& gpu, const Conv2dShape& s, uint64_t seed) {
  auto& mem = gpu.gmem();
  ConvBuffers b;
  b.c_pitch = round_up<uint32_t>(s.c, 8);
  b.ldy = round_up<uint32_t>(s.k, 16 / sizeof(OutT));
  const uint64_t pixels = uint64_t{s.n} * s.h * s.w;
  b.x = mem.allocate(pixels * b.c_pitch * 2, "X");
  b.b = mem.allocate(uint64_t{s.k} * s.gemm_k() * 2, "W packed");
  b.y = mem.allocate(s.gemm_m() * b.ldy * sizeof(OutT), "Y");
  if (!gpu.functional()) return b;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* x = reinterpret_cast<uint16_t*>(mem.host(b.x));
  for (uint64_t i = 0; i < pixels; ++i)
    for (uint32_t c = 0; c < b.c_pitch; ++c)
      x[i * b.c_pitch + c] = c < s.c ? to_bf16(dist(rng)).bits : kBf16Nan;  // padding: NaN
  b.filters.resize(size_t{s.k} * s.r * s.s * s.c);
  for (auto& f : b.filters) f = to_bf16(dist(rng)).bits;
  auto* packed = reinterpret_cast<uint16_t*>(mem.host(b.b));
  const uint32_t cp = s.c_padded();
  for (uint32_t k = 0; k < s.k; ++k)
    for (uint32_t tap = 0; tap < s.r * s.s; ++tap)
      for (uint32_t c = 0; c < cp; ++c)
        packed[(size_t{k} * s.r * s.s + tap) * cp + c] =
            c < s.c ? b.filters[(size_t{k} * s.r * s.s + tap) * s.c + c] : uint16_t{0};
  uint8_t* y = mem.host(b.y);
  for (uint64_t i = 0; i < s.gemm_m() * b.ldy; ++i) {
    if constexpr (sizeof(OutT) == 4)
      std::memcpy(y + i * 4, &kF32Nan, 4);
    else
      std::memcpy(y + i * 2, &kBf16Nan, 2);
  }
  return b;
}

// Independent FP64 direct convolution; tolerance as check_matmul's.
template <class OutT>
CheckResult check_conv(Gpu& gpu, const Conv2dShape& s, const ConvBuffers& b, RunStatus status) {
  CheckResult r;
  r.ran = true;
  r.reference = "host FP64 direct convolution over the BF16 inputs";
  if (status != RunStatus::kCompleted) {
    r.detail = "the kernel did not complete";
    return r;
  }
  r.passed = true;
  auto& mem = gpu.gmem();
  const auto* x = reinterpret_cast<const uint16_t*>(mem.host(b.x));
  const uint8_t* y = mem.host(b.y);
  const double u = std::ldexp(1.0, -24);
  const double out_rel = sizeof(OutT) == 4 ? 0.0 : std::ldexp(1.0, -8);
  const uint32_t P = s.p(), Q = s.q(), taps = s.r * s.s * s.c;
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t q = 0; q < Q; ++q) {
        const uint64_t row = (uint64_t{n} * P + p) * Q + q;
        for (uint32_t k = 0; k < b.ldy; ++k) {
          const uint8_t* yp = y + (row * b.ldy + k) * sizeof(OutT);
          if (k >= s.k) {
            const bool untouched = sizeof(OutT) == 4 ? std::memcmp(yp, &kF32Nan, 4) == 0
                                                     : std::memcmp(yp, &kBf16Nan, 2) == 0;
            if (!untouched && r.passed) {
              r.passed = false;
              r.detail = fmt::format("write outside Y at pixel {} padding channel {}", row, k);
            }
            continue;
          }
          double ref = 0, abs_sum = 0;
          for (uint32_t fr = 0; fr < s.r; ++fr) {
            const int64_t ih = int64_t{p} * s.stride_h - s.pad_h + int64_t{fr} * s.dil_h;
            if (ih < 0 || ih >= s.h) continue;
            for (uint32_t fs = 0; fs < s.s; ++fs) {
              const int64_t iw = int64_t{q} * s.stride_w - s.pad_w + int64_t{fs} * s.dil_w;
              if (iw < 0 || iw >= s.w) continue;
              const uint16_t* xp = x + ((uint64_t{n} * s.h + ih) * s.w + iw) * b.c_pitch;
              const uint16_t* wp = b.filters.data() + ((size_t{k} * s.r + fr) * s.s + fs) * s.c;
              for (uint32_t c = 0; c < s.c; ++c) {
                const double v = bf16_value(xp[c]) * bf16_value(wp[c]);
                ref += v;
                abs_sum += std::fabs(v);
              }
            }
          }
          const double got = out_value<OutT>(yp);
          const double err = std::fabs(got - ref);
          const double allowed = 2.0 * (taps + 2) * u * abs_sum + out_rel * std::fabs(ref) + 1e-30;
          if (!(err <= allowed)) {
            if (r.passed)
              r.detail = fmt::format("Y[n={}][p={}][q={}][k={}] = {} but the reference is {}", n,
                                     p, q, k, got, ref);
            r.passed = false;
          }
          if (std::isfinite(err)) {
            r.max_abs_err = std::max(r.max_abs_err, err);
            if (std::fabs(ref) > 1e-12) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(ref));
          } else {
            r.max_abs_err = r.max_rel_err = std::numeric_limits<double>::infinity();
          }
        }
      }
  return r;
}

template <int BN, int S, class OutT>
RunResult run_config(const Conv2dRequest& req) {
  using C = Sm100Conv2dConfig<BN, S, OutT>;
  using Kernel = Sm100Conv2d<C>;
  const Conv2dShape& s = req.shape;
  MatmulRequest q = req.run;
  q.m = static_cast<uint32_t>(s.gemm_m());
  q.n = s.k;
  q.k = static_cast<uint32_t>(s.gemm_k());
  auto t0 = std::chrono::steady_clock::now();
  models::sm100::Params params = models::sm100::Params::builtin();
  if (q.num_sms > 0) params.num_sms = q.num_sms;
  Gpu gpu(params, q.functional);
  configure_run(gpu, q, t0);
  const ConvBuffers buf = allocate_conv<OutT>(gpu, s, q.seed);

  typename Kernel::Params p{};
  const uint64_t dims[4] = {s.c, s.w, s.h, s.n};
  const uint64_t strides[3] = {uint64_t{buf.c_pitch} * 2, uint64_t{buf.c_pitch} * 2 * s.w,
                               uint64_t{buf.c_pitch} * 2 * s.w * s.h};
  const int32_t lower[2] = {-static_cast<int32_t>(s.pad_w), -static_cast<int32_t>(s.pad_h)};
  const int32_t upper[2] = {static_cast<int32_t>(s.pad_w) - static_cast<int32_t>((s.s - 1) * s.dil_w),
                            static_cast<int32_t>(s.pad_h) - static_cast<int32_t>((s.r - 1) * s.dil_h)};
  const uint32_t estrides[4] = {1, s.stride_w, s.stride_h, 1};
  fail_encode(models::sm100::encode_im2col_4d(p.a.map, buf.x, 2, dims, strides, lower, upper, kBk,
                                              kBm, estrides, Swizzle::k128B));
  p.a.g = ConvGeometry{s.p(),   s.q(),   s.stride_h, s.stride_w,
                       static_cast<int32_t>(s.pad_h), static_cast<int32_t>(s.pad_w),
                       s.dil_h, s.dil_w, s.s, s.c_padded()};
  fail_encode(models::sm100::encode_tiled_2d(p.b, buf.b, 2, q.k, q.n, uint64_t{q.k} * 2, C::BK,
                                             C::BN, Swizzle::k128B));
  fail_encode(models::sm100::encode_tiled_2d(
      p.c, buf.y, sizeof(OutT), q.n, q.m, uint64_t{buf.ldy} * sizeof(OutT), 32, 32,
      static_cast<Swizzle>(C::Writer::kRowBytes)));
  p.m = q.m;
  p.n = q.n;
  p.k = q.k;

  const auto races = attach_race_detector(gpu, q);
  const uint32_t tiles = Kernel::tiles_m(q.m) * Kernel::tiles_n(q.n);
  const int grid =
      static_cast<int>(std::min<uint32_t>(tiles, static_cast<uint32_t>(gpu.params().num_sms)));
  std::string err = gpu.launch(grid, kSm100MatmulWarps, C::kSmemBytes, [&p] { Kernel::run(p); });
  if (!err.empty()) throw std::runtime_error(err);
  const RunStatus status = gpu.run(q.max_cycles);

  RunResult r;
  r.kernel = "conv2d";
  r.arch = "sm100";
  r.m = q.m;
  r.n = q.n;
  r.k = q.k;
  r.config_name = fmt::format(
      "sm100_conv2d_fprop_{}x{}x{}_s{}_{}: N={} H={} W={} C={} K={} R={} S={} stride {}x{} pad "
      "{}x{} dilation {}x{} -> P={} Q={}",
      C::BM, C::BN, C::BK, C::Stages, sizeof(OutT) == 4 ? "f32out" : "bf16out", s.n, s.h, s.w,
      s.c, s.k, s.r, s.s, s.stride_h, s.stride_w, s.pad_h, s.pad_w, s.dil_h, s.dil_w, s.p(), s.q());
  r.scheduler = "static";
  r.tile_m = C::BM;
  r.tile_n = C::BN;
  r.tile_k = C::BK;
  r.stages = C::Stages;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = sizeof(OutT) == 4 ? "f32" : "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = status == RunStatus::kCompleted ? "completed"
             : status == RunStatus::kDeadlock ? "deadlock"
                                              : "cycle_bound";
  summarize_sm100(gpu, s.flops(), r);
  if (q.functional) r.check = check_conv<OutT>(gpu, s, buf, status);
  write_run_files(gpu, q);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

using Runner = RunResult (*)(const Conv2dRequest&);

template <int BN, class OutT>
Runner by_stages(uint32_t stages) {
  switch (stages) {
    case 2: return &run_config<BN, 2, OutT>;
    case 3: return &run_config<BN, 3, OutT>;
    case 4: return &run_config<BN, 4, OutT>;
    default: return nullptr;
  }
}

template <class OutT>
Runner by_tile(uint32_t bn, uint32_t stages) {
  switch (bn) {
    case 64: return by_stages<64, OutT>(stages);
    case 128: return by_stages<128, OutT>(stages);
    default: return nullptr;
  }
}

Runner lookup(const Conv2dRequest& q) {
  return q.run.out_f32 ? by_tile<float>(q.run.tile_n, q.run.stages)
                       : by_tile<bf16_t>(q.run.tile_n, q.run.stages);
}

}  // namespace

uint32_t Conv2dShape::p() const { return out_size(h, pad_h, dil_h, r, stride_h); }
uint32_t Conv2dShape::q() const { return out_size(w, pad_w, dil_w, s, stride_w); }
uint32_t Conv2dShape::c_padded() const { return round_up<uint32_t>(c, kBk); }

std::string validate_conv2d(const Conv2dRequest& req) {
  const Conv2dShape& s = req.shape;
  for (uint32_t v : {s.n, s.h, s.w, s.c, s.k, s.r, s.s})
    if (v == 0) return "--n, --h, --w, --c, --k, --r and --s must be at least 1";
  if (s.h > 65536 || s.w > 65536 || s.n > 65536 || s.c > 65536 || s.k > 65536 || s.r > 64 || s.s > 64)
    return "conv2d: --n, --h, --w, --c and --k must be at most 65536, --r and --s at most 64";
  if (s.stride_h < 1 || s.stride_h > 8 || s.stride_w < 1 || s.stride_w > 8)
    return "conv2d: --stride must be in 1-8 (the TMA im2col traversal stride)";
  if (s.dil_h < 1 || s.dil_w < 1 || s.dil_h * (s.r - 1) > 127 || s.dil_w * (s.s - 1) > 127)
    return "conv2d: --dilation must be at least 1 with dilation x (filter - 1) at most 127";
  if (s.pad_h > 127 || s.pad_w > 127) return "conv2d: --pad must be at most 127";
  // The upper corner, pad - dilation x (filter - 1), is at least -128.
  if (int64_t{s.dil_h} * (s.r - 1) - s.pad_h > 128 || int64_t{s.dil_w} * (s.s - 1) - s.pad_w > 128)
    return "conv2d: the filter extent beyond the padding exceeds the im2col bounding box range";
  if (s.p() == 0 || s.q() == 0)
    return fmt::format("conv2d: the dilated {}x{} filter does not fit the padded {}x{} input", s.r,
                       s.s, s.h, s.w);
  if (s.gemm_m() > (1u << 31) || s.gemm_k() > (1u << 20))
    return "conv2d: N*P*Q must be at most 2^31 and R*S*C at most 2^20";
  if (req.run.tile_n != 64 && req.run.tile_n != 128)
    return fmt::format("conv2d: tile N {} is not supported (64 or 128)", req.run.tile_n);
  if (req.run.stages < 2 || req.run.stages > 4)
    return fmt::format("conv2d: --stages {} is outside 2-4", req.run.stages);
  if (req.run.clc) return "conv2d: --scheduler clc is not instantiated for conv2d";
  if (req.run.functional &&
      static_cast<double>(s.gemm_m()) * s.k * s.r * s.s * s.c > static_cast<double>(1ull << 33))
    return "conv2d: --functional is limited to N*P*Q*K*R*S*C <= 2^33; use timing mode";
  return "";
}

RunResult run_conv2d(const Conv2dRequest& req) {
  if (std::string err = validate_conv2d(req); !err.empty()) throw std::invalid_argument(err);
  return lookup(req)(req);
}

}  // namespace sk::sim
