// engine.h: the discrete-event engine every model runs on.
//
// One Engine exists per simulation process (SystemC cannot be restarted, so
// every simulation runs in its own process; see isolate.h). It owns:
//   * the warps: one SystemC thread (SC_THREAD semantics, via sc_spawn) per
//     warp or wave, each executing kernel code;
//   * the async queue: timed callbacks for hardware agents (TMA engine, tensor
//     core, memory), ordered by (cycle, insertion order) so runs are
//     deterministic;
//   * findings and the trace log.
//
// Invariants:
//   * Simulated time is in cycles of the modeled clock; 1 cycle = 1 SystemC ns.
//   * Every blocking point of a warp goes through Warp::block_until, which is
//     what lets run() tell a deadlock (every live warp blocked, nothing pending)
//     from a finished run, and lets current() track the running warp.
//   * run() always returns: on completion, on deadlock (a finding), or when the
//     cycle bound is hit (a finding).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/call_site.h"
#include "engine/event_calendar.h"
#include "engine/finding.h"
#include "engine/inline_callback.h"
#include "engine/lanes.h"
#include "engine/observer.h"
#include "engine/schedule.h"
#include "engine/trace_log.h"

namespace sc_core {
class sc_event;
class sc_time;
}

namespace sk::sim {

// A cycle count as SystemC time (cycles are simulated as nanoseconds).
sc_core::sc_time cycles_to_time(Cycle c);

class Warp;

// How a run ended. kDeadlock: unfinished warps and no event that could ever
// fire. kLivelock: stopped at a limit while warps kept running without any
// synchronization progress (livelock_window()). kLimit: stopped at
// --max-cycles or the wall-clock limit with work still in flight; not a
// finding about the kernel (limit_reason() says which).
enum class RunStatus { kCompleted, kDeadlock, kLivelock, kLimit };
// The summary's `status`: completed, deadlock, livelock or limit.
inline const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kCompleted: return "completed";
    case RunStatus::kDeadlock: return "deadlock";
    case RunStatus::kLivelock: return "livelock";
    case RunStatus::kLimit: return "limit";
  }
  return "?";
}

class Engine {
 public:
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The engine of this process. Exactly one may exist at a time.
  static Engine& get();

  // The current cycle. Kept in step with SystemC's time by the only code that
  // runs after time moves: the engine's callback process and a warp resuming
  // from a wait (resume()).
  Cycle now() const { return now_; }

  // Schedules fn at absolute cycle t (>= now). Same-cycle callbacks run in the
  // order they were scheduled.
  void at(Cycle t, InlineCallback fn);

  // Creates a warp whose thread runs body. Call before run().
  Warp& spawn_warp(int cta, int warp_in_cta, int lanes, std::function<void()> body);

  // Runs until every warp finished, a deadlock, max_cycles, or the wall
  // deadline (set_wall_deadline).
  RunStatus run(Cycle max_cycles);
  // After run() returned kLimit or kLivelock: "max_cycles" or "wall".
  const std::string& limit_reason() const { return limit_reason_; }
  // Stops the run (status kLimit, or kLivelock) once the wall clock passes
  // `deadline`; checked every 65,536 events.
  void set_wall_deadline(std::chrono::steady_clock::time_point deadline) {
    wall_deadline_ = deadline;
    has_wall_deadline_ = true;
  }
  // A run stopped at a limit is a livelock when some warp is still running
  // (not blocked) and no synchronization progress happened in the last
  // livelock_window(now) cycles: half the run, at least 20,000 cycles.
  static Cycle livelock_window(Cycle now) { return std::max<Cycle>(20'000, now / 2); }

  // The warp whose kernel code is executing, or nullptr in agent callbacks.
  Warp* current() const { return current_; }
  // `loc` with the current warp's component callers above it (none in agent
  // callbacks).
  Site site_here(const std::source_location& loc) const;
  void set_current(Warp* w) { current_ = w; }
  // Called by a warp whose thread resumes after a SystemC wait: it is the
  // running warp, and time may have moved.
  void resume(Warp* w) {
    current_ = w;
    sync_time();
  }

  void report(Finding f);
  // Lets the model refine the generic deadlock finding (class, rule, cause)
  // from the state of the sync objects the warps wait on.
  void set_deadlock_classifier(std::function<void(Finding&)> fn) { classify_deadlock_ = std::move(fn); }
  const std::vector<Finding>& findings() const { return findings_; }

  TraceLog& trace() { return trace_; }
  // The verification observer of this run, or nullptr (not owned).
  Observer* observer() const { return observer_; }
  // The schedule perturbation of this run (nominal unless reset with a seed).
  Schedule& schedule() { return schedule_; }
  void set_observer(Observer* o) { observer_ = o; }
  // How sk::for_each_lane bodies run (engine/lanes.h); nullptr: every
  // active lane. Set by the model (not owned).
  LaneLoop* lane_loop() const { return lane_loop_; }
  void set_lane_loop(LaneLoop* l) { lane_loop_ = l; }
  const std::vector<std::unique_ptr<Warp>>& warps() const { return warps_; }

  // Count of model events processed (warp operations and agent callbacks);
  // reported as `events` in the run summary.
  uint64_t events() const { return events_; }
  // How run() reports its progress on stderr (set_progress_reporter).
  struct ProgressReport {
    std::chrono::steady_clock::time_point start;  // the run's wall-clock start
    // A terminal: one line rewritten about four times a second once the run
    // has taken a second, cleared at the end. Otherwise (a log): a line every
    // five seconds once it has taken two.
    bool terminal = true;
    double estimate_events = 0;  // the events the run is expected to take; 0: no ETA
    double clock_ghz = 0;        // cycles per ns, for simulated time; 0: cycles only
  };
  // Each report gives the simulated time, the cycle, the events, the wall
  // time and, with an estimate, the share of it done and the time left.
  void set_progress_reporter(const ProgressReport& r) {
    progress_report_ = r;
    progress_ = true;
  }
  void count_event() { ++events_; }
  // Notifies `ev` (immediately, from the engine's callback process) at cycle
  // t: how a warp sleeps without a SystemC timed notification of its own.
  // Not counted as an event.
  void wake_at(Cycle t, sc_core::sc_event* ev);

  // Largest cycle at which any warp or agent made progress.
  Cycle last_progress() const { return last_progress_; }
  void note_progress() { last_progress_ = now(); }
  // Synchronization progress: a barrier phase or counter completed, a
  // blocking wait returned, a warp exited. What separates a livelock (time
  // moves, nothing synchronizes) from a long run.
  void note_sync() { last_sync_ = last_progress_ = now(); }
  Cycle last_sync() const { return last_sync_; }

 private:
  // The calendar orders small records; the callbacks stay put in a slab of
  // reusable slots (free_ lists the empty ones).
  struct Due {
    uint32_t slot;          // the callback (when ev is null)
    sc_core::sc_event* ev;  // a sleeping warp's wake-up event
  };
  void push(Cycle t, Due d);
  void sync_time();  // now_ from SystemC's time stamp
  Cycle now_ = 0;
  uint64_t ticks_per_cycle_;  // SystemC time-resolution ticks per cycle
  std::vector<InlineCallback> slots_;
  std::vector<uint32_t> free_;
  void drain_due();
  void deadlock_finding();

  EventCalendar<Due> calendar_;
  std::unique_ptr<sc_core::sc_event> wake_;
  Cycle armed_ = kNotArmed;  // the cycle wake_ is notified for
  static constexpr Cycle kNotArmed = ~Cycle{0};
  bool method_spawned_ = false;
  std::vector<std::unique_ptr<Warp>> warps_;
  Warp* current_ = nullptr;
  std::vector<Finding> findings_;
  TraceLog trace_;
  Observer* observer_ = nullptr;
  LaneLoop* lane_loop_ = nullptr;
  std::function<void(Finding&)> classify_deadlock_;
  Schedule schedule_;
  uint64_t events_ = 0;
  Cycle last_progress_ = 0, last_sync_ = 0;
  std::string limit_reason_;
  bool has_wall_deadline_ = false, wall_stopped_ = false;
  uint64_t wall_check_ = 0;
  std::chrono::steady_clock::time_point wall_deadline_;
  void livelock_finding(Cycle window);
  bool progress_ = false, progress_shown_ = false;
  uint64_t progress_check_ = 0;
  ProgressReport progress_report_;
  std::chrono::steady_clock::time_point progress_last_;
  void report_progress();
};

}  // namespace sk::sim
