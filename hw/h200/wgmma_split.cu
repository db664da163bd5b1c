// wgmma_split.cu: a k-block's wgmma ops (four K steps) of the SM90 matmul's
// consumer warpgroups by how they split the tile, on one SM.
//
//   wgmma_split   (prints CSV; seconds on an H200)
//
// Random operands of 256 rows each for A and B (K-major, 128B swizzle,
// 64-row blocks 8 KiB apart). Patterns: m256 (warpgroup w: one m64n256k16 a
// K step on A's block w, the 128 x 256 tile split along M), m128
// (m64n128k16, 128 x 128), n64x4 (BM / 64 = 4 m64n64k16 a K step on A's
// blocks 0-3 against B's 64-row block w: the 256 x 128 tile split along N),
// n64x4_same (the same on A's block 0 four times), n64x2 (128 x 128 split
// along N), n128x2 (two m64n128k16 a K step on A's blocks 0-1 against B's
// block 0-1: the ping-pong's pair). One warpgroup or two, issuing group
// after group (no barrier); medians over groups 8-63, printed as section
// wgmma_split:
//   pattern,warpgroups,ops,macs_per_group,group0,group1,period,macs_per_cycle
// (group: a group's start to its wait's return; period: warpgroup 0's start
// to its next start; macs_per_cycle: the SM's, every warpgroup's MACs of a
// group over the period). The other wgmma microbenchmarks on one SM, and the
// helpers both share (wgmma_group_common.cuh), are wgmma_group.cu's.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/wgmma_split.cu -lcuda -o wgmma_split
// Exit status 0, or 2 on a CUDA error (one line on stderr).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "hw/h200/wgmma_group_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"

namespace {

constexpr const char* kProg = "wgmma_split";

using namespace sk::bench::wgmma_common;
using sk::bench::clk;

// The patterns of a k-block on warpgroup wg (see the header).
enum SplitPattern { kM256, kM128, kN64x4, kN64x4Same, kN64x2, kN128x2, kSplitPatterns };
constexpr const char* kSplitNames[] = {"m256", "m128", "n64x4", "n64x4_same", "n64x2", "n128x2"};

// Pattern P's op width and accumulators (ops a K step).
__host__ __device__ constexpr int split_n(int p) {
  return p == kM256 ? 256 : p == kM128 || p == kN128x2 ? 128 : 64;
}
__host__ __device__ constexpr int split_accs(int p) {
  return p == kN64x4 || p == kN64x4Same ? 4 : p == kN64x2 || p == kN128x2 ? 2 : 1;
}

__device__ __forceinline__ uint64_t split_desc(uint32_t base, int block, int k) {
  return sk::arch::make_smem_desc_sw128(base + block * 64 * 128 + 32 * k);
}

template <int P>
__global__ void __launch_bounds__(256, 1) wgmma_split(uint64_t* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* base = sk::bench::smem_align_1024(smem);
  sk::bench::fill_bf16_operands(base, 512 * 64);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const uint32_t a = sk::arch::smem_addr(base), b = a + 256 * 128;
  const int wg = threadIdx.x / 128;
  constexpr int kN = split_n(P), kAccs = split_accs(P);
  sk::LaneArray<float, kN / 2> acc[kAccs];
#pragma unroll
  for (int r = 0; r < kAccs; ++r) acc[r] = zero_acc<kN>();
  for (int it = 0; it < iters; ++it) {
    const uint64_t t0 = clk();
    sk::arch::wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if constexpr (kAccs == 1) {
        sk::arch::wgmma_m64nNk16_ss<kN, false, 0, 0>(acc[0], split_desc(a, wg, k), split_desc(b, 0, k), true);
      } else {
#pragma unroll
        for (int r = 0; r < kAccs; ++r) {
          const int a_block = P == kN64x4Same ? 0 : r;
          const int b_block = P == kN128x2 ? 0 : wg;
          sk::arch::wgmma_m64nNk16_ss<kN, false, 0, 0>(acc[r], split_desc(a, a_block, k),
                                                       split_desc(b, b_block, k), true);
        }
      }
    }
    sk::arch::wgmma_commit_group();
    sk::arch::wgmma_wait_group<0>();
    const uint64_t t1 = clk();
    record_group(out, it, wg, t0, t1);
  }
#pragma unroll
  for (int r = 0; r < kAccs; ++r) keep_live(out, acc[r]);
}

template <int P>
void split_rows(uint64_t* dev, int iters) {
  const int smem = 512 * 128 + 1024;
  CK(cudaFuncSetAttribute(wgmma_split<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  constexpr int kN = split_n(P), kAccs = split_accs(P);
  const double macs = 4.0 * kAccs * 64 * kN * 16;
  std::vector<uint64_t> h(static_cast<size_t>(iters) * 4);
  for (int groups : {1, 2}) {
    wgmma_split<P><<<1, 128 * groups, smem>>>(dev, iters);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<double> d0, d1, per;
    for (int k = 8; k < iters; ++k) {
      d0.push_back(static_cast<double>(h[(k * 2) * 2 + 1] - h[(k * 2) * 2]));
      if (groups == 2) d1.push_back(static_cast<double>(h[(k * 2 + 1) * 2 + 1] - h[(k * 2 + 1) * 2]));
      if (k + 1 < iters) per.push_back(static_cast<double>(h[((k + 1) * 2) * 2] - h[(k * 2) * 2]));
    }
    std::printf("%s,%d,%d,%.0f,%.0f,%.0f,%.0f,%.1f\n", kSplitNames[P], groups, 4 * kAccs, macs, median(d0),
                median(d1), median(per), macs * groups / median(per));
  }
}

template <int... P>
void all_split_rows(uint64_t* dev, int iters, std::integer_sequence<int, P...>) {
  (split_rows<P>(dev, iters), ...);
}

}  // namespace

int main() {
  constexpr int kIters = 64;
  uint64_t* dev;
  CK(cudaMalloc(&dev, static_cast<size_t>(kIters) * 4 * 8));
  std::printf("section,wgmma_split\npattern,warpgroups,ops,macs_per_group,group0,group1,period,macs_per_cycle\n");
  all_split_rows(dev, kIters, std::make_integer_sequence<int, kSplitPatterns>());
  CK(cudaFree(dev));
  return 0;
}
