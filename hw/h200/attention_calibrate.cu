// attention_calibrate.cu: microbenchmarks on a Hopper GPU for the timing of a
// FlashAttention-3-style forward kernel (SM90 model).
//
//   attention_calibrate   (prints CSV sections; under 10 s on an H100)
//
// Every kernel runs as one CTA on one SM; times are clock64 (SM cycles) read by
// each warp around the measured loop, span = latest end - earliest start over the
// participating warps; every figure is the median of 7 launches.
//
// 1. Special-function unit against FP32 FMA.
//    a. Latency: one warp, one dependent chain x <- ex2(-x) (x stays near 0.64)
//       of 4096 steps; the same for fma.rn.f32 (x <- 0.5 x + 0.25). Cycles per
//       step. ex2.approx.f32 (ptxas wraps MUFU.EX2 in a range test, a select
//       and two multiplies for subnormal results) and ex2.approx.ftz.f32
//       (MUFU.EX2 alone, the negation folded into its operand).
//    b. Throughput: 8 independent chains per thread, 2048 steps, 1, 4, 8 and 16
//       warps on the SM: cycles per warp-instruction per SM (span / warp-
//       instructions) and results per SM per cycle (32 lanes / that).
//    c. Mix: each step one ex2.approx.ftz.f32 and two independent fma.rn.f32
//       per chain (the softmax's ratio): does the SFU run beside the FMA pipe?
//    d. The softmax's other steps, latency (one chain, as a.) and throughput
//       (as b.): max.f32 and add.f32 (the row maximum and sum over a lane's
//       values), cvt.rn.bf16x2.f32 and cvt.rn.f16x2.f32 (P and O packed to
//       16 bits; the chain feeds the packed bits back as a float: 0.5 for
//       BF16, 0 after a few steps for FP16), and a quad reduction step,
//       shfl.sync.bfly.b32 then max.f32 (its latency only).
//    Every chain's final value is stored, so nothing can be removed.
// 2. Named barriers (bar.sync / bar.arrive with an id and a thread count,
//    immediates as CUTLASS's NamedBarrier compiles to).
//    a. 4096 x bar.sync id, count in a loop, with count threads of a CTA of
//       128, 256 or 384 (also bar.sync 1, 256 in a 384-thread CTA whose third
//       warpgroup does not take part, FA3's producer): cycles per barrier.
//    b. Ping-pong of two warpgroups, FA3's order of its consumer warpgroups:
//       warpgroup 1 first does bar.arrive 1, 256; then each turn warpgroup 0
//       does bar.sync 1, 256 ... bar.arrive 2, 256 and warpgroup 1 bar.sync
//       2, 256 ... bar.arrive 1, 256. 2048 turns each; cycles per hand-off =
//       span / (2 x 2048). With an empty turn, and with a turn that issues
//       8 SS + 8 RS wgmma m64n128k16 (one 64 x 128 S = Q K^T step and one
//       P V step at head dim 128), commits, hands off and then waits for its
//       group; the same work without the barriers for comparison (cycles per
//       wgmma per SM).
// 3. wgmma issue interval, m64nNk16 BF16 -> FP32, N = 64, 128, 256: 64 back-to-
//    back ops per warpgroup, one commit_group, wait_group 0 (as calibrate.cu's
//    wgmma_interval), and one op alone (issue -> wait done), with 1 and 2
//    warpgroups. Forms: SS (A and B from 128B-swizzled K-major SMEM
//    descriptors), RS (A as 4 x .b32 per thread, B a K-major descriptor) and
//    RS with an MN-major B (imm-trans-b = 1, as P V reads V). Random nonzero
//    BF16 operands; the accumulators are stored and checked finite and nonzero.
// 4. The attention kernel's own consumer steps (Sm90Attention's gemm_qk,
//    gemm_pv, softmax, rescale and to_p, compiled as the kernel compiles them)
//    on Q, K and V tiles resident in SMEM, no loads, one CTA of 256 threads,
//    `blocks` = 256 K/V blocks, unmasked (seqlen_k 2^30), at head dim 64,
//    128 and 256. Cycles per block for:
//      softmax_alone      warpgroup 0 alone: rescale O and the softmax (P's
//                         packing is left out: with no wgmma reading P,
//                         ptxas removes it);
//      softmax_two_wg     both warpgroups run that loop at once;
//      softmax_beside_ss  warpgroup 0 runs it while warpgroup 1 keeps the
//                         tensor core busy with its Q K^T wgmma (a group
//                         queued behind the running one, past the loop's end);
//      softmax_beside_rs  the same with warpgroup 1's P V (A in registers);
//      softmax_own_pv     warpgroup 0 alone, the kernel's intra-warpgroup
//                         overlap: P V issued, softmax, wait, pack P;
//      pv_alone           the same without the softmax;
//      pingpong           both warpgroups run the kernel's block loop (named
//                         barrier turn, rescale, Q K^T and P V issued, hand
//                         off, wait 1, softmax, wait 0, pack P): the block
//                         period without memory;
//      pingpong_no_softmax the same loop without the softmax;
//      pingpong_loads, pingpong_no_softmax_loads   the same two beside a third
//                         warpgroup whose first warp streams 16 KiB bulk copies
//                         of an L2-resident buffer into shared memory (two in
//                         flight, registers moved as the kernel moves them),
//                         on 1 and on 132 SMs; a second row gives the bytes
//                         per cycle it streamed (CTA 0).
//    Figures are the span over the measured warpgroups / blocks.
// 5. The FP32 pipe and the SFU beside a busy tensor core: warpgroup 0 runs the
//    chains of 1b (8 per thread: throughput; 1: latency) while warpgroup 1
//    has no work, or keeps the tensor core busy with m64n128k16 wgmma, SS or
//    RS (8 ops per group, one group queued behind the running one, until
//    well past warpgroup 0's end). Cycles per warp-instruction per warp (one
//    warp per sub-partition) and the ratio to the idle case.
// 6. The attention epilogue's per-lane stores (st.global.b32 in the wgmma
//    accumulator's layout, 16 rows per warp) from 4 or 8 warps of one CTA, on
//    1 SM or on 132 at once: rows of 64, 128 and 256 16-bit columns packed
//    (O's layout at head dim 64-256) and 128 or 256 columns of 16 KiB rows (a
//    matmul's C), and O's rows at head dim 128 from 8 warps on 16, 33, 66
//    and 99 SMs: bytes per SM-cycle until the last store is issued, and
//    until a __threadfence after them returns. Those rewrite the same lines
//    launch after launch (L2 hits); the "miss" rows write lines not written
//    before (O's case: a kernel's output is new to L2). The "readers_R" rows
//    store from 1-66 SMs while the other R SMs read a 16 MiB buffer through
//    L2 (ld.global.cg.v4, 8 warps each) past the stores' end. The "_v4" rows
//    store the same slabs 16 bytes a lane after a quad exchange (see
//    store_row_v4): whole sectors instead of half ones. This section is
//    hw/h200/store_path.cuh.
// 4b. The same block loop with the kernel's K and V pipelines and a producer
//    warp (plain arrives, bulk copies, the kernel's TMA loader), then with the
//    kernel's own consume() and produce() on one tile (pipeline_loop; its
//    PipeMode says what each row runs), one CTA, cycles per block:
//    hw/h200/attention_pipe_loop.cuh.
// 7. The kernel's epilogue (Sm90Attention::store) alone, without its stores,
//    beside the SM's own bulk loads and beside the other warpgroup's Q K^T,
//    on 1, 45 and 132 SMs at head dims 64-256: hw/h200/epilogue_beside.cuh.
// Every CUDA call is checked.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hw/h200/attention_calibrate_harness.cuh"
#include "hw/h200/attention_pipe_loop.cuh"
#include "hw/h200/bench_common.cuh"
#include "hw/h200/epilogue_beside.cuh"
#include "hw/h200/store_path.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/attention/sm90_attention.h"
#include "kernels/core/numeric.h"

namespace {

#define CK(x) SK_CALIB_CK(x)

using namespace sk::bench::calib;

// ---------------------------------------------------------------- 1. SFU / FMA
enum AluOp { kEx2 = 0, kEx2Ftz = 1, kFma = 2, kMix = 3, kMax = 4, kAdd = 5, kCvtBf16 = 6, kCvtF16 = 7,
             kShflMax = 8 };

template <int Op>
__device__ __forceinline__ float alu_step(float x) {
  float y;
  if constexpr (Op == kEx2)
    asm volatile("{\n.reg .f32 t;\nneg.f32 t, %1;\nex2.approx.f32 %0, t;\n}" : "=f"(y) : "f"(x));
  else if constexpr (Op == kFma)
    asm volatile("fma.rn.f32 %0, %1, 0f3F000000, 0f3E800000;" : "=f"(y) : "f"(x));
  else if constexpr (Op == kMax)
    asm volatile("max.f32 %0, %1, 0f3F000000;" : "=f"(y) : "f"(x));
  else if constexpr (Op == kAdd)
    asm volatile("add.f32 %0, %1, 0f00000001;" : "=f"(y) : "f"(x));
  else if constexpr (Op == kCvtBf16)
    asm volatile("{\n.reg .b32 t;\ncvt.rn.bf16x2.f32 t, %1, %1;\nmov.b32 %0, t;\n}" : "=f"(y) : "f"(x));
  else if constexpr (Op == kCvtF16)
    asm volatile("{\n.reg .b32 t;\ncvt.rn.f16x2.f32 t, %1, %1;\nmov.b32 %0, t;\n}"
                 : "=f"(y)
                 : "f"(x));
  else if constexpr (Op == kShflMax)
    asm volatile("{\n.reg .f32 t;\nshfl.sync.bfly.b32 t, %1, 1, 0x1f, 0xffffffff;\nmax.f32 %0, %1, t;\n}"
                 : "=f"(y)
                 : "f"(x));
  else
    asm volatile("{\n.reg .f32 t;\nneg.f32 t, %1;\nex2.approx.ftz.f32 %0, t;\n}" : "=f"(y) : "f"(x));
  return y;
}

// C independent chains per thread, `steps` steps each; records the warp's
// span and stores the chains' sum.
template <int Op, int C>
__device__ __forceinline__ void run_chains(uint64_t* times, float* sink, int steps) {
  float x[C], y[C], z[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    x[c] = 0.5f + 0.001f * static_cast<float>(threadIdx.x % 32) + 0.01f * static_cast<float>(c);
    y[c] = 0.75f * x[c];
    z[c] = 0.25f * x[c];
  }
  const uint64_t t0 = clk();
#pragma unroll 16
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      x[c] = alu_step<Op>(x[c]);
      if constexpr (Op == kMix) {
        y[c] = alu_step<kFma>(y[c]);
        z[c] = alu_step<kFma>(z[c]);
      }
    }
  }
  const uint64_t t1 = clk();
  record(times, t0, t1);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < C; ++c) sum += x[c] + y[c] + z[c];
  sink[threadIdx.x] = sum;
}

template <int Op, int C>
__global__ void alu_chains(uint64_t* times, float* sink, int steps) {
  __syncthreads();
  run_chains<Op, C>(times, sink, steps);
}

// ---------------------------------------------------------------- 2. named barriers
template <int Id, int Count>
__device__ __forceinline__ void bar_sync() {
  asm volatile("bar.sync %0, %1;" : : "n"(Id), "n"(Count) : "memory");
}
template <int Id, int Count>
__device__ __forceinline__ void bar_arrive() {
  asm volatile("bar.arrive %0, %1;" : : "n"(Id), "n"(Count) : "memory");
}

// The first Count threads run `iters` x bar.sync Id, Count; the rest idle.
template <int Id, int Count>
__global__ void bar_loop(uint64_t* times, int iters) {
  __syncthreads();
  const uint64_t t0 = clk();
  if (threadIdx.x < Count) {
#pragma unroll 8
    for (int i = 0; i < iters; ++i) bar_sync<Id, Count>();
  }
  const uint64_t t1 = clk();
  record(times, t0, t1);
}

// ---------------------------------------------------------------- 3. wgmma (RS form)
#define AC_D8(b)                                                                           \
  "+f"(d[(b) + 0]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]), \
      "+f"(d[(b) + 5]), "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define AC_D32(b) AC_D8(b), AC_D8((b) + 8), AC_D8((b) + 16), AC_D8((b) + 24)
#define AC_RS_IN                                                                              \
  "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)), \
      "n"(TB)
#define AC_RS_TEXT_64 \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
#define AC_RS_TEXT_128 \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
#define AC_RS_TEXT_256 \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}, {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n"

// D[64 x N] (+)= A[64 x 16] * B[N x 16]^T with A from registers: thread t of the
// warpgroup holds the four .b32 (8 BF16) of its A fragment (same row/column
// pattern as an m16n8k16 A fragment, warp w covering rows 16w .. 16w + 15).
// TB = 1: B is MN-major (make_smem_desc_sw128_mn). No imm-trans-a for this form.
template <int N, int TB>
__device__ __forceinline__ void wgmma_rs(sk::LaneArray<float, N / 2>& acc, const uint32_t* a,
                                         uint64_t desc_b, bool accumulate) {
  float* d = acc.regs[0];
  if constexpr (N == 64)
    asm volatile(AC_RS_TEXT_64 : AC_D32(0) : AC_RS_IN : "memory");
  else if constexpr (N == 128)
    asm volatile(AC_RS_TEXT_128 : AC_D32(0), AC_D32(32) : AC_RS_IN : "memory");
  else
    asm volatile(AC_RS_TEXT_256
                 : AC_D32(0), AC_D32(32), AC_D32(64), AC_D32(96)
                 : AC_RS_IN
                 : "memory");
}

enum WgmmaForm { kSS = 0, kRS = 1, kRSTransB = 2 };

template <int N>
__device__ __forceinline__ void wgmma_ss(sk::LaneArray<float, N / 2>& acc, uint64_t da, uint64_t db) {
  if constexpr (N == 64) sk::arch::wgmma_m64n64k16_bf16_ss(acc, da, db, true);
  if constexpr (N == 128) sk::arch::wgmma_m64n128k16_bf16_ss(acc, da, db, true);
  if constexpr (N == 256) sk::arch::wgmma_m64n256k16_bf16_ss(acc, da, db, true);
}

// Op i of a run: K step i & 3 of the 64-deep tiles (A 64 x 64 at `a`, B N x 64 at `b`).
template <int Form, int N>
__device__ __forceinline__ void wgmma_op(sk::LaneArray<float, N / 2>& acc, const uint32_t* areg,
                                         uint32_t a, uint32_t b, int i) {
  if constexpr (Form == kSS) {
    wgmma_ss<N>(acc, sk::arch::make_smem_desc_sw128(a + 32 * (i & 3)),
                sk::arch::make_smem_desc_sw128(b + 32 * (i & 3)));
  } else if constexpr (Form == kRS) {
    wgmma_rs<N, 0>(acc, areg + 4 * (i & 3), sk::arch::make_smem_desc_sw128(b + 32 * (i & 3)), true);
  } else {
    // MN-major B: 64-element N blocks 8 KiB apart, 8-row K groups 1 KiB apart.
    wgmma_rs<N, 1>(acc, areg + 4 * (i & 3), sk::arch::make_smem_desc_sw128_mn(b + 2048 * (i & 3), 8192, 1024),
                   true);
  }
}

// Random BF16 tiles A (64 x 64) and B (N x 64) in SMEM, and 4 A fragments in registers.
__device__ __forceinline__ uint8_t* fill_operands(uint8_t* smem, int n, uint32_t* areg) {
  uint8_t* base = sk::bench::smem_align_1024(smem);
  for (uint32_t i = threadIdx.x; i < static_cast<uint32_t>((64 + n) * 64); i += blockDim.x)
    reinterpret_cast<uint16_t*>(base)[i] = rand_bf16(i);
#pragma unroll
  for (int j = 0; j < 16; ++j)
    areg[j] = static_cast<uint32_t>(rand_bf16(1000003u + 32u * threadIdx.x + 2u * j)) |
              (static_cast<uint32_t>(rand_bf16(1000004u + 32u * threadIdx.x + 2u * j)) << 16);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  return base;
}

template <int N>
__device__ __forceinline__ float acc_sum(const sk::LaneArray<float, N / 2>& acc) {
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += acc.regs[0][i];
  return s;
}

// Each warpgroup issues `Ops` back-to-back ops, commits, waits.
template <int Form, int N, int Ops>
__global__ void __launch_bounds__(256, 1) wgmma_interval(uint64_t* out, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t areg[16];
  uint8_t* base = fill_operands(smem, N, areg);
  const uint32_t a = sk::arch::smem_addr(base), b = a + 64 * 128;
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  sk::arch::wgmma_fence();
  const uint64_t t0 = clk();
#pragma unroll
  for (int i = 0; i < Ops; ++i) wgmma_op<Form, N>(acc, areg, a, b, i);
  sk::arch::wgmma_commit_group();
  sk::arch::wgmma_wait_group<0>();
  const uint64_t t1 = clk();
  if (threadIdx.x % 128 == 0) out[threadIdx.x / 128] = t1 - t0;
  sink[threadIdx.x] = acc_sum<N>(acc);
}

// Two warpgroups in turn (Work 0: empty turn; 1: 8 SS + 8 RS m64n128k16 per turn,
// wait after the hand-off; 2: the same wgmma work without the barriers).
template <int Work>
__global__ void __launch_bounds__(256, 1) pingpong(uint64_t* times, float* sink, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t areg[16];
  uint8_t* base = fill_operands(smem, 128, areg);
  const uint32_t a = sk::arch::smem_addr(base), b = a + 64 * 128;
  const int wg = threadIdx.x / 128;
  sk::LaneArray<float, 64> s_acc, o_acc;
#pragma unroll
  for (int i = 0; i < 64; ++i) s_acc.regs[0][i] = o_acc.regs[0][i] = 0.0f;
  constexpr bool kBarriers = Work != 2, kWgmma = Work != 0;
  const uint64_t t0 = clk();
  if (kBarriers && wg == 1) bar_arrive<1, 256>();
  for (int it = 0; it < iters; ++it) {
    if constexpr (kBarriers) {
      if (wg == 0)
        bar_sync<1, 256>();
      else
        bar_sync<2, 256>();
    }
    if constexpr (kWgmma) {
      sk::arch::wgmma_fence();
#pragma unroll
      for (int k = 0; k < 8; ++k) wgmma_op<kSS, 128>(s_acc, areg, a, b, k);
#pragma unroll
      for (int k = 0; k < 8; ++k) wgmma_op<kRS, 128>(o_acc, areg, a, b, k);
      sk::arch::wgmma_commit_group();
    }
    if constexpr (kBarriers) {
      if (wg == 0)
        bar_arrive<2, 256>();
      else
        bar_arrive<1, 256>();
    }
    if constexpr (kWgmma) sk::arch::wgmma_wait_group<0>();
  }
  if (kBarriers && wg == 0) bar_sync<1, 256>();
  const uint64_t t1 = clk();
  record(times, t0, t1);
  sink[threadIdx.x] = acc_sum<128>(s_acc) + acc_sum<128>(o_acc);
}

// ---------------------------------------------------------------- 4. consumer steps
enum StepMode { kSmAlone, kSmTwo, kSmBesideSs, kSmBesideRs, kSmOwnPv, kPvAlone, kPingpong, kPingpongNoSoftmax,
                kPingpongLoads, kPingpongNoSoftmaxLoads };
// The ping-pong modes with a third warpgroup whose first warp streams bulk
// copies into shared memory while the consumers run (as the kernel's producer
// loads K and V): 384 threads, registers moved as the kernel moves them.
__host__ __device__ constexpr bool with_loads(int mode) { return mode == kPingpongLoads || mode == kPingpongNoSoftmaxLoads; }
__host__ __device__ constexpr bool pingpong_mode(int mode) {
  return mode == kPingpong || mode == kPingpongNoSoftmax || with_loads(mode);
}
__host__ __device__ constexpr bool softmax_in_pingpong(int mode) { return mode == kPingpong || mode == kPingpongLoads; }


namespace ep = sk::bench::epilogue_beside;

template <int D>
struct StepSmem {
  using Cfg = sk::Sm90AttentionConfig<D, 2>;
  static constexpr int kOperands = Cfg::kQBytes + 2 * Cfg::kKvBytes;
  // The operands, then (with loads) the producer's ring, its barriers and the running count.
  static constexpr int kBytes = kOperands + ep::kRing * ep::kChunkBytes + 64 + 1024;
};

template <int D, int Mode>
__global__ void __launch_bounds__(with_loads(Mode) ? 384 : 256, 1)
    consumer_steps(uint64_t* times, float* sink, int blocks, const uint8_t* src) {
  using Cfg = sk::Sm90AttentionConfig<D, 2>;
  using A = sk::Sm90Attention<Cfg>;
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* base = sk::bench::smem_align_1024(smem);
  uint8_t* ring = base + StepSmem<D>::kOperands;
  uint64_t* bars = reinterpret_cast<uint64_t*>(ring + ep::kRing * ep::kChunkBytes);
  volatile uint32_t* running = reinterpret_cast<volatile uint32_t*>(bars + ep::kRing);
  if (with_loads(Mode) && threadIdx.x == 0) {
    for (uint32_t i = 0; i < ep::kRing; ++i) sk::arch::mbarrier_init(&bars[i], 1);
    *running = 8;  // the consumer warps
    sk::arch::fence_mbarrier_init();
  }
  for (uint32_t i = threadIdx.x; i < (Cfg::kQBytes + 2 * Cfg::kKvBytes) / 2; i += blockDim.x)
    reinterpret_cast<uint16_t*>(base)[i] = rand_bf16(i);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const uint32_t q = sk::arch::smem_addr(base), k = q + Cfg::kQBytes, v = k + Cfg::kKvBytes;
  // Warp-uniform (the kernel's warp_idx): a branch on threadIdx would be
  // divergent to ptxas and serialize the wgmma (C7520).
  const uint32_t warp = sk::arch::warp_idx(), half = warp / 4;
  if constexpr (with_loads(Mode)) {
    if (warp >= 8) {  // the producer warpgroup
      sk::arch::warpgroup_reg_dealloc<40>();
      if (warp == 8) {
        const uint64_t loaded = ep::stream_into_smem(ring, bars, running, src);
        if (threadIdx.x == 256 && blockIdx.x == 0) times[100] = loaded;
      }
      return;
    }
    sk::arch::warpgroup_reg_alloc<232>();
  }
  const uint32_t row0 = half * 64 + warp % 4 * 16;
  const uint32_t q_rows = q + half * 64 * 128;
  typename A::Params p{};
  p.seqlen_q = p.seqlen_k = 1u << 30;
  p.softmax_scale = 1.0f / sqrtf(static_cast<float>(D));
  const float scale_log2 = p.softmax_scale * 1.4426950408889634f;
  typename A::SAcc s_acc;
  typename A::OAcc o_acc;
  typename A::Rows row_max, row_sum, scale;
  sk::LaneArray<uint32_t, 4> p_frag[A::BN / 16];
  start_block_loop<A, D>(s_acc, o_acc, row_max, row_sum, scale, p_frag);
  constexpr bool kBoth = Mode == kSmTwo || pingpong_mode(Mode);
  if ((Mode == kSmBesideSs || Mode == kSmBesideRs) && half == 1) {
    // The other warpgroup keeps the tensor core busy past warpgroup 0's
    // loop (4 x `blocks` groups, one queued behind the one running): Q K^T
    // (SS) or P V (RS, A from its registers).
    sk::arch::wgmma_fence();
    for (int g = 0; g < 4 * blocks; ++g) {
      if constexpr (Mode == kSmBesideSs)
        A::gemm_qk(s_acc, q_rows, k);
      else
        A::gemm_pv(o_acc, p_frag, v);
      sk::arch::wgmma_commit_group();
      sk::arch::wgmma_wait_group<1>();
    }
    sk::arch::wgmma_wait_group<0>();
  } else if (kBoth || half == 0) {
    const uint64_t t0 = clk();
    if constexpr (pingpong_mode(Mode)) {
      constexpr uint32_t kBar = A::kSchedBarrierBase;
      if (half == 1) sk::arch::named_barrier_arrive(kBar, 256);
      for (int n = 0; n < blocks; ++n) {
        const bool last = n + 1 == blocks;
        sk::arch::named_barrier_sync(kBar + half, 256);
        if (n > 0) A::rescale(o_acc, scale);
        sk::arch::wgmma_fence();
        A::gemm_qk(s_acc, q_rows, k);
        sk::arch::wgmma_commit_group();
        if (n == 0) {
          sk::arch::named_barrier_arrive(kBar + 1 - half, 256);
          sk::arch::wgmma_wait_group<0>();
          if constexpr (softmax_in_pingpong(Mode)) A::softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
        } else {
          A::gemm_pv(o_acc, p_frag, v);
          sk::arch::wgmma_commit_group();
          if (half == 0 || !last) sk::arch::named_barrier_arrive(kBar + 1 - half, 256);
          sk::arch::wgmma_wait_group<1>();
          if constexpr (softmax_in_pingpong(Mode)) A::softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
          sk::arch::wgmma_wait_group<0>();
        }
        A::to_p(s_acc, p_frag);
      }
    } else {
      for (int n = 0; n < blocks; ++n) {
        A::rescale(o_acc, scale);
        if constexpr (Mode == kSmOwnPv || Mode == kPvAlone) {
          sk::arch::wgmma_fence();
          A::gemm_pv(o_acc, p_frag, v);
          sk::arch::wgmma_commit_group();
        }
        if constexpr (Mode != kPvAlone) A::softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
        if constexpr (Mode == kSmOwnPv || Mode == kPvAlone) {
          sk::arch::wgmma_wait_group<0>();
          A::to_p(s_acc, p_frag);  // where no wgmma reads P, ptxas drops it
        }
      }
    }
    const uint64_t t1 = clk();
    if (blockIdx.x == 0) record(times, t0, t1);
    if (with_loads(Mode) && threadIdx.x % 32 == 0) atomicSub(const_cast<uint32_t*>(running), 1u);
  }
  float acc = row_sum.regs[0][0] + row_sum.regs[0][1];
#pragma unroll
  for (int i = 0; i < A::BN / 2; ++i) acc += s_acc.regs[0][i];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) acc += o_acc.regs[0][i];
  if (kBoth || half == 0) sink[threadIdx.x] = acc;
}

// ---------------------------------------------------------------- 5. ALU beside wgmma
template <int Op, int C, int Form>  // Form: -1 idle, kSS or kRS
__global__ void __launch_bounds__(256, 1) alu_beside(uint64_t* times, float* sink, int steps, int groups) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t areg[16];
  uint8_t* base = fill_operands(smem, 128, areg);
  const uint32_t a = sk::arch::smem_addr(base), b = a + 64 * 128;
  if (sk::arch::warp_idx() >= 4) {
    if constexpr (Form >= 0) {
      sk::LaneArray<float, 64> acc;
#pragma unroll
      for (int i = 0; i < 64; ++i) acc.regs[0][i] = 0.0f;
      sk::arch::wgmma_fence();
      for (int g = 0; g < groups; ++g) {
#pragma unroll
        for (int k = 0; k < 8; ++k) wgmma_op<Form, 128>(acc, areg, a, b, k);
        sk::arch::wgmma_commit_group();
        sk::arch::wgmma_wait_group<1>();
      }
      sk::arch::wgmma_wait_group<0>();
      sink[threadIdx.x] = acc_sum<128>(acc);
    }
    return;
  }
  run_chains<Op, C>(times, sink, steps);
}

// ---------------------------------------------------------------- host

template <int Op>
void alu_row(const char* name, int warps) {
  constexpr int kChains = 8, kSteps = 2048;
  const double span =
      median_span([&] { alu_chains<Op, kChains><<<1, 32 * warps>>>(g_times, g_sink, kSteps); }, warps);
  const double instr = static_cast<double>(warps) * kChains * kSteps;  // warp-instructions of `name`
  std::printf("%s,%d,%d,%.3f,%.2f\n", name, warps, kChains, span / instr, 32.0 * instr / span);
}

template <int Form, int N, int Ops>
void wgmma_row(const char* form) {
  const int smem = (64 + N) * 128 + 1024;
  auto kernel = wgmma_interval<Form, N, Ops>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  for (int groups : {1, 2}) {
    std::vector<double> c;
    for (int r = 0; r < kReps; ++r) {
      kernel<<<1, 128 * groups, smem>>>(g_times, g_sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      uint64_t h[2] = {0, 0};
      CK(cudaMemcpy(h, g_times, 8 * groups, cudaMemcpyDeviceToHost));
      c.push_back(static_cast<double>(std::max(h[0], h[1])));
    }
    const bool ok = sink_ok(128 * groups);
    g_all_ok = g_all_ok && ok;
    std::printf("%s,%d,%d,%d,%.1f,%d\n", form, N, groups, Ops, median(c) / Ops, ok ? 1 : 0);
  }
}

template <int Form>
void wgmma_rows(const char* form) {
  wgmma_row<Form, 64, 64>(form);
  wgmma_row<Form, 128, 64>(form);
  wgmma_row<Form, 256, 64>(form);
  wgmma_row<Form, 64, 1>(form);
  wgmma_row<Form, 128, 1>(form);
  wgmma_row<Form, 256, 1>(form);
}


// One row of section 4: cycles per block of CTA 0 over `ctas` CTAs (one per
// SM); with loads, a second row with the bytes per cycle the producer streamed.
template <int D, int Mode>
void step_row(const char* name, int ctas = 1) {
  constexpr int kBlocks = 256;
  constexpr int smem = StepSmem<D>::kBytes;
  auto kernel = consumer_steps<D, Mode>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const bool both = Mode == kSmTwo || pingpong_mode(Mode);
  const int threads = with_loads(Mode) ? 384 : Mode == kSmAlone || Mode == kSmOwnPv || Mode == kPvAlone ? 128 : 256;
  std::vector<double> rate;
  const double span = median_span(
      [&] {
        kernel<<<ctas, threads, smem>>>(g_times, g_sink, kBlocks, g_src);
        if (with_loads(Mode)) {
          CK(cudaDeviceSynchronize());
          uint64_t loaded = 0;
          CK(cudaMemcpy(&loaded, g_times + 100, 8, cudaMemcpyDeviceToHost));
          rate.push_back(static_cast<double>(loaded) / static_cast<double>(span_of(8)));
        }
      },
      both ? 8 : 4);
  if (ctas == 1)
    std::printf("%s,%d,%d,%.1f\n", name, D, kBlocks, span / kBlocks);
  else
    std::printf("%s_%d_sms,%d,%d,%.1f\n", name, ctas, D, kBlocks, span / kBlocks);
  if (with_loads(Mode))
    std::printf("%s%s_bytes_per_cycle,%d,%d,%.1f\n", name, ctas == 1 ? "" : "_132_sms", D, kBlocks,
                median(rate));
}

template <int D>
void step_rows() {
  step_row<D, kSmAlone>("softmax_alone");
  step_row<D, kSmTwo>("softmax_two_wg");
  step_row<D, kSmBesideSs>("softmax_beside_ss");
  step_row<D, kSmBesideRs>("softmax_beside_rs");
  step_row<D, kSmOwnPv>("softmax_own_pv");
  step_row<D, kPvAlone>("pv_alone");
  step_row<D, kPingpong>("pingpong");
  step_row<D, kPingpongNoSoftmax>("pingpong_no_softmax");
  for (int ctas : {1, 132}) {
    step_row<D, kPingpongLoads>("pingpong_loads", ctas);
    step_row<D, kPingpongNoSoftmaxLoads>("pingpong_no_softmax_loads", ctas);
  }
  sk::bench::attention_pipe_loop::pipe_rows<D>();
}

// Section 5: one Op's chains on warpgroup 0, the tensor core idle or busy.
template <int Op, int C>
void beside_rows(const char* name) {
  constexpr int kSteps = 2048, kGroups = 2048;
  const int smem = (64 + 128) * 128 + 1024;
  double idle = 0.0;
  auto row = [&](auto kernel, const char* form) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const double span =
        median_span([&] { kernel<<<1, 256, smem>>>(g_times, g_sink, kSteps, kGroups); }, 4);
    const double per = span / (static_cast<double>(kSteps) * C);
    if (idle == 0.0) idle = per;
    std::printf("%s,%d,%s,%.3f,%.3f\n", name, C, form, per, per / idle);
  };
  row(alu_beside<Op, C, -1>, "idle");
  row(alu_beside<Op, C, kSS>, "ss");
  row(alu_beside<Op, C, kRS>, "rs");
}

}  // namespace

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CK(cudaMalloc(&g_times, 4096 * 8));
  CK(cudaMalloc(&g_sink, kMaxThreads * 4));

  // 1a. latency: one warp, one chain.
  std::printf("section,alu_latency\ninstruction,cycles_per_dependent_step\n");
  constexpr int kLatSteps = 4096;
  auto lat = [&](const char* name, auto kernel) {
    const double span = median_span([&] { kernel<<<1, 32>>>(g_times, g_sink, kLatSteps); }, 1);
    std::printf("%s,%.2f\n", name, span / kLatSteps);
  };
  lat("ex2.approx.f32", alu_chains<kEx2, 1>);
  lat("ex2.approx.ftz.f32", alu_chains<kEx2Ftz, 1>);
  lat("fma.rn.f32", alu_chains<kFma, 1>);
  lat("max.f32", alu_chains<kMax, 1>);
  lat("add.f32", alu_chains<kAdd, 1>);
  lat("cvt.rn.bf16x2.f32", alu_chains<kCvtBf16, 1>);
  lat("cvt.rn.f16x2.f32", alu_chains<kCvtF16, 1>);
  lat("shfl.sync.bfly.b32+max.f32", alu_chains<kShflMax, 1>);

  // 1b. throughput.
  std::printf("section,alu_throughput\ninstruction,warps,chains_per_warp,"
              "cycles_per_warp_instruction_per_sm,results_per_sm_per_cycle\n");
  for (int warps : {1, 4, 8, 16}) alu_row<kEx2>("ex2.approx.f32", warps);
  for (int warps : {1, 4, 8, 16}) alu_row<kEx2Ftz>("ex2.approx.ftz.f32", warps);
  for (int warps : {1, 4, 8, 16}) alu_row<kFma>("fma.rn.f32", warps);
  for (int warps : {1, 4, 8, 16}) alu_row<kMax>("max.f32", warps);
  for (int warps : {1, 4, 8, 16}) alu_row<kCvtBf16>("cvt.rn.bf16x2.f32", warps);
  for (int warps : {1, 4, 8, 16}) alu_row<kCvtF16>("cvt.rn.f16x2.f32", warps);

  // 1c. mix: per chain and step one ex2.ftz and two FMAs; counted per ex2.
  std::printf("section,ex2_fma_mix\nwarps,chains_per_warp,fma_per_ex2,"
              "cycles_per_ex2_warp_instruction_per_sm,ex2_results_per_sm_per_cycle\n");
  for (int warps : {4, 8, 16}) {
    constexpr int kChains = 8, kSteps = 2048;
    const double span =
        median_span([&] { alu_chains<kMix, kChains><<<1, 32 * warps>>>(g_times, g_sink, kSteps); }, warps);
    const double instr = static_cast<double>(warps) * kChains * kSteps;
    std::printf("%d,%d,2,%.3f,%.2f\n", warps, kChains, span / instr, 32.0 * instr / span);
  }

  // 2a. named barriers in a loop.
  constexpr int kBarIters = 4096;
  std::printf("section,named_barrier\nbarrier,cta_threads,participating_threads,cycles_per_barrier\n");
  auto bar = [&](const char* name, auto kernel, int cta, int count) {
    const double span = median_span([&] { kernel<<<1, cta>>>(g_times, kBarIters); }, count / 32, false);
    std::printf("%s,%d,%d,%.2f\n", name, cta, count, span / kBarIters);
  };
  bar("bar.sync 1 128", bar_loop<1, 128>, 128, 128);
  bar("bar.sync 1 256", bar_loop<1, 256>, 256, 256);
  bar("bar.sync 1 256", bar_loop<1, 256>, 384, 256);
  bar("bar.sync 1 384", bar_loop<1, 384>, 384, 384);
  bar("bar.sync 0 256", bar_loop<0, 256>, 256, 256);

  // 2b. ping-pong of two warpgroups.
  constexpr int kTurns = 2048;
  const int pp_smem = (64 + 128) * 128 + 1024;
  std::printf("section,pingpong\nturn,turns_per_warpgroup,cycles_per_handoff,"
              "wgmma_per_turn,cycles_per_wgmma_per_sm\n");
  auto pp = [&](const char* name, auto kernel, int ops) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, pp_smem));
    const double span =
        median_span([&] { kernel<<<1, 256, pp_smem>>>(g_times, g_sink, kTurns); }, 8, ops != 0);
    const double turns = 2.0 * kTurns;
    std::printf("%s,%d,%.2f,%d,%.2f\n", name, kTurns, span / turns, ops,
                ops == 0 ? 0.0 : span / (turns * ops));
  };
  pp("empty", pingpong<0>, 0);
  pp("8 SS + 8 RS m64n128k16", pingpong<1>, 16);
  pp("same wgmma no barriers", pingpong<2>, 16);

  // 3. wgmma issue interval.
  std::printf("section,wgmma_interval\nform,n,warpgroups,ops,cycles_per_op_per_warpgroup,operands_ok\n");
  wgmma_rows<kSS>("ss");
  wgmma_rows<kRS>("rs");
  wgmma_rows<kRSTransB>("rs_trans_b");

  // 4. the kernel's consumer steps without loads (and beside a streaming producer).
  CK(cudaMalloc(&g_src, ep::kSrcBytes));
  sk::bench::attention_pipe_loop::allocate_buffers();
  CK(cudaMemset(g_src, 1, ep::kSrcBytes));
  std::printf("section,consumer_steps\nstep,head_dim,blocks,cycles_per_block\n");
  step_rows<64>();
  step_rows<128>();
  step_rows<256>();

  // 5. ALU beside a busy tensor core.
  std::printf("section,alu_beside_wgmma\ninstruction,chains_per_thread,tensor_core,"
              "cycles_per_warp_instruction,ratio_to_idle\n");
  beside_rows<kEx2Ftz, 8>("ex2.approx.ftz.f32");
  beside_rows<kFma, 8>("fma.rn.f32");
  beside_rows<kMax, 8>("max.f32");
  beside_rows<kMix, 8>("ex2.ftz+2fma");
  beside_rows<kFma, 1>("fma.rn.f32");
  beside_rows<kEx2Ftz, 1>("ex2.approx.ftz.f32");

  // 6. fragment stores (hw/h200/store_path.cuh).
  sk::bench::store_path::print_fragment_stores(g_times, g_sink, kReps, "attention_calibrate");

  // 7. the kernel's epilogue beside the SM's other work (hw/h200/epilogue_beside.cuh).
  sk::bench::epilogue_beside::print_epilogue_beside(g_times, kReps, "attention_calibrate");

  std::printf("section,device\nsms,%d\nclock_khz,%d\nall_sinks_finite_nonzero,%d\n", sms, clock_khz,
              g_all_ok ? 1 : 0);
  return 0;
}
