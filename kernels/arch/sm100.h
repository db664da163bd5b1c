// sm100.h: the SM100 intrinsic API, selected for the current build.
//
// This is the only place where the device and model builds diverge: kernel
// code includes this header and calls sk::arch::*; under nvcc the calls are
// inline PTX, under the host compiler they are the simulator's model. See
// docs/architecture.md ("the one-source rule").
#pragma once

#include "kernels/core/platform.h"

#if SK_BUILD_DEVICE
#include "kernels/arch/sm100/device/all.h"
#else
#include "kernels/arch/sm100/model/intrinsics.h"
#endif
