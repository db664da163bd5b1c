// conv2d_run.h: conv2d fprop (kernels/conv2d/) in the SM100 model.
//
// Activations X are NHWC, filters W are KRSC, the output Y is NPQK (NHWC),
// all BF16 with FP32 accumulation; Y = conv(X, W) with stride, padding and
// dilation per dimension. The kernel is the structured matmul on the GEMM
// M = N*P*Q, N = K, K = R*S*Cp (Cp: C rounded up to 64); the host packs the
// filters to [K][R][S][Cp] with zeros past C, once, as a conv library
// prepacks weights. The check is an independent FP64 direct convolution
// over the BF16 inputs (plus beta * C with the fused residual).
#pragma once

#include <cstdint>
#include <string>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

struct Conv2dShape {
  uint32_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1;
  uint32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;

  uint32_t p() const;  // output height (0 when the filter does not fit)
  uint32_t q() const;  // output width
  uint32_t c_padded() const;
  // The implicit GEMM.
  uint64_t gemm_m() const { return uint64_t{n} * p() * q(); }
  uint64_t gemm_k() const { return uint64_t{r} * s * c_padded(); }
  double flops() const { return 2.0 * static_cast<double>(gemm_m()) * k * r * s * c; }
};

struct Conv2dRequest {
  Conv2dShape shape;
  // --residual: Y = conv(X, W) + beta * C, C an NPQK tensor like Y.
  bool residual = false;
  float beta = 1.0f;
  // Tile N, stages, output type, seed, mode, trace and bounds; its m, n and k
  // are ignored (they follow from the shape).
  MatmulRequest run;
};

// Empty when the request can run, else a one-line reason.
std::string validate_conv2d(const Conv2dRequest& req);
RunResult run_conv2d(const Conv2dRequest& req);

}  // namespace sk::sim
