// api.h: the SM90 intrinsics the shared NVIDIA model lacks, as the model
// implements them: warpgroup MMA (wgmma) with register accumulators, and
// per-lane global stores.
//
// wgmma is a warpgroup instruction; in the model each of the four warps calls
// it for its own 16 rows of the 64-row tile (and its own lanes' accumulator
// registers), so the product is exact per warp and the tensor-core time of
// one op is split in four quarter-slots on the SM's tensor core. Ops of a warp
// form groups (commit_group); wait_group(n) stalls the warp until all but the
// newest n groups completed, which is when the SMEM operands they read are
// released for the race detector.
#pragma once

#include <cstdint>
#include <source_location>

#include "models/sm100/phase_clock.h"

namespace sk::models::sm90::api {

using Loc = std::source_location;

// acc: 32 lanes x regs floats (the model's LaneArray), N = 2 * regs; the
// elements are BF16, or IEEE F16 with f16 (.f32.f16.f16: same timing);
// tnsp_a / tnsp_b: the instruction's imm-trans-a / imm-trans-b (the operand
// is MN-major).
void wgmma_mma(float* acc, int regs, uint64_t desc_a, uint64_t desc_b, bool accumulate,
               const Loc& loc, bool f16 = false, bool tnsp_a = false, bool tnsp_b = false);
// The same with A from registers (wgmma ... RS): a_regs is 32 lanes x 4
// 32-bit registers of two 16-bit elements each, this warp's 16 rows of A in
// the accumulator's column layout (kernels/arch/sm90/device/wgmma.h). The
// values are taken at issue: a kernel that changes them before the
// wait_group covering the MMA is not seen (registers are not tracked).
void wgmma_mma_rs(float* acc, int regs, const uint32_t* a_regs, uint64_t desc_b, bool accumulate,
                  const Loc& loc, bool f16 = false, bool tnsp_b = false);
void wgmma_fence(const Loc& loc);
void wgmma_commit_group(const Loc& loc);
void wgmma_wait_group(int n, const Loc& loc);
void warpgroup_set_regs(const Loc& loc);

void st_global(void* dst, const void* v, uint32_t bytes, const Loc& loc);
void account_global_store(uint32_t bytes, const Loc& loc);
// A warp's `instructions` 4-byte store instructions (128 bytes each), with
// the bytes each wrote inside D: each holds the SM's store path for its bytes
// at store_bytes_per_cycle but at least store_instruction_cycles (an
// instruction predicated off past D's edge still passes the path); the
// bytes inside D go to memory.
void account_global_stores(const uint16_t* bytes_in_d, uint32_t instructions, const Loc& loc);
// The same for 16-byte stores that fill whole 32-byte sectors (a quad's
// lanes writing a row's 64 contiguous bytes): the SM's own path at
// store_v4_bytes_per_cycle, shared by its storing warps, with no limit shared
// with other SMs (the H100 stores them at the same rate from 1 to 132 SMs and
// beside other SMs' reads); with store_v4_bytes_per_cycle 0, as
// account_global_store.
void account_global_store_v4(uint32_t bytes, const Loc& loc);

// Must be called once per launch before kernel code runs (resets per-warp
// group state and stops the phase clock).
void reset();

// The launch's SM clock policy (models/sm100/phase_clock.h): off after
// reset(); PhaseClock::start arms it for a Gpu, and every wgmma then reports
// its tensor-core work to it.
using sm100::phase_clock;

}  // namespace sk::models::sm90::api
