// warp_role.h: the SM100 structured kernel's warp specialization.
//
//   warps 0-3  epilogue   TMEM -> registers -> SMEM -> global (TMA store)
//   warp  4    scheduler  publishes work items (static persistent or CLC)
//   warp  5    load       TMA loads of A and B tiles
//   warp  6    mma        tcgen05.mma into TMEM
//   warp  7    epilogue load (only with a fused residual, Cfg::kResidual):
//              TMA loads of the residual tile C, overlapped with the MMA
#pragma once

#include "kernels/core/platform.h"

namespace sk {

enum class WarpRole : uint32_t { kEpilogue, kScheduler, kLoad, kMma, kEpilogueLoad };

inline constexpr uint32_t kEpilogueWarps = 4;
inline constexpr uint32_t kSchedulerWarp = 4;
inline constexpr uint32_t kLoadWarp = 5;
inline constexpr uint32_t kMmaWarp = 6;
inline constexpr uint32_t kEpilogueLoadWarp = 7;
inline constexpr uint32_t kSm100MatmulWarps = 7;

SK_HOST_DEVICE constexpr WarpRole role_of(uint32_t warp) {
  return warp < kEpilogueWarps   ? WarpRole::kEpilogue
         : warp == kSchedulerWarp ? WarpRole::kScheduler
         : warp == kLoadWarp      ? WarpRole::kLoad
         : warp == kMmaWarp       ? WarpRole::kMma
                                  : WarpRole::kEpilogueLoad;
}

}  // namespace sk
