// umma_op.h: TileOp for SM100: tcgen05.mma from SMEM operands into TMEM.
//
// One stage holds a BM x BK tile of A and a BN x BK tile of B, K-major, with
// the swizzle TMA wrote them in. mma() issues BK/16 instructions of
// M=BM, N=BN, K=16, advancing both descriptors' start address by 32 bytes per
// step (16 two-byte elements inside the swizzle span). In is the elements'
// format (BF16 or F16), which only the instruction descriptor carries. commit() makes the tensor
// core arrive on a barrier once every MMA this thread issued has completed:
// that arrive, not the MMA warp, frees the input stage or publishes the
// accumulator.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/platform.h"

namespace sk {

template <int BM, int BN, int BK, umma::InputType In = umma::InputType::kBF16>
class UmmaOp {
  static_assert(BM == 128, "cta_group::1 UMMA here uses M = 128");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "UMMA N must be a multiple of 16 in [16, 256]");
  static_assert(BK == 32 || BK == 64, "BK of 32 or 64 16-bit elements (64B or 128B swizzle)");

 public:
  static constexpr uint32_t kSpanBytes = BK * 2;    // one K-major row
  static constexpr uint32_t kSboBytes = 8 * kSpanBytes;
  static constexpr uint32_t kInstrDesc = umma::f16_instr_desc(BM, BN, In);

  // op_tmem_col: where TMEM columns of the op's own would start; this op has
  // none (see kernels/matmul/mainloop.h).
  SK_DEVICE explicit UmmaOp(uint32_t op_tmem_col = 0) { (void)op_tmem_col; }

  // Lane: one. The stage's tiles (a, b) into the accumulator at column d_col
  // of the allocation at tmem_base.
  template <class Tiles>
  SK_DEVICE void mma(uint32_t tmem_base, uint32_t d_col, const Tiles& t, bool accumulate) const {
    mma(tmem_base + d_col, t.a, t.b, accumulate);
  }

  // Lane: one. accumulate = false starts a new accumulation in d_tmem.
  SK_DEVICE void mma(uint32_t d_tmem, const void* a_tile, const void* b_tile, bool accumulate) const {
    const uint32_t a = arch::smem_addr(a_tile), b = arch::smem_addr(b_tile);
    for (int k = 0; k < BK / 16; ++k) {
      const uint64_t ad = umma::kmajor_desc(a + k * 32, kSpanBytes, kSboBytes);
      const uint64_t bd = umma::kmajor_desc(b + k * 32, kSpanBytes, kSboBytes);
      arch::tcgen05_mma_f16_ss(d_tmem, ad, bd, kInstrDesc, accumulate || k > 0);
    }
  }

  // Lane: one (the lane that issued the MMAs).
  SK_DEVICE void commit(uint64_t* barrier) const { arch::tcgen05_commit(barrier); }
};

}  // namespace sk
