// softmax.h (NVIDIA device build, SM90 and SM100): what an attention
// kernel's online softmax needs beyond the MMAs: the special-function unit's
// exp2, the 16-bit packing conversions, reductions over the four lanes that
// share a row of a wgmma accumulator (SM90), a warp vote (SM100's correction
// skips a rescale no lane needs), and the instruction account the model times
// (nothing on the device).
//
// Invariants: quad_allreduce_* are reached by all 32 lanes of the warp (full
// shuffle mask); lanes 4q .. 4q+3 hold the same two rows of an m64nNk16
// accumulator (kernels/arch/sm90/device/wgmma.h), so a reduction over the
// quad and over a lane's own columns is a reduction over the row.
#pragma once

#include "kernels/core/lane_array.h"
#include "kernels/core/platform.h"

namespace sk::arch {

// 2^x with the SFU (ex2.approx.ftz.f32: subnormal inputs and results are 0).
SK_DEVICE float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Two floats rounded to BF16 (nearest even) and packed, `lo` in the low half:
// one cvt.rn.bf16x2.f32 where sk::to_bf16's integer rounding takes about
// eight instructions per element.
SK_DEVICE uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// The same for IEEE half (cvt.rn.f16x2.f32): FP16 attention's P and O.
SK_DEVICE uint32_t pack_f16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Every register of v becomes the maximum (sum) of that register over the
// four lanes of the calling lane's quad.
template <int R>
SK_DEVICE void quad_allreduce_max(LaneArray<float, R>& v) {
  SK_UNROLL
  for (int i = 0; i < R; ++i) {
    float x = v.regs[0][i];
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
    v.regs[0][i] = x;
  }
}
template <int R>
SK_DEVICE void quad_allreduce_sum(LaneArray<float, R>& v) {
  SK_UNROLL
  for (int i = 0; i < R; ++i) {
    float x = v.regs[0][i];
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    x += __shfl_xor_sync(0xffffffffu, x, 2);
    v.regs[0][i] = x;
  }
}

// A 4 x 4 transpose over each quad: lane q's register s becomes what lane s
// of its quad held in register q (three shfl.sync.bfly and selects). Lanes
// 4r .. 4r+3 hold a row's columns 8j + 2q, +1 of an accumulator; with
// register i holding group j = 4m + i, lane q then holds the eight
// consecutive columns of group 4m + q, for one 16-byte store.
SK_DEVICE uint32_t pick4(const uint32_t (&v)[4], uint32_t i) {
  return i == 0 ? v[0] : i == 1 ? v[1] : i == 2 ? v[2] : v[3];
}
SK_DEVICE void quad_transpose(LaneArray<uint32_t, 4>& v) {
  const uint32_t q = threadIdx.x % 4;
  uint32_t got[4];  // got[k]: from lane q ^ k, its register q
  SK_UNROLL
  for (uint32_t k = 0; k < 4; ++k) {
    const uint32_t send = pick4(v.regs[0], q ^ k);
    got[k] = k == 0 ? send : __shfl_xor_sync(0xffffffffu, send, k);
  }
  SK_UNROLL
  for (uint32_t s = 0; s < 4; ++s) v.regs[0][s] = pick4(got, q ^ s);
}

// Whether any lane of the warp passes a nonzero value (vote.any; all 32
// lanes call it).
SK_DEVICE bool any_lane(const LaneArray<uint32_t, 1>& v) {
  return __any_sync(0xffffffffu, v.regs[0][0] != 0) != 0;
}

// The model charges the calling warp for `fma` full-rate and `half`
// half-rate FP32-pipe and `sfu` SFU warp-instructions of per-lane math whose
// longest dependent chain has `chain` steps; the device executes them instead.
SK_DEVICE void account_alu(uint32_t /*fma*/, uint32_t /*sfu*/, uint32_t /*half*/ = 0, uint32_t /*chain*/ = 0) {}

}  // namespace sk::arch
