// all.h (SM100 device build): the whole device intrinsic layer in one include.
//
// Invariant: only the device build includes this (it requires __CUDACC__); the
// arch selector header chooses between it and the model's intrinsics, which
// implement the same signatures.
#pragma once

#include "kernels/core/platform.h"

#if !SK_BUILD_DEVICE
#error "kernels/arch/sm100/device/all.h is for the nvcc device build only"
#endif

#include "kernels/arch/sm100/device/identity.h"
#include "kernels/arch/sm100/device/lanes.h"
#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/arch/sm100/device/tma.h"
#include "kernels/arch/sm100/device/cluster.h"
#include "kernels/arch/sm100/device/tcgen05.h"
#include "kernels/arch/sm100/device/tcgen05_pair.h"
#include "kernels/arch/sm100/device/clc.h"
#include "kernels/arch/sm100/device/hooks.h"
#include "kernels/arch/sm100/device/softmax.h"
