// sm100_conv2d_entry.cu: device-build entry point of conv2d fprop on SM100
// (config.h): the structured matmul with the im2col A loader, instantiated
// for nvcc (sm_100a). Launched like the matmul: 7 warps, one CTA per SM,
// Params (the im2col map and geometry, the B and D maps) as __grid_constant__.
#include "kernels/conv2d/config.h"

namespace {
using Cfg = sk::Sm100Conv2dConfig<128, 4, sk::bf16_t>;
// D = conv + beta * C: 8 warps (256 threads), the 8th loads C.
using CfgResidual = sk::Sm100Conv2dConfig<128, 3, sk::bf16_t, true>;
}  // namespace

extern "C" __global__ __launch_bounds__(224, 1) void sm100_conv2d_fprop_bf16_128x128x64_s4(
    const __grid_constant__ sk::Sm100Conv2d<Cfg>::Params p) {
  sk::Sm100Conv2d<Cfg>::run(p);
}

extern "C" __global__ __launch_bounds__(256, 1) void sm100_conv2d_fprop_residual_bf16_128x128x64_s3(
    const __grid_constant__ sk::Sm100Conv2d<CfgResidual>::Params p) {
  sk::Sm100Conv2d<CfgResidual>::run(p);
}
