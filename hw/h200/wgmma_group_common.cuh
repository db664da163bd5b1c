// wgmma_group_common.cuh: what the wgmma microbenchmarks on one SM
// (wgmma_group.cu, wgmma_split.cu) share: zeroed accumulators, a group's
// stamps (record_group), a use that keeps the accumulators live, the median
// of a possibly empty column and the CUDA error check CK. The operands
// (fill_bf16_operands, wgmma_operands), the cycle counter (clk), the median
// and the error report (check_cuda) are bench_common.cuh's.
//
// Invariants: group k's stamps on warpgroup wg sit at
// out[(k * 2 + wg) * 2 + {0, 1}] (start, done), where the host loops of the
// sections that record them read them; keep_live stores only when the
// accumulators sum to exactly 12345 (a condition the compiler cannot rule out
// and the runs do not meet), so the stamps stay as recorded; CK names the
// program by `kProg`, which the including file defines before its first use.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/core/lane_array.h"

// Exits with status 2 and one line on a CUDA error (bench_common.cuh's
// check_cuda), naming the program by the includer's kProg.
#define CK(x) sk::bench::check_cuda((x), kProg, #x, __FILE__, __LINE__)

namespace sk::bench::wgmma_common {

// Zeroed accumulators of an m64nNk16 op.
template <int N>
__device__ __forceinline__ sk::LaneArray<float, N / 2> zero_acc() {
  sk::LaneArray<float, N / 2> acc;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc.regs[0][i] = 0.0f;
  return acc;
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
