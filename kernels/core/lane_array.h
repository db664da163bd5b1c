// lane_array.h: per-lane register storage that means the same thing in both builds.
//
// A LaneArray<T, N> is "N registers of type T in every lane of the warp".
// On the device a thread owns one row (its own lane); in the model the single
// process that executes the warp owns all 32 rows. Kernel code reaches a lane's
// registers only through lane(l) inside sk::for_each_lane, so the same source
// is correct in both builds: on the device l is the thread's own lane id and
// the row index collapses to 0.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

template <class T, int N>
struct LaneArray {
  static constexpr int kRegs = N;
  T regs[kLaneSlots][N];

  SK_DEVICE T* lane(uint32_t l) { return regs[kLaneSlots == 1 ? 0 : l]; }
  SK_DEVICE const T* lane(uint32_t l) const { return regs[kLaneSlots == 1 ? 0 : l]; }
};

}  // namespace sk
