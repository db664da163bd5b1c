// fp8_umma_op.h: TileOp for FP8 without block scales: tcgen05.mma
// kind::f8f6f4 from SMEM operands into TMEM.
//
// A stage holds 128 bytes of K per row of A (BM = 128 rows) and of B (BN
// rows), K-major with the 128B swizzle: 128 FP8 elements. mma() issues 4
// instructions of K = 32, advancing both descriptors by 32 bytes, like
// UmmaOp does for BF16. Either operand may instead be MN-major
// (OperandLayouts at construction; kind::f8f6f4 takes transposed operands):
// 128-row boxes (one 128-byte span of FP8) of the stage's 128 K rows, 8-row
// K groups 1024 bytes apart (SBO), boxes 16384 bytes apart (LBO), a K step
// of 32 rows advancing the descriptor by 4096 bytes, and the instruction
// descriptor's transpose bits set. Scales, if any, are applied elsewhere (blockwise FP8
// promotes each k-block's partial in the epilogue); the op uses no TMEM
// columns of its own.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/operand_layout.h"
#include "kernels/core/platform.h"

namespace sk {

template <int BM, int BN, umma::Mxf8f6f4Type A = umma::Mxf8f6f4Type::kE4M3,
          umma::Mxf8f6f4Type B = umma::Mxf8f6f4Type::kE4M3>
class Fp8UmmaOp {
  static_assert(BM == 128, "cta_group::1 UMMA here uses M = 128");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "UMMA N must be a multiple of 16 in [16, 256]");

 public:
  static constexpr uint32_t kSpanBytes = 128;
  static constexpr uint32_t kSboBytes = 8 * kSpanBytes;
  static constexpr uint32_t kInstrDesc = umma::f8f6f4_instr_desc(BM, BN, A, B);
  static constexpr uint32_t kTmemColsPerStage = 0;
  static constexpr uint32_t kMnSboBytes = 8 * 128;
  static constexpr uint32_t kMnLboBytes = 128 * 128;
  static constexpr uint32_t kMnStepBytes = 4 * kMnSboBytes;

  SK_DEVICE explicit Fp8UmmaOp(uint32_t op_tmem_col = 0, OperandLayouts layouts = {})
      : layouts_(layouts) {
    (void)op_tmem_col;
  }

  // Lane: one. The stage's tiles (a, b) into the accumulator at d_col. The
  // layouts pick one unrolled issue loop (as UmmaOp).
  template <class Tiles>
  SK_DEVICE void mma(uint32_t tmem_base, uint32_t d_col, const Tiles& t, bool accumulate,
                     arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t a = arch::smem_addr(t.a), b = arch::smem_addr(t.b);
    if (layouts_.a_mn_major != 0 && layouts_.b_mn_major != 0)
      issue<1, 1>(tmem_base + d_col, a, b, accumulate);
    else if (layouts_.a_mn_major != 0)
      issue<1, 0>(tmem_base + d_col, a, b, accumulate);
    else if (layouts_.b_mn_major != 0)
      issue<0, 1>(tmem_base + d_col, a, b, accumulate);
    else
      issue<0, 0>(tmem_base + d_col, a, b, accumulate);
  }

  // Lane: one (the lane that issued the MMAs).
  SK_DEVICE void commit(uint64_t* barrier, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::tcgen05_commit(barrier);
  }

 private:
  template <int AMn, int BMn>
  SK_DEVICE static void issue(uint32_t d_tmem, uint32_t a, uint32_t b, bool accumulate) {
    SK_UNROLL
    for (uint32_t s = 0; s < 4; ++s)
      arch::tcgen05_mma_f8f6f4_ss(d_tmem, desc<AMn>(a, s), desc<BMn>(b, s),
                                  kInstrDesc | umma::mn_major_bits(AMn, BMn), accumulate || s > 0);
  }

  template <int MnMajor>
  SK_DEVICE static uint64_t desc(uint32_t tile, uint32_t s) {
    if constexpr (MnMajor != 0)
      return umma::mnmajor_desc(tile + s * kMnStepBytes, kMnLboBytes, kMnSboBytes);
    else
      return umma::kmajor_desc(tile + 32 * s, kSpanBytes, kSboBytes);
  }

  OperandLayouts layouts_;
};

}  // namespace sk
