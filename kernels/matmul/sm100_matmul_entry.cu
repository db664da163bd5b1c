// sm100_matmul_entry.cu: device-build entry points of the SM100 structured
// matmul (kernels/matmul/sm100_matmul.h), one extern "C" __global__ per
// instantiated configuration (the _clc one uses the CLC tile scheduler and is
// launched with one CTA per output tile instead of min(tiles, SMs); the _2sm
// one runs CTA pairs with the 2-SM MMA, in clusters of two).
//
// The kernel body is the same source the model build runs; this file only
// instantiates it for nvcc (sm_100a). Each entry runs 7 warps (224 threads, see
// warp_role.h) at one CTA per SM, and takes the Params, which hold the tensor
// maps, as a __grid_constant__ so that TMA reads the maps from parameter memory.
// The host launches it with Cfg::kSmemBytes of dynamic shared memory. These
// are the batched configurations the simulator runs (rank-3 maps of A, B and
// D; Params::batches matrices, one for a single GEMM).
#include "kernels/matmul/config.h"
#include "kernels/matmul/sm100_matmul.h"

namespace {

template <int BN, int Stages, class OutT, class Sched = sk::StaticPersistentScheduler>
using Batched = sk::Sm100MatmulConfig<128, BN, 64, Stages, OutT, Sched, sk::TmaTileLoader, false,
                                      sk::Bf16Mainloop, true>;
using Cfg128x256Bf16 = Batched<256, 4, sk::bf16_t>;
using Cfg128x128F32 = Batched<128, 6, float>;
using Cfg128x64Bf16 = Batched<64, 8, sk::bf16_t>;
// Cluster launch control: launched with one CTA per output tile.
using Cfg128x256Bf16Clc = Batched<256, 4, sk::bf16_t, sk::ClcScheduler>;
// The 2-SM kernel: clusters of two CTAs, 256 x 256 per pair (tcgen05
// cta_group::2); launched with cluster dimension 2 and an even grid.
using Cfg256x256Bf16Pair = sk::Sm100MatmulConfig<128, 256, 64, 6, sk::bf16_t,
                                                 sk::StaticPersistentScheduler, sk::TmaTileLoader,
                                                 false, sk::Bf16PairMainloop, true>;
// The same on the CLC scheduler: one pair per 256 x 256 block, pairs cancel
// whole pairs (multicast try_cancel).
using Cfg256x256Bf16PairClc = sk::Sm100MatmulConfig<128, 256, 64, 6, sk::bf16_t, sk::ClcScheduler,
                                                    sk::TmaTileLoader, false, sk::Bf16PairMainloop,
                                                    true>;

constexpr int kThreads = 32 * static_cast<int>(sk::kSm100MatmulWarps);
static_assert(kThreads == 224, "the entry points' launch bounds assume 7 warps");

}  // namespace

extern "C" {

__global__ __launch_bounds__(224, 1) void sm100_matmul_bf16_128x256x64_s4_bf16out(
    const __grid_constant__ sk::Sm100Matmul<Cfg128x256Bf16>::Params p) {
  sk::Sm100Matmul<Cfg128x256Bf16>::run(p);
}

__global__ __launch_bounds__(224, 1) void sm100_matmul_bf16_128x128x64_s6_f32out(
    const __grid_constant__ sk::Sm100Matmul<Cfg128x128F32>::Params p) {
  sk::Sm100Matmul<Cfg128x128F32>::run(p);
}

__global__ __launch_bounds__(224, 1) void sm100_matmul_bf16_128x64x64_s8_bf16out(
    const __grid_constant__ sk::Sm100Matmul<Cfg128x64Bf16>::Params p) {
  sk::Sm100Matmul<Cfg128x64Bf16>::run(p);
}

__global__ __launch_bounds__(224, 1) void sm100_matmul_bf16_128x256x64_s4_bf16out_clc(
    const __grid_constant__ sk::Sm100Matmul<Cfg128x256Bf16Clc>::Params p) {
  sk::Sm100Matmul<Cfg128x256Bf16Clc>::run(p);
}

__global__ __cluster_dims__(2, 1, 1) __launch_bounds__(224, 1) void
sm100_matmul_bf16_256x256x64_s6_bf16out_2sm(
    const __grid_constant__ sk::Sm100Matmul<Cfg256x256Bf16Pair>::Params p) {
  sk::Sm100Matmul<Cfg256x256Bf16Pair>::run(p);
}

__global__ __cluster_dims__(2, 1, 1) __launch_bounds__(224, 1) void
sm100_matmul_bf16_256x256x64_s6_bf16out_clc_2sm(
    const __grid_constant__ sk::Sm100Matmul<Cfg256x256Bf16PairClc>::Params p) {
  sk::Sm100Matmul<Cfg256x256Bf16PairClc>::run(p);
}

}  // extern "C"
