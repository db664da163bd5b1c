// platform.h: the one place that decides which build a translation unit is in.
//
// Structured kernels compile in two builds from the same sources:
//   * the device build: nvcc (sm_100a / sm_90a), where __CUDACC__ is defined
//     and the intrinsics are inline PTX (kernels/arch/<arch>/device/), or
//     clang HIP for AMD (gfx942), where __HIP__ is defined and the intrinsics
//     are __builtin_amdgcn_* and inline asm (kernels/arch/gfx942/device/);
//   * the model build (host compiler): the intrinsics call into the simulator
//     (models/<arch>/intrinsics.h).
// Kernel logic never tests these macros itself; it includes an arch selector
// header (kernels/arch/sm100.h, kernels/arch/gfx942.h) and uses SK_DEVICE on
// every function, and SK_UNROLL where a device loop must be unrolled (the
// host compiler knows no `#pragma unroll`).
//
// Invariants:
//   * kLaneSlots is the number of lanes whose registers one execution of
//     NVIDIA kernel code holds. On the device each thread holds its own
//     registers (1); in the model one process executes a whole warp and holds
//     all 32 lanes (a 64-lane AMD wave: LaneArray's Lanes parameter).
//   * SK_BUILD_AMD is 1 exactly when compiling HIP (both passes, as
//     SK_BUILD_DEVICE is 1 in both nvcc passes); the NVIDIA and host branches
//     below are unchanged by the HIP one, which is tested first because clang
//     defines __HIP__ without __CUDACC__.
#pragma once

#include <cstdint>

#if defined(__HIP__)
// clang HIP. Without the HIP runtime headers (-nogpuinc, as tools/hip.bzl
// compiles) nothing spells the CUDA-style attributes, so define them exactly
// as the HIP headers and clang's HIP wrapper do; with those headers the
// definitions already exist and are kept.
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#define SK_BUILD_DEVICE 1
#define SK_BUILD_MODEL 0
#define SK_BUILD_AMD 1
#define SK_DEVICE __device__ __forceinline__
#define SK_HOST_DEVICE __host__ __device__ __forceinline__
#define SK_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define SK_BUILD_DEVICE 1
#define SK_BUILD_MODEL 0
#define SK_BUILD_AMD 0
#define SK_DEVICE __device__ __forceinline__
#define SK_HOST_DEVICE __host__ __device__ __forceinline__
#define SK_UNROLL _Pragma("unroll")
#else
#define SK_BUILD_DEVICE 0
#define SK_BUILD_MODEL 1
#define SK_BUILD_AMD 0
#define SK_DEVICE inline
#define SK_HOST_DEVICE inline
// The host compiler has no `#pragma unroll`; the model build needs none.
#define SK_UNROLL
#endif

namespace sk {

inline constexpr int kWarpSize = 32;
inline constexpr int kLaneSlots = SK_BUILD_DEVICE ? 1 : kWarpSize;

}  // namespace sk
