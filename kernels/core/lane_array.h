// lane_array.h: per-lane register storage that means the same thing in both builds.
//
// A LaneArray<T, N, Lanes> is "N registers of type T in every lane of the
// warp" (Lanes = 32, NVIDIA) or "of the wave" (Lanes = 64, AMD: WaveArray).
// On the device a thread owns one row (its own lane); in the model the single
// process that executes the warp owns all Lanes rows. Kernel code reaches a
// lane's registers only through lane(l) inside sk::for_each_lane, so the same
// source is correct in both builds: on the device l is the thread's own lane
// id and the row index collapses to 0.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

template <class T, int N, int Lanes = kWarpSize>
struct LaneArray {
  static constexpr int kRegs = N;
  static constexpr int kLanes = Lanes;
  static constexpr int kSlots = SK_BUILD_DEVICE ? 1 : Lanes;
  T regs[kSlots][N];

  SK_DEVICE T* lane(uint32_t l) { return regs[kSlots == 1 ? 0 : l]; }
  SK_DEVICE const T* lane(uint32_t l) const { return regs[kSlots == 1 ? 0 : l]; }
};

// Registers of an AMD wave (64 lanes).
inline constexpr int kWaveLanes = 64;
template <class T, int N>
using WaveArray = LaneArray<T, N, kWaveLanes>;

}  // namespace sk
