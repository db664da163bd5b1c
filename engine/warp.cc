// warp.cc: see warp.h.
#include "engine/warp.h"

#include <systemc>

#include "engine/engine.h"

namespace sk::sim {

Warp::Warp(Engine& engine, int cta, int warp_in_cta, int lanes)
    : engine_(engine),
      cta_(cta),
      warp_(warp_in_cta),
      lanes_(lanes),
      mask_(lanes >= 64 ? ~uint64_t{0} : ((uint64_t{1} << lanes) - 1)),
      active_(lanes >= 64 ? 64 : lanes),
      wake_(std::make_unique<sc_core::sc_event>()),
      start_cycle_(engine.now()) {}

Warp::~Warp() = default;

void Warp::sleep(Cycle c) {
  engine_.wake_at(engine_.now() + c, wake_.get());
  sc_core::wait(*wake_);
  engine_.resume(this);
}

void Warp::pop_mask() {
  if (mask_stack_.empty()) return;
  set_mask(mask_stack_.back());
  mask_stack_.pop_back();
}

void Warp::pay() {
  Cycle c = pending_;
  const Cycle begin = engine_.now() + pending_traced_;
  pending_ = 0;
  pending_traced_ = 0;
  sleep(c);
  engine_.note_progress();
  trace_issue(begin, engine_.now());
}

void Warp::trace_issue(Cycle begin, Cycle end) {
  static const std::string kIssue = "issue";
  if (end > begin && traced && engine_.trace().enabled()) engine_.trace().busy(track, begin, end, kIssue);
}

void Warp::add_stall(const std::string& what, Cycle c) {
  stall_cycles_ += c;
  // A warp waits on a handful of distinct things: a linear scan beats a map.
  for (auto& [w, cycles] : stalls_by_what_)
    if (w == what) {
      cycles += c;
      return;
    }
  stalls_by_what_.emplace_back(what, c);
}

void Warp::absorb_stalls(const std::vector<std::pair<std::string, Cycle>>& stalls,
                         const std::string& drop) {
  for (auto it = stalls_by_what_.begin(); it != stalls_by_what_.end(); ++it)
    if (it->first == drop) {
      stall_cycles_ -= it->second;
      stalls_by_what_.erase(it);
      break;
    }
  for (const auto& [what, c] : stalls) add_stall(what, c);
}

void Warp::record_stall(Cycle begin, Cycle c, const std::string& what) {
  add_stall(what, c);
  if (traced && engine_.trace().enabled() && !what.empty())
    engine_.trace().slice(TraceSlice{track, begin, begin + c, what, {}, 0, take_flow()});
}

void Warp::stall(Cycle c, const std::string& what) {
  sync();
  if (c == 0) return;
  Cycle begin = engine_.now();
  sleep(c);
  engine_.note_progress();
  record_stall(begin, c, what);
}

void Warp::stall_local(Cycle c, const std::string& what) {
  if (c == 0) return;
  const Cycle begin = engine_.now() + pending_;
  trace_issue(engine_.now() + pending_traced_, begin);
  record_stall(begin, c, what);
  pending_ += c;
  pending_traced_ = pending_;
  if (pending_ >= kMaxUnpaidCycles) sync();
}

void Warp::block_until(sc_core::sc_event& ev, const std::function<bool()>& ready,
                       std::function<std::string()> describe, const std::string& what) {
  Cycle begin;
  if (pending_ != 0 && !ready()) {
    // The warp's own clock is ahead (unpaid issue cost). Not ready now means
    // not ready before `ev` next fires, so wait for that at once instead of
    // first sleeping out the cost: one wake-up instead of two. The condition
    // is still judged at the warp's own time: a firing inside the unpaid
    // window resumes the warp there, and the check below runs then.
    begin = engine_.now() + pending_;
    trace_issue(engine_.now() + pending_traced_, begin);  // the unpaid cost runs before the wait
    pending_ = 0;
    pending_traced_ = 0;
    free_ops_ = 0;
    blocked_ = true;
    describe_ = describe;
    sc_core::wait(ev);
    engine_.resume(this);
    blocked_ = false;
    if (engine_.now() < begin) {
      sleep(begin - engine_.now());
      if (ready()) return;
    }
  } else {
    sync();
    if (ready()) return;
    begin = engine_.now();
  }
  blocked_ = true;
  describe_ = std::move(describe);
  while (!ready()) {
    sc_core::wait(ev);
    engine_.resume(this);
  }
  blocked_ = false;
  describe_ = nullptr;
  engine_.note_sync();
  add_stall(what, engine_.now() - begin);
  if (traced && engine_.trace().enabled())
    engine_.trace().slice(TraceSlice{track, begin, engine_.now(), what, {}, 0, 0});
}

}  // namespace sk::sim
