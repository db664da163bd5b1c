// epilogue_beside.cuh: section 7 of hw/h200/attention_calibrate.cu, the SM90
// attention kernel's own epilogue (Sm90Attention::store: O divided by the row
// sums, packed, quad-transposed and stored 16 bytes a lane, and the LSE) timed
// apart and beside what runs on the same SM in the kernel while it stores:
//   alone       both consumer warpgroups store `reps` tiles' O (fresh lines);
//   no_stores   the same with seqlen_q 0, so every row is skipped: the
//               division, packing and transposes without a store;
//   loads       as alone while one producer warp streams bulk copies
//               (cp.async.bulk, 16 KiB each, two in flight) of a 16 MiB
//               L2-resident buffer into the CTA's shared memory, as the
//               producer loads the next tile's Q, K and V during an epilogue;
//   wgmma       warpgroup 0 stores while warpgroup 1 keeps the tensor core
//               busy with the kernel's Q K^T (its last block in the ping-pong);
//   one_wg, one_wg_no_stores   warpgroup 0 alone (one warp per sub-partition),
//               with and without its stores: against alone and no_stores, whether
//               the epilogue is bound by the pipes (time halves) or by latency;
//   matmul_alone, matmul_no_stores   the SM90 matmul's register epilogue
//               (Sm90Matmul::store, 4-byte stores) the same way, at BN 128 and 256.
// The wgmma partner runs 32 groups per stored tile (of D / 16 m64n128k16
// each), past the stores' end. One CTA per SM on 1, 45 (the SMs storing at once in the 512-token sweep
// row) or 132 SMs; each consumer warp reads clock64 after a barrier of the
// storing warps, after its last store() returns (issued) and after a
// __threadfence (drained). Printed per row: the mode, head dim, SMs, tiles per
// warpgroup, bytes of O and LSE per SM, the median (over launches) of CTA 0's
// span to the last store issued and drained in cycles, their bytes per cycle,
// and in the loads rows the producer's bytes per cycle over the same span.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "hw/h200/smem_stream.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/attention/sm90_attention.h"
#include "kernels/matmul/sm90_matmul.h"

namespace sk::bench::epilogue_beside {

enum Mode { kAlone = 0, kNoStores = 1, kLoads = 2, kWgmma = 3, kOneWg = 4, kOneWgNoStores = 5 };
inline const char* mode_name(int m) {
  static const char* const names[] = {"alone", "no_stores", "loads", "wgmma", "one_wg", "one_wg_no_stores"};
  return names[m];
}
__host__ __device__ constexpr bool one_wg(int m) { return m == kWgmma || m == kOneWg || m == kOneWgNoStores; }

using smem_stream::kChunkBytes;
using smem_stream::kRing;
using smem_stream::kSrcBytes;
using smem_stream::bulk_copy;
using smem_stream::stream_into_smem;
constexpr int kMaxWarps = 12;

template <int D>
struct Layout {
  using Cfg = sk::Sm90AttentionConfig<D, 2>;
  // The ring (loads), or Q and K for the wgmma mode, then the barriers.
  static constexpr uint32_t kData = std::max<uint32_t>(kRing * kChunkBytes, Cfg::kQBytes + Cfg::kKvBytes);
  static constexpr uint32_t kBytes = kData + 1024 + 64 + 1024;
};

// times[3 w .. 3 w + 2]: warp w's start, issued end, drained end; times[3 kMaxWarps]:
// bytes the producer loaded before the last storing warp finished.
template <int D, int Mode>
__global__ void __launch_bounds__(384, 1) epilogue(uint64_t* times, uint16_t* o, float* lse, const uint8_t* src,
                                                   int reps, uint32_t seqlen_q) {
  using Cfg = sk::Sm90AttentionConfig<D, 2>;
  using A = sk::Sm90Attention<Cfg>;
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* base = sk::bench::smem_align_1024(smem);
  uint64_t* bars = reinterpret_cast<uint64_t*>(base + Layout<D>::kData);  // kRing full barriers
  volatile uint32_t* stores_left = reinterpret_cast<volatile uint32_t*>(bars + kRing);
  const uint32_t warp = sk::arch::warp_idx();
  if (threadIdx.x == 0) {
    for (uint32_t i = 0; i < kRing; ++i) sk::arch::mbarrier_init(&bars[i], 1);
    *stores_left = one_wg(Mode) ? 4 : 8;
    sk::arch::fence_mbarrier_init();
  }
  for (uint32_t i = threadIdx.x; i < Layout<D>::kData / 2; i += blockDim.x)
    reinterpret_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(0x3c00u + (i * 37u) % 256u);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const uint32_t half = warp / 4 - 1;  // consumer warpgroup (warps 4-11)
  if (warp < 4) {
    if (Mode != kLoads || warp != 0) return;
    const uint64_t loaded = stream_into_smem(base, bars, stores_left, src);
    if (threadIdx.x == 0 && blockIdx.x == 0) times[3 * kMaxWarps] = loaded;
    return;
  }
  typename A::Params p{};
  p.heads = 1;
  p.seqlen_q = seqlen_q;  // 0 in the no_stores rows: a run-time value, so nothing is folded away
  p.softmax_scale = 0.125f;
  p.o = reinterpret_cast<typename Cfg::Elem*>(o);
  p.lse = lse;
  p.lse_stride = 128u * reps * gridDim.x;
  if (Mode == kWgmma && half == 1) {
    // The partner warpgroup: Q K^T groups, one queued behind the one running,
    // until warpgroup 0's stores are done.
    typename A::SAcc s_acc;
#pragma unroll
    for (int i = 0; i < A::BN / 2; ++i) s_acc.regs[0][i] = 0.0f;
    const uint32_t q = sk::arch::smem_addr(base), k = q + Cfg::kQBytes;
    sk::arch::wgmma_fence();
    // A fixed count that outlasts the stores: a loop on `stores_left` would
    // let the warpgroup's warps disagree on the count (an illegal wgmma).
    for (int g = 0; g < 32 * reps; ++g) {
      A::gemm_qk(s_acc, q + 64 * 128, k);
      sk::arch::wgmma_commit_group();
      sk::arch::wgmma_wait_group<1>();
    }
    sk::arch::wgmma_wait_group<0>();
    float acc = 0;
#pragma unroll
    for (int i = 0; i < A::BN / 2; ++i) acc += s_acc.regs[0][i];
    if (acc == 1.2345f) o[0] = 1;  // keeps the GEMMs
    return;
  }
  if (one_wg(Mode) && half == 1) return;
  // The storing warps start together.
  typename A::OAcc o_acc;
  typename A::Rows row_sum, row_max;
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc.regs[0][i] = 0.25f + 0.001f * (threadIdx.x % 64) + 0.01f * i;
  row_sum.regs[0][0] = row_sum.regs[0][1] = 3.0f + threadIdx.x % 7;
  row_max.regs[0][0] = row_max.regs[0][1] = 1.0f;
  sk::arch::named_barrier_sync(1, one_wg(Mode) ? 128 : 256);
  const uint64_t t0 = clk();
  for (int r = 0; r < reps; ++r) {
    const uint32_t m_tile = blockIdx.x * reps + r;  // fresh rows for every tile
    const typename A::Tile w{m_tile, 0, 0, 0};
    A::store(p, w, o_acc, row_sum, row_max, m_tile * 128 + half * 64 + warp % 4 * 16);
  }
  const uint64_t t1 = clk();
  __threadfence();
  const uint64_t t2 = clk();
  if (threadIdx.x % 32 == 0) {
    atomicSub(const_cast<uint32_t*>(stores_left), 1u);
    if (blockIdx.x == 0) {
      times[3 * warp] = t0;
      times[3 * warp + 1] = t1;
      times[3 * warp + 2] = t2;
    }
  }
}

struct Buffers {
  uint64_t* times;  // >= 3 kMaxWarps + 1 words
  uint16_t* o;      // 132 SMs x 4 tiles x 128 rows x 256 columns
  float* lse;
  uint8_t* src;     // kSrcBytes
  int launches;
  const char* prog;
};

template <int D, int Mode>
void row(const Buffers& b, int ctas, int reps) {
  auto kernel = epilogue<D, Mode>;
  constexpr int smem = Layout<D>::kBytes;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), b.prog,
             "cudaFuncSetAttribute", __FILE__, __LINE__);
  const int w0 = 4, w1 = one_wg(Mode) ? 8 : 12;  // the storing warps
  std::vector<double> issued, drained, loaded;
  for (int r = 0; r < b.launches; ++r) {
    check_cuda(cudaMemset(b.times, 0, (3 * kMaxWarps + 1) * 8), b.prog, "cudaMemset", __FILE__, __LINE__);
    const uint32_t seqlen_q = Mode == kNoStores || Mode == kOneWgNoStores ? 0u : 128u * reps * ctas;
    kernel<<<ctas, 384, smem>>>(b.times, b.o, b.lse, b.src, reps, seqlen_q);
    check_cuda(cudaGetLastError(), b.prog, "launch", __FILE__, __LINE__);
    check_cuda(cudaDeviceSynchronize(), b.prog, "cudaDeviceSynchronize", __FILE__, __LINE__);
    uint64_t h[3 * kMaxWarps + 1];
    check_cuda(cudaMemcpy(h, b.times, sizeof(h), cudaMemcpyDeviceToHost), b.prog, "cudaMemcpy", __FILE__,
               __LINE__);
    uint64_t t0 = h[3 * w0], t1 = 0, t2 = 0;
    for (int w = w0; w < w1; ++w) {
      t0 = std::min(t0, h[3 * w]);
      t1 = std::max(t1, h[3 * w + 1]);
      t2 = std::max(t2, h[3 * w + 2]);
    }
    issued.push_back(static_cast<double>(t1 - t0));
    drained.push_back(static_cast<double>(t2 - t0));
    loaded.push_back(static_cast<double>(h[3 * kMaxWarps]));
  }
  // O (16 rows x D x 2 bytes) and LSE (16 x 4 bytes) per warp and tile.
  const double bytes = Mode == kNoStores || Mode == kOneWgNoStores ? 0.0 : (w1 - w0) * reps * (32.0 * D + 64.0);
  const double is = median(issued), dr = median(drained);
  std::printf("%s,%d,%d,%d,%.0f,%.0f,%.2f,%.0f,%.2f,%.2f\n", mode_name(Mode), D, ctas, reps, bytes, is,
              bytes / is, dr, bytes / dr, Mode == kLoads ? median(loaded) / dr : 0.0);
}

template <int D>
void rows(const Buffers& b) {
  for (int ctas : {1, 45, 132}) {
    for (int reps : {1, 4}) {
      row<D, kAlone>(b, ctas, reps);
      row<D, kNoStores>(b, ctas, reps);
      row<D, kLoads>(b, ctas, reps);
      row<D, kWgmma>(b, ctas, reps);
      if (ctas == 1) {
        row<D, kOneWg>(b, ctas, reps);
        row<D, kOneWgNoStores>(b, ctas, reps);
      }
    }
  }
}

// The SM90 matmul's register epilogue (Sm90Matmul::store: BF16 rounding and
// 4-byte stores of the accumulator's pairs, each checked against the matrix
// edge) from both consumer warpgroups, `reps` 128 x BN tiles of D in a row:
// with its stores, and with m = 0 so that every pair is skipped (the math
// alone). Rows "matmul_alone" / "matmul_no_stores", head_dim = BN.
template <int BN, bool Stores>
__global__ void __launch_bounds__(256, 1) matmul_epilogue(uint64_t* times, uint16_t* d, int reps, uint32_t m) {
  using K = sk::Sm90Matmul<sk::Sm90MatmulConfig<BN, 4>>;
  const uint32_t warp = sk::arch::warp_idx(), half = warp / 4;
  typename K::Params p{};
  p.m = m;
  p.n = BN;
  p.ldd = BN;
  typename K::Acc acc;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc.regs[0][i] = 0.25f + 0.001f * (threadIdx.x % 64) + 0.01f * i;
  __syncthreads();
  const uint64_t t0 = clk();
  for (int r = 0; r < reps; ++r) {
    const uint32_t tile = blockIdx.x * reps + r;  // fresh rows for every tile
    K::store(p, reinterpret_cast<sk::bf16_t*>(d), acc, warp % 4, tile * 128 + half * 64, 0);
  }
  const uint64_t t1 = clk();
  __threadfence();
  const uint64_t t2 = clk();
  if (threadIdx.x % 32 == 0 && blockIdx.x == 0) {
    times[3 * (warp + 4)] = t0;
    times[3 * (warp + 4) + 1] = t1;
    times[3 * (warp + 4) + 2] = t2;
  }
}

template <int BN, bool Stores>
void matmul_row(const Buffers& b, int ctas, int reps) {
  std::vector<double> issued, drained;
  for (int r = 0; r < b.launches; ++r) {
    check_cuda(cudaMemset(b.times, 0, (3 * kMaxWarps + 1) * 8), b.prog, "cudaMemset", __FILE__, __LINE__);
    matmul_epilogue<BN, Stores><<<ctas, 256>>>(b.times, b.o, reps, Stores ? 128u * reps * ctas : 0u);
    check_cuda(cudaGetLastError(), b.prog, "launch", __FILE__, __LINE__);
    check_cuda(cudaDeviceSynchronize(), b.prog, "cudaDeviceSynchronize", __FILE__, __LINE__);
    uint64_t h[3 * kMaxWarps + 1];
    check_cuda(cudaMemcpy(h, b.times, sizeof(h), cudaMemcpyDeviceToHost), b.prog, "cudaMemcpy", __FILE__,
               __LINE__);
    uint64_t t0 = h[12], t1 = 0, t2 = 0;
    for (int w = 4; w < 12; ++w) {
      t0 = std::min(t0, h[3 * w]);
      t1 = std::max(t1, h[3 * w + 1]);
      t2 = std::max(t2, h[3 * w + 2]);
    }
    issued.push_back(static_cast<double>(t1 - t0));
    drained.push_back(static_cast<double>(t2 - t0));
  }
  const double bytes = Stores ? 8.0 * reps * 32.0 * BN : 0.0;  // 16 rows x BN BF16 per warp and tile
  const double is = median(issued), dr = median(drained);
  std::printf("%s,%d,%d,%d,%.0f,%.0f,%.2f,%.0f,%.2f,0.00\n", Stores ? "matmul_alone" : "matmul_no_stores", BN,
              ctas, reps, bytes, is, bytes / is, dr, bytes / dr);
}

// Prints the section's CSV for head dims 64, 128 and 256.
inline void print_epilogue_beside(uint64_t* times, int launches, const char* prog) {
  Buffers b{times, nullptr, nullptr, nullptr, launches, prog};
  const size_t o_bytes = size_t{132} * 4 * 128 * 256 * 2;
  check_cuda(cudaMalloc(&b.o, o_bytes), prog, "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMalloc(&b.lse, size_t{132} * 4 * 128 * 4), prog, "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMalloc(&b.src, kSrcBytes), prog, "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMemset(b.src, 1, kSrcBytes), prog, "cudaMemset", __FILE__, __LINE__);
  std::printf("section,epilogue_beside\nmode,head_dim,sms,tiles,bytes_per_sm,issue_cycles,bytes_per_cycle_issued,"
              "drain_cycles,bytes_per_cycle_drained,load_bytes_per_cycle\n");
  rows<64>(b);
  rows<128>(b);
  rows<256>(b);
  for (int ctas : {1, 132})
    for (int reps : {1, 4}) {
      matmul_row<128, true>(b, ctas, reps);
      matmul_row<128, false>(b, ctas, reps);
      matmul_row<256, true>(b, ctas, reps);
      matmul_row<256, false>(b, ctas, reps);
    }
  check_cuda(cudaFree(b.o), prog, "cudaFree", __FILE__, __LINE__);
  check_cuda(cudaFree(b.lse), prog, "cudaFree", __FILE__, __LINE__);
  check_cuda(cudaFree(b.src), prog, "cudaFree", __FILE__, __LINE__);
}

}  // namespace sk::bench::epilogue_beside
