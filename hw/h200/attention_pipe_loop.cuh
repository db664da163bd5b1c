// attention_pipe_loop.cuh: section 4b of the attention microbenchmarks
// (hw/h200/attention_calibrate.cu): the SM90 attention kernel's block loop
// with its K and V pipelines and a producer warp, from plain arrives to the
// kernel's own produce() and consume() on one tile, one CTA, cycles per
// block (pipe_rows prints the rows; docs/hardware.md quotes them).
//
// The timing harness (clock stamps, spans, medians, the sink check) is
// hw/h200/attention_calibrate_harness.cuh's; the L2-resident source the
// producer streams from is its g_src (ep::kSrcBytes), K, V, Q, O and LSE
// apart from it are this section's buffers (allocate_buffers).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hw/h200/attention_calibrate_harness.cuh"
#include "hw/h200/bench_common.cuh"
#include "hw/h200/epilogue_beside.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/attention/sm90_attention.h"

namespace sk::bench::attention_pipe_loop {

using namespace sk::bench::calib;
using sk::bench::clk;
using sk::bench::median;
namespace ep = sk::bench::epilogue_beside;

// Section 4b: the block loop with the kernel's K and V pipelines
// (TilePipeline over MbarrierBackend, Cfg::Smem's stages, eight consumer
// arrivals per stage) and a producer warp in a third warpgroup, as the kernel
// runs them: Pipe picks what the producer does per stage.
// kPipeArrive: the full barrier's arrive, no data; kPipeKOnly: the same for
// K only, P V reading a fixed V tile; kPipeData: K and V by bulk copies
// (cp.async.bulk) from an L2-resident buffer; kPipeTma: by the kernel's TMA
// loader (BatchedTmaTileLoader, a 3-D tensor map over that buffer, 128B
// swizzle), as the kernel loads them; kPipeTmaStore: as kPipeTma, and the
// kernel's epilogue (store()) once after the timed loop, which changes only
// the code the loop sits in (the kernel's own is 1.8x the loop's at head dim
// 128: does the block's time depend on it?); kPipeKernelConsume: the kernel's
// own consumer (Sm90Attention::consume, one tile of `blocks` blocks: Q
// acquired, the loop, the last P V, the epilogue) fed by this producer (Q's
// stage by a plain arrive, K and V by TMA); kPipeTmaTwoMaps: as kPipeTma
// with V loaded through a tensor map of its own (over the buffer's second
// half), as the kernel has one for K and one for V; kPipeKernelLayout: as
// kPipeKernelConsume with the kernel's warp layout (the producer in warpgroup
// 0, the consumers in warpgroups 1 and 2) instead of consumers in 0 and 1;
// kPipeKernelBoth: the kernel's own producer (Sm90Attention::produce: Q and
// K, V by TMA through the kernel's Params) and consumer, laid out as the
// kernel's, on one tile: the kernel itself but for its launch;
// kPipeKernelBothApart: the same with K, V and Q in three allocations of their
// own, as attention_bench has them.
enum PipeMode { kPipeArrive, kPipeKOnly, kPipeData, kPipeTma, kPipeTmaStore, kPipeKernelConsume, kPipeTmaTwoMaps,
                kPipeKernelLayout, kPipeKernelBoth, kPipeKernelBothApart };
// Rows of 128 bytes in the 16 MiB source; at head dim D a row of the map is D / 64 of them.
constexpr uint32_t kTmaRows = ep::kSrcBytes / 128;
template <int D, int Pipe>
__global__ void __launch_bounds__(384, 1)
    pipeline_loop(uint64_t* times, float* sink, int blocks, const uint8_t* src, uint8_t* out,
                  const __grid_constant__ sk::arch::TensorMap map,
                  const __grid_constant__ sk::arch::TensorMap map_v,
                  const __grid_constant__ typename sk::Sm90Attention<sk::Sm90AttentionConfig<D, 2>>::Params kparams) {
  using Cfg = sk::Sm90AttentionConfig<D, 2>;
  using A = sk::Sm90Attention<Cfg>;
  using KvPipe = sk::TilePipeline<typename Cfg::KvPayload, 2>;
  extern __shared__ __align__(1024) uint8_t smem[];
  auto& st = *reinterpret_cast<typename Cfg::Smem*>(sk::bench::smem_align_1024(smem));
  const uint32_t warp = sk::arch::warp_idx();
  using QPipe = sk::TilePipeline<typename Cfg::QPayload, 1>;
  if (warp == 0) {
    if (auto lane = sk::elect_one()) {
      QPipe::init(&st.q_bars, 1, Cfg::kConsumerWarps, "q");
      KvPipe::init(&st.k_bars, 1, Cfg::kConsumerWarps, "k");
      KvPipe::init(&st.v_bars, 1, Cfg::kConsumerWarps, "v");
      sk::arch::fence_mbarrier_init();
    }
  }
  for (uint32_t i = threadIdx.x; i < (Cfg::kQBytes + 4 * Cfg::kKvBytes) / 2; i += blockDim.x)
    reinterpret_cast<uint16_t*>(&st.q[0][0])[i] = rand_bf16(i);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const KvPipe kpipe(&st.k_bars, typename Cfg::KvPayload{st.k});
  const KvPipe vpipe(&st.v_bars, typename Cfg::KvPayload{st.v});
  const QPipe qpipe(&st.q_bars, typename Cfg::QPayload{st.q});
  constexpr bool kBoth = Pipe == kPipeKernelBoth || Pipe == kPipeKernelBothApart;
  constexpr bool kKernelLayout = Pipe == kPipeKernelLayout || kBoth;
  constexpr bool kConsume = Pipe == kPipeKernelConsume || kKernelLayout;
  const uint32_t producer_wg = kKernelLayout ? 0 : 2;
  if (warp / 4 == producer_wg) {  // the producer warpgroup
    sk::arch::warpgroup_reg_dealloc<40>();
    if (warp != 4 * producer_wg) return;
    if constexpr (kBoth) {
      A::produce(kparams, qpipe, kpipe, vpipe, 1);
      return;
    }
    auto qp = qpipe.producer();
    if constexpr (kConsume) {
      auto q = qp.acquire();
      std::move(q).release();  // Q's stage full, its data as filled above
    }
    auto kp = kpipe.producer();
    auto vp = vpipe.producer();
    auto fill = [&](typename KvPipe::Producer& pp, int n) {
      auto stage = pp.acquire();
      if constexpr (Pipe == kPipeTma || Pipe == kPipeTmaStore || kConsume || Pipe == kPipeTmaTwoMaps) {
        if (auto lane = sk::elect_one()) {
          stage.expect_bytes(Cfg::kKvBytes);
          const bool two = Pipe == kPipeTmaTwoMaps && &pp == &vp;
          const sk::BatchedTmaTileLoader loader(two ? &map_v : &map);
          // K from the buffer's first half of rows, V from its second (map_v's rows start there).
          constexpr int32_t kRows = kTmaRows / (D / 64);  // the map's rows
          const int32_t row = two ? (n * Cfg::BN) % (kRows / 2) : (n * Cfg::BN + (&pp == &vp ? kRows / 2 : 0)) % kRows;
          for (uint32_t c = 0; c < Cfg::kChunks; ++c)
            loader.load(stage.tiles() + c * Cfg::kKvChunkBytes, stage.full_barrier(), static_cast<int32_t>(64 * c),
                        row, 0);
        }
        std::move(stage).release_async();
      } else if constexpr (Pipe == kPipeData) {
        if (auto lane = sk::elect_one()) {
          stage.expect_bytes(Cfg::kKvBytes);
          for (uint32_t c = 0; c < Cfg::kChunks; ++c)
            ep::bulk_copy(sk::arch::smem_addr(stage.tiles() + c * Cfg::kKvChunkBytes),
                          src + (uint64_t{static_cast<uint32_t>(n)} * Cfg::kKvBytes + c * Cfg::kKvChunkBytes) % ep::kSrcBytes,
                          Cfg::kKvChunkBytes, sk::arch::smem_addr(stage.full_barrier()));
        }
        std::move(stage).release_async();
      } else {
        std::move(stage).release();  // the full barrier's arrive, no data
      }
    };
    for (int n = 0; n < blocks; ++n) {
      fill(kp, n);
      if constexpr (Pipe != kPipeKOnly) fill(vp, n);
    }
    if constexpr (kConsume) qp.drain();
    kp.drain();
    if constexpr (Pipe != kPipeKOnly) vp.drain();
    return;
  }
  sk::arch::warpgroup_reg_alloc<232>();
  const uint32_t half = kKernelLayout ? warp / 4 - 1 : warp / 4;
  if constexpr (kConsume) {
    typename A::Params kp = kparams;  // the maps are not used from this copy
    kp.batch = kp.heads = kp.kv_heads = 1;
    kp.seqlen_q = 128;
    kp.seqlen_k = static_cast<uint32_t>(blocks) * Cfg::BN;
    kp.softmax_scale = 1.0f / sqrtf(static_cast<float>(D));
    kp.o = reinterpret_cast<typename Cfg::Elem*>(out);  // O, then LSE, in a buffer of their own
    kp.lse = reinterpret_cast<float*>(out + (256u << 10));
    kp.lse_stride = 128;
    const uint64_t t0 = clk();
    if constexpr (kBoth)
      A::consume(kparams, qpipe, kpipe, vpipe, half, 1);
    else
      A::consume(kp, qpipe, kpipe, vpipe, half, 1);
    const uint64_t t1 = clk();
    const uint32_t slot = 4 * half + warp % 4;  // the consumer warp's index, 0-7
    if (blockIdx.x == 0 && threadIdx.x % 32 == 0) times[2 * slot] = t0, times[2 * slot + 1] = t1;
    sink[32 * slot + threadIdx.x % 32] = 1.0f;  // O went to memory; the check wants a value from this launch
    return;
  }
  const uint32_t row0 = half * 64 + warp % 4 * 16;
  const uint32_t q_rows = sk::arch::smem_addr(st.q[0]) + half * 64 * 128;
  const uint32_t v_fixed = sk::arch::smem_addr(st.v[0]);
  typename A::Params p{};
  p.seqlen_q = p.seqlen_k = 1u << 30;
  p.softmax_scale = 1.0f / sqrtf(static_cast<float>(D));
  const float scale_log2 = p.softmax_scale * 1.4426950408889634f;
  typename A::SAcc s_acc;
  typename A::OAcc o_acc;
  typename A::Rows row_max, row_sum, scale;
  sk::LaneArray<uint32_t, 4> p_frag[A::BN / 16];
  start_block_loop<A, D>(s_acc, o_acc, row_max, row_sum, scale, p_frag);
  auto kc = kpipe.consumer();
  auto vc = vpipe.consumer();
  constexpr uint32_t kBar = A::kSchedBarrierBase;
  const uint64_t t0 = clk();
  if (half == 1) sk::arch::named_barrier_arrive(kBar, 256);
  // The kernel's block loop (Sm90Attention::consume), its tile's first and last blocks aside.
  for (int n = 0; n < blocks; ++n) {
    const bool last = n + 1 == blocks;
    auto ks = kc.acquire();
    sk::arch::named_barrier_sync(kBar + half, 256);
    if (n > 0) A::rescale(o_acc, scale);
    sk::arch::wgmma_fence();
    A::gemm_qk(s_acc, q_rows, sk::arch::smem_addr(ks.tiles()));
    sk::arch::wgmma_commit_group();
    if constexpr (Pipe == kPipeKOnly) {
      A::gemm_pv(o_acc, p_frag, v_fixed);
      sk::arch::wgmma_commit_group();
      if (half == 0 || !last) sk::arch::named_barrier_arrive(kBar + 1 - half, 256);
      sk::arch::wgmma_wait_group<1>();
      std::move(ks).release();
      A::softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
      sk::arch::wgmma_wait_group<0>();
    } else {
      auto vs = vc.acquire();
      A::gemm_pv(o_acc, p_frag, sk::arch::smem_addr(vs.tiles()));
      sk::arch::wgmma_commit_group();
      if (half == 0 || !last) sk::arch::named_barrier_arrive(kBar + 1 - half, 256);
      sk::arch::wgmma_wait_group<1>();
      std::move(ks).release();
      A::softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
      sk::arch::wgmma_wait_group<0>();
      std::move(vs).release();
    }
    A::to_p(s_acc, p_frag);
  }
  const uint64_t t1 = clk();
  if (blockIdx.x == 0) record(times, t0, t1);
  if constexpr (Pipe == kPipeTmaStore) {
    // O and LSE over the source buffer's start (the producer has drained).
    typename A::Params q = p;
    q.seqlen_q = 128;
    q.heads = 1;
    q.lse_stride = 128;
    q.o = reinterpret_cast<typename Cfg::Elem*>(const_cast<uint8_t*>(src));
    q.lse = reinterpret_cast<float*>(const_cast<uint8_t*>(src) + (8u << 20));
    A::store(q, typename A::Tile{0, 0, 0, 0}, o_acc, row_sum, row_max, row0);
  }
  float acc = row_sum.regs[0][0] + row_sum.regs[0][1];
#pragma unroll
  for (int i = 0; i < A::BN / 2; ++i) acc += s_acc.regs[0][i];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) acc += o_acc.regs[0][i];
  sink[threadIdx.x] = acc;
}

inline uint8_t* g_out = nullptr;  // section 4b's O and LSE (512 KiB), apart from the source
inline uint8_t *g_k = nullptr, *g_v = nullptr, *g_q = nullptr;  // section 4b's K, V (8 MiB each) and Q apart

// Allocates and fills this section's buffers (once, before pipe_rows).
inline void allocate_buffers() {
  SK_CALIB_CK(cudaMalloc(&g_out, 512u << 10));
  SK_CALIB_CK(cudaMalloc(&g_k, 8u << 20));
  SK_CALIB_CK(cudaMalloc(&g_v, 8u << 20));
  SK_CALIB_CK(cudaMalloc(&g_q, 64u << 10));
  SK_CALIB_CK(cudaMemset(g_k, 1, 8u << 20));
  SK_CALIB_CK(cudaMemset(g_v, 1, 8u << 20));
  SK_CALIB_CK(cudaMemset(g_q, 1, 64u << 10));
}

// A BF16 tensor map over `rows` rows of D elements at `base` (one matrix of a
// rank-3 map, as the kernel's), boxes of 64 x box_rows, 128B swizzle.
template <int D>
CUtensorMap rows_map(const void* base, uint64_t rows, uint32_t box_rows) {
  CUtensorMap m;
  const cuuint64_t dims[3] = {D, rows, 1}, strides[2] = {D * 2, rows * D * 2};
  const cuuint32_t box[3] = {64, box_rows, 1}, es[3] = {1, 1, 1};
  if (sk::bench::encode_fn("attention_calibrate")(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(base),
                                                   dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "attention_calibrate: tensor map encoding failed\n");
    std::exit(2);
  }
  return m;
}

// Section 4b's rows: one CTA, cycles per block.
template <int D, int Pipe>
void pipe_row(const char* name) {
  constexpr int kBlocks = 256;
  constexpr int smem = sk::Sm90AttentionConfig<D, 2>::kSmemBytes;
  auto kernel = pipeline_loop<D, Pipe>;
  SK_CALIB_CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // The buffer as rows of D BF16 (one matrix) in boxes of 64 x BN: map the
  // whole, map_v its second half of rows alone, map_q the whole in boxes of
  // 128 rows (Q's, where K's and V's have 64 at head dim 256).
  constexpr uint32_t kRows = kTmaRows / (D / 64), kBn = sk::Sm90AttentionConfig<D, 2>::BN;
  const CUtensorMap map = rows_map<D>(g_src, kRows, kBn), map_v = rows_map<D>(g_src + ep::kSrcBytes / 2, kRows / 2, kBn),
                    map_q = rows_map<D>(g_src, kRows, 128);
  // The kernel's Params for one tile of kBlocks blocks: Q over the buffer's
  // start, K and V as map and map_v (or, apart, each in an allocation of its
  // own), O and LSE in g_out.
  typename sk::Sm90Attention<sk::Sm90AttentionConfig<D, 2>>::Params kparams{};
  const bool apart = Pipe == kPipeKernelBothApart;
  kparams.q = apart ? rows_map<D>(g_q, 128, 128) : map_q;
  kparams.k = apart ? rows_map<D>(g_k, kBn * kBlocks, kBn) : map;
  kparams.v = apart ? rows_map<D>(g_v, kBn * kBlocks, kBn) : map_v;
  kparams.o = reinterpret_cast<typename sk::Sm90AttentionConfig<D, 2>::Elem*>(g_out);
  kparams.lse = reinterpret_cast<float*>(g_out + (256u << 10));
  kparams.lse_stride = 128;
  kparams.batch = kparams.heads = kparams.kv_heads = 1;
  kparams.seqlen_q = 128;
  kparams.seqlen_k = kBlocks * sk::Sm90AttentionConfig<D, 2>::BN;
  kparams.softmax_scale = 1.0f / std::sqrt(static_cast<float>(D));
  const double span = median_span(
      [&] { kernel<<<1, 384, smem>>>(g_times, g_sink, kBlocks, g_src, g_out, map, map_v, kparams); }, 8);
  std::printf("%s,%d,%d,%.1f\n", name, D, kBlocks, span / kBlocks);
  if constexpr (Pipe == kPipeKernelBoth) {
    // The same launch timed as attention_bench times the kernel: CUDA events
    // around launches of 256 and 512 blocks, the marginal microseconds per
    // block against the marginal clock64 cycles per block (their ratio: the
    // SM clock while the kernel ran).
    double us[2], cyc[2];
    for (int i = 0; i < 2; ++i) {
      const int nb = kBlocks << i;
      auto kp = kparams;
      kp.seqlen_k = nb * sk::Sm90AttentionConfig<D, 2>::BN;
      cudaEvent_t e0, e1;
      SK_CALIB_CK(cudaEventCreate(&e0));
      SK_CALIB_CK(cudaEventCreate(&e1));
      std::vector<double> t, c;
      for (int r = 0; r < kReps; ++r) {
        SK_CALIB_CK(cudaEventRecord(e0));
        kernel<<<1, 384, smem>>>(g_times, g_sink, nb, g_src, g_out, map, map_v, kp);
        SK_CALIB_CK(cudaEventRecord(e1));
        SK_CALIB_CK(cudaDeviceSynchronize());
        float ms = 0;
        SK_CALIB_CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms * 1e3);
        c.push_back(static_cast<double>(span_of(8)));
      }
      SK_CALIB_CK(cudaEventDestroy(e0));
      SK_CALIB_CK(cudaEventDestroy(e1));
      us[i] = median(t);
      cyc[i] = median(c);
    }
    const double us_block = (us[1] - us[0]) / kBlocks, cyc_block = (cyc[1] - cyc[0]) / kBlocks;
    std::printf("%s_events,%d,%d,us_per_block %.4f,cycles_per_block %.1f,implied_mhz %.0f\n", name, D, kBlocks,
                us_block, cyc_block, cyc_block / us_block);
  }
}

// Section 4b's rows at head dim D.
template <int D>
void pipe_rows() {
  pipe_row<D, kPipeArrive>("pingpong_pipeline_arrive");
  pipe_row<D, kPipeKOnly>("pingpong_pipeline_k_only");
  pipe_row<D, kPipeData>("pingpong_pipeline_data");
  pipe_row<D, kPipeTma>("pingpong_pipeline_tma");
  pipe_row<D, kPipeTmaStore>("pingpong_pipeline_tma_then_store");
  pipe_row<D, kPipeKernelConsume>("pipeline_tma_kernel_consume");
  pipe_row<D, kPipeTmaTwoMaps>("pingpong_pipeline_tma_two_maps");
  pipe_row<D, kPipeKernelLayout>("pipeline_tma_kernel_consume_kernel_warps");
  pipe_row<D, kPipeKernelBoth>("pipeline_kernel_produce_and_consume");
  pipe_row<D, kPipeKernelBothApart>("pipeline_kernel_produce_and_consume_apart");
}

}  // namespace sk::bench::attention_pipe_loop
