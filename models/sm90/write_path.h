// write_path.h: how the SM90 model's st.global data leaves the SMs.
//
// A warp's epilogue stores (register fragments to global memory) leave
// through its SM's store path, at most `sm_rate` bytes per SM cycle, and all
// SMs' paths share one write path to L2, at most `gpu_rate`. Both are shared
// fairly among whoever is storing at each moment (processor sharing): the
// warps storing on one SM split their SM's rate evenly, and every storing SM
// gets min(sm_rate, gpu_rate / SMs storing); with a series path (measured on
// the H100: one SM alone stores 8 B per cycle, 16 SMs at once 6.7 each, 66
// 4.7, 132 3.3-4.0) the SM's own rate is 1 / (1 / sm_rate + SMs storing /
// series_rate) before that cap. The per-CTA timelines of the
// H200 show this: the two consumer warpgroups' epilogues run together and
// take as long as each other, and the CTAs that start their epilogue
// together end it within a few per cent of each other (docs/hardware.md).
// A first-come, first-served queue instead lets the first warps' stores out
// early and so hides part of the epilogue behind the other warpgroup's MMAs.
//
// The shares are kept as service counters rather than bytes left per job, so
// that an arrival or a completion costs O(log jobs on its SM) plus a scan of
// the SMs, not a pass over every job in flight (an 8192^3 epilogue wave has
// a thousand): every storing SM receives the same per-SM rate, so one counter
// S (bytes served to each storing SM) advances for all of them; within an SM
// each of its n jobs receives 1/n of that, so a job that arrives when its SM's
// per-job counter reads v is done when the counter reaches v + bytes, and the
// SM's first completion falls at a value of S (its deadline) that changes only
// when its own jobs change.
//
// Invariants: a job completes (done, its SM's event notified) at the first
// engine cycle at which its SM's per-job counter has served its bytes; the
// rates are read at every change, so an SM clock change (which rescales
// gpu_rate in SM cycles) takes effect from the next arrival or completion; one
// completion event is pending at most (older ones are recognised by their
// generation and do nothing).
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace sk::models::sm90 {

class WritePath {
 public:
  struct Job {
    int sm = 0;
    double bytes = 0;  // bytes to leave
    bool done = false;
  };
  struct Rates {
    double sm = 0;   // bytes per SM cycle through one SM's path (> 0)
    double gpu = 0;  // bytes per SM cycle through the shared path (0: none)
    double series = 0;  // the path every storing SM passes in turn (0: none):
                        // each SM gets 1 / (1 / sm + storing / series)
    // A path per GPC (0: none), bytes per SM cycle: the storing SMs of GPC
    // gpc_of[i] - 1 (0: in none) share it, those with first[i] served first
    // (each up to its own rate), the others the rest equally; `gpu` then
    // scales every SM's rate down in proportion when their sum exceeds it
    // (instead of capping each SM at an equal share).
    double gpc = 0;
    const std::vector<uint32_t>* gpc_of = nullptr;
    const std::vector<uint32_t>* first = nullptr;
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
  // The rate, bytes per SM cycle, at which `sm`'s stores leave it as the
  // jobs in flight stand now (0: it stores nothing).
  double storing_rate(int sm) const;

 private:
  // One SM's jobs in flight: its per-job counter read v when S read s_mark
  // (it grows by dS / n since, n the jobs in flight), and the jobs by the
  // counter value at which each is done (a min-heap).
  struct Sm {
    double v = 0, s_mark = 0;
    std::vector<std::pair<double, Job*>> jobs;
    double deadline = 0;  // S at the first completion (jobs in flight)
    double n() const { return static_cast<double>(jobs.size()); }
  };
  void advance(double to);
  void plan();
  // With a GPC path (Rates::gpc > 0) the SMs' rates differ: each storing
  // SM's per-job rate by SM index (rho_), its per-job counter advanced at it
  // on every change, and the cycles from t_ to the first completion.
  void sm_rates(const Rates& r);
  double until_first() const;
  void advance_per_sm(double to, const Rates& r);
  std::vector<double> rho_;
  bool per_sm_ = false;  // a GPC path (Rates::gpc > 0 at reset; the parameters of a launch)
  double per_sm_rate() const;  // bytes per SM cycle to each storing SM
  void mark(Sm& s) const;      // v and s_mark at the current S
  void set_deadline(Sm& s) const;
  // The SM whose first job completes first, or null when nothing is stored.
  Sm* first_due();
  void complete_due(Sm& s);    // the jobs of `s` done by now
  void pop_done(Sm& s);        // ... by its per-job counter v as it stands

  std::function<Rates()> rates_;
  Schedule schedule_;
  std::vector<Sm> sms_;
  int storing_ = 0;  // SMs with jobs in flight
  double s_ = 0;     // bytes served to each storing SM since the reset (S)
  double t_ = 0;     // the jobs are served up to this cycle
  uint64_t generation_ = 0;
  std::vector<std::unique_ptr<sc_core::sc_event>> events_;
};

}  // namespace sk::models::sm90
