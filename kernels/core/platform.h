// platform.h: the one place that decides which build a translation unit is in.
//
// Structured kernels compile in two builds from the same sources:
//   * the device build (nvcc, sm_100a / sm_90a): __CUDACC__ is defined and the
//     intrinsics are inline PTX (kernels/arch/<arch>/device/);
//   * the model build (host compiler): the intrinsics call into the simulator
//     (models/<arch>/intrinsics.h).
// Kernel logic never tests these macros itself; it includes an arch selector
// header (kernels/arch/sm100.h) and uses SK_DEVICE on every function.
//
// Invariant: kLaneSlots is the number of lanes whose registers one execution of
// kernel code holds. On the device each thread holds its own registers (1); in
// the model one process executes a whole warp and holds all 32 lanes.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SK_BUILD_DEVICE 1
#define SK_BUILD_MODEL 0
#define SK_DEVICE __device__ __forceinline__
#define SK_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SK_BUILD_DEVICE 0
#define SK_BUILD_MODEL 1
#define SK_DEVICE inline
#define SK_HOST_DEVICE inline
#endif

namespace sk {

inline constexpr int kWarpSize = 32;
inline constexpr int kLaneSlots = SK_BUILD_DEVICE ? 1 : kWarpSize;

}  // namespace sk
