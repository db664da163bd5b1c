// lanes.h (kernels/arch): the lane and instrumentation intrinsics that every
// arch provides, selected for the build without choosing an arch.
//
// Arch-neutral kernel code (kernels/core/lanes.h, the TilePipeline) needs only
// elect_one_begin, lane_scope_end, for_each_lane, annotate_role,
// report_unreleased and report_double_release, and the caller-line types
// CallSite and Caller that components carry (kernels/arch/model/site.h). Including a whole arch layer
// (kernels/arch/sm100.h) for them would make that code NVIDIA-only: under
// clang HIP the SM100 layer is inline PTX. This header picks the one layer the
// build has:
//   * clang HIP (gfx942): kernels/arch/gfx942/device/{lanes,hooks}.h;
//   * nvcc (sm_100a, sm_90a): kernels/arch/sm100/device/{lanes,hooks}.h;
//   * the model build: kernels/arch/model/lanes.h, shared by every model.
#pragma once

#include "kernels/core/platform.h"

#if SK_BUILD_AMD
#include "kernels/arch/device_site.h"
#include "kernels/arch/gfx942/device/hooks.h"
#include "kernels/arch/gfx942/device/lanes.h"
#elif SK_BUILD_DEVICE
#include "kernels/arch/device_site.h"
#include "kernels/arch/sm100/device/hooks.h"
#include "kernels/arch/sm100/device/lanes.h"
#else
#include "kernels/arch/model/lanes.h"
#include "kernels/arch/model/site.h"
#endif
