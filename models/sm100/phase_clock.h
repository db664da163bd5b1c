// phase_clock.h: the SM clock follows what the tensor cores do (SM90 wgmma,
// SM100 tcgen05: every tensor-core instruction reports its work here).
//
// Per-CTA timelines on the H200 (docs/hardware.md, "The clock inside a
// launch") show two clocks in one launch: while the tensor cores run the main
// loop the SMs clock at 1.53-1.80 GHz, and once they stop (the epilogue) the
// clock comes back up to ~1.93 within about a microsecond. The model has two
// phases: the tensor phase, from the first wgmma (tcgen05) issued while in the rest
// phase until no SM's tensor core has had work for `hold_ns`, and the rest
// phase otherwise. Each phase has its clock (models/sm100/power.h picks them);
// a change re-derives the memory side's cycle counts (Gpu::set_sm_clock).
//
// Invariants: the launch starts in the rest phase; phase changes happen at
// the engine's current cycle, so the Gpu's clock log stays in order; with
// equal clocks the phases still alternate, and tensor_cycles() counts the
// tensor phase's cycles whatever its clock.
#pragma once

#include <cstdint>

namespace sk::models::sm100 {
class Gpu;

struct PhaseClocks {
  double tensor_ghz = 0;  // while tensor cores work
  double rest_ghz = 0;    // otherwise
  double hold_ns = 0;     // the tensor phase outlasts the last tensor work by this
};

class PhaseClock {
 public:
  // Arms the policy for `gpu`'s launch and puts it in the rest phase.
  void start(sm100::Gpu& gpu, const PhaseClocks& clocks);
  // Stops following the tensor cores (the Gpu keeps the clock it has).
  void stop() { gpu_ = nullptr; }
  // An SM's tensor core has work until cycle `busy_until`.
  void tensor_work(uint64_t busy_until);
  // Cycles of [0, end) spent in the tensor phase (at most end).
  uint64_t tensor_cycles(uint64_t end) const;

 private:
  void enter(bool tensor);
  void check();

  sm100::Gpu* gpu_ = nullptr;
  PhaseClocks clocks_;
  bool tensor_ = false;
  bool check_pending_ = false;
  uint64_t busy_until_ = 0;
  uint64_t hold_cycles_ = 0;
  uint64_t since_ = 0;  // the open tensor phase's first cycle
  uint64_t closed_ = 0; // cycles of the tensor phases already ended
};

// The process's phase clock: the models' tensor-core issue (tcgen05 on SM100,
// wgmma on SM90) reports its work to it; a runner arms it for a launch.
PhaseClock& phase_clock();

}  // namespace sk::models::sm100
