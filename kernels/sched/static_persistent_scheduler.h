// static_persistent_scheduler.h: persistent CTAs walking the output tiles.
//
// CTA c processes tiles c, c + G, c + 2G, ... (G = number of CTAs), rasterised
// along M (consecutive tiles share a column of B). The scheduler warp turns
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
  int32_t reserved;
};

class StaticPersistentScheduler {
 public:
  SK_DEVICE StaticPersistentScheduler(uint32_t tiles_m, uint32_t tiles_n, uint32_t cta,
                                      uint32_t num_ctas)
      : tiles_m_(tiles_m), tiles_n_(tiles_n), cta_(cta), num_ctas_(num_ctas) {}

  // The iter-th item of this CTA (invalid once past the last tile).
  SK_DEVICE WorkInfo work(uint32_t iter) const {
    const uint64_t t = cta_ + static_cast<uint64_t>(iter) * num_ctas_;
    if (t >= static_cast<uint64_t>(tiles_m_) * tiles_n_) return WorkInfo{0, 0, 0, 0};
    return WorkInfo{static_cast<int32_t>(t % tiles_m_), static_cast<int32_t>(t / tiles_m_), 1, 0};
  }

 private:
  uint32_t tiles_m_, tiles_n_, cta_, num_ctas_;
};

}  // namespace sk
