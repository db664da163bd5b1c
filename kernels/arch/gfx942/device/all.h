// all.h (gfx942 device build): the whole AMD CDNA3 intrinsic layer in one
// include.
//
// Invariant: only the clang HIP device build includes this (SK_BUILD_AMD);
// kernels/arch/gfx942.h chooses between it and the MI300X model's intrinsics,
// which implement the same signatures. The API, all in namespace sk::arch:
//   identity.h   kWaveSize, wave_idx, lane_idx, block_idx, num_blocks,
//                waves_per_block, dynamic_lds
//   lanes.h      elect_one_begin, lane_scope_end, for_each_lane
//   memory.h     ld_lds, st_lds, lds_addr, ld_global, st_global
//   lds_dma.h    global_load_lds_dword, buffer_load_dword_lds
//                (buffer_rsrc.h: BufferRsrc, make_buffer_rsrc)
//   waitcnt.h    s_waitcnt_vmcnt<N>, s_waitcnt_lgkmcnt<N>, waitcnt_imm
//   atomics.h    Scope, atomic_add, atomic_load_acquire, atomic_store_release,
//                wait_counter_geq
//   sched.h      s_sleep<N>, s_setprio<P>, s_barrier, workgroup_sync
//   mfma.h       mfma_f32_32x32x8_bf16, mfma_f32_16x16x16_bf16 (per lane and
//                on WaveArrays)
//                (types.h: Bf16x4, Acc4, Acc16, and Scope)
//   hooks.h      annotate_role, annotate_counter, report_unreleased,
//                report_double_release (no-ops here)
#pragma once

#include "kernels/core/platform.h"

#if !SK_BUILD_AMD
#error "kernels/arch/gfx942/device/all.h is for the clang HIP (gfx942) device build only"
#endif

#include "isa/gfx942_types.h"
#include "kernels/arch/gfx942/device/buffer_rsrc.h"
#include "kernels/arch/gfx942/device/address_space.h"
#include "kernels/arch/gfx942/device/identity.h"
#include "kernels/arch/gfx942/device/lanes.h"
#include "kernels/arch/gfx942/device/memory.h"
#include "kernels/arch/gfx942/device/lds_dma.h"
#include "kernels/arch/gfx942/device/waitcnt.h"
#include "kernels/arch/gfx942/device/atomics.h"
#include "kernels/arch/gfx942/device/sched.h"
#include "kernels/arch/gfx942/device/mfma.h"
#include "kernels/arch/gfx942/device/hooks.h"
