// gfx942.h: the AMD CDNA3 (MI300X, gfx942) intrinsic API, selected for the
// current build.
//
// Kernel code for MI300X includes this header and calls sk::arch::*: under
// clang HIP (SK_BUILD_AMD) the calls are __builtin_amdgcn_* and inline asm
// (kernels/arch/gfx942/device/, whose headers document the exact API), under
// the host compiler they are the simulator's MI300X model, which implements
// the same signatures.
//
// Invariant: an NVIDIA device build (nvcc) never includes this header; the
// #error below says so instead of failing on the first AMD builtin.
#pragma once

#include "kernels/core/platform.h"

#if SK_BUILD_AMD
#include "kernels/arch/gfx942/device/all.h"
#elif SK_BUILD_DEVICE
#error "kernels/arch/gfx942.h is for the HIP (gfx942) device build or the model build"
#else
#include "kernels/arch/gfx942/model/intrinsics.h"
#endif
