// power.h: the H200's power-limited SM clock.
//
// A dense kernel on the H200 draws more than the board's power limit at the
// maximum SM clock; the GPU then lowers the clock (and its voltage) until the
// average draw fits. Measured on the project's H200 (gemm_bench's sm_mhz
// column, docs/results/h200_sweep_measured_clock_2026-11-21.csv): from 1.98
// GHz for small kernels down to about 1.5 GHz for 8192^3 at 90 % tensor-core
// utilization.
//
// The model: the board draws static_w plus the kernel's dynamic energy over
// its run time and the idle gap before the next launch (launch_gap_us, the
// host's synchronize-and-launch of a timing loop; the board averages its draw
// over many launches). The dynamic energy at the maximum clock is a sum of
// per-event energies (per FLOP, per byte TMA brings into shared memory, per
// HBM byte, per cycle of each SM running a CTA); at clock f every one of them
// scales by (f / f_max)^energy_exponent (voltage falls with the clock, energy
// goes with its square). The run time is the simulated cycles over f. The
// clock is the highest f <= f_max whose draw fits under limit_w. Invariants: the result is in (0, f_max], it is
// f_max exactly when the kernel fits at f_max, and a kernel with more work
// per cycle never gets a higher clock.
#pragma once

#include <cstdint>

namespace sk::models::sm90 {

struct PowerModel {
  double limit_w = 0;              // board power limit (0: the clock is never limited)
  double static_w = 0;             // drawn whatever the kernel does
  double pj_per_flop = 0;          // tensor-core work, at the maximum clock
  double pj_per_tma_byte = 0;      // L2 -> crossbar -> shared memory, per byte loaded
  double pj_per_hbm_byte = 0;      // HBM traffic (with its L2 and crossbar share)
  double pj_per_sm_cycle = 0;      // an SM running a CTA, per cycle
  double energy_exponent = 2;      // dynamic energy ~ (f / f_max)^this
  double launch_gap_us = 0;        // idle time between launches in the average
};

// What one launch did, from the simulation at some SM clock.
struct KernelActivity {
  double flops = 0;
  double tma_bytes = 0;  // bytes TMA loaded into shared memory
  double hbm_bytes = 0;
  uint64_t cycles = 0;  // the kernel's simulated cycles (at the clock simulated)
  int active_sms = 0;   // SMs that ran a CTA
};

// Average board power (W) of the kernel run at `ghz`, its cycle count taken
// as `a.cycles` (f_max_ghz: the clock the energies are given at).
double board_power_w(const PowerModel& m, double f_max_ghz, double ghz, const KernelActivity& a);

// The highest clock in (0, f_max_ghz] at which board_power_w fits under
// m.limit_w (f_max_ghz itself when it fits there, or when limit_w is 0).
double power_limited_clock_ghz(const PowerModel& m, double f_max_ghz, const KernelActivity& a);

}  // namespace sk::models::sm90
