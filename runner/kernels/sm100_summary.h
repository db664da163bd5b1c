// sm100_summary.h: turns a finished SM100 model run into the summary fields.
//
//   cycles           last warp exit (or the cycle a deadlock was detected)
//   roles            per warp role: busy = not blocked, stall = blocked on a
//                    barrier or an async operation, as shares of `cycles`
//   overlap_pct      share of TMA load time (union over each CTA's loads in
//                    flight) during which that CTA's tensor core was busy
//   bottleneck       tensor_core when the tensor cores are >= 80% busy,
//                    hbm_bandwidth when HBM is >= 80% used, otherwise
//                    load_latency (loads in flight but neither saturated)
//   peak_tflops      8192 BF16 FLOP per SM per cycle (dense UMMA) at the clock
#pragma once

#include "models/sm100/gpu.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// What holds the MMA warps back when they mostly wait on their accumulator:
// on SM100 the epilogue draining TMEM, on SM90 the warpgroups' own wgmma
// groups (the tensor core).
enum class AccumulatorWait { kEpilogue, kTensorCore };

// peak_factor: the dense tensor-core rate of the run's element format
// relative to BF16 (FP8 2, FP4 4), which scales peak_tflops.
void summarize_sm100(models::sm100::Gpu& gpu, double flops, RunResult& r,
                     double peak_factor = 1.0,
                     AccumulatorWait acc_wait = AccumulatorWait::kEpilogue);

}  // namespace sk::sim
