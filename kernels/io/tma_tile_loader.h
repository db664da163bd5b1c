// tma_tile_loader.h: TileIO for NVIDIA: one tensor map, one box per load.
//
// The loader only issues data movement. The kernel decides the k-loop, the
// stage and the transaction bytes (ProducerStage::expect_bytes); the loader
// signals the stage's full barrier through TMA complete_tx.
// Coordinates follow the tensor map: c0 is the contiguous dimension (K for
// K-major operands), c1 the row, c2 the matrix of a batch. Boxes that cross
// the tensor's edge are zero-filled by the hardware and still deliver the
// full box bytes.
//
// Rank is the tensor map's: 2 (one matrix; TmaTileLoader) or 3 (a batch of
// matrices, one plane per load; BatchedTmaTileLoader). A rank-2 loader has a
// single plane, so the c2 its callers pass is always 0: kernels pass the work
// item's batch, which only a batched configuration's scheduler makes nonzero.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

template <int Rank>
class TiledTmaLoader {
  static_assert(Rank == 2 || Rank == 3, "tiled TMA loads of rank 2 or 3");

 public:
  static constexpr int kRank = Rank;
  using Source = arch::TensorMap;  // what the kernel parameters hold for it
  SK_DEVICE explicit TiledTmaLoader(const arch::TensorMap* map) : map_(map) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch() const { arch::prefetch_tensormap(map_); }
  SK_DEVICE void load(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1,
                      int32_t c2 = 0) const {
    if constexpr (Rank == 3)
      arch::tma_load_3d(smem_dst, map_, full_barrier, c0, c1, c2);
    else
      arch::tma_load_2d(smem_dst, map_, full_barrier, c0, c1);
  }

 private:
  const arch::TensorMap* map_;
};

using TmaTileLoader = TiledTmaLoader<2>;
using BatchedTmaTileLoader = TiledTmaLoader<3>;

}  // namespace sk
