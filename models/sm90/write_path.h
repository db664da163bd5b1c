// write_path.h: how the SM90 model's st.global data leaves the SMs.
//
// A warp's epilogue stores (register fragments to global memory) leave
// through its SM's store path, at most `sm_rate` bytes per SM cycle, and all
// SMs' paths share one write path to L2, at most `gpu_rate`. Both are shared
// fairly among whoever is storing at each moment (processor sharing): the
// warps storing on one SM split their SM's rate evenly, and every storing SM
// gets min(sm_rate, gpu_rate / SMs storing). The per-CTA timelines of the
// H200 show this: the two consumer warpgroups' epilogues run together and
// take as long as each other, and the CTAs that start their epilogue
// together end it within a few per cent of each other (docs/hardware.md).
// A first-come, first-served queue instead lets the first warps' stores out
// early and so hides part of the epilogue behind the other warpgroup's MMAs.
//
// Invariants: a job's bytes only decrease, and it completes (done, its SM's
// event notified) at the first engine cycle when none are left; the rates are
// read at every change, so an SM clock change (which rescales gpu_rate in SM
// cycles) takes effect from the next arrival or completion; one completion
// event is pending at most (older ones are recognised by their generation
// and do nothing).
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace sk::models::sm90 {

class WritePath {
 public:
  struct Job {
    int sm = 0;
    double left = 0;  // bytes still to leave
    bool done = false;
  };
  struct Rates {
    double sm = 0;   // bytes per SM cycle through one SM's path (> 0)
    double gpu = 0;  // bytes per SM cycle through the shared path (0: none)
  };
  using Schedule = std::function<void(uint64_t at, uint64_t generation)>;

  // Forgets every job (a new launch); `rates` gives the current rates and
  // `schedule` asks the engine to call on_event(generation) at a cycle.
  void reset(std::function<Rates()> rates, Schedule schedule);
  // Adds `job` (owned by the caller until it is done) at cycle `now`.
  void submit(Job& job, uint64_t now);
  // The engine's call for a scheduled completion.
  void on_event(uint64_t now, uint64_t generation);
  // Notified whenever a job of `sm` completes.
  sc_core::sc_event& completed(int sm);

 private:
  void advance(double to);
  void plan();
  int storing_sms() const;  // SMs with jobs in flight
  std::vector<double> sm_rates(const Rates& r) const;  // per job, by index in jobs_
  // Cycles until the first job is done at these rates (by index in jobs_).
  double until_first_done(const std::vector<double>& rate) const;

  std::function<Rates()> rates_;
  Schedule schedule_;
  std::vector<Job*> jobs_;
  std::vector<int> per_sm_;  // jobs in flight per SM
  std::vector<std::unique_ptr<sc_core::sc_event>> events_;
  double t_ = 0;  // jobs_ are served up to this cycle
  uint64_t generation_ = 0;
};

}  // namespace sk::models::sm90
