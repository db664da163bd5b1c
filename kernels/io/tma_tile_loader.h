// tma_tile_loader.h: TileIO for NVIDIA: one tensor map, one 2-D box per load.
//
// The loader only issues data movement. The kernel decides the k-loop, the
// stage and the transaction bytes (ProducerStage::expect_bytes); the loader
// signals the stage's full barrier through TMA complete_tx.
// Coordinates follow the tensor map: c0 is the contiguous dimension (K for
// K-major operands), c1 the row. Boxes that cross the tensor's edge are
// zero-filled by the hardware and still deliver the full box bytes.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

class TmaTileLoader {
 public:
  using Source = arch::TensorMap;  // what the kernel parameters hold for it
  SK_DEVICE explicit TmaTileLoader(const arch::TensorMap* map) : map_(map) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch() const { arch::prefetch_tensormap(map_); }
  SK_DEVICE void load(void* smem_dst, uint64_t* full_barrier, int32_t c0, int32_t c1) const {
    arch::tma_load_2d(smem_dst, map_, full_barrier, c0, c1);
  }

 private:
  const arch::TensorMap* map_;
};

}  // namespace sk
