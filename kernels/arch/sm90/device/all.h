// all.h (SM90 device build): the Hopper intrinsic layer in one include.
//
// Hopper shares the NVIDIA intrinsics that SM100 also has (thread identity,
// lanes and elect, mbarrier, TMA tensor copies and their fences: the headers
// of kernels/arch/sm100/device/ hold them, and none of those emit tcgen05
// instructions unless called) and adds the warpgroup MMA. Only the device
// build includes this; the model of wgmma comes with models/sm90.
#pragma once

#include "kernels/core/platform.h"

#if !SK_BUILD_DEVICE
#error "kernels/arch/sm90/device/all.h is for the nvcc device build only"
#endif

#include "kernels/arch/sm100/device/identity.h"
#include "kernels/arch/sm100/device/lanes.h"
#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/arch/sm100/device/tma.h"
#include "kernels/arch/sm100/device/cluster.h"
#include "kernels/arch/sm100/device/hooks.h"
#include "kernels/arch/sm90/device/global.h"
#include "kernels/arch/sm100/device/softmax.h"
#include "kernels/arch/sm90/device/wgmma.h"
