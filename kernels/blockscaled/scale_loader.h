// scale_loader.h: TileIO for block scale factors: one TMA box of A's scales
// and one of B's per stage, next to the A and B tiles (4 loads per stage).
//
// Global layout of a scale tensor (the host writes it, runner/kernels/
// block_scaled_host.h): 16-byte rows of uint8, grouped in 512-byte atoms of
// 32 rows (kernels/op/block_scaled_umma_op.h gives an atom's byte order).
// For an operand of R rows the atoms are ordered
//     ((kc * row_blocks + rb) * kAtoms + a)
// with kc the stage's K chunk (K elements [kc * BK, (kc + 1) * BK)), rb the
// 128-row block, a the atom within the chunk, and row_blocks = ceil(R / 128)
// rounded up to even. So the scales one stage needs are contiguous: kAtoms
// atoms for A's row block, kAtoms * BN / 128 for B's row blocks (even
// row_blocks keeps BN = 256 tiles inside one chunk). The tensor map is
// {16, rows, batches} bytes with a box of {16, 32 * atoms, 1}: one such
// tensor per matrix of a batch, the work item's matrix the load's third
// coordinate; past the last chunk TMA zero-fills, and zero is a finite scale
// in both scale formats. The layout does not depend on whether A and B are
// K- or MN-major: scales are per row of A (column of B) and K block either
// way, and the MMA reads them from TMEM.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

template <int BN, uint32_t kAtoms>
class BlockScaleLoader {
 public:
  static constexpr uint32_t kRowBlocksB = BN / 128;
  struct Source {
    arch::TensorMap sfa;  // dims {16, rows, batches}, box {16, 32 * kAtoms, 1}
    arch::TensorMap sfb;  // box {16, 32 * kAtoms * BN / 128, 1}
    uint32_t row_blocks_a = 0, row_blocks_b = 0;  // even
  };

  SK_DEVICE explicit BlockScaleLoader(const Source* s) : s_(s) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::prefetch_tensormap(&s_->sfa);
    arch::prefetch_tensormap(&s_->sfb);
  }
  template <class Tiles>
  SK_DEVICE void load(const Tiles& t, uint64_t* full_barrier, uint32_t kb, uint32_t m_tile,
                      uint32_t n_tile, uint32_t batch,
                      arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t ya = (kb * s_->row_blocks_a + m_tile) * kAtoms * 32;
    const uint32_t yb = (kb * s_->row_blocks_b + n_tile * kRowBlocksB) * kAtoms * 32;
    const int32_t l = static_cast<int32_t>(batch);
    arch::tma_load_3d(t.sfa, &s_->sfa, full_barrier, 0, static_cast<int32_t>(ya), l);
    arch::tma_load_3d(t.sfb, &s_->sfb, full_barrier, 0, static_cast<int32_t>(yb), l);
  }

 private:
  const Source* s_;
};

}  // namespace sk
