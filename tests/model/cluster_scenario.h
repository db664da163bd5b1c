// cluster_scenario.h: what the cluster scenarios (cluster_test, dsmem_test,
// pair_matmul_test) share inside their kernels: mbarrier i at the start of
// the CTA's dynamic shared memory, and n of them initialised by warp 0 of
// each CTA, fenced for the cluster and published with a cluster barrier
// (which also publishes anything the CTA wrote before it).
#pragma once

#include <cstdint>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"

namespace sk::test {

inline uint64_t* bar_at(uint32_t i) {
  return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()) + i;
}

inline void init_cluster_barriers(uint32_t n, uint32_t count) {
  if (sk::arch::warp_idx() == 0)
    if (auto l = sk::elect_one()) {
      for (uint32_t i = 0; i < n; ++i) sk::arch::mbarrier_init(bar_at(i), count);
      sk::arch::fence_mbarrier_init();
    }
  sk::arch::cluster_sync();
}

}  // namespace sk::test
