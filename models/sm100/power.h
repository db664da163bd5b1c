// power.h: an NVIDIA GPU's SM clocks, as its power limit and its tensor
// phase set them (the SM90 model with the H200's measured figures, the SM100
// model with the B200's datasheet figures: models/*/params.json).
//
// What follows was measured on the H200; the B200 takes the same mechanism.
//
// A launch runs in two phases (phase_clock.h): the tensor phase, while the
// tensor cores work, and the rest (start-up, the last epilogue). Measured on
// the project's H200 with per-CTA clock64/globaltimer stamps
// (docs/results/h200_cta_timeline_summary_2026-11-21.csv): the tensor phase
// never runs above ~1.79 GHz, even with 8 busy SMs far from the power limit;
// with 128-132 busy SMs it runs at 1.53-1.77 GHz from the first microseconds
// of a launch, and the epilogue after it at ~1.93. The board's limit holds
// each phase's own draw: the H200 follows the phase within about a
// microsecond, so the model does not average over the launch.
//
// Energy: a phase draws static_w plus its dynamic energy over its time. The
// dynamic energy at the maximum clock is a sum of per-event energies (per
// FLOP, per byte TMA brings into shared memory and per HBM byte, all in the
// tensor phase, and per cycle of each SM running a CTA, in the phase of the
// cycle); at clock f each scales by (f / f_max)^energy_exponent (voltage
// falls with the clock, energy goes with its square). A phase's time is its
// cycles over its clock.
//
// The clocks: the tensor phase's is the highest f <= min(tensor_clock_ghz,
// f_max) whose draw fits limit_w, the rest's the highest f <= f_max whose
// draw fits it. Invariants: 0 < tensor <= rest <= f_max (the rest draws no
// more per cycle than the tensor phase); each clock is at its cap or its
// phase's draw meets the limit exactly; more work per cycle never raises a
// clock. Not modelled: the further fall of long, hot runs (8192^3 runs at
// 1.45-1.56 GHz by NVML, the model ~1.63).
#pragma once

#include <cstdint>

namespace sk::models::sm100 {

struct PowerModel {
  double limit_w = 0;           // board power limit (0: none)
  double tensor_clock_ghz = 0;  // the tensor phase's highest clock (0: the maximum)
  double static_w = 0;          // drawn whatever the kernel does
  double pj_per_flop = 0;       // tensor-core work, at the maximum clock
  double pj_per_tma_byte = 0;   // L2 -> crossbar -> shared memory, per byte loaded
  double pj_per_hbm_byte = 0;   // HBM traffic (with its L2 and crossbar share)
  double pj_per_sm_cycle = 0;   // an SM running a CTA, per cycle
  double energy_exponent = 2;   // dynamic energy ~ (f / f_max)^this
};

// What one launch did, from the simulation.
struct KernelActivity {
  double flops = 0;
  double tma_bytes = 0;  // bytes TMA loaded into shared memory
  double hbm_bytes = 0;
  uint64_t cycles = 0;         // the kernel's simulated SM cycles
  uint64_t tensor_cycles = 0;  // of them, in the tensor phase (<= cycles)
  int active_sms = 0;          // SMs that ran a CTA
};

struct LaunchClocks {
  double tensor_ghz = 0;
  double rest_ghz = 0;
};

// Average board power (W) over the launch at clocks `f` (f_max_ghz: the
// clock the energies are given at).
double board_power_w(const PowerModel& m, double f_max_ghz, LaunchClocks f, const KernelActivity& a);

// The board's draw (W) during each phase at clock `ghz`.
double tensor_phase_power_w(const PowerModel& m, double f_max_ghz, double ghz, const KernelActivity& a);
double rest_phase_power_w(const PowerModel& m, double f_max_ghz, double ghz, const KernelActivity& a);

// The phases' highest clocks, whatever the draw: min(tensor_clock_ghz, f_max)
// and f_max.
LaunchClocks clock_caps(const PowerModel& m, double f_max_ghz);

// The phases' clocks for this activity (see above).
LaunchClocks power_limited_clocks(const PowerModel& m, double f_max_ghz, const KernelActivity& a);

}  // namespace sk::models::sm100
