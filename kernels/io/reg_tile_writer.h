// reg_tile_writer.h: the epilogue on AMD CDNA3. Stores a wave's FP32 MFMA
// accumulators (MfmaOp::Accum) to a row-major BF16 matrix in global memory,
// straight from VGPRs, one element per lane per store.
//
// Lane l holds, for block (i, j) and register r, element
// (m0 + 32 i + 8 (r / 4) + 4 (l / 32) + r % 4, n0 + 32 j + l % 32): the
// v_mfma_f32_32x32x8 D layout. Consecutive lanes hold consecutive columns,
// so each store instruction writes 32-element row segments.
//
// `d` is the output tile's matrix (a batch's matrix i: D + i * its stride).
//
// Invariants: elements outside the m x n matrix are skipped (partial tiles);
// D is written once per output tile, by the wave that owns it, so the stores
// need no synchronization with other waves.
#pragma once

#include "kernels/arch/gfx942.h"
#include "kernels/core/lanes.h"
#include "kernels/core/numeric.h"
#include "kernels/core/platform.h"

namespace sk {

template <class Op>
struct RegTileWriter {
  SK_DEVICE static void store(const typename Op::Accum& acc, bf16_t* d, uint32_t ldd, uint32_t m,
                              uint32_t n, uint32_t m0, uint32_t n0,
                              arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    for_each_lane([&](uint32_t l) {
      for (int i = 0; i < Op::kTilesM; ++i)
        for (int j = 0; j < Op::kTilesN; ++j) {
          const arch::Acc16& c = acc.lane(l)[i * Op::kTilesN + j];
          const uint32_t col = n0 + 32 * j + l % 32;
          for (int r = 0; r < 16; ++r) {
            const uint32_t row = m0 + 32 * i + 8 * (r / 4) + 4 * (l / 32) + r % 4;
            if (row < m && col < n) arch::st_global(d + uint64_t{row} * ldd + col, to_bf16(c.v[r]));
          }
        }
    });
  }
};

}  // namespace sk
