// f16_matmul_ptx.cu: the SM90 structured matmul with F16 operands compiled
// for sm_90a, only for its PTX (f16_matmul_ptx_test checks that the TileOp
// becomes wgmma .f32.f16.f16 for both tile widths). The benchmark
// (gemm_bench.cu) runs the BF16 kernel; an F16 run on hardware uses the same
// configuration with Sm90MatmulConfig<BN, S, true>.
#include "kernels/matmul/sm90_matmul.h"

template <class Cfg>
__global__ void __launch_bounds__(384, 1) sm90_matmul_f16_kernel(
    const __grid_constant__ typename sk::Sm90Matmul<Cfg>::Params p) {
  sk::Sm90Matmul<Cfg>::run(p);
}

template __global__ void sm90_matmul_f16_kernel<sk::Sm90MatmulConfig<128, 4, true>>(
    const __grid_constant__ typename sk::Sm90Matmul<sk::Sm90MatmulConfig<128, 4, true>>::Params);
template __global__ void sm90_matmul_f16_kernel<sk::Sm90MatmulConfig<256, 4, true>>(
    const __grid_constant__ typename sk::Sm90Matmul<sk::Sm90MatmulConfig<256, 4, true>>::Params);
