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
//
// MN-major operands (MnTiling, operand_layout.h): the map's contiguous dim is
// M (or N), dims {rows, K}, and a box holds one 128-byte swizzle span of rows
// (64 rows of 16-bit elements, 128 of 8-bit ones) by BK; a tile of R rows is
// R / box_rows boxes, box i at i * box_bytes in the stage: the MN-major
// canonical layout whose span-wide row blocks are box_bytes apart (the
// descriptors' leading byte offset). load() keeps the GEMM's (k, row)
// coordinates either way.
//
// Clusters: load_multicast() issues the same boxes with .multicast::cluster:
// each lands at the same SMEM offset in every CTA of cta_mask and completes
// its bytes on the barrier at the same offset in each (kernels/arch/sm100/
// device/cluster.h). A kernel that splits a shared tile among the CTAs of a
// cluster gives each a map whose box is its slice and a destination offset
// inside the tile.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

// How an MN-major tile is cut into boxes (boxes == 0: K-major, one box).
struct MnTiling {
  uint32_t boxes = 0;      // boxes per tile
  uint32_t box_bytes = 0;  // SMEM bytes of one box (128 x BK)
  uint32_t box_rows = 0;   // rows of one box: a 128-byte span of elements
  // elem_bytes: 2 (BF16, F16) or 1 (FP8); bk: the tile's K rows.
  SK_HOST_DEVICE static constexpr MnTiling of(uint32_t mn_major, uint32_t rows, uint32_t bk,
                                              uint32_t elem_bytes = 2) {
    return mn_major != 0 ? MnTiling{rows / (128 / elem_bytes), 128 * bk, 128 / elem_bytes}
                         : MnTiling{};
  }
};

template <int Rank>
class TiledTmaLoader {
  static_assert(Rank == 2 || Rank == 3, "tiled TMA loads of rank 2 or 3");

 public:
  static constexpr int kRank = Rank;
  using Source = arch::TensorMap;  // what the kernel parameters hold for it
  SK_DEVICE explicit TiledTmaLoader(const arch::TensorMap* map, MnTiling mn = {})
      : map_(map), mn_(mn) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::prefetch_tensormap(map_);
  }
  // The tile whose first element is (k = c0, row = c1) of matrix c2.
  SK_DEVICE void load(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1,
                      int32_t c2 = 0, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    boxes(smem_dst, full_barrier, c0, c1, c2, 0);
  }
  // The same into this CTA's SMEM, completing on the barrier at
  // full_barrier's offset in CTA `bar_rank` of the cluster (this CTA or its
  // pair peer: .cta_group::2, for a 2-SM MMA whose leader's barrier counts
  // both CTAs' bytes). K-major tiles only. Lane: one.
  SK_DEVICE void load_pair(void* smem_dst, uint64_t* full_barrier, uint32_t bar_rank, int32_t c0,
                           int32_t c1, int32_t c2 = 0,
                           arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if constexpr (Rank == 3)
      arch::tma_load_3d_pair(smem_dst, map_, full_barrier, bar_rank, c0, c1, c2);
    else
      arch::tma_load_2d_pair(smem_dst, map_, full_barrier, bar_rank, c0, c1);
  }
  // The same, delivered to every CTA of the cluster in cta_mask (bit r: rank
  // r). Lane: one.
  SK_DEVICE void load_multicast(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1,
                                int32_t c2, uint16_t cta_mask,
                                arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    boxes(smem_dst, full_barrier, c0, c1, c2, cta_mask);
  }

 private:
  SK_DEVICE void boxes(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1, int32_t c2,
                       uint16_t mask) const {
    if (mn_.boxes == 0) {
      box(smem_dst, full_barrier, c0, c1, c2, mask);
      return;
    }
    for (uint32_t i = 0; i < mn_.boxes; ++i)
      box(static_cast<uint8_t*>(smem_dst) + i * mn_.box_bytes, full_barrier,
          c1 + static_cast<int32_t>(mn_.box_rows * i), c0, c2, mask);
  }
  // mask 0: this CTA only (the plain load).
  SK_DEVICE void box(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1, int32_t c2,
                     uint16_t mask) const {
    if (mask != 0) {
      if constexpr (Rank == 3)
        arch::tma_load_3d_multicast(smem_dst, map_, full_barrier, c0, c1, c2, mask);
      else
        arch::tma_load_2d_multicast(smem_dst, map_, full_barrier, c0, c1, mask);
      return;
    }
    if constexpr (Rank == 3)
      arch::tma_load_3d(smem_dst, map_, full_barrier, c0, c1, c2);
    else
      arch::tma_load_2d(smem_dst, map_, full_barrier, c0, c1);
  }

  const arch::TensorMap* map_;
  MnTiling mn_;
};

using TmaTileLoader = TiledTmaLoader<2>;
using BatchedTmaTileLoader = TiledTmaLoader<3>;

}  // namespace sk
