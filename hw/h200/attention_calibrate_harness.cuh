// attention_calibrate_harness.cuh: the one-CTA timing harness of the
// attention microbenchmarks (hw/h200/attention_calibrate.cu and the sections
// it keeps in headers of their own, hw/h200/attention_pipe_loop.cuh).
//
// A measured kernel stamps each warp's start and end into g_times (record);
// the host takes the span, latest end - earliest start over the warps that
// took part (span_of), and the median over kReps launches (median_span),
// which also checks the kernel's sink (every value finite, one nonzero) and
// clears g_all_ok when it fails. Operand data comes from fixed hashes of the
// element index (rand_bf16, rand_f), so every launch sees the same values.
// Every CUDA call is checked (one line and exit 2 on an error).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/core/numeric.h"

namespace sk::bench::calib {

#define SK_CALIB_CK(x) sk::bench::check_cuda((x), "attention_calibrate", #x, __FILE__, __LINE__)

inline constexpr int kReps = 7;          // launches per figure (median)
inline constexpr int kMaxThreads = 512;  // sink size per launch

using sk::bench::clk;
using sk::bench::median;

__device__ __forceinline__ void record(uint64_t* times, uint64_t t0, uint64_t t1) {
  if (threadIdx.x % 32 == 0) {
    times[2 * (threadIdx.x / 32)] = t0;
    times[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

// A random BF16 in [-0.5, 0.5), never zero.
__device__ __forceinline__ uint16_t rand_bf16(uint32_t i) {
  uint32_t x = i * 2654435761u + 12345u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  float f = static_cast<float>(x & 0xffff) / 65536.0f - 0.5f;
  if (f == 0.0f) f = 0.25f;
  return sk::to_bf16(f).bits;
}

// A random float in [-2, 2).
__device__ __forceinline__ float rand_f(uint32_t i) {
  uint32_t x = i * 2654435761u + 777u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return static_cast<float>(x & 0xffff) / 16384.0f - 2.0f;  // [-2, 2)
}

// The consumer state of a warp of the attention kernel A (Sm90Attention) at
// the start of a measured block loop at head dim D: S from rand_f, O zero,
// row maxima -inf, row sums 0, scales 1, and P converted from S.
template <class A, int D, class SAcc, class OAcc, class Rows, class PFrag, int kFrags>
__device__ __forceinline__ void start_block_loop(SAcc& s_acc, OAcc& o_acc, Rows& row_max, Rows& row_sum,
                                                 Rows& scale, PFrag (&p_frag)[kFrags]) {
#pragma unroll
  for (int i = 0; i < A::BN / 2; ++i) s_acc.regs[0][i] = rand_f(threadIdx.x * 256 + i);
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc.regs[0][i] = 0.0f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_max.regs[0][h] = -__builtin_huge_valf();
    row_sum.regs[0][h] = 0.0f;
    scale.regs[0][h] = 1.0f;
  }
  A::to_p(s_acc, p_frag);
}

// Launch buffers: clock stamps (two per warp) and the sink (one float per thread).
inline uint64_t* g_times = nullptr;
inline float* g_sink = nullptr;

// Latest end - earliest start over the first `warps` warps of the last launch.
inline uint64_t span_of(int warps) {
  std::vector<uint64_t> h(2 * warps);
  SK_CALIB_CK(cudaMemcpy(h.data(), g_times, h.size() * 8, cudaMemcpyDeviceToHost));
  uint64_t t0 = h[0], t1 = h[1];
  for (int w = 1; w < warps; ++w) {
    t0 = std::min(t0, h[2 * w]);
    t1 = std::max(t1, h[2 * w + 1]);
  }
  return t1 - t0;
}

// Sink of the last launch: every value finite, at least one nonzero.
inline bool sink_ok(int threads) {
  std::vector<float> h(threads);
  SK_CALIB_CK(cudaMemcpy(h.data(), g_sink, threads * 4, cudaMemcpyDeviceToHost));
  bool nonzero = false;
  for (float v : h) {
    if (!std::isfinite(v)) return false;
    nonzero = nonzero || v != 0.0f;
  }
  return nonzero;
}

inline bool g_all_ok = true;

// Median span (cycles) of kReps launches of `launch`, which runs `warps` warps;
// `check`: the kernel stores a sink that must be finite and nonzero.
template <class F>
double median_span(F launch, int warps, bool check = true) {
  std::vector<double> s;
  for (int r = 0; r < kReps; ++r) {
    launch();
    SK_CALIB_CK(cudaGetLastError());
    SK_CALIB_CK(cudaDeviceSynchronize());
    s.push_back(static_cast<double>(span_of(warps)));
  }
  if (check && !sink_ok(warps * 32)) {
    g_all_ok = false;
    std::printf("# the next row's sink check failed (a value not finite, or all zero)\n");
  }
  return median(s);
}

inline uint8_t* g_src = nullptr;  // the streaming producer's L2-resident source (ep::kSrcBytes)

}  // namespace sk::bench::calib
