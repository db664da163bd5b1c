// conv2d_host.h: the host side of a conv2d fprop launch in the model, shared
// by the runner (conv2d_run.cc) and the seeded-bug corpus: the operands
// (random BF16 activations whose channel padding is NaN, KRSC filters and
// their GEMM packing [K][R][S][Cp] with zeros past C, a NaN-poisoned Y), the
// tensor maps (im2col for X, tiled for the packed filters and Y), and the
// independent FP64 direct-convolution check.
//
// Invariants: buffers are filled only in functional mode; the check reads Y
// through the NPQK layout and requires Y's padding channels untouched.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/conv2d/config.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/conv2d_run.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"

namespace sk::sim {

// The operands: X (NHWC, channels stored with a 16-byte row pitch), the KRSC
// filters, their GEMM packing, and Y.
struct ConvBuffers {
  uint32_t c_pitch = 0, ldy = 0;  // elements
  uint64_t x = 0, b = 0, y = 0;
  uint64_t c = 0;                 // the residual (NPQK, Y's pitch), when asked for
  std::vector<uint16_t> filters;  // KRSC, for the reference
};

template <class OutT>
ConvBuffers allocate_conv(models::sm100::Gpu& gpu, const Conv2dShape& s, uint64_t seed,
                          bool residual = false) {
  auto& mem = gpu.gmem();
  ConvBuffers b;
  b.c_pitch = round_up<uint32_t>(s.c, 8);
  b.ldy = round_up<uint32_t>(s.k, 16 / sizeof(OutT));
  const uint64_t pixels = uint64_t{s.n} * s.h * s.w;
  b.x = mem.allocate(pixels * b.c_pitch * 2, "X");
  b.b = mem.allocate(uint64_t{s.k} * s.gemm_k() * 2, "W packed");
  b.y = mem.allocate(s.gemm_m() * b.ldy * sizeof(OutT), "Y");
  if (residual) b.c = mem.allocate(s.gemm_m() * b.ldy * sizeof(OutT), "C");
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
  if (residual) {
    uint8_t* c = mem.host(b.c);
    for (uint64_t i = 0; i < s.gemm_m() * b.ldy; ++i) {
      const float v = dist(rng);
      if constexpr (sizeof(OutT) == 4)
        std::memcpy(c + i * 4, &v, 4);
      else {
        const uint16_t bits = to_bf16(v).bits;
        std::memcpy(c + i * 2, &bits, 2);
      }
    }
  }
  poison_output<OutT>(mem.host(b.y), s.gemm_m() * b.ldy);
  return b;
}

// Independent FP64 direct convolution; tolerance as check_matmul's.
template <class OutT>
CheckResult check_conv(models::sm100::Gpu& gpu, const Conv2dShape& s, const ConvBuffers& b,
                       RunStatus status, float beta = 0.0f) {
  CheckResult r;
  r.ran = true;
  r.reference = b.c != 0 ? "host FP64 direct convolution over the BF16 inputs, plus beta * C"
                         : "host FP64 direct convolution over the BF16 inputs";
  if (status != RunStatus::kCompleted) {
    r.detail = "the kernel did not complete";
    return r;
  }
  r.passed = true;
  auto& mem = gpu.gmem();
  const auto* x = reinterpret_cast<const uint16_t*>(mem.host(b.x));
  const uint8_t* y = mem.host(b.y);
  const uint32_t P = s.p(), Q = s.q(), taps = s.r * s.s * s.c;
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t q = 0; q < Q; ++q) {
        const uint64_t row = (uint64_t{n} * P + p) * Q + q;
        for (uint32_t k = 0; k < b.ldy; ++k) {
          const uint8_t* yp = y + (row * b.ldy + k) * sizeof(OutT);
          if (k >= s.k) {
            if (!untouched<OutT>(yp) && r.passed) {
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
          if (b.c != 0) {
            const double cv =
                double{beta} * out_value<OutT>(mem.host(b.c) + (row * b.ldy + k) * sizeof(OutT));
            ref += cv;
            abs_sum += std::fabs(cv);
          }
          check_element<OutT>(r, out_value<OutT>(yp), ref, abs_sum, taps, [&] {
            return fmt::format("Y[n={}][p={}][q={}][k={}]", n, p, q, k);
          });
        }
      }
  return r;
}

// The kernel parameters of configuration C for shape `s` over `buf`;
// `pixels_per_column` is the im2col column the map delivers (C::BM unless a
// test wants it wrong).
template <class C, class Params>
void encode_conv(Params& p, const Conv2dShape& s, const ConvBuffers& buf,
                 uint32_t pixels_per_column = C::BM, float beta = 1.0f) {
  using models::sm100::Swizzle;
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument("tensor map: " + err);
  };
  const uint64_t dims[4] = {s.c, s.w, s.h, s.n};
  const uint64_t pitch = uint64_t{buf.c_pitch} * 2;
  const uint64_t strides[3] = {pitch, pitch * s.w, pitch * s.w * s.h};
  const int32_t lower[2] = {-static_cast<int32_t>(s.pad_w), -static_cast<int32_t>(s.pad_h)};
  const int32_t upper[2] = {
      static_cast<int32_t>(s.pad_w) - static_cast<int32_t>((s.s - 1) * s.dil_w),
      static_cast<int32_t>(s.pad_h) - static_cast<int32_t>((s.r - 1) * s.dil_h)};
  const uint32_t estrides[4] = {1, s.stride_w, s.stride_h, 1};
  check(models::sm100::encode_im2col_4d(p.a.map, buf.x, 2, dims, strides, lower, upper, C::BK,
                                        pixels_per_column, estrides, Swizzle::k128B));
  p.a.g = ConvGeometry{s.p(),   s.q(),   s.stride_h, s.stride_w,
                       static_cast<int32_t>(s.pad_h), static_cast<int32_t>(s.pad_w),
                       s.dil_h, s.dil_w, s.s, s.c_padded()};
  p.m = static_cast<uint32_t>(s.gemm_m());
  p.n = s.k;
  p.k = static_cast<uint32_t>(s.gemm_k());
  check(models::sm100::encode_tiled_2d(p.b, buf.b, 2, p.k, p.n, uint64_t{p.k} * 2, C::BK, C::BN,
                                       Swizzle::k128B));
  check(encode_output_map<C>(p.c, buf.y, p.n, p.m, buf.ldy));
  if constexpr (C::kResidual) {
    check(models::sm100::encode_tiled_2d(p.residual, buf.c, sizeof(typename C::OutT), p.n, p.m,
                                         uint64_t{buf.ldy} * sizeof(typename C::OutT), C::BN,
                                         C::BM, Swizzle::kNone));
    p.beta = beta;
  }
}

}  // namespace sk::sim
