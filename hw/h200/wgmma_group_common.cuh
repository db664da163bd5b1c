// wgmma_group_common.cuh: what the wgmma microbenchmarks on one SM
// (wgmma_group.cu, wgmma_split.cu) share: the m64nNk16 ops on the operands
// of sk::bench::wgmma_operands (one_op, issue_op), zeroed accumulators, an A
// fragment from registers, a group's stamps (record_group), a use that keeps
// the accumulators live, the median of a possibly empty column and the CUDA
// error check CK. The operands themselves (fill_bf16_operands,
// wgmma_operands), the cycle counter (clk), the median and the error report
// (check_cuda) are bench_common.cuh's.
//
// Invariants: group k's stamps on warpgroup wg sit at
// out[(k * 2 + wg) * 2 + {0, 1}] (start, done), where the host loops of the
// sections that record them read them; one_op and issue_op read A's 64 rows
// and B's first N rows of the operands wgmma_operands lays out (128-byte
// rows, 128B swizzle, K step i & 3 at 32 bytes), so B must hold at least N
// rows; keep_live stores only when the accumulators sum to exactly 12345 (a
// condition the compiler cannot rule out and the runs do not meet), so the
// stamps stay as recorded; CK names the program by `kProg`, which the
// including file defines before its first use.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"

// Exits with status 2 and one line on a CUDA error (bench_common.cuh's
// check_cuda), naming the program by the includer's kProg.
#define CK(x) sk::bench::check_cuda((x), kProg, #x, __FILE__, __LINE__)

namespace sk::bench::wgmma_common {

// Op i of a group: m64nNk16 (N 128 or 256), A and B from shared memory at
// a and b, K step i & 3 of the 128-byte row.
template <int N>
__device__ __forceinline__ void one_op(sk::LaneArray<float, N / 2>& acc, uint32_t a, uint32_t b, int i) {
  const uint64_t da = sk::arch::make_smem_desc_sw128(a + 32 * (i & 3));
  const uint64_t db = sk::arch::make_smem_desc_sw128(b + 32 * (i & 3));
  if constexpr (N == 128) sk::arch::wgmma_m64n128k16_bf16_ss(acc, da, db, true);
  if constexpr (N == 256) sk::arch::wgmma_m64n256k16_bf16_ss(acc, da, db, true);
}

// Zeroed accumulators of an m64nNk16 op.
template <int N>
__device__ __forceinline__ sk::LaneArray<float, N / 2> zero_acc() {
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  return acc;
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

// Group k's start and done on warpgroup wg, from its first thread:
// out[(k * 2 + wg) * 2 + {0, 1}].
__device__ __forceinline__ void record_group(uint64_t* out, int k, int wg, uint64_t t0, uint64_t t1) {
  if (threadIdx.x % 128 == 0) {
    out[(k * 2 + wg) * 2] = t0;
    out[(k * 2 + wg) * 2 + 1] = t1;
  }
}

// Keeps the accumulators live (a use the compiler cannot drop).
template <class... Acc>
__device__ __forceinline__ void keep_live(uint64_t* out, const Acc&... acc) {
  float sum = 0;
  (
      [&] {
#pragma unroll
        for (float v : acc.regs[0]) sum += v;
      }(),
      ...);
  if (sum == 12345.0f) out[0] = 0;
}

// The median of v, 0 for none (one warpgroup has no second one's figures).
inline double median(const std::vector<double>& v) { return v.empty() ? 0.0 : sk::bench::median(v); }

}  // namespace sk::bench::wgmma_common
