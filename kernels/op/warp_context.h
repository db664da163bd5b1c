// warp_context.h: the TMEM lifecycle as scoped objects.
//
//   MmaWarpContext      constructor: allocate TMEM, then tell the epilogue
//                       (named barrier) that the address is in SMEM;
//                       destructor: give up the alloc permit, wait until every
//                       epilogue warp has finished reading TMEM, deallocate.
//   EpilogueWarpContext constructor: wait for the allocation, read the address;
//                       destructor: signal the MMA warp that reading is done.
//
// The pairing makes the invariants structural: TMEM is allocated before any
// reader uses it, never freed while the epilogue reads it, and freed on every
// path out of the MMA warp's scope. With CtaGroup 2 the MMA warp of each CTA
// of a pair runs its context (the allocation and deallocation are the
// pair's); each CTA's epilogue reads its own TMEM.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/platform.h"
#include "kernels/op/tmem.h"

namespace sk {

// Named barrier id used for "TMEM allocated" (id 0 is the CTA barrier).
inline constexpr uint32_t kTmemAllocBarrierId = 1;

template <uint32_t Cols, uint32_t EpilogueWarps, int CtaGroup = 1>
class MmaWarpContext {
 public:
  static constexpr uint32_t kSyncThreads = 32 * (1 + EpilogueWarps);

  // Lane: warp. dealloc_barrier must be initialised with EpilogueWarps arrivals.
  // Its reports, the destructor's included, name the line that made it.
  SK_DEVICE MmaWarpContext(uint32_t* tmem_slot, uint64_t* dealloc_barrier,
                           arch::CallSite site = arch::CallSite::current())
      : tmem_(alloc_and_read(tmem_slot, site)), dealloc_barrier_(dealloc_barrier), site_(site) {
    const arch::Caller caller(site);
    arch::tcgen05_fence_before_thread_sync();
    arch::named_barrier_arrive(kTmemAllocBarrierId, kSyncThreads);
  }
  MmaWarpContext(const MmaWarpContext&) = delete;
  MmaWarpContext& operator=(const MmaWarpContext&) = delete;

  SK_DEVICE ~MmaWarpContext() {
    const arch::Caller caller(site_);
    tmem_.release_lock();
    while (!arch::mbarrier_try_wait_parity(dealloc_barrier_, 0)) {
    }
    arch::tcgen05_fence_after_thread_sync();
    tmem_.deallocate();
  }

  SK_DEVICE const TmemAllocation<Cols, CtaGroup>& tmem() const { return tmem_; }

 private:
  SK_DEVICE static TmemAllocation<Cols, CtaGroup> alloc_and_read(uint32_t* slot,
                                                                 arch::CallSite site) {
    const arch::Caller caller(site);
    TmemAllocation<Cols, CtaGroup>::allocate(slot);
    return TmemAllocation<Cols, CtaGroup>::from_shared(slot);
  }
  TmemAllocation<Cols, CtaGroup> tmem_;
  uint64_t* dealloc_barrier_;
  arch::CallSite site_;
};

template <uint32_t Cols, uint32_t EpilogueWarps>
class EpilogueWarpContext {
 public:
  static constexpr uint32_t kSyncThreads = 32 * (1 + EpilogueWarps);

  // Lane: warp.
  SK_DEVICE EpilogueWarpContext(const uint32_t* tmem_slot, uint64_t* dealloc_barrier,
                                arch::CallSite site = arch::CallSite::current())
      : tmem_(wait_and_read(tmem_slot, site)), dealloc_barrier_(dealloc_barrier), site_(site) {}
  EpilogueWarpContext(const EpilogueWarpContext&) = delete;
  EpilogueWarpContext& operator=(const EpilogueWarpContext&) = delete;

  SK_DEVICE ~EpilogueWarpContext() {
    const arch::Caller caller(site_);
    arch::tcgen05_fence_before_thread_sync();
    if (auto lane = elect_one()) arch::mbarrier_arrive(dealloc_barrier_);
  }

  SK_DEVICE const TmemAllocation<Cols>& tmem() const { return tmem_; }

 private:
  SK_DEVICE static TmemAllocation<Cols> wait_and_read(const uint32_t* slot, arch::CallSite site) {
    const arch::Caller caller(site);
    arch::named_barrier_sync(kTmemAllocBarrierId, kSyncThreads);
    arch::tcgen05_fence_after_thread_sync();
    return TmemAllocation<Cols>::from_shared(slot);
  }
  TmemAllocation<Cols> tmem_;
  uint64_t* dealloc_barrier_;
  arch::CallSite site_;
};

}  // namespace sk
