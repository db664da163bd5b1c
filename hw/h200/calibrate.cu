// calibrate.cu: microbenchmarks on a Hopper GPU for the SM90 timing model.
//
//   calibrate            (prints CSV sections; about 10 s on an H200)
//
// 1. mbarrier: one thread arrives and waits for the phase flip (clock64
//    cycles, median of 1000).
// 2. TMA 2-D tensor-map load latency against box bytes (1 KiB .. 32 KiB,
//    128B swizzle), one load in flight, single thread: the same box again and
//    again (L2 hit) and a walk over 1 GiB of boxes (HBM). Median cycles.
// 3. HBM bandwidth against bytes in flight per SM: every SM streams distinct
//    boxes of a 4 GiB tensor with S loads in flight; total bytes / time.
// 3b. hbm_segments: the same streaming in the matmul's pattern: a tensor of
//    `cols` BF16 columns (rows 2 * cols bytes apart, as a K-major operand of
//    K = cols), boxes of 64 x 128 (16 KiB, 128 rows of one 128-byte segment
//    each), every CTA walking its own 128-row blocks k-block by k-block (a
//    row's next segment one box later), as the matmul's producer walks B;
//    cols 64 is the sequential walk of section 3 in this kernel. 132, 66 and
//    33 SMs, 2-12 boxes in flight per SM: what the DRAM gives the matmul's
//    row segments against whole lines of consecutive bytes.
// 4. wgmma issue interval: m64nNk16 BF16 (N = 64, 128, 256), 64 back-to-back
//    ops per warpgroup then one wait, with 1 and with 2 warpgroups issuing on
//    the SM; cycles per op per warpgroup (operands are random, never zeros).
// 5. Launch overhead: CUDA events around one launch of an empty kernel (384
//    threads, as the matmul's CTAs), 1, 16 or one CTA per SM, with no dynamic
//    SMEM or the matmul's 200 KiB; each launch synchronized before the next, as
//    gemm_bench times its launches; median of 50 after 5 warm-ups, in us. The
//    model's launch_overhead_cycles stands for this on top of a kernel's span.
// Every CUDA call is checked; results are medians of repeated runs.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/core/numeric.h"

namespace {

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "calibrate: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

using sk::bench::clk;
using sk::bench::wait_phase;

// 1. mbarrier arrive -> observed flip.
__global__ void mbarrier_latency(uint64_t* out, int iters) {
  __shared__ uint64_t bar;
  if (threadIdx.x != 0) return;
  sk::arch::mbarrier_init(&bar, 1);
  sk::arch::fence_mbarrier_init();
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = clk();
    sk::arch::mbarrier_arrive(&bar);
    wait_phase(&bar, i & 1);
    out[i] = clk() - t0;
  }
}

// 2. TMA latency: box index i of `boxes` (row block stride `stride_boxes`).
__global__ void tma_latency(const __grid_constant__ CUtensorMap map, uint32_t box_rows,
                            uint32_t boxes, uint32_t stride_boxes, uint64_t* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t bar;
  if (threadIdx.x != 0) return;
  sk::arch::mbarrier_init(&bar, 1);
  sk::arch::fence_mbarrier_init();
  uint8_t* dst = sk::bench::smem_align_1024(smem);
  for (int i = 0; i < iters; ++i) {
    const uint32_t box = stride_boxes == 0 ? 0 : (i * stride_boxes) % boxes;
    const uint64_t t0 = clk();
    sk::arch::mbarrier_arrive_expect_tx(&bar, box_rows * 128);
    sk::arch::tma_load_2d(dst, &map, &bar, 0, static_cast<int32_t>(box * box_rows));
    wait_phase(&bar, i & 1);
    out[i] = clk() - t0;
  }
}

// Thread 0 of a CTA streams `loads` boxes of `box_bytes` with `inflight`
// outstanding (one mbarrier each), box i at coord(i) = {column, row}.
template <class Coord>
__device__ void stream_boxes(const CUtensorMap* map, uint32_t box_bytes, uint32_t inflight, uint32_t loads,
                             Coord coord) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t bars[16];
  if (threadIdx.x != 0) return;
  uint8_t* base = sk::bench::smem_align_1024(smem);
  for (uint32_t s = 0; s < inflight; ++s) sk::arch::mbarrier_init(&bars[s], 1);
  sk::arch::fence_mbarrier_init();
  for (uint32_t i = 0; i < loads; ++i) {
    const uint32_t s = i % inflight;
    if (i >= inflight) wait_phase(&bars[s], ((i / inflight) - 1) & 1);
    sk::arch::mbarrier_arrive_expect_tx(&bars[s], box_bytes);
    const int2 c = coord(i);
    sk::arch::tma_load_2d(base + s * box_bytes, map, &bars[s], c.x, c.y);
  }
  for (uint32_t i = loads; i < loads + inflight; ++i)
    if (i >= inflight) wait_phase(&bars[i % inflight], ((i / inflight) - 1) & 1);
}

// 3. Streaming with `inflight` loads outstanding per SM, each CTA on its own rows.
__global__ void tma_stream(const __grid_constant__ CUtensorMap map, uint32_t box_rows,
                           uint32_t inflight, uint32_t loads_per_cta) {
  const uint32_t row0 = blockIdx.x * loads_per_cta * box_rows;
  stream_boxes(&map, box_rows * 128, inflight, loads_per_cta,
               [=](uint32_t i) { return make_int2(0, static_cast<int32_t>(row0 + i * box_rows)); });
}

// 3b. Streaming in the matmul's pattern: CTA c loads row blocks c, c + ctas,
// ... (`blocks` of them), each one's `kblocks` boxes in turn, `inflight`
// loads outstanding.
__global__ void tma_stream_segments(const __grid_constant__ CUtensorMap map, uint32_t kblocks,
                                    uint32_t inflight, uint32_t blocks) {
  stream_boxes(&map, 128 * 128, inflight, blocks * kblocks, [=](uint32_t i) {
    const uint32_t block = blockIdx.x + (i / kblocks) * gridDim.x, kb = i % kblocks;
    return make_int2(static_cast<int32_t>(kb * 64), static_cast<int32_t>(block * 128));
  });
}

// 4. wgmma interval; each warpgroup issues `ops` back-to-back then waits.
template <int N>
__global__ void __launch_bounds__(256, 1) wgmma_interval(uint64_t* out) {
  constexpr int kOps = 64;
  extern __shared__ __align__(1024) uint8_t smem[];
  // Random BF16 operands: A 64 x 64 then B N x 64, 128B rows.
  const auto [a, b] = sk::bench::wgmma_operands(smem, N);
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  sk::arch::wgmma_fence();
  const uint64_t t0 = clk();
#pragma unroll
  for (int i = 0; i < kOps; ++i) {
    const uint64_t da = sk::arch::make_smem_desc_sw128(a + 32 * (i & 3));
    const uint64_t db = sk::arch::make_smem_desc_sw128(b + 32 * (i & 3));
    if constexpr (N == 64) sk::arch::wgmma_m64n64k16_bf16_ss(acc, da, db, true);
    if constexpr (N == 128) sk::arch::wgmma_m64n128k16_bf16_ss(acc, da, db, true);
    if constexpr (N == 256) sk::arch::wgmma_m64n256k16_bf16_ss(acc, da, db, true);
  }
  sk::arch::wgmma_commit_group();
  sk::arch::wgmma_wait_group<0>();
  const uint64_t t1 = clk();
  float sum = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) sum += acc.regs[0][i];
  if (threadIdx.x % 128 == 0) out[threadIdx.x / 128] = (t1 - t0) + (sum == 12345.0f ? 1 : 0);
}

uint64_t median_of(uint64_t* dev, int n, int skip) {
  std::vector<uint64_t> h(n);
  CK(cudaMemcpy(h.data(), dev, n * 8, cudaMemcpyDeviceToHost));
  std::vector<uint64_t> v(h.begin() + skip, h.end());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

__global__ void empty_kernel() {}

}  // namespace

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  uint64_t* out;
  CK(cudaMalloc(&out, 4096 * 8));
  const uint64_t tensor_bytes = 4ull << 30, rows = tensor_bytes / 128;
  void* t;
  CK(cudaMalloc(&t, tensor_bytes));
  CK(cudaMemset(t, 0x3c, tensor_bytes));

  mbarrier_latency<<<1, 32>>>(out, 1000);
  CK(cudaDeviceSynchronize());
  std::printf("section,mbarrier\nmbarrier_arrive_to_flip_cycles,%llu\n",
              static_cast<unsigned long long>(median_of(out, 1000, 10)));

  std::printf("section,tma_latency\nbytes,l2_hit_cycles,hbm_cycles\n");
  for (uint32_t box_rows : {8u, 16u, 32u, 64u, 128u, 256u}) {
    const CUtensorMap m = sk::bench::bf16_rows_map(t, rows, box_rows, "calibrate");
    const int smem = box_rows * 128 + 1024;
    CK(cudaFuncSetAttribute(tma_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    tma_latency<<<1, 32, smem>>>(m, box_rows, 1, 0, out, 1000);
    CK(cudaDeviceSynchronize());
    const uint64_t hit = median_of(out, 1000, 10);
    // 1 GiB walk: boxes 8 MiB + one box apart, so consecutive loads never share L2 lines.
    const uint32_t boxes = static_cast<uint32_t>((1ull << 30) / (box_rows * 128));
    tma_latency<<<1, 32, smem>>>(m, box_rows, boxes, (8u << 20) / (box_rows * 128) + 1, out, 1000);
    CK(cudaDeviceSynchronize());
    std::printf("%u,%llu,%llu\n", box_rows * 128, static_cast<unsigned long long>(hit),
                static_cast<unsigned long long>(median_of(out, 1000, 10)));
  }

  std::printf("section,hbm_stream\nbytes_in_flight_per_sm,box_bytes,gb_per_s\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  // The median of five launches' event times, in ms.
  auto median_ms = [&](auto&& launch) {
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float x;
      CK(cudaEventElapsedTime(&x, e0, e1));
      ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
  };
  for (uint32_t box_rows : {64u, 128u}) {
    const CUtensorMap m = sk::bench::bf16_rows_map(t, rows, box_rows, "calibrate");
    for (uint32_t inflight : {1u, 2u, 4u, 8u, 12u}) {
      const int smem = inflight * box_rows * 128 + 1024;
      if (smem > 227 * 1024) continue;
      CK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      const uint32_t per_cta = static_cast<uint32_t>(rows / box_rows / sms);
      const float ms = median_ms([&] { tma_stream<<<sms, 32, smem>>>(m, box_rows, inflight, per_cta); });
      const double bytes = static_cast<double>(per_cta) * sms * box_rows * 128;
      std::printf("%u,%u,%.1f\n", inflight * box_rows * 128, box_rows * 128, bytes / (ms * 1e-3) / 1e9);
    }
  }

  std::printf("section,hbm_segments\ncols,ctas,bytes_in_flight_per_sm,gb_per_s\n");
  for (uint32_t cols : {64u, 4096u, 8192u, 28672u}) {
    const uint64_t seg_rows = tensor_bytes / (2ull * cols);
    const uint32_t kblocks = cols / 64;
    const CUtensorMap m = sk::bench::bf16_map(t, cols, seg_rows, 128, "calibrate");
    for (int ctas : {sms, 66, 33}) {
      // Each CTA the same number of row blocks, about 2 GiB in all.
      const uint32_t blocks = static_cast<uint32_t>(
          std::max<uint64_t>(1, std::min<uint64_t>(seg_rows / 128 / ctas, (2ull << 30) / (16384ull * kblocks * ctas))));
      for (uint32_t inflight : {2u, 4u, 6u, 8u, 12u}) {
        const int smem = static_cast<int>(inflight * 16384 + 1024);
        CK(cudaFuncSetAttribute(tma_stream_segments, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const float ms = median_ms([&] { tma_stream_segments<<<ctas, 32, smem>>>(m, kblocks, inflight, blocks); });
        const double bytes = 16384.0 * kblocks * blocks * ctas;
        std::printf("%u,%d,%u,%.1f\n", cols, ctas, inflight * 16384, bytes / (ms * 1e-3) / 1e9);
      }
    }
  }

  std::printf("section,wgmma_interval\nn,warpgroups,cycles_per_op_per_warpgroup\n");
  auto wg = [&](auto kernel, int n) {
    const int smem = (64 + n) * 128 + 1024;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    for (int groups : {1, 2}) {
      std::vector<uint64_t> c;
      for (int r = 0; r < 5; ++r) {
        kernel<<<1, 128 * groups, smem>>>(out);
        CK(cudaDeviceSynchronize());
        uint64_t h[2];
        CK(cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost));
        c.push_back(groups == 1 ? h[0] : std::max(h[0], h[1]));
      }
      std::sort(c.begin(), c.end());
      std::printf("%d,%d,%.1f\n", n, groups, static_cast<double>(c[2]) / 64.0);
    }
  };
  wg(wgmma_interval<64>, 64);
  wg(wgmma_interval<128>, 128);
  wg(wgmma_interval<256>, 256);
  std::printf("section,launch_overhead\nctas,smem_bytes,event_us\n");
  CK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (int ctas : {1, 16, sms})
    for (int smem : {0, 200 * 1024}) {
      std::vector<float> ms;
      for (int r = 0; r < 55; ++r) {
        CK(cudaEventRecord(e0));
        empty_kernel<<<ctas, 384, smem>>>();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float x;
        CK(cudaEventElapsedTime(&x, e0, e1));
        if (r >= 5) ms.push_back(x);
      }
      std::sort(ms.begin(), ms.end());
      std::printf("%d,%d,%.2f\n", ctas, smem, ms[ms.size() / 2] * 1e3);
    }
  std::printf("section,device\nsms,%d\nclock_khz,%d\n", sms, clock_khz);
  return 0;
}
