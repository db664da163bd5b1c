// static_persistent_scheduler.h: persistent CTAs walking the output tiles.
//
// CTA c processes tiles c, c + G, c + 2G, ... (G = number of CTAs), rasterised
// along M (consecutive tiles share a column of B), then N, then the batch (a
// batched GEMM's matrices one after the other; 1 for a single GEMM). With a
// tile group g > 1 (tile_work's `group`; CUTLASS's swizzle, Triton's
// GROUP_SIZE), the N columns go in bands of g: a band's tiles are walked g
// columns at a time, row after row, so the CTAs that run at once cover a
// compact block (132 tiles with g = 8: 17 rows by 8 columns, 25 panels of A
// and B, against 2 columns and all rows along M) and share more of what L2
// holds. The scheduler warp turns
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
// then the batch, or with group > 1 in bands of `group` N columns (above);
// invalid past the last tile. Every tile of the grid is visited exactly once
// for any group. Launches hold fewer than 2^31 tiles (the hosts check), so
// past the bound check the arithmetic is 32-bit (a 64-bit division is a long
// sequence on the GPU).
SK_HOST_DEVICE WorkInfo tile_work(uint64_t t, uint32_t tiles_m, uint32_t tiles_n,
                                  uint32_t batches, uint32_t group = 1) {
  if (t >= static_cast<uint64_t>(tiles_m) * tiles_n * batches) return WorkInfo{0, 0, 0, 0};
  const uint32_t t32 = static_cast<uint32_t>(t), per_batch = tiles_m * tiles_n;
  const uint32_t in_batch = batches == 1 ? t32 : t32 % per_batch;
  const int32_t batch = batches == 1 ? 0 : static_cast<int32_t>(t32 / per_batch);
  if (group <= 1)
    return WorkInfo{static_cast<int32_t>(in_batch % tiles_m),
                    static_cast<int32_t>(in_batch / tiles_m), 1, batch};
  const uint32_t band = in_batch / (tiles_m * group), n0 = band * group;
  const uint32_t width = tiles_n - n0 < group ? tiles_n - n0 : group;  // the last band may be narrower
  const uint32_t r = in_batch - band * tiles_m * group;
  return WorkInfo{static_cast<int32_t>(r / width), static_cast<int32_t>(n0 + r % width), 1, batch};
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
