#include "engine/engine.h"

#include <cstdio>

#include <fmt/format.h>

#include <systemc>

#include "engine/source_loc.h"
#include "engine/warp.h"

namespace sk::sim {
namespace {
Engine* g_engine = nullptr;

// Time-resolution ticks per cycle (one cycle is written as one ns). Integer
// conversions both ways: they run at every event.
sc_core::sc_time::value_type ticks_per_cycle() {
  static const auto t = sc_core::sc_time(1, sc_core::SC_NS).value();
  return t;
}
sc_core::sc_time cycles(Cycle c) { return cycles_to_time(c); }
}  // namespace

sc_core::sc_time cycles_to_time(Cycle c) { return sc_core::sc_time::from_value(c * ticks_per_cycle()); }

Engine::Engine() : ticks_per_cycle_(ticks_per_cycle()), wake_(std::make_unique<sc_core::sc_event>()) {
  if (g_engine != nullptr) throw std::logic_error("only one sk::sim::Engine may exist per process");
  g_engine = this;
  // Unmodelled SystemC warnings (e.g. about sc_start with nothing to do) would
  // only add noise to reports.
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

Engine::~Engine() { g_engine = nullptr; }

Engine& Engine::get() {
  if (g_engine == nullptr) throw std::logic_error("no sk::sim::Engine in this process");
  return *g_engine;
}

void Engine::sync_time() {
  const uint64_t ticks = sc_core::sc_time_stamp().value();
  // The default resolution (1 ps) divides by a constant, which compiles to a
  // multiply.
  now_ = ticks_per_cycle_ == 1000 ? ticks / 1000 : ticks / ticks_per_cycle_;
}

void Engine::push(Cycle t, Due d) {
  const Cycle n = now();
  if (t < n) t = n;
  calendar_.advance(n);
  calendar_.push(t, d);
  if (t < armed_) {
    armed_ = t;
    wake_->notify(cycles(t - n));
  }
}

void Engine::at(Cycle t, InlineCallback fn) {
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(fn);
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(fn));
  }
  push(t, Due{slot, nullptr});
}

void Engine::wake_at(Cycle t, sc_core::sc_event* ev) { push(t, Due{0, ev}); }

void Engine::drain_due() {
  Warp* saved = current_;
  current_ = nullptr;
  sync_time();
  const Cycle n = now();
  armed_ = kNotArmed;
  calendar_.advance(n);
  if (!calendar_.empty() && calendar_.next_time() == n) {
    // Entries pushed at n by the callbacks append to this bucket and run too.
    std::vector<Due>& bucket = calendar_.bucket(n);
    for (size_t i = 0; i < bucket.size(); ++i) {
      const Due d = bucket[i];
      if (d.ev != nullptr) {
        d.ev->notify();
        continue;
      }
      // Moved out first: the callback may schedule more events (and grow slots_).
      InlineCallback fn = std::move(slots_[d.slot]);
      free_.push_back(d.slot);
      ++events_;
      last_progress_ = n;
      fn();
    }
    calendar_.clear_bucket(n);
  }
  if (!calendar_.empty()) {
    armed_ = calendar_.next_time();
    wake_->notify(cycles(armed_ - n));
  }
  current_ = saved;
  if (progress_ && events_ >= progress_check_) report_progress();
  if (has_wall_deadline_ && events_ >= wall_check_) {
    wall_check_ = events_ + 65536;
    if (!wall_stopped_ && std::chrono::steady_clock::now() >= wall_deadline_) {
      wall_stopped_ = true;
      sc_core::sc_stop();
    }
  }
}

namespace {
std::string eta(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.0f} days", s / 86400);
}
}  // namespace

void Engine::report_progress() {
  progress_check_ = events_ + 100000;
  const ProgressReport& r = progress_report_;
  const auto t = std::chrono::steady_clock::now();
  const auto first = r.terminal ? std::chrono::seconds(1) : std::chrono::seconds(2);
  const auto every = r.terminal ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
  if (t - r.start < first || (progress_shown_ && t - progress_last_ < every)) return;
  progress_last_ = t;
  progress_shown_ = true;
  const double wall = std::chrono::duration<double>(t - r.start).count();
  const double ev = static_cast<double>(events_);
  std::string line = "sim: ";
  if (r.clock_ghz > 0) line += fmt::format("{:.2f} us simulated, ", static_cast<double>(now()) / r.clock_ghz / 1e3);
  line += fmt::format("cycle {}, {:.2f} M events, {:.1f} s", now(), ev / 1e6, wall);
  if (r.estimate_events > 0) {
    if (ev < r.estimate_events)
      line += fmt::format("; {:.0f}% of the estimated {:.3g} events, ETA {}",
                          100.0 * ev / r.estimate_events, r.estimate_events,
                          eta(wall * (r.estimate_events - ev) / std::max(ev, 1.0)));
    else
      line += fmt::format("; past the estimated {:.3g} events, ETA unknown", r.estimate_events);
  }
  if (r.terminal)
    std::fprintf(stderr, "\r%s \033[K", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

Warp& Engine::spawn_warp(int cta, int warp_in_cta, int lanes, std::function<void()> body) {
  warps_.push_back(std::make_unique<Warp>(*this, cta, warp_in_cta, lanes));
  Warp* w = warps_.back().get();
  sc_core::sc_spawn_options opts;
  opts.set_stack_size(256 * 1024);
  sc_core::sc_spawn(
      [this, w, body = std::move(body)] {
        resume(w);
        body();
        current_ = w;
        w->sync();
        w->set_done();
        w->set_end_cycle(now());
        note_sync();
        current_ = nullptr;
      },
      nullptr, &opts);
  return *w;
}

RunStatus Engine::run(Cycle max_cycles) {
  if (!method_spawned_) {
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    opts.set_sensitivity(wake_.get());
    opts.dont_initialize();
    sc_core::sc_spawn([this] { drain_due(); }, nullptr, &opts);
    method_spawned_ = true;
  }
  sc_core::sc_start(cycles(max_cycles), sc_core::SC_EXIT_ON_STARVATION);
  sync_time();
  if (progress_shown_ && progress_report_.terminal) std::fprintf(stderr, "\r\033[K");
  bool all_done = true;
  for (auto& w : warps_) all_done = all_done && w->done();
  if (all_done) return RunStatus::kCompleted;
  // Nothing left to fire (no timed event in the calendar, none stopped
  // early by the wall clock): no warp can ever move again.
  if (!wall_stopped_ && calendar_.empty()) {
    deadlock_finding();
    return RunStatus::kDeadlock;
  }
  // Stopped at a limit with work in flight. SystemC leaves its time at the
  // last event when the next lies past the bound; the run simulated up to it.
  limit_reason_ = wall_stopped_ ? "wall" : "max_cycles";
  if (!wall_stopped_) now_ = std::max(now_, max_cycles);
  bool running = false;
  for (auto& w : warps_) running = running || (!w->done() && !w->blocked());
  const Cycle window = livelock_window(now_);
  if (running && now_ - last_sync_ >= window) {
    livelock_finding(window);
    return RunStatus::kLivelock;
  }
  return RunStatus::kLimit;
}

void Engine::livelock_finding(Cycle window) {
  Finding f;
  f.cls = "livelock";
  f.rule = "livelock.no_progress";
  f.cycle = now_;
  int running = 0;
  for (auto& w : warps_) {
    if (w->done()) continue;
    if (!w->blocked() && running++ == 0) {
      f.cta = w->cta();
      f.warp = w->index();
      f.role = w->role();
    }
    f.details.push_back(fmt::format("cta {} warp {} ({}) at {}: {}", w->cta(), w->index(),
                                    w->role().empty() ? "?" : w->role(),
                                    format_site(w->here()),
                                    w->blocked() ? w->blocked_on() : "running"));
  }
  f.message = fmt::format(
      "livelock: {} warp(s) kept running from cycle {} to {} (the run was stopped at {}) with no "
      "barrier phase completed, no wait returned and no warp exited in the last {} cycles; a "
      "polling loop whose condition never becomes true, or a loop that never reaches its exit",
      running, last_sync_, now_,
      limit_reason_ == "wall" ? "the wall-clock limit" : "--max-cycles", window);
  findings_.push_back(std::move(f));
}

Site Engine::site_here(const std::source_location& loc) const {
  return current_ != nullptr ? current_->site(loc) : Site{loc, 0};
}

void Engine::deadlock_finding() {
  Finding f;
  f.cls = "deadlock";
  f.rule = "deadlock.all_blocked";
  f.cycle = last_progress_;
  int blocked = 0;
  const Warp* first = nullptr;
  for (auto& w : warps_) {
    if (w->done()) continue;
    ++blocked;
    if (first == nullptr) first = w.get();
    f.details.push_back(fmt::format("cta {} warp {} ({}) at {}: {}", w->cta(), w->index(),
                                    w->role().empty() ? "?" : w->role(),
                                    format_site(w->here()), w->blocked_on()));
  }
  f.message = fmt::format(
      "deadlock: {} warp(s) blocked and no operation in flight that could release them",
      blocked);
  if (first != nullptr) {
    f.cta = first->cta();
    f.warp = first->index();
    f.role = first->role();
    locate(f, first->here());
  }
  if (classify_deadlock_) classify_deadlock_(f);
  findings_.push_back(std::move(f));
}

void Engine::report(Finding f) {
  f.cycle = now();
  if (current_ != nullptr) {
    if (f.cta < 0) f.cta = current_->cta();
    if (f.warp < 0) f.warp = current_->index();
    if (f.role.empty()) f.role = current_->role();
  }
  findings_.push_back(std::move(f));
}

}  // namespace sk::sim
