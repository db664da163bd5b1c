// mma_beside_stores.cu: does one warpgroup's epilogue slow the other
// warpgroup's tensor-core work on the same SM?
//
// The SM90 matmul's two consumer warpgroups share an SM's four sub-partitions
// (warp w of either on sub-partition w % 4). On the H200 they stay within
// ~300 cycles of each other on every tile (docs/hardware.md, "A tile's phases
// on the calibration shapes"); in the model one can run its next main loop
// while the other stores, and the short-K tiles come out 2-3x too short. This
// program times, on one CTA per SM of two warpgroups:
//   mma_alone       warpgroup 1 runs the matmul's k-block (wgmma.fence, four
//                   m64nBNk16 from shared memory, commit, wait_group 0) over
//                   and over; warpgroup 0 idles;
//   mma_two         both warpgroups run it (each should see half the SM);
//   stores_alone    warpgroup 0 runs the matmul's register epilogue
//                   (Sm90Matmul::store: BF16 rounding, 4-byte st.global of
//                   the accumulator's pairs) for `tiles` tiles of 64 x BN;
//                   warpgroup 1 idles;
//   mma_beside_stores   both at once, from a named barrier;
//   mma_beside_math     the same with m = 0 (every pair skipped: the epilogue's
//                   math and branches without a store).
// Printed per row: mode, BN, SMs, tiles, warpgroup 1's median cycles per
// k-block (over the k-blocks that lie wholly inside warpgroup 0's store
// window in the beside rows, past the first eight otherwise), the k-blocks in that
// window, and warpgroup 0's cycles from the barrier to its last store issued
// (CTA 0, median over launches).
//
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/mma_beside_stores.cu
// Exit status 0, or 2 on a CUDA error (one line on stderr).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/matmul/sm90_matmul.h"

namespace {

using sk::bench::check_cuda;
using sk::bench::clk;

enum Mode { kMmaAlone = 0, kMmaTwo = 1, kStoresAlone = 2, kBesideStores = 3, kBesideMath = 4 };
const char* mode_name(int m) {
  static const char* const names[] = {"mma_alone", "mma_two", "stores_alone", "mma_beside_stores",
                                      "mma_beside_math"};
  return names[m];
}
constexpr int kMaxKb = 512;  // k-block end times kept (warp 4 of CTA 0)
constexpr int kTimes = 16 + kMaxKb;
constexpr int kLaunches = 7;

// times[3 w .. 3 w + 2] (w < 4): storing warp w's start, last store issued,
// drained; times[15]: warp 4's start; times[16 + kb]: its k-block kb's end.
template <int BN, int M>
__global__ void __launch_bounds__(256, 1) beside(uint64_t* times, uint16_t* d, int tiles, uint32_t m,
                                                 int kblocks) {
  using K = sk::Sm90Matmul<sk::Sm90MatmulConfig<BN, 4>>;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* base = smem_raw + ((1024 - (sk::arch::smem_addr(smem_raw) & 1023)) & 1023);
  constexpr uint32_t kABytes = 64 * 64 * 2, kBBytes = BN * 64 * 2;
  for (uint32_t i = threadIdx.x; i < (kABytes + kBBytes) / 2; i += blockDim.x)
    reinterpret_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(0x3c00u + (i * 37u) % 64u);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const uint32_t warp = sk::arch::warp_idx(), lane = threadIdx.x % 32;
  const bool both = M == kMmaTwo || M == kBesideStores || M == kBesideMath;
  const bool mma_here = warp >= 4 ? M != kStoresAlone : M == kMmaTwo;
  if (!mma_here && (warp >= 4 || M == kMmaAlone)) return;
  if (mma_here) {
    typename K::Acc acc;
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc.regs[0][i] = 0.0f;
    const uint32_t a = sk::arch::smem_addr(base), b = a + kABytes;
    sk::arch::named_barrier_sync(1, both ? 256 : 128);
    const bool rec = warp == 4 && lane == 0 && blockIdx.x == 0;
    if (rec) times[15] = clk();
    for (int kb = 0; kb < kblocks; ++kb) {
      sk::arch::wgmma_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k)
        sk::arch::wgmma_m64nNk16_ss<BN, false, 0, 0>(acc, sk::arch::make_smem_desc_sw128(a + 32 * k),
                                                      sk::arch::make_smem_desc_sw128(b + 32 * k), kb > 0 || k > 0);
      sk::arch::wgmma_commit_group();
      sk::arch::wgmma_wait_group<0>();
      if (rec && kb < kMaxKb) times[16 + kb] = clk();
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) s += acc.regs[0][i];
    if (s == 1.2345f) d[0] = 1;  // keeps the MMAs
    return;
  }
  // Warpgroup 0 stores (or, with m = 0, runs the epilogue's math alone).
  typename K::Params p{};
  p.m = m;
  p.n = BN;
  p.ldd = BN;
  typename K::Acc acc;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc.regs[0][i] = 0.25f + 0.001f * (threadIdx.x % 64) + 0.01f * i;
  sk::arch::named_barrier_sync(1, both ? 256 : 128);
  const uint64_t t0 = clk();
  for (int r = 0; r < tiles; ++r) {
    const uint32_t tile = blockIdx.x * tiles + r;  // fresh rows for every tile
    K::store(p, reinterpret_cast<sk::bf16_t*>(d), acc, warp % 4, tile * 64, 0);
  }
  const uint64_t t1 = clk();
  __threadfence();
  const uint64_t t2 = clk();
  if (lane == 0 && blockIdx.x == 0) {
    times[3 * warp] = t0;
    times[3 * warp + 1] = t1;
    times[3 * warp + 2] = t2;
  }
}

// bench_common's median, 0 for none (a row without stores has no store span).
double median_or_zero(const std::vector<double>& v) { return v.empty() ? 0 : sk::bench::median(v); }

template <int BN, int M>
void row(uint64_t* times, uint16_t* d, int ctas, int tiles, int kblocks) {
  auto kernel = beside<BN, M>;
  constexpr int smem = 64 * 64 * 2 + BN * 64 * 2 + 1024;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "mma_beside_stores",
             "cudaFuncSetAttribute", __FILE__, __LINE__);
  std::vector<double> per_kb, in_window, store_span;
  for (int l = 0; l < kLaunches; ++l) {
    check_cuda(cudaMemset(times, 0, kTimes * 8), "mma_beside_stores", "cudaMemset", __FILE__, __LINE__);
    const uint32_t m = M == kBesideMath ? 0u : 64u * tiles * ctas;
    kernel<<<ctas, 256, smem>>>(times, d, tiles, m, kblocks);
    check_cuda(cudaGetLastError(), "mma_beside_stores", "launch", __FILE__, __LINE__);
    check_cuda(cudaDeviceSynchronize(), "mma_beside_stores", "cudaDeviceSynchronize", __FILE__, __LINE__);
    uint64_t h[kTimes];
    check_cuda(cudaMemcpy(h, times, sizeof(h), cudaMemcpyDeviceToHost), "mma_beside_stores", "cudaMemcpy",
               __FILE__, __LINE__);
    uint64_t s0 = ~uint64_t{0}, s1 = 0;
    for (int w = 0; w < 4; ++w) {
      if (h[3 * w] == 0) continue;
      s0 = std::min(s0, h[3 * w]);
      s1 = std::max(s1, h[3 * w + 1]);
    }
    const bool window = M == kBesideStores || M == kBesideMath;
    if (s1 > 0) store_span.push_back(static_cast<double>(s1 - s0));
    if (M == kStoresAlone) continue;
    std::vector<double> kbs;
    const int n = std::min(kblocks, kMaxKb);
    for (int kb = 1; kb < n; ++kb) {
      const uint64_t a = h[16 + kb - 1], b = h[16 + kb];
      if (window ? (a >= s0 && b <= s1) : kb >= 8) kbs.push_back(static_cast<double>(b - a));
    }
    in_window.push_back(static_cast<double>(kbs.size()));
    per_kb.push_back(median_or_zero(kbs));
  }
  std::printf("%s,%d,%d,%d,%.1f,%.0f,%.0f\n", mode_name(M), BN, ctas, tiles, median_or_zero(per_kb),
              median_or_zero(in_window), median_or_zero(store_span));
}

template <int BN>
void rows(uint64_t* times, uint16_t* d) {
  for (int ctas : {1, 132}) {
    const int tiles = 4, kblocks = 512;
    row<BN, kMmaAlone>(times, d, ctas, tiles, kblocks);
    row<BN, kMmaTwo>(times, d, ctas, tiles, kblocks);
    row<BN, kStoresAlone>(times, d, ctas, tiles, kblocks);
    row<BN, kBesideStores>(times, d, ctas, tiles, kblocks);
    row<BN, kBesideMath>(times, d, ctas, tiles, kblocks);
  }
}

}  // namespace

int main() {
  uint64_t* times;
  uint16_t* d;
  check_cuda(cudaMalloc(&times, kTimes * 8), "mma_beside_stores", "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMalloc(&d, size_t{132} * 4 * 64 * 256 * 2), "mma_beside_stores", "cudaMalloc", __FILE__, __LINE__);
  std::printf("section,mma_beside_stores\nmode,bn,sms,tiles,mma_cycles_per_kblock,kblocks_in_window,"
              "store_issue_cycles\n");
  rows<128>(times, d);
  rows<256>(times, d);
  return 0;
}
