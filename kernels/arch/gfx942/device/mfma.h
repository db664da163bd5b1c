// mfma.h (gfx942 device build): BF16 matrix FMA with FP32 accumulators in
// VGPRs, D = A * B + C computed by the whole wave.
//
// Each function is one instruction over the 64 lanes of the wave; each lane
// passes its share of A and B (Bf16x4) and of C (AccN), which is replaced by
// its share of D. Lane l (0..63) holds, with i the element of Bf16x4 (0..3)
// and r the accumulator register (AccN::v[r]):
//
// mfma_f32_32x32x8_bf16: v_mfma_f32_32x32x8bf16_1k (clang prints
//   v_mfma_f32_32x32x8_bf16), M = N = 32, K = 8, one block.
//     A (32 x 8):   a.v[i] = A[l % 32][4 * (l / 32) + i]
//     B (8 x 32):   b.v[i] = B[4 * (l / 32) + i][l % 32]
//     C, D (32x32): c.v[r] = C[8 * (r / 4) + 4 * (l / 32) + (r % 4)][l % 32],
//                   r = 0..15
//   So lanes 0-31 supply K = 0..3 and lanes 32-63 K = 4..7; each lane owns
//   column l % 32 of D, in four groups of four consecutive rows.
//
// mfma_f32_16x16x16_bf16: v_mfma_f32_16x16x16bf16_1k (clang prints
//   v_mfma_f32_16x16x16_bf16), M = N = 16, K = 16, one block.
//     A (16 x 16):  a.v[i] = A[l % 16][4 * (l / 16) + i]
//     B (16 x 16):  b.v[i] = B[4 * (l / 16) + i][l % 16]
//     C, D (16x16): c.v[r] = C[4 * (l / 16) + r][l % 16], r = 0..3
//
// (These are the CDNA3 register layouts of AMD's matrix instruction
// calculator for both instructions, A[row][k], B[k][col], C[row][col], with
// CBSZ = ABID = BLGP = 0, as issued here: no broadcast, no B-lane permute.)
//
// Wave-level forms: the same instructions on one register of WaveArrays,
// c.lane(l)[ci] += a.lane(l)[ai] * b.lane(l)[bi] in the layout above. This is
// the form kernel code uses, because it means the same in the model, where
// one process holds every lane's registers (kernels/core/lane_array.h): on
// the device each thread holds its own row and the call is the per-lane one.
//
// Invariants: all 64 lanes of the wave call it together (the matrices are made
// of every lane's operands; a partial wave is a bug, for the model a finding);
// a/b hold raw bfloat16 bits; each product is exact in FP32 and the sums are
// FP32 (the order of the additions inside one instruction is the hardware's,
// so the model's results match to rounding, not bit for bit). The compiler
// inserts the s_nop hazards between dependent MFMAs and before D is read, so
// callers add none. The accumulator stays in VGPRs (or AGPRs, at the
// compiler's choice).
#pragma once

#include "isa/gfx942_types.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/platform.h"

namespace sk::arch {

namespace detail {
using bf16x4_bits = short __attribute__((ext_vector_type(4)));
using f16x4 = _Float16 __attribute__((ext_vector_type(4)));
using f32x4 = float __attribute__((ext_vector_type(4)));
using f32x16 = float __attribute__((ext_vector_type(16)));
}  // namespace detail

SK_DEVICE void mfma_f32_32x32x8_bf16(Acc16& c, Bf16x4 a, Bf16x4 b) {
  const auto av = __builtin_bit_cast(detail::bf16x4_bits, a);
  const auto bv = __builtin_bit_cast(detail::bf16x4_bits, b);
  const auto cv = __builtin_bit_cast(detail::f32x16, c);
  c = __builtin_bit_cast(Acc16, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(
                                    av, bv, cv, /*cbsz=*/0, /*abid=*/0, /*blgp=*/0));
}

// v_mfma_f32_32x32x8f16: the 32x32x8 shape with F16 operands, whose bits
// travel in the same 4 x 16-bit registers (Bf16x4 is their storage type).
SK_DEVICE void mfma_f32_32x32x8_f16(Acc16& c, Bf16x4 a, Bf16x4 b) {
  const auto av = __builtin_bit_cast(detail::f16x4, a);
  const auto bv = __builtin_bit_cast(detail::f16x4, b);
  const auto cv = __builtin_bit_cast(detail::f32x16, c);
  c = __builtin_bit_cast(Acc16, __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, cv, /*cbsz=*/0,
                                                                     /*abid=*/0, /*blgp=*/0));
}

SK_DEVICE void mfma_f32_16x16x16_bf16(Acc4& c, Bf16x4 a, Bf16x4 b) {
  const auto av = __builtin_bit_cast(detail::bf16x4_bits, a);
  const auto bv = __builtin_bit_cast(detail::bf16x4_bits, b);
  const auto cv = __builtin_bit_cast(detail::f32x4, c);
  c = __builtin_bit_cast(Acc4, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(
                                   av, bv, cv, /*cbsz=*/0, /*abid=*/0, /*blgp=*/0));
}

template <int NC, int NA, int NB>
SK_DEVICE void mfma_f32_32x32x8_bf16(WaveArray<Acc16, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                     int ai, const WaveArray<Bf16x4, NB>& b, int bi) {
  mfma_f32_32x32x8_bf16(c.lane(0)[ci], a.lane(0)[ai], b.lane(0)[bi]);
}

template <int NC, int NA, int NB>
SK_DEVICE void mfma_f32_32x32x8_f16(WaveArray<Acc16, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                    int ai, const WaveArray<Bf16x4, NB>& b, int bi) {
  mfma_f32_32x32x8_f16(c.lane(0)[ci], a.lane(0)[ai], b.lane(0)[bi]);
}

template <int NC, int NA, int NB>
SK_DEVICE void mfma_f32_16x16x16_bf16(WaveArray<Acc4, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                      int ai, const WaveArray<Bf16x4, NB>& b, int bi) {
  mfma_f32_16x16x16_bf16(c.lane(0)[ci], a.lane(0)[ai], b.lane(0)[bi]);
}

}  // namespace sk::arch
