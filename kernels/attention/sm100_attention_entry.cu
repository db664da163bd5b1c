// sm100_attention_entry.cu: device-build entry points of the SM100 attention
// forward (kernels/attention/sm100_attention.h), one extern "C" __global__
// per instantiated configuration.
//
// The kernel body is the same source the model build runs; this file only
// instantiates it for nvcc (sm_100a). Each entry runs 14 warps (448 threads:
// two softmax warpgroups, the correction warpgroup, the MMA and load warps)
// at one CTA per SM over min(work units, SMs) CTAs, takes the Params (which
// hold the tensor maps) as a __grid_constant__ so that TMA reads the maps from
// parameter memory, and is launched with Cfg::kSmemBytes of dynamic shared
// memory.
#include "kernels/attention/sm100_attention.h"

namespace {
using CfgD128 = sk::Sm100AttentionConfig<128, 3, sk::bf16_t>;
using CfgD128F16 = sk::Sm100AttentionConfig<128, 3, sk::f16_t>;
using CfgD64 = sk::Sm100AttentionConfig<64, 4, sk::bf16_t>;
static_assert(CfgD128::kThreads == 448, "the entry points' launch bounds assume 14 warps");
}  // namespace

extern "C" {

__global__ __launch_bounds__(448, 1) void sm100_attention_bf16_d128_s3(
    const __grid_constant__ sk::Sm100Attention<CfgD128>::Params p) {
  sk::Sm100Attention<CfgD128>::run(p);
}

__global__ __launch_bounds__(448, 1) void sm100_attention_f16_d128_s3(
    const __grid_constant__ sk::Sm100Attention<CfgD128F16>::Params p) {
  sk::Sm100Attention<CfgD128F16>::run(p);
}

__global__ __launch_bounds__(448, 1) void sm100_attention_bf16_d64_s4(
    const __grid_constant__ sk::Sm100Attention<CfgD64>::Params p) {
  sk::Sm100Attention<CfgD64>::run(p);
}

}  // extern "C"
