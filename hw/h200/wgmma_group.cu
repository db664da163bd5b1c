// wgmma_group.cu: when a k-block's wgmma group completes, on one SM, with
// one or two warpgroups issuing (the SM90 matmul's consumer warpgroups).
//
//   wgmma_group [issue | loads | mix | alu]   (prints CSV; seconds on an H200)
//
// Each warpgroup runs `iters` k-blocks: `ops` m64nNk16 BF16 ops from shared
// memory (random operands), commit, wait_group 0, as the matmul's consumer
// does per stage. Modes:
//   sync   both warpgroups pass a named barrier (bar.sync 1, 256) before each
//          k-block, as both acquire one full stage at once when the ring is
//          what limits; warpgroup 1 then spins `delay` cycles first;
//   free   no barrier: each warpgroup issues its next group as soon as its
//          own has completed (a stage always full).
// Per k-block and warpgroup: start (clock64 before wgmma.fence) and done
// (after wgmma.wait_group 0); clock64 is the SM's, so both warpgroups' stamps
// compare. Printed per row, medians over k-blocks 8 .. iters - 1:
//   wg0_cycles, wg1_cycles  done - start of each warpgroup's group
//   hold                    the later done - the earlier start (the stage
//                           held when both consume it)
//   skew                    wg1's start - wg0's start
//   period                  wg0's start(k + 1) - start(k)
// Section wgmma_ring: the matmul's consumer loop on a ring whose stages are
// always full, without memory: two consumer warpgroups and a producer warp,
// `stages` stage barriers as the kernel's (full: one arrival, the producer's
// plain arrive standing for its loads' completion; empty: one elected lane
// per consumer warp). Each warpgroup per k-block: wait for the stage full,
// wgmma.fence, 4 ops, commit, wait_group 0, spin `hold` SM cycles (as
// gemm_bench --hold-kblock), release; with one warpgroup or two, and with
// no stage barriers at all (barriers 0), and with the ring's operations
// one at a time (barriers 2-4, below). Each warpgroup keeps its stamps in
// shared memory (start: after the stage wait; done: after wait_group) and
// writes them out after the loop. Medians over k-blocks 8-135:
//   n,barriers,warpgroups,stages,hold,period,group0,group1,rest0,rest1,skew
// (period: warpgroup 0's start to start; group: start to done; rest: done
// to the next start; skew: warpgroup 1's start less warpgroup 0's).
// Section wgmma_issue (`wgmma_group issue` runs it alone): when each
// wgmma.mma_async of a group returns to its warp, i.e. how many ops the
// tensor core's queue takes before an issuing warp stalls. One or two
// warpgroups (two: both released by a named barrier, warpgroup 1 after a
// spin of `delay` cycles) each issue 16 m64nNk16 ops, A from shared memory
// (ss) or from registers (rs, as the attention kernel's P V), with clock64
// after the fence and after every op, then commit and wait_group 0.
// Medians over k-blocks 8-63, SM cycles from the warpgroup's fence:
//   n,form,warpgroups,delay,wg,op,issued,done
// (issued: op `op`'s issue returned; done: the group's wait returned).
// Section wgmma_loads (`wgmma_group loads`): one or two warpgroups issue
// groups of 16 m64nNk16 ops back to back (fence, ops, commit, wait_group 0),
// A from shared memory (ss) or registers (rs), while one producer warp
// streams 16 KiB bulk copies (cp.async.bulk, two in flight) of an
// L2-resident 16 MiB buffer into the CTA's shared memory, or idles: whether
// the copies' writes into shared memory slow the tensor core's operand
// reads. On 1 SM and on every SM (one CTA each, all streaming: each SM's
// share of the L2). CTA 0's medians over groups 8-63, SM cycles:
//   n,form,warpgroups,sms,loads,group0,group1,op_cycles,load_bytes_per_cycle
// (op_cycles: the later warpgroup's group over its ops, both warpgroups'
// ops counted when two run; load_bytes_per_cycle: the copies that landed
// over the consumers' span).
// Section wgmma_split (a k-block's ops by how they split the tile) is a
// program of its own, wgmma_split.cu; the helpers both programs' sections
// share are wgmma_group_common.cuh's.
// Section wgmma_mix (`wgmma_group mix`): groups that mix the attention
// kernel's op shapes (S = Q K^T from SMEM, then P V with A from registers,
// two commits as the kernel issues them), against each shape alone: one
// warpgroup, or two passing bar.sync 1, 256 before each group (their ops
// interleaved on the tensor core). Per pattern (head dim 256: 16 m64n64k16
// ss + 4 m64n256k16 rs; 128: 8 m64n128k16 ss + 8 m64n128k16 rs; 64: 4
// m64n128k16 ss + 8 m64n64k16 rs; and each half alone), medians over groups
// 8-63 of fence to wait_group 0's return, SM cycles:
//   pattern,warpgroups,ops_cycles,wg0,wg1
// (ops_cycles: the pattern's ops at N/2 cycles each, one warpgroup's).
// Section wgmma_alu (`wgmma_group alu`): whether math on the SM's other
// warps slows the tensor core (the attention kernel's softmax runs beside the
// other warpgroup's GEMMs). Warpgroup 1 runs 256 groups of 8 m64nNk16 ops
// (A from SMEM or registers), one group queued behind the one running, while
// warpgroup 0 idles or streams 8 independent chains per thread of
// ex2.approx.ftz.f32, fma.rn.f32 or both (one ex2 and two FMAs a step) until
// warpgroup 1 is done. Medians of 5 launches, SM cycles per op of warpgroup 1
// and ALU steps per cycle of warpgroup 0:
//   n,form,alu,op_cycles,alu_warp_steps_per_cycle,fp32_per_cycle
// (fp32_per_cycle: warpgroup 0's FP32 warp-instructions per cycle per warp;
// fma1-fma3 run one dependent FMA a step on 1-3 of the 8 chains).
// The SM90 model's rule (models/sm90/params.json wgmma_interleave,
// wgmma_latency_extra): the tensor core interleaves the two warpgroups' ops,
// so with sync and delay 0 both groups complete together after 2 x ops ops
// plus the latency; the other reading is one group after the other.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "hw/h200/smem_stream.cuh"
#include "hw/h200/wgmma_group_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/numeric.h"

namespace {

constexpr const char* kProg = "wgmma_group";

using namespace sk::bench::wgmma_common;
using sk::bench::clk;

// Op i of a group: m64nNk16 (N 128 or 256), A and B from shared memory at
// a and b, K step i & 3 of the 128-byte row. This and issue_op read A's 64
// rows and B's first N rows of the operands wgmma_operands lays out
// (128-byte rows, 128B swizzle, K step i & 3 at 32 bytes), so B must hold at
// least N rows.
template <int N>
__device__ __forceinline__ void one_op(sk::LaneArray<float, N / 2>& acc, uint32_t a, uint32_t b, int i) {
  const uint64_t da = sk::arch::make_smem_desc_sw128(a + 32 * (i & 3));
  const uint64_t db = sk::arch::make_smem_desc_sw128(b + 32 * (i & 3));
  if constexpr (N == 128) sk::arch::wgmma_m64n128k16_bf16_ss(acc, da, db, true);
  if constexpr (N == 256) sk::arch::wgmma_m64n256k16_bf16_ss(acc, da, db, true);
}

// An A fragment from registers (the rs forms): nonzero BF16 pairs, per thread.
__device__ __forceinline__ sk::LaneArray<uint32_t, 4> a_fragment() {
  sk::LaneArray<uint32_t, 4> ar;
#pragma unroll
  for (int r = 0; r < 4; ++r) ar.regs[0][r] = 0x3f803f80u ^ (threadIdx.x * 0x00010001u * (r + 1));
  return ar;
}

// Op i of a group, m64nNk16 (N 64 to 256): B from shared memory at b, A from
// shared memory at a (ss) or from the registers ar (RS), K step i & 3.
template <int N, bool RS>
__device__ __forceinline__ void issue_op(sk::LaneArray<float, N / 2>& acc, const sk::LaneArray<uint32_t, 4>& ar,
                                         uint32_t a, uint32_t b, int i) {
  const uint64_t db = sk::arch::make_smem_desc_sw128(b + 32 * (i & 3));
  if constexpr (RS) {
    sk::arch::wgmma_m64nNk16_rs<N, false, 0>(acc, ar, db, true);
  } else {
    const uint64_t da = sk::arch::make_smem_desc_sw128(a + 32 * (i & 3));
    sk::arch::wgmma_m64nNk16_ss<N, false, 0, 0>(acc, da, db, true);
  }
}

// out[(k * 2 + wg) * 2 + {0, 1}] = start, done of k-block k on warpgroup wg.
template <int N, int Ops>
__global__ void __launch_bounds__(256, 1) wgmma_group(uint64_t* out, int delay, int iters, int sync) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const auto [a, b] = sk::bench::wgmma_operands(smem, N);
  const int wg = threadIdx.x / 128;
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  for (int k = 0; k < iters; ++k) {
    if (sync && blockDim.x == 256) asm volatile("bar.sync 1, 256;" ::: "memory");
    if (wg == 1 && delay > 0) {
      const uint64_t until = clk() + static_cast<uint64_t>(delay);
      while (clk() < until) {
      }
    }
    const uint64_t t0 = clk();
    sk::arch::wgmma_fence();
#pragma unroll
    for (int i = 0; i < Ops; ++i) one_op<N>(acc, a, b, i);
    sk::arch::wgmma_commit_group();
    sk::arch::wgmma_wait_group<0>();
    const uint64_t t1 = clk();
    record_group(out, k, wg, t0, t1);
  }
  keep_live(out, acc);
}

template <int N, int Ops>
void rows(uint64_t* dev, int iters) {
  const int smem = (64 + N) * 128 + 1024;
  CK(cudaFuncSetAttribute(wgmma_group<N, Ops>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<uint64_t> h(static_cast<size_t>(iters) * 4);
  const int ops = Ops;
  for (int sync : {1, 0})
    for (int groups : {1, 2})
      for (int delay : {0, N / 4, N / 2, N, 2 * N}) {
        if ((groups == 1 || !sync) && delay > 0) continue;
        wgmma_group<N, Ops><<<1, 128 * groups, smem>>>(dev, delay, iters, sync);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
        std::vector<double> d0, d1, hold, skew, period;
        for (int k = 8; k < iters; ++k) {
          const double s0 = h[(k * 2) * 2], e0 = h[(k * 2) * 2 + 1];
          d0.push_back(e0 - s0);
          if (k + 1 < iters) period.push_back(static_cast<double>(h[((k + 1) * 2) * 2]) - s0);
          if (groups == 2) {
            const double s1 = h[(k * 2 + 1) * 2], e1 = h[(k * 2 + 1) * 2 + 1];
            d1.push_back(e1 - s1);
            hold.push_back(std::max(e0, e1) - std::min(s0, s1));
            skew.push_back(s1 - s0);
          }
        }
        std::printf("%d,%s,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f\n", N, sync ? "sync" : "free", groups,
                    ops, delay, median(d0), median(d1), groups == 2 ? median(hold) : median(d0),
                    median(skew), median(period));
      }
}


// The matmul's consumer loop on an always-full ring (section wgmma_ring):
// warpgroups 0 and (groups 2) 1 consume, the warp after them produces.
// barriers: 1 the kernel's stage ring; 0 none at all (each warpgroup loops
// on its group and hold; the producer idles); 2 only a wait, on a barrier
// whose phase completed before the loop; 3 only an arrive (one lane a
// warp), on a barrier that never completes; 4 the ring and a second arrive
// a warp on that barrier (a clustered kernel's release arrives on two
// CTAs' barriers). What each of the ring's operations costs its warp. The
// mode is a template parameter, so that each build of the loop holds only
// its own operations (a runtime mode moved the rests by 100 cycles). Each warpgroup's
// first thread keeps, in shared memory, its clock64 after the stage wait
// (start) and after wait_group (done) of k-blocks kFirst .. kFirst + kKept - 1
// and writes them out at the end: out[((wg * kKept) + i) * 2 + {0, 1}].
constexpr int kFirst = 8, kKept = 128;

template <int N, int B>
__global__ void __launch_bounds__(288, 1)
    wgmma_ring(uint64_t* out, int iters, int hold, int stages, int groups) {
  constexpr bool kRing = B == 1 || B == 4;
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[8], empty[8], done, dummy;
  __shared__ uint64_t kept[2][kKept][2];
  uint8_t* base = sk::bench::smem_align_1024(smem);
  sk::bench::fill_bf16_operands(base, (64 + N) * 64);
  sk::arch::fence_proxy_async_shared();
  const int consumers = 128 * groups;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      sk::arch::mbarrier_init(&full[s], 1);
      sk::arch::mbarrier_init(&empty[s], 4 * groups);
    }
    sk::arch::mbarrier_init(&done, 1);
    sk::arch::mbarrier_init(&dummy, (1u << 20) - 1);
    sk::arch::fence_mbarrier_init();
    sk::arch::mbarrier_arrive(&done);
  }
  __syncthreads();
  if (threadIdx.x >= consumers) {
    if (threadIdx.x == consumers && kRing)
      for (int it = 0; it < iters; ++it) {
        const int s = it % stages;
        if (it >= stages) sk::bench::wait_phase(&empty[s], ((it / stages) - 1) & 1);
        sk::arch::mbarrier_arrive(&full[s]);
      }
    return;
  }
  const uint32_t a = sk::arch::smem_addr(base), b = a + 64 * 128;
  const int wg = threadIdx.x / 128;
  const bool keeper = threadIdx.x % 128 == 0;
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  for (int it = 0; it < iters; ++it) {
    const int s = it % stages;
    if constexpr (kRing) sk::bench::wait_phase(&full[s], (it / stages) & 1);
    if constexpr (B == 2) sk::bench::wait_phase(&done, 0);
    const int slot = it - kFirst;
    const bool kept_here = keeper && slot >= 0 && slot < kKept;
    if (kept_here) kept[wg][slot][0] = clk();
    sk::arch::wgmma_fence();
#pragma unroll
    for (int i = 0; i < 4; ++i) one_op<N>(acc, a, b, i);
    sk::arch::wgmma_commit_group();
    sk::arch::wgmma_wait_group<0>();
    if (kept_here) kept[wg][slot][1] = clk();
    if (hold > 0) {
      const uint64_t until = clk() + static_cast<uint64_t>(hold);
      while (clk() < until) {
      }
    }
    if constexpr (kRing)
      if (threadIdx.x % 32 == 0) sk::arch::mbarrier_arrive(&empty[s]);
    if constexpr (B == 3 || B == 4)
      if (threadIdx.x % 32 == 0) sk::arch::mbarrier_arrive(&dummy);
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) sum += acc.regs[0][i];
  if (keeper)
    for (int i = 0; i < kKept; ++i) {
      out[((wg * kKept) + i) * 2] = kept[wg][i][0];
      out[((wg * kKept) + i) * 2 + 1] = sum == 12345.0f ? 0 : kept[wg][i][1];
    }
}

// Per configuration, medians over the kept k-blocks: period (warpgroup 0's
// start to its next start), each warpgroup's group (start to done: fence,
// ops, commit, wait), its rest (done to its next start: the hold, the
// release, the next stage's wait) and the skew (warpgroup 1's start less
// warpgroup 0's of the same k-block).
template <int N, int B>
void launch_ring(uint64_t* dev, int iters, int hold, int stages, int groups) {
  const int smem = (64 + N) * 128 + 1024;
  CK(cudaFuncSetAttribute(wgmma_ring<N, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  wgmma_ring<N, B><<<1, 128 * groups + 32, smem>>>(dev, iters, hold, stages, groups);
}

template <int N>
void ring_rows(uint64_t* dev, int iters) {
  using Launch = void (*)(uint64_t*, int, int, int, int);
  constexpr Launch kModes[] = {launch_ring<N, 0>, launch_ring<N, 1>, launch_ring<N, 2>, launch_ring<N, 3>,
                               launch_ring<N, 4>};
  std::vector<uint64_t> h(2 * kKept * 2);
  for (int barriers : {1, 0, 2, 3, 4})
    for (int groups : {2, 1})
      for (int stages : {4, 6})
        for (int hold : {0, 50, 100, 200, 400}) {
          if (barriers != 1 && stages != 4) continue;
          if (barriers >= 2 && hold != 0 && hold != 200) continue;
          kModes[barriers](dev, iters, hold, stages, groups);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
          auto at = [&](int wg, int i, int w) { return static_cast<double>(h[((wg * kKept) + i) * 2 + w]); };
          std::vector<double> period, g0, g1, r0, r1, skew;
          for (int i = 0; i + 1 < kKept; ++i) {
            period.push_back(at(0, i + 1, 0) - at(0, i, 0));
            g0.push_back(at(0, i, 1) - at(0, i, 0));
            r0.push_back(at(0, i + 1, 0) - at(0, i, 1));
            if (groups == 2) {
              g1.push_back(at(1, i, 1) - at(1, i, 0));
              r1.push_back(at(1, i + 1, 0) - at(1, i, 1));
              skew.push_back(at(1, i, 0) - at(0, i, 0));
            }
          }
          std::printf("%d,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", N, barriers, groups, stages, hold,
                      median(period), median(g0), median(g1), median(r0), median(r1), median(skew));
        }
}

// Section wgmma_issue: out[((k * 2 + wg) * (kIssueOps + 2)) + i]: the
// fence's clock (i = 0), each op's return (1 .. kIssueOps) and the wait's
// return (kIssueOps + 1) of k-block k on warpgroup wg.
constexpr int kIssueOps = 16;

template <int N, bool RS>
__global__ void __launch_bounds__(256, 1) wgmma_issue(uint64_t* out, int delay, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const auto [a, b] = sk::bench::wgmma_operands(smem, N);
  const int wg = threadIdx.x / 128;
  auto acc = zero_acc<N>();
  const auto ar = a_fragment();
  for (int k = 0; k < iters; ++k) {
    if (blockDim.x == 256) asm volatile("bar.sync 1, 256;" ::: "memory");
    if (wg == 1 && delay > 0) {
      const uint64_t until = clk() + static_cast<uint64_t>(delay);
      while (clk() < until) {
      }
    }
    uint64_t t[kIssueOps + 2];
    t[0] = clk();
    sk::arch::wgmma_fence();
#pragma unroll
    for (int i = 0; i < kIssueOps; ++i) {
      issue_op<N, RS>(acc, ar, a, b, i);
      t[i + 1] = clk();
    }
    sk::arch::wgmma_commit_group();
    sk::arch::wgmma_wait_group<0>();
    t[kIssueOps + 1] = clk();
    if (threadIdx.x % 128 == 0)
#pragma unroll
      for (int i = 0; i < kIssueOps + 2; ++i) out[(k * 2 + wg) * (kIssueOps + 2) + i] = t[i];
  }
  keep_live(out, acc);
}

template <int N, bool RS>
void issue_rows(uint64_t* dev, int iters) {
  const int smem = (64 + N) * 128 + 1024;
  CK(cudaFuncSetAttribute(wgmma_issue<N, RS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<uint64_t> h(static_cast<size_t>(iters) * 2 * (kIssueOps + 2));
  for (int groups : {1, 2})
    for (int delay : {0, 4 * N}) {
      if (groups == 1 && delay > 0) continue;
      wgmma_issue<N, RS><<<1, 128 * groups, smem>>>(dev, delay, iters);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
      for (int wg = 0; wg < groups; ++wg)
        for (int i = 1; i <= kIssueOps; ++i) {
          std::vector<double> issued, done;
          for (int k = 8; k < iters; ++k) {
            const uint64_t* t = &h[(k * 2 + wg) * (kIssueOps + 2)];
            issued.push_back(static_cast<double>(t[i] - t[0]));
            done.push_back(static_cast<double>(t[kIssueOps + 1] - t[0]));
          }
          std::printf("%d,%s,%d,%d,%d,%d,%.0f,%.0f\n", N, RS ? "rs" : "ss", groups, delay, wg, i - 1,
                      median(issued), median(done));
        }
    }
}

// Section wgmma_loads: out[(k * 2 + wg) * 2 + {0, 1}] = start, done of
// group k on warpgroup wg (CTA 0); out[kLoadsIters * 4 + {0, 1, 2}]: the
// bytes landed, the consumers' first start and last done.
constexpr int kLoadsIters = 64;
namespace beside = sk::bench::smem_stream;

template <int N, bool RS>
__global__ void __launch_bounds__(288, 1)
    wgmma_loads(uint64_t* out, const uint8_t* src, int groups, int loads) {
  extern __shared__ __align__(1024) uint8_t smem[];
  constexpr uint32_t kOperands = (64 + N) * 128;
  uint8_t* ring = sk::bench::smem_align_1024(smem) + (kOperands + 1023) / 1024 * 1024;
  uint64_t* bars = reinterpret_cast<uint64_t*>(ring + beside::kRing * beside::kChunkBytes);
  volatile uint32_t* running = reinterpret_cast<volatile uint32_t*>(bars + beside::kRing);
  if (threadIdx.x == 0) {
    for (uint32_t i = 0; i < beside::kRing; ++i) sk::arch::mbarrier_init(&bars[i], 1);
    *running = static_cast<uint32_t>(groups);
    sk::arch::fence_mbarrier_init();
  }
  const auto [a, b] = sk::bench::wgmma_operands(smem, N);
  const int consumers = 128 * groups;
  if (threadIdx.x >= consumers) {
    if (threadIdx.x < consumers + 32 && loads) {
      const uint64_t loaded = beside::stream_into_smem(ring, bars, running, src);
      if (blockIdx.x == 0 && threadIdx.x == consumers) out[kLoadsIters * 4] = loaded;
    }
    return;
  }
  const int wg = threadIdx.x / 128;
  auto acc = zero_acc<N>();
  const auto ar = a_fragment();
  for (int k = 0; k < kLoadsIters; ++k) {
    const uint64_t t0 = clk();
    sk::arch::wgmma_fence();
#pragma unroll
    for (int i = 0; i < kIssueOps; ++i) issue_op<N, RS>(acc, ar, a, b, i);
    sk::arch::wgmma_commit_group();
    sk::arch::wgmma_wait_group<0>();
    const uint64_t t1 = clk();
    if (blockIdx.x == 0) record_group(out, k, wg, t0, t1);
  }
  keep_live(out, acc);
  if (threadIdx.x % 128 == 0) atomicSub(const_cast<uint32_t*>(running), 1u);
}

template <int N, bool RS>
void loads_rows(uint64_t* dev, const uint8_t* src, int sms) {
  const int smem = ((64 + N) * 128 + 1023) / 1024 * 1024 + beside::kRing * beside::kChunkBytes + 1024 + 1024;
  CK(cudaFuncSetAttribute(wgmma_loads<N, RS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<uint64_t> h(kLoadsIters * 4 + 1);
  for (int grid : {1, sms})
    for (int groups : {1, 2})
      for (int loads : {0, 1}) {
        CK(cudaMemset(dev, 0, h.size() * 8));
        wgmma_loads<N, RS><<<grid, 128 * groups + 32, smem>>>(dev, src, groups, loads);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
        std::vector<double> g0, g1;
        double lo = 1e30, hi = 0;
        for (int k = 0; k < kLoadsIters; ++k)
          for (int wg = 0; wg < groups; ++wg) {
            const double s0 = h[(k * 2 + wg) * 2], e0 = h[(k * 2 + wg) * 2 + 1];
            lo = std::min(lo, s0);
            hi = std::max(hi, e0);
            if (k >= 8) (wg == 0 ? g0 : g1).push_back(e0 - s0);
          }
        const double later = std::max(median(g0), median(g1));
        std::printf("%d,%s,%d,%d,%d,%.0f,%.0f,%.2f,%.1f\n", N, RS ? "rs" : "ss", groups, grid, loads, median(g0),
                    median(g1), later / (kIssueOps * groups), static_cast<double>(h[kLoadsIters * 4]) / (hi - lo));
      }
}

// Section wgmma_mix: pattern p's ops; out as section wgmma_group's.
struct MixPattern {
  const char* name;
  int ss_n, ss_ops, rs_n, rs_ops;
};
constexpr MixPattern kMix[] = {
    {"d256", 64, 16, 256, 4}, {"d256_s", 64, 16, 0, 0}, {"d256_pv", 0, 0, 256, 4},
    {"d128", 128, 8, 128, 8}, {"d128_s", 128, 8, 0, 0}, {"d128_pv", 0, 0, 128, 8},
    {"d64", 128, 4, 64, 8},   {"d64_s", 128, 4, 0, 0},  {"d64_pv", 0, 0, 64, 8},
};

template <int P>
__global__ void __launch_bounds__(256, 1) wgmma_mix(uint64_t* out, int iters) {
  constexpr MixPattern kP = kMix[P];
  constexpr int kSsN = kP.ss_n > 0 ? kP.ss_n : 64, kRsN = kP.rs_n > 0 ? kP.rs_n : 64;
  extern __shared__ __align__(1024) uint8_t smem[];
  const auto [a, b] = sk::bench::wgmma_operands(smem, 256);
  const int wg = threadIdx.x / 128;
  auto s_acc = zero_acc<kSsN>();
  auto o_acc = zero_acc<kRsN>();
  const auto ar = a_fragment();
  for (int k = 0; k < iters; ++k) {
    if (blockDim.x == 256) asm volatile("bar.sync 1, 256;" ::: "memory");
    const uint64_t t0 = clk();
    sk::arch::wgmma_fence();
    if constexpr (kP.ss_ops > 0) {
#pragma unroll
      for (int i = 0; i < kP.ss_ops; ++i) issue_op<kSsN, false>(s_acc, ar, a, b, i);
      sk::arch::wgmma_commit_group();
    }
    if constexpr (kP.rs_ops > 0) {
#pragma unroll
      for (int i = 0; i < kP.rs_ops; ++i) issue_op<kRsN, true>(o_acc, ar, a, b, i);
      sk::arch::wgmma_commit_group();
    }
    sk::arch::wgmma_wait_group<0>();
    const uint64_t t1 = clk();
    record_group(out, k, wg, t0, t1);
  }
  keep_live(out, s_acc, o_acc);
}

template <int P>
void mix_rows(uint64_t* dev, int iters) {
  const int smem = (64 + 256) * 128 + 1024;
  CK(cudaFuncSetAttribute(wgmma_mix<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<uint64_t> h(static_cast<size_t>(iters) * 4);
  constexpr MixPattern kP = kMix[P];
  for (int groups : {1, 2}) {
    wgmma_mix<P><<<1, 128 * groups, smem>>>(dev, iters);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), dev, h.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<double> d0, d1;
    for (int k = 8; k < iters; ++k) {
      d0.push_back(static_cast<double>(h[(k * 2) * 2 + 1] - h[(k * 2) * 2]));
      if (groups == 2) d1.push_back(static_cast<double>(h[(k * 2 + 1) * 2 + 1] - h[(k * 2 + 1) * 2]));
    }
    std::printf("%s,%d,%d,%.0f,%.0f\n", kP.name, groups, kP.ss_ops * kP.ss_n / 2 + kP.rs_ops * kP.rs_n / 2,
                median(d0), median(d1));
  }
}

template <int... P>
void all_mix_rows(uint64_t* dev, int iters, std::integer_sequence<int, P...>) {
  (mix_rows<P>(dev, iters), ...);
}

// Section wgmma_alu: warpgroup 0's streams (Alu 0: idle, 1: ex2, 2: FMA,
// 3: ex2 and two FMAs a step, 4-6: one dependent FMA a step on 1-3 of the 8
// chains, the FP32 pipe well below its rate: 0.15-0.33 warp-instructions a
// cycle on an H200); out[0]: warpgroup 1's cycles for its groups, out[1]: warpgroup
// 0's steps per warp (its first warp's count).
template <int Alu>
__device__ __forceinline__ void alu_step(float& x, float& y, float& z, int chain) {
  if constexpr (Alu == 1 || Alu == 3) asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x) : "f"(x));
  if constexpr (Alu == 2 || Alu == 3) {
    asm volatile("fma.rn.f32 %0, %1, 0f3F000000, 0f3E800000;" : "=f"(y) : "f"(y));
    asm volatile("fma.rn.f32 %0, %1, 0f3F000000, 0f3E800000;" : "=f"(z) : "f"(z));
  }
  if constexpr (Alu >= 4)
    if (chain < Alu - 3) asm volatile("fma.rn.f32 %0, %1, 0f3F000000, 0f3E800000;" : "=f"(y) : "f"(y));
}

constexpr int kAluGroups = 256;

template <int N, bool RS, int Alu>
__global__ void __launch_bounds__(256, 1) wgmma_alu(uint64_t* out, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const auto [a, b] = sk::bench::wgmma_operands(smem, N);
  __shared__ volatile uint32_t running;
  if (threadIdx.x == 0) running = 1;
  __syncthreads();
  if (sk::arch::warp_idx() >= 4) {
    auto acc = zero_acc<N>();
    const auto ar = a_fragment();
    const uint64_t t0 = clk();
    sk::arch::wgmma_fence();
    for (int g = 0; g < kAluGroups; ++g) {
#pragma unroll
      for (int i = 0; i < 8; ++i) issue_op<N, RS>(acc, ar, a, b, i);
      sk::arch::wgmma_commit_group();
      sk::arch::wgmma_wait_group<1>();
    }
    sk::arch::wgmma_wait_group<0>();
    const uint64_t t1 = clk();
    if (threadIdx.x == 128) {
      running = 0;
      out[0] = t1 - t0;
    }
    keep_live(out + 2, acc);
    return;
  }
  {
    if constexpr (Alu > 0) {
      float x[8], y[8], z[8];
#pragma unroll
      for (int c = 0; c < 8; ++c) x[c] = y[c] = z[c] = -0.5f - 0.01f * static_cast<float>(c + threadIdx.x % 32);
      uint64_t steps = 0;
      while (running) {
#pragma unroll
        for (int r = 0; r < 16; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) alu_step<Alu>(x[c], y[c], z[c], c);
        steps += 16;
      }
      float sum = 0;
#pragma unroll
      for (int c = 0; c < 8; ++c) sum += x[c] + y[c] + z[c];
      sink[threadIdx.x] = sum;
      if (threadIdx.x == 0) out[1] = steps;
    }
  }
}

template <int N, bool RS>
void alu_rows(uint64_t* dev, float* sink) {
  const int smem = (64 + N) * 128 + 1024;
  using Kernel = void (*)(uint64_t*, float*);
  const Kernel kernels[] = {wgmma_alu<N, RS, 0>, wgmma_alu<N, RS, 1>, wgmma_alu<N, RS, 2>, wgmma_alu<N, RS, 3>,
                            wgmma_alu<N, RS, 4>, wgmma_alu<N, RS, 5>, wgmma_alu<N, RS, 6>};
  const char* names[] = {"idle", "ex2", "fma", "ex2+2fma", "fma1", "fma2", "fma3"};
  // FP32 instructions per chain-step (Alu 4-6: the chains that run, over 8).
  const double fp32_per_step[] = {0, 0, 2, 2, 1.0 / 8, 2.0 / 8, 3.0 / 8};
  for (int alu = 0; alu < 7; ++alu) {
    CK(cudaFuncSetAttribute(kernels[alu], cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    std::vector<double> op, rate;
    for (int r = 0; r < 5; ++r) {
      CK(cudaMemset(dev, 0, 16));
      kernels[alu]<<<1, 256, smem>>>(dev, sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      uint64_t h[2];
      CK(cudaMemcpy(h, dev, 16, cudaMemcpyDeviceToHost));
      op.push_back(static_cast<double>(h[0]) / (kAluGroups * 8));
      rate.push_back(static_cast<double>(h[1]) * 8 / static_cast<double>(h[0]));
    }
    std::printf("%d,%s,%s,%.2f,%.3f,%.3f\n", N, RS ? "rs" : "ss", names[alu], median(op), median(rate),
                median(rate) * fp32_per_step[alu]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kIters = 64;
  uint64_t* dev;
  CK(cudaMalloc(&dev, kIters * 2 * (kIssueOps + 2) * 8));
  if (argc > 1 && std::string(argv[1]) == "loads") {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint64_t* times;
    uint8_t* src;
    CK(cudaMalloc(&times, (kLoadsIters * 4 + 1) * 8));
    CK(cudaMalloc(&src, beside::kSrcBytes));
    CK(cudaMemset(src, 0x3c, beside::kSrcBytes));
    std::printf("section,wgmma_loads\nn,form,warpgroups,sms,loads,group0,group1,op_cycles,load_bytes_per_cycle\n");
    loads_rows<64, false>(times, src, sms);
    loads_rows<64, true>(times, src, sms);
    loads_rows<128, false>(times, src, sms);
    loads_rows<128, true>(times, src, sms);
    loads_rows<256, false>(times, src, sms);
    loads_rows<256, true>(times, src, sms);
    CK(cudaFree(src));
    CK(cudaFree(times));
    CK(cudaFree(dev));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "alu") {
    float* sink;
    CK(cudaMalloc(&sink, 256 * 4));
    std::printf("section,wgmma_alu\nn,form,alu,op_cycles,alu_warp_steps_per_cycle,fp32_per_cycle\n");
    alu_rows<64, false>(dev, sink);
    alu_rows<128, false>(dev, sink);
    alu_rows<128, true>(dev, sink);
    alu_rows<256, false>(dev, sink);
    alu_rows<256, true>(dev, sink);
    CK(cudaFree(sink));
    CK(cudaFree(dev));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "mix") {
    std::printf("section,wgmma_mix\npattern,warpgroups,ops_cycles,wg0,wg1\n");
    all_mix_rows(dev, kIters, std::make_integer_sequence<int, sizeof(kMix) / sizeof(kMix[0])>());
    CK(cudaFree(dev));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "issue") {
    std::printf("section,wgmma_issue\nn,form,warpgroups,delay,wg,op,issued,done\n");
    issue_rows<64, false>(dev, kIters);
    issue_rows<64, true>(dev, kIters);
    issue_rows<128, false>(dev, kIters);
    issue_rows<128, true>(dev, kIters);
    issue_rows<256, false>(dev, kIters);
    issue_rows<256, true>(dev, kIters);
    CK(cudaFree(dev));
    return 0;
  }
  std::printf("section,wgmma_group\nn,mode,warpgroups,ops,delay,wg0_cycles,wg1_cycles,hold,skew,period\n");
  rows<128, 1>(dev, kIters);
  rows<128, 4>(dev, kIters);
  rows<128, 8>(dev, kIters);
  rows<256, 1>(dev, kIters);
  rows<256, 4>(dev, kIters);
  rows<256, 8>(dev, kIters);
  uint64_t* ring;
  CK(cudaMalloc(&ring, 2 * kKept * 2 * 8));
  std::printf("section,wgmma_ring\nn,barriers,warpgroups,stages,hold,period,group0,group1,rest0,rest1,skew\n");
  ring_rows<128>(ring, kFirst + kKept + 8);
  ring_rows<256>(ring, kFirst + kKept + 8);
  CK(cudaFree(ring));
  CK(cudaFree(dev));
  return 0;
}
