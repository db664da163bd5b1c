// lanes.h (gfx942 device build): lane election and per-lane code, the device
// half of kernels/core/lanes.h's contract (elect_one(), for_each_lane()).
//
// Invariants: elect_one_begin() elects the lowest active lane of the wave
// (v_readfirstlane of the lane index), so unlike elect.sync on NVIDIA it may be
// reached by a subset of the lanes and still elects exactly one.
// elect_one_begin()/lane_scope_end() bracket a single-lane region; on the
// device the branch on the result already restricts the exec mask, so
// lane_scope_end() emits nothing (the model uses it to restore the active lane
// set). for_each_lane calls fn once, with the calling lane's index.
#pragma once

#include "kernels/arch/gfx942/device/identity.h"
#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE bool elect_one_begin() {
  const uint32_t lane = lane_idx();
  return lane == static_cast<uint32_t>(__builtin_amdgcn_readfirstlane(static_cast<int>(lane)));
}

SK_DEVICE void lane_scope_end() {}

template <class Fn>
SK_DEVICE void for_each_lane(Fn&& fn) {
  fn(lane_idx());
}

}  // namespace sk::arch
