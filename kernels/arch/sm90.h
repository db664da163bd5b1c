// sm90.h: the SM90 (Hopper) intrinsic API, selected for the current build.
//
// Kernel code for Hopper includes this header. The device build gets inline
// PTX (kernels/arch/sm90/device/), the model build the simulator's SM90 layer
// (kernels/arch/sm90/model/intrinsics.h) on top of the shared NVIDIA model.
#pragma once

#include "kernels/core/platform.h"

#if SK_BUILD_DEVICE
#include "kernels/arch/sm90/device/all.h"
#else
#include "kernels/arch/sm90/model/intrinsics.h"
#endif
