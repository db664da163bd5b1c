// conv2d_run.cc: see conv2d_run.h.
#include "runner/kernels/conv2d_run.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/conv2d/config.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/conv2d_host.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/sm100_launch.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

uint32_t out_size(uint32_t in, uint32_t pad, uint32_t dil, uint32_t filter, uint32_t stride) {
  const int64_t span = int64_t{in} + 2 * int64_t{pad} - int64_t{dil} * (filter - 1) - 1;
  return span < 0 ? 0 : static_cast<uint32_t>(span / stride + 1);
}

template <class C>
RunResult run_config(const Conv2dRequest& req) {
  using OutT = typename C::OutT;
  const Conv2dShape& s = req.shape;
  MatmulRequest q = req.run;  // the GEMM view
  q.m = static_cast<uint32_t>(s.gemm_m());
  q.n = s.k;
  q.k = static_cast<uint32_t>(s.gemm_k());
  const std::string name = fmt::format(
      "sm100_conv2d_fprop_{}x{}x{}_s{}_{}{}: N={} H={} W={} C={} K={} R={} S={} stride {}x{} pad "
      "{}x{} dilation {}x{} -> P={} Q={}",
      C::BM, C::BN, C::BK, C::Stages, sizeof(OutT) == 4 ? "f32out" : "bf16out",
      C::kResidual ? fmt::format("_residual (beta {})", req.beta) : "", s.n, s.h, s.w, s.c, s.k,
      s.r, s.s, s.stride_h, s.stride_w, s.pad_h, s.pad_w, s.dil_h, s.dil_w, s.p(), s.q());
  return simulate_sm100<C, Sm100Conv2d<C>>(
      q, {"conv2d", name, s.flops()},
      [&](Gpu& gpu, auto& p) {
        ConvBuffers buf = allocate_conv<OutT>(gpu, s, q.operand_seed(), C::kResidual);
        encode_conv<C>(p, s, buf, C::BM, req.beta);
        return buf;
      },
      [&](Gpu& gpu, const ConvBuffers& buf, RunStatus status) {
        return check_conv<OutT>(gpu, s, buf, status, req.beta);
      });
}

using Runner = RunResult (*)(const Conv2dRequest&);

// The configuration of the request's tile, stages, output type and
// residual, when it fits.
Runner lookup(const Conv2dRequest& req) {
  return pick<64, 128>(req.run.tile_n, [&](auto bn) {
    return pick<2, 3, 4>(req.run.stages, [&](auto s) {
      return pick_out(req.run.out_f32, [&](auto out) {
        return pick_bool(req.residual, [&](auto residual) -> Runner {
          using C = Sm100Conv2dConfig<bn(), s(), typename decltype(out)::type, residual()>;
          if constexpr (C::kFits)
            return &run_config<C>;
          else
            return nullptr;
        });
      });
    });
  });
}

}  // namespace

uint32_t Conv2dShape::p() const { return out_size(h, pad_h, dil_h, r, stride_h); }
uint32_t Conv2dShape::q() const { return out_size(w, pad_w, dil_w, s, stride_w); }
uint32_t Conv2dShape::c_padded() const { return round_up<uint32_t>(c, 64); }

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
  if (!std::isfinite(req.beta)) return "conv2d: --beta must be a finite number";
  if (lookup(req) == nullptr)
    return fmt::format("conv2d: tile 128x{}x64 with {} stages{} does not fit in shared memory",
                       req.run.tile_n, req.run.stages, req.residual ? " and the residual ring" : "");
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
