// mfma_op.h: TileOp on AMD CDNA3. One wave multiplies its WM x WN part of a
// block tile held in LDS (as LdsTileLoader writes it: ALayout and BLayout,
// each K-major, LdsTileLayout, or MN-major, LdsMnTileLayout) into FP32
// accumulators in VGPRs, with v_mfma_f32_32x32x8_bf16.
//
// Per K step of 8, the wave reads its operands from LDS (per 32-row block of
// A and per 32-column block of B, lane l takes row l % 32, K elements
// 4 (l / 32) .. + 3, the instruction's operand layout in
// kernels/arch/gfx942/device/mfma.h: one ds_read_b64 at its swizzled place
// from a K-major tile, four ds_read_u16 from an MN-major one; the layouts are
// template parameters, so each pair is its own unrolled loop), then issues
// (WM / 32) x (WN / 32)
// MFMAs, reusing each A operand across the N blocks and each B operand across
// the M blocks.
//
// Invariants: the accumulator of block (i, j) is register i * kTilesN + j of
// Accum; a lane's 16 accumulator values of a block are rows
// 8 (r / 4) + 4 (l / 32) + r % 4 and column l % 32 of it (mfma.h), which is
// what RegTileWriter stores. Operands are read before the MFMAs that use
// them; the compiler's lgkmcnt waits (the model's: mfma waits for the wave's
// outstanding LDS reads) order them.
#pragma once

#include "kernels/arch/gfx942.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/platform.h"
#include "kernels/io/lds_tile_loader.h"

namespace sk {

// F16: the operands are IEEE F16 (v_mfma_f32_32x32x8f16) instead of BF16.
// ALayout, BLayout: the LDS layouts of the A and B tiles (their read4 reads
// a lane's four K elements).
template <int WM, int WN, int BK, bool F16 = false, class ALayout = LdsTileLayout<BK>,
          class BLayout = LdsTileLayout<BK>>
struct MfmaOp {
  static_assert(WM % 32 == 0 && WN % 32 == 0 && BK % 8 == 0, "32x32x8 MFMA blocks");
  static constexpr int kTilesM = WM / 32;
  static constexpr int kTilesN = WN / 32;
  using Accum = WaveArray<arch::Acc16, kTilesM * kTilesN>;

  SK_DEVICE static void clear(Accum& acc) {
    for_each_lane([&](uint32_t l) {
      for (int t = 0; t < kTilesM * kTilesN; ++t) acc.lane(l)[t] = arch::Acc16{};
    });
  }

  // acc += A[m0 .. m0 + WM) x B[n0 .. n0 + WN)^T over the stage's BK. Lane: wave.
  SK_DEVICE static void mma(Accum& acc, const uint8_t* a_tile, uint32_t m0, const uint8_t* b_tile,
                            uint32_t n0, arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    for (int kk = 0; kk < BK; kk += 8) {
      WaveArray<arch::Bf16x4, kTilesM> a;
      WaveArray<arch::Bf16x4, kTilesN> b;
      for_each_lane([&](uint32_t l) {
        const uint32_t k = kk + 4 * (l / 32);
        for (int i = 0; i < kTilesM; ++i) a.lane(l)[i] = ALayout::read4(a_tile, m0 + 32 * i + l % 32, k);
        for (int j = 0; j < kTilesN; ++j) b.lane(l)[j] = BLayout::read4(b_tile, n0 + 32 * j + l % 32, k);
      });
      for (int i = 0; i < kTilesM; ++i)
        for (int j = 0; j < kTilesN; ++j) {
          if constexpr (F16)
            arch::mfma_f32_32x32x8_f16(acc, i * kTilesN + j, a, i, b, j);
          else
            arch::mfma_f32_32x32x8_bf16(acc, i * kTilesN + j, a, i, b, j);
        }
    }
  }
};

}  // namespace sk
