// tmem.h: a TMEM allocation of `Cols` columns (all 128 lanes).
//
// tcgen05.alloc, dealloc and relinquish are warp-collective: the whole warp
// calls them, never an elected lane. The allocated address is written to a
// shared-memory slot; other warps read it only after a barrier that orders the
// write (see warp_context.h).
//
// CtaGroup 2: the pair's allocation (kernels/arch/sm100/device/tcgen05_pair.h):
// one warp of each CTA of the pair calls every one of these, and the address
// is the same columns in both CTAs' TMEM.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

template <uint32_t Cols, int CtaGroup = 1>
class TmemAllocation {
  static_assert(Cols >= 32 && Cols <= 512 && (Cols & (Cols - 1)) == 0,
                "TMEM allocations are a power of two in [32, 512] columns");
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group::1 or ::2");

 public:
  static constexpr uint32_t kCols = Cols;

  // Lane: warp. Blocks until the columns are free.
  SK_DEVICE static void allocate(uint32_t* smem_slot,
                                 arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    if constexpr (CtaGroup == 2)
      arch::tcgen05_alloc_pair(smem_slot, Cols);
    else
      arch::tcgen05_alloc(smem_slot, Cols);
  }
  SK_DEVICE static TmemAllocation from_shared(const uint32_t* smem_slot) {
    return TmemAllocation(arch::ld_shared(smem_slot));
  }

  SK_DEVICE uint32_t base() const { return base_; }
  // Lane: warp.
  SK_DEVICE void release_lock(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if constexpr (CtaGroup == 2)
      arch::tcgen05_relinquish_alloc_permit_pair();
    else
      arch::tcgen05_relinquish_alloc_permit();
  }
  SK_DEVICE void deallocate(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if constexpr (CtaGroup == 2)
      arch::tcgen05_dealloc_pair(base_, Cols);
    else
      arch::tcgen05_dealloc(base_, Cols);
  }

 private:
  SK_DEVICE explicit TmemAllocation(uint32_t base) : base_(base) {}
  uint32_t base_;
};

}  // namespace sk
