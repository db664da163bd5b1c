// static_persistent_scheduler.h: persistent CTAs walking the output tiles.
//
// CTA c processes tiles c, c + G, c + 2G, ... (G = number of CTAs), rasterised
// along M (consecutive tiles share a column of B), then N, then the batch (a
// batched GEMM's matrices one after the other; 1 for a single GEMM). The scheduler warp turns
// this sequence into WorkInfo items and publishes them through a work
// pipeline; the other roles consume the same items in the same order. A final
// item with valid = 0 tells every role to stop. Swapping this scheduler for a
// CLC one changes only where the items come from.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

struct WorkInfo {
  int32_t m_tile;
  int32_t n_tile;
  int32_t valid;
  int32_t batch;  // the matrix of a batched GEMM (0 otherwise)
};

// Tile t of a tiles_m x tiles_n x batches grid, rasterised along M, then N,
// then the batch; invalid past the last tile. Launches hold fewer than 2^31
// tiles (the hosts check), so past the bound check the arithmetic is 32-bit
// (a 64-bit division is a long sequence on the GPU).
SK_HOST_DEVICE WorkInfo tile_work(uint64_t t, uint32_t tiles_m, uint32_t tiles_n,
                                         uint32_t batches) {
  if (t >= static_cast<uint64_t>(tiles_m) * tiles_n * batches) return WorkInfo{0, 0, 0, 0};
  const uint32_t t32 = static_cast<uint32_t>(t), per_batch = tiles_m * tiles_n;
  const uint32_t in_batch = batches == 1 ? t32 : t32 % per_batch;
  return WorkInfo{static_cast<int32_t>(in_batch % tiles_m), static_cast<int32_t>(in_batch / tiles_m),
                  1, batches == 1 ? 0 : static_cast<int32_t>(t32 / per_batch)};
}

class StaticPersistentScheduler {
 public:
  SK_DEVICE StaticPersistentScheduler(uint32_t tiles_m, uint32_t tiles_n, uint32_t batches,
                                      uint32_t cta, uint32_t num_ctas)
      : tiles_m_(tiles_m), tiles_n_(tiles_n), batches_(batches), cta_(cta), num_ctas_(num_ctas) {}

  // The iter-th item of this CTA (invalid once past the last tile).
  SK_DEVICE WorkInfo work(uint32_t iter) const {
    return tile_work(cta_ + static_cast<uint64_t>(iter) * num_ctas_, tiles_m_, tiles_n_, batches_);
  }

 private:
  uint32_t tiles_m_, tiles_n_, batches_, cta_, num_ctas_;
};

}  // namespace sk
