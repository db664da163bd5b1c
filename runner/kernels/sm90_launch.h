// sm90_launch.h: what every SM90 runner does around its launch
// (sm90_matmul_run.cc, attention_run.cc): the SM90 layer reset and the phase
// clock armed for the launch's clocks, and after the summary the figures that
// follow from those clocks.
//
// Invariant: finish_sm90_launch runs after summarize_sm100 (which sets the
// cycles and the clock log's time) and before settle_incomplete.
#pragma once

#include "models/sm100/gpu.h"
#include "models/sm100/power.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/result/run_result.h"

namespace sk::sim {

inline void start_sm90_launch(models::sm100::Gpu& gpu, models::sm100::LaunchClocks f) {
  models::sm90::api::reset();
  models::sm90::api::phase_clock().start(
      gpu, {f.tensor_ghz, f.rest_ghz, models::sm90::gpu_params().clock_hold_ns});
}

// The phase clocks and the tensor phase's cycles; the launch overhead that
// CUDA events around one launch add (host and driver time, in cycles of the
// maximum clock); TFLOP/s of `flops` against Hopper's dense BF16 rate (4096
// FLOP per cycle per SM at the maximum clock); the board's power for what
// activity(r) says the launch did.
template <class Activity>
void finish_sm90_launch(const models::sm100::Gpu& gpu, double flops, models::sm100::LaunchClocks f,
                        RunResult& r, Activity&& activity) {
  models::sm90::api::phase_clock().stop();
  const double f_max = models::sm90::gpu_params().clock_ghz;
  r.tensor_phase_ghz = f.tensor_ghz;
  r.rest_phase_ghz = f.rest_ghz;
  r.tensor_phase_cycles = models::sm90::api::phase_clock().tensor_cycles(r.cycles);
  r.predicted_time_us += models::sm90::extras().launch_overhead_cycles / (f_max * 1e3);
  r.tflops = flops / (r.predicted_time_us * 1e-6) / 1e12;
  r.peak_tflops = 4096.0 * gpu.params().num_sms * f_max * 1e9 / 1e12;
  r.peak_fraction = r.tflops / r.peak_tflops;
  r.power_w = models::sm100::board_power_w(models::sm90::gpu_params().power, f_max, f, activity(r));
}

}  // namespace sk::sim
