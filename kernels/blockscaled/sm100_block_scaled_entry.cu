// sm100_block_scaled_entry.cu: device-build entry points of the block-scaled
// SM100 matmul (config.h), instantiated for nvcc (sm_100a): MXFP8 (E4M3) and
// NVFP4, each with 128 x 256 tiles; and of the blockwise-scaled FP8 matmul
// (blockwise_fp8.h). Launched like the matmul: 7 warps, one CTA per SM,
// Params (the A, B, D and scale maps) as __grid_constant__.
#include "kernels/blockscaled/blockwise_fp8.h"
#include "kernels/blockscaled/config.h"

namespace {
using CfgMxfp8 = sk::Sm100BlockScaledConfig<sk::Mxfp8E4m3, 256, 4, sk::bf16_t>;
using CfgNvfp4 = sk::Sm100BlockScaledConfig<sk::Nvf4Format, 256, 4, sk::bf16_t>;
using CfgBlockwise = sk::Sm100BlockwiseFp8Config<4>;
}  // namespace

extern "C" __global__ __launch_bounds__(224, 1) void sm100_block_scaled_mxfp8_128x256x128_s4(
    const __grid_constant__ sk::Sm100BlockScaledMatmul<CfgMxfp8>::Params p) {
  sk::Sm100BlockScaledMatmul<CfgMxfp8>::run(p);
}

extern "C" __global__ __launch_bounds__(224, 1) void sm100_block_scaled_nvfp4_128x256x256_s4(
    const __grid_constant__ sk::Sm100BlockScaledMatmul<CfgNvfp4>::Params p) {
  sk::Sm100BlockScaledMatmul<CfgNvfp4>::run(p);
}

extern "C" __global__ __launch_bounds__(224, 1) void sm100_blockwise_fp8_128x128x128_s4(
    const __grid_constant__ sk::Sm100BlockwiseFp8Matmul<CfgBlockwise>::Params p) {
  sk::Sm100BlockwiseFp8Matmul<CfgBlockwise>::run(p);
}
