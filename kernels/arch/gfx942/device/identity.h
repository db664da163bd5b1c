// identity.h (gfx942 device build): where the executing lane sits in the
// launch.
//
// Invariants: the kernel is launched with a 1-D grid of 1-D workgroups, so
// only the x components carry information. gfx942 runs wave64 only, so a wave
// is 64 consecutive work-items: wave w of a workgroup holds work-items
// [64w, 64w + 64), and lane_idx() is the position in that range. wave_idx() is
// read through v_readfirstlane so that the compiler knows it is wave-uniform
// and keeps role dispatch on it in scalar branches. dynamic_lds() is the
// launch-time dynamic LDS of the workgroup, 16-byte aligned (ds_read_b128),
// and the same address in every wave of the workgroup.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

inline constexpr int kWaveSize = 64;

SK_DEVICE uint32_t lane_idx() {
  // mbcnt counts the set bits of the mask below this lane: with an all-ones
  // mask that is the lane index, whatever the exec mask.
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

SK_DEVICE uint32_t wave_idx() {
  return static_cast<uint32_t>(__builtin_amdgcn_readfirstlane(
      static_cast<int>(__builtin_amdgcn_workitem_id_x() / static_cast<uint32_t>(kWaveSize))));
}

SK_DEVICE uint32_t block_idx() { return __builtin_amdgcn_workgroup_id_x(); }

SK_DEVICE uint32_t num_blocks() {
  // The dispatch gives the grid in work-items; HIP launches whole workgroups,
  // and the rounding up keeps a partial last workgroup counted.
  const uint32_t wg = __builtin_amdgcn_workgroup_size_x();
  return (__builtin_amdgcn_grid_size_x() + wg - 1u) / wg;
}

SK_DEVICE uint32_t waves_per_block() {
  return (__builtin_amdgcn_workgroup_size_x() + static_cast<uint32_t>(kWaveSize) - 1u) /
         static_cast<uint32_t>(kWaveSize);
}

SK_DEVICE uint8_t* dynamic_lds() {
  // Function-scope extern declaration: every inclusion names the same
  // launch-time dynamic LDS, without a namespace-scope symbol per translation
  // unit.
  extern __shared__ __attribute__((aligned(16))) uint8_t sk_dynamic_lds_base[];
  return sk_dynamic_lds_base;
}

}  // namespace sk::arch
