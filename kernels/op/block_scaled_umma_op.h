// block_scaled_umma_op.h: TileOp for block-scaled SM100 GEMMs: the stage's
// scale factors SMEM -> TMEM (tcgen05.cp), then tcgen05.mma of a block-scaled
// kind from SMEM operands into the TMEM accumulator.
//
// A stage holds 128 bytes of K per row of A (BM = 128 rows) and of B (BN
// rows), K-major with the 128B swizzle, and the scale factors of that K range
// in 512-byte atoms. An atom holds 4 scales for each of 128 rows: byte
// (r % 32) * 16 + (r / 32) * 4 + j is scale j of row r (umma::sf_copy_desc),
// which one tcgen05.cp.32x128b.warpx4 puts in 4 TMEM columns. The stage
// holds kAtoms atoms for A and kAtoms * BN / 128 for B (B's atoms of row
// block rb at rb * kAtoms).
//
// Each stage is consumed by 4 MMAs, each reading 32 bytes per row:
//   Mxf8Format<A, B>  kind::mxf8f6f4, scale_vec::1X, E4M3/E5M2, K = 32 per
//                     MMA, one UE8M0 scale per 32: a stage is K = 128, one
//                     atom; MMA s reads byte s of each scale word (sf_id = s)
//   Nvf4Format        kind::mxf4nvf4, scale_vec::4X, E2M1 packed two per
//                     byte, K = 64 per MMA, one UE4M3 scale per 16: a stage
//                     is K = 256, four atoms; MMA s reads atom s's whole word
//
// MN-major operands (MXFP8 only: Format::kTransposable; OperandLayouts at
// construction, the loaders' MnTiling): a tile is boxes of 128 rows (one
// 128-byte swizzle span of FP8) by the stage's 128 K rows; the descriptor has
// 8-row K groups 1024 bytes apart (SBO), boxes 128 * 128 bytes apart (LBO),
// and an MMA's K step of 32 rows advances it by 4 * 1024 bytes; the
// instruction descriptor's transpose bits (15, 16) say which operands are
// MN-major. Scales are the same either way.
//
// TMEM columns: the op owns kTmemColsPerStage columns per input stage from
// op_tmem_col: A's atoms (4 columns each), then B's, with B's row blocks of
// one atom adjacent so that an MMA of N = 256 reads 8 consecutive columns.
// Copying into a stage's columns is safe because that stage's previous MMAs
// have completed: their tcgen05.commit freed the stage, which the load warp
// refilled before this MMA warp saw it full again. Within one stage the
// copies precede the MMAs in one thread's issue order (cp -> mma is a
// pipelined pair), so no wait is needed between them.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/operand_layout.h"
#include "kernels/core/platform.h"

namespace sk {

inline constexpr uint32_t kScaleAtomBytes = 512;

template <umma::Mxf8f6f4Type A, umma::Mxf8f6f4Type B>
struct Mxf8Format {
  static constexpr int kBK = 128;              // elements of K per stage
  static constexpr int32_t kKCoordPerStage = 128;  // tensor-map units (bytes)
  static constexpr uint32_t kAtoms = 1;        // scale atoms per 128 rows per stage
  static constexpr uint32_t kScaleBlock = 32;  // K elements per scale
  static constexpr const char* kName = A == umma::Mxf8f6f4Type::kE4M3
                                           ? (B == umma::Mxf8f6f4Type::kE4M3 ? "mxfp8_e4m3"
                                                                              : "mxfp8_e4m3_e5m2")
                                           : (B == umma::Mxf8f6f4Type::kE5M2 ? "mxfp8_e5m2"
                                                                              : "mxfp8_e5m2_e4m3");
  SK_HOST_DEVICE static constexpr uint32_t instr_desc(uint32_t m, uint32_t n, uint32_t step) {
    return umma::mxf8f6f4_instr_desc(m, n, A, B, step, step);
  }
  SK_HOST_DEVICE static constexpr uint32_t atom_of(uint32_t) { return 0; }
  static constexpr bool kTransposable = true;  // kind::mxf8f6f4 takes MN-major A and B
  SK_DEVICE static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, uint32_t sfa,
                            uint32_t sfb, bool accumulate) {
    arch::tcgen05_mma_mxf8f6f4_block_scale(d, a, b, idesc, sfa, sfb, accumulate);
  }
};

struct Nvf4Format {
  static constexpr int kBK = 256;
  static constexpr int32_t kKCoordPerStage = 128;  // bytes: two elements per byte
  static constexpr uint32_t kAtoms = 4;
  static constexpr uint32_t kScaleBlock = 16;
  static constexpr const char* kName = "nvfp4";
  SK_HOST_DEVICE static constexpr uint32_t instr_desc(uint32_t m, uint32_t n, uint32_t) {
    return umma::mxf4nvf4_instr_desc(m, n, umma::ScaleType::kUE4M3);
  }
  SK_HOST_DEVICE static constexpr uint32_t atom_of(uint32_t step) { return step; }
  static constexpr bool kTransposable = false;  // kind::mxf4nvf4: K-major only
  SK_DEVICE static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, uint32_t sfa,
                            uint32_t sfb, bool accumulate) {
    arch::tcgen05_mma_mxf4nvf4_block_scale(d, a, b, idesc, sfa, sfb, accumulate);
  }
};

template <int BM, int BN, class Format>
class BlockScaledUmmaOp {
  static_assert(BM == 128, "block-scaled UMMA with cta_group::1 has M = 128");
  static_assert(BN == 128 || BN == 256, "BN of 128 or 256 (whole 128-row scale atoms of B)");

 public:
  static constexpr uint32_t kSteps = 4;         // MMAs per stage, 32 bytes of K each
  static constexpr uint32_t kSpanBytes = 128;   // one K-major row of the stage
  static constexpr uint32_t kSboBytes = 8 * kSpanBytes;
  static constexpr uint32_t kRowBlocksB = BN / 128;
  static constexpr uint32_t kSfaCols = 4 * Format::kAtoms;
  static constexpr uint32_t kSfbCols = 4 * Format::kAtoms * kRowBlocksB;
  static constexpr uint32_t kTmemColsPerStage = kSfaCols + kSfbCols;
  static constexpr uint32_t kSfaBytes = kScaleAtomBytes * Format::kAtoms;
  static constexpr uint32_t kSfbBytes = kScaleAtomBytes * Format::kAtoms * kRowBlocksB;
  static constexpr uint32_t kMnSboBytes = 8 * 128;        // 8 K rows of 128 bytes
  static constexpr uint32_t kMnLboBytes = 128 * 128;      // one 128-row box of the stage's K
  static constexpr uint32_t kMnStepBytes = 4 * kMnSboBytes;  // 32 K rows per MMA

  // layouts: MN-major operands, only where Format::kTransposable (the host
  // refuses them otherwise; here they would be ignored).
  SK_DEVICE explicit BlockScaledUmmaOp(uint32_t op_tmem_col, OperandLayouts layouts = {})
      : col0_(op_tmem_col), layouts_(layouts) {}

  // Lane: one. Copies the stage's scales to its TMEM columns, then issues the
  // stage's MMAs into the accumulator at d_col.
  template <class Tiles>
  SK_DEVICE void mma(uint32_t tmem_base, uint32_t d_col, const Tiles& t, bool accumulate,
                     arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t sfa = tmem_base + col0_ + t.index * kTmemColsPerStage;
    const uint32_t sfb = sfa + kSfaCols;
    for (uint32_t atom = 0; atom < Format::kAtoms; ++atom) {
      arch::tcgen05_cp_32x128b_warpx4(
          sfa + 4 * atom, umma::sf_copy_desc(arch::smem_addr(t.sfa + atom * kScaleAtomBytes)));
      for (uint32_t rb = 0; rb < kRowBlocksB; ++rb)
        arch::tcgen05_cp_32x128b_warpx4(
            sfb + 4 * (atom * kRowBlocksB + rb),
            umma::sf_copy_desc(
                arch::smem_addr(t.sfb + (rb * Format::kAtoms + atom) * kScaleAtomBytes)));
    }
    const uint32_t a = arch::smem_addr(t.a), b = arch::smem_addr(t.b);
    // The layouts pick one unrolled issue loop (as UmmaOp).
    if constexpr (Format::kTransposable) {
      if (layouts_.a_mn_major != 0 && layouts_.b_mn_major != 0)
        return issue<1, 1>(tmem_base + d_col, a, b, sfa, sfb, accumulate);
      if (layouts_.a_mn_major != 0) return issue<1, 0>(tmem_base + d_col, a, b, sfa, sfb, accumulate);
      if (layouts_.b_mn_major != 0) return issue<0, 1>(tmem_base + d_col, a, b, sfa, sfb, accumulate);
    }
    issue<0, 0>(tmem_base + d_col, a, b, sfa, sfb, accumulate);
  }

  // Lane: one (the lane that issued the copies and MMAs).
  SK_DEVICE void commit(uint64_t* barrier, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::tcgen05_commit(barrier);
  }

 private:
  template <int AMn, int BMn>
  SK_DEVICE static void issue(uint32_t d_tmem, uint32_t a, uint32_t b, uint32_t sfa, uint32_t sfb,
                              bool accumulate) {
    SK_UNROLL
    for (uint32_t s = 0; s < kSteps; ++s) {
      const uint32_t atom = Format::atom_of(s);
      Format::mma(d_tmem, desc<AMn>(a, s), desc<BMn>(b, s),
                  Format::instr_desc(BM, BN, s) | umma::mn_major_bits(AMn, BMn), sfa + 4 * atom,
                  sfb + 4 * atom * kRowBlocksB, accumulate || s > 0);
    }
  }

  // The descriptor of K step s (32 bytes of K) of a tile at `tile`.
  template <int MnMajor>
  SK_DEVICE static uint64_t desc(uint32_t tile, uint32_t s) {
    if constexpr (MnMajor != 0)
      return umma::mnmajor_desc(tile + s * kMnStepBytes, kMnLboBytes, kMnSboBytes);
    else
      return umma::kmajor_desc(tile + 32 * s, kSpanBytes, kSboBytes);
  }

  uint32_t col0_;
  OperandLayouts layouts_;
};

}  // namespace sk
