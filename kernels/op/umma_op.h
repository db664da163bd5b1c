// umma_op.h: TileOp for SM100: tcgen05.mma from SMEM operands into TMEM.
//
// One stage holds a BM x BK tile of A and a BN x BK tile of B, K-major by
// default, with the swizzle TMA wrote them in. mma() issues BK/16
// instructions of M=BM, N=BN, K=16, advancing a K-major descriptor's start
// address by 32 bytes per step (16 two-byte elements inside the swizzle
// span). An MN-major operand (OperandLayouts, set at construction; the
// loaders' MnTiling) is 64-row boxes of BK K-rows of 128 bytes: its
// descriptor has 8-row K groups 1024 bytes apart (SBO), boxes 128 BK bytes
// apart (LBO), and a K step of 16 rows advances it by 2048 bytes; the
// instruction descriptor's major-ness bits say which operands are MN-major. In is the elements'
// format (BF16 or F16), which only the instruction descriptor carries. commit() makes the tensor
// core arrive on a barrier once every MMA this thread issued has completed:
// that arrive, not the MMA warp, frees the input stage or publishes the
// accumulator.
//
// CtaGroup 2 is the 2-SM form (kernels/arch/sm100/device/tcgen05_pair.h):
// each CTA of the pair holds BM rows of A and BN / 2 rows of B at the same
// offsets, the leader issues M = 2 * BM, N = BN instructions that read both
// CTAs' tiles and write BM x BN into each CTA's TMEM, and commit() arrives on
// the barrier at the same offset in both CTAs of the pair (so one commit
// frees both CTAs' stage, or publishes both halves of the accumulator).
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/operand_layout.h"
#include "kernels/core/platform.h"

namespace sk {

template <int BM, int BN, int BK, umma::InputType In = umma::InputType::kBF16, int CtaGroup = 1>
class UmmaOp {
  static_assert(BM == 128, "UMMA here uses M = 128 per CTA (256 for a pair)");
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group::1 or ::2");
  static_assert(CtaGroup == 1 || BN % 32 == 0, "a pair's B tile splits in two 16-row multiples");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "UMMA N must be a multiple of 16 in [16, 256]");
  static_assert(BK == 32 || BK == 64, "BK of 32 or 64 16-bit elements (64B or 128B swizzle)");

 public:
  static constexpr uint32_t kSpanBytes = BK * 2;    // one K-major row
  static constexpr uint32_t kSboBytes = 8 * kSpanBytes;
  static constexpr int kCtaGroup = CtaGroup;
  static constexpr uint32_t kInstrDesc = umma::f16_instr_desc(BM * CtaGroup, BN, In);
  static constexpr uint32_t kMnSboBytes = 8 * 128;      // 8 K rows of 128 bytes
  static constexpr uint32_t kMnLboBytes = 128 * BK;     // one 64-row box

  // op_tmem_col: where TMEM columns of the op's own would start; this op has
  // none (see kernels/matmul/mainloop.h).
  SK_DEVICE explicit UmmaOp(uint32_t op_tmem_col = 0, OperandLayouts layouts = {})
      : layouts_(layouts),
        instr_desc_(kInstrDesc | umma::mn_major_bits(layouts.a_mn_major, layouts.b_mn_major)),
        pair_mask_(pair_mask()) {
    (void)op_tmem_col;
  }

  // Lane: one. The stage's tiles (a, b) into the accumulator at column d_col
  // of the allocation at tmem_base.
  template <class Tiles>
  SK_DEVICE void mma(uint32_t tmem_base, uint32_t d_col, const Tiles& t, bool accumulate,
                     arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    mma(tmem_base + d_col, t.a, t.b, accumulate);
  }

  // Lane: one. accumulate = false starts a new accumulation in d_tmem. The
  // layouts pick one unrolled issue loop, outside it (a branch per
  // instruction costs on hardware: docs/hardware.md, operand layouts).
  SK_DEVICE void mma(uint32_t d_tmem, const void* a_tile, const void* b_tile, bool accumulate,
                     arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t a = arch::smem_addr(a_tile), b = arch::smem_addr(b_tile);
    if (layouts_.a_mn_major != 0 && layouts_.b_mn_major != 0)
      issue<1, 1>(d_tmem, a, b, accumulate);
    else if (layouts_.a_mn_major != 0)
      issue<1, 0>(d_tmem, a, b, accumulate);
    else if (layouts_.b_mn_major != 0)
      issue<0, 1>(d_tmem, a, b, accumulate);
    else
      issue<0, 0>(d_tmem, a, b, accumulate);
  }

  // Lane: one (the lane that issued the MMAs).
  SK_DEVICE void commit(uint64_t* barrier, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if constexpr (CtaGroup == 2)
      arch::tcgen05_commit_pair_multicast(barrier, pair_mask_);
    else
      arch::tcgen05_commit(barrier);
  }

 private:
  template <int AMn, int BMn>
  SK_DEVICE void issue(uint32_t d_tmem, uint32_t a, uint32_t b, bool accumulate) const {
    SK_UNROLL
    for (int k = 0; k < BK / 16; ++k) {
      if constexpr (CtaGroup == 2)
        arch::tcgen05_mma_f16_ss_pair(d_tmem, desc<AMn>(a, k), desc<BMn>(b, k), instr_desc_,
                                      accumulate || k > 0);
      else
        arch::tcgen05_mma_f16_ss(d_tmem, desc<AMn>(a, k), desc<BMn>(b, k), instr_desc_,
                                 accumulate || k > 0);
    }
  }

  // The pair's two ranks (bits 2i and 2i + 1 of the cluster); 0 for 1-SM.
  SK_DEVICE static uint16_t pair_mask() {
    if constexpr (CtaGroup == 2)
      return static_cast<uint16_t>(3u << (arch::cluster_ctarank() & ~1u));
    else
      return 0;
  }

  // The descriptor of K step k (16 elements) of a tile at `tile`.
  template <int MnMajor>
  SK_DEVICE static uint64_t desc(uint32_t tile, int k) {
    if constexpr (MnMajor != 0)
      return umma::mnmajor_desc(tile + k * 2 * kMnSboBytes, kMnLboBytes, kMnSboBytes);
    else
      return umma::kmajor_desc(tile + k * 32, kSpanBytes, kSboBytes);
  }

  OperandLayouts layouts_;
  uint32_t instr_desc_;
  uint16_t pair_mask_;
};

}  // namespace sk
