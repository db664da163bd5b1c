// sm90.h: the SM90 (Hopper) intrinsic API, selected for the current build.
//
// Kernel code for Hopper includes this header. The device build gets inline
// PTX (kernels/arch/sm90/device/); the model build of wgmma is not written yet,
// so including this from host code is an error rather than a silent fallback.
#pragma once

#include "kernels/core/platform.h"

#if SK_BUILD_DEVICE
#include "kernels/arch/sm90/device/all.h"
#else
#error "the SM90 model (wgmma) is not implemented yet: SM90 kernels build for the device only"
#endif
