// warp.h: one warp (or wave) executing kernel code in the model.
//
// The model runs one thread of execution per warp and applies each operation to
// the warp's *active lanes*. Kernel code narrows the active set explicitly
// (sk::elect_one) and iterates lanes explicitly (sk::for_each_lane), so an
// operation issued by every lane counts once per lane, as on hardware.
//
// Timing: an operation's issue cost is accumulated with spend() and paid with
// sync() before the warp next touches shared state, so a run of purely local
// operations costs one context switch rather than one per operation. A warp
// that waits out a number of cycles is woken through the engine's own event
// queue (Engine::at), not a SystemC timed notification: at a given cycle the
// engine's callbacks run first, then the warps woken at that cycle, in the
// order they went to sleep. block_until is the one exception to paying first:
// a warp whose condition is false now waits for the event at once (the
// condition cannot turn true before the event fires) and, if it fires inside
// the unpaid window, resumes at the warp's own time before judging it.
//
// Trace: a traced warp's track shows what it waits on (block_until, stall) and,
// between those, its issue time: each paid cost is a busy run named "issue"
// (TraceLog::busy), so back-to-back issue reads as one slice.
//
// Termination: simulated time advances under any loop of intrinsic calls, so
// that a runaway kernel always reaches the cycle bound (docs/reliability.md).
// Unpaid cost is paid once it reaches kMaxUnpaidCycles, and operations with
// no issue cost of their own (per-lane data movement, identity queries) call
// free_op(): kFreeOpsPerCycle of them with no sync in between cost one cycle.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "engine/call_site.h"
#include "engine/finding.h"

namespace sc_core {
class sc_event;
}

namespace sk::sim {

class Engine;

class Warp {
 public:
  Warp(Engine& engine, int cta, int warp_in_cta, int lanes);
  ~Warp();

  int cta() const { return cta_; }
  int index() const { return warp_; }
  int lanes() const { return lanes_; }
  const std::string& role() const { return role_; }
  void set_role(std::string r) { role_ = std::move(r); }
  bool done() const { return done_; }
  void set_done() { done_ = true; }

  // Active lanes.
  uint64_t active_mask() const { return mask_; }
  int active_count() const { return active_; }
  bool all_lanes_active() const { return active_ == lanes_; }
  void push_mask(uint64_t m) {
    mask_stack_.push_back(mask_);
    set_mask(m);
  }
  void pop_mask();
  int current_lane() const { return lane_; }
  void set_current_lane(int l) { lane_ = l; }

  // Timing.
  static constexpr Cycle kMaxUnpaidCycles = Cycle{1} << 20;
  static constexpr uint32_t kFreeOpsPerCycle = 4096;
  void spend(Cycle c) {
    pending_ += c;
    if (pending_ >= kMaxUnpaidCycles) sync();
  }
  void free_op() {
    if (++free_ops_ < kFreeOpsPerCycle) return;
    spend(1);
    sync();
  }
  // Waits the accumulated cost.
  void sync() {
    free_ops_ = 0;
    if (pending_ != 0) pay();
  }
  // Cost accumulated since the last sync: the warp's own clock runs this far
  // ahead of the simulation's.
  Cycle pending() const { return pending_; }

  // Blocks until `ready()` holds, waking on `ev`. `describe` explains the wait
  // for a deadlock report; `what` names the slice in the trace.
  void block_until(sc_core::sc_event& ev, const std::function<bool()>& ready,
                   std::function<std::string()> describe, const std::string& what);
  // Blocks for a fixed number of cycles (no deadlock possible).
  void stall(Cycle c, const std::string& what);
  // The same wait, counted and traced alike, added to the unpaid cost instead
  // of slept now: for a wait whose length the warp knows from its own state
  // (a wgmma group's completion) and after which it touches nothing shared
  // before its next sync. The warp's clock moves on by c without a context
  // switch; the next operation that syncs pays it.
  void stall_local(Cycle c, const std::string& what);

  // What the warp is blocked on right now (empty when runnable).
  std::string blocked_on() const { return blocked_ ? describe_() : std::string(); }
  bool blocked() const { return blocked_; }

  // Location of the kernel call currently executing (set by intrinsics).
  void set_location(const std::source_location& loc) { loc_ = loc; }
  const std::source_location& location() const { return loc_; }

  // The component calls the warp is inside (engine/call_site.h): a component
  // pushes its caller's line on entry and pops it on return. callers() is
  // the interned chain, computed once per change of the stack.
  void push_caller(const std::source_location& frame) { frames_.push_back(frame); }
  void pop_caller() {
    frames_.pop_back();
    if (chain_ids_.size() > frames_.size()) chain_ids_.pop_back();
  }
  uint32_t callers() const {
    while (chain_ids_.size() < frames_.size())
      chain_ids_.push_back(intern_caller(chain_ids_.empty() ? 0 : chain_ids_.back(),
                                         frames_[chain_ids_.size()]));
    return chain_ids_.empty() ? 0 : chain_ids_.back();
  }
  // `loc` (an intrinsic's call site) with the warp's callers above it.
  Site site(const std::source_location& loc) const { return Site{loc, callers()}; }
  // Where the warp is now: its current intrinsic and callers.
  Site here() const { return site(loc_); }

  // Statistics: cycles spent blocked or stalled, and when the warp exited.
  Cycle stall_cycles() const { return stall_cycles_; }
  // The same cycles split by what the warp waited for (the slice name of the
  // wait, e.g. "wait input.full[2]"), in first-seen order.
  const std::vector<std::pair<std::string, Cycle>>& stalls_by_what() const { return stalls_by_what_; }
  Cycle end_cycle() const { return end_cycle_; }
  // When the warp was spawned (0 unless its CTA started after launch).
  Cycle start_cycle() const { return start_cycle_; }
  void set_end_cycle(Cycle c) { end_cycle_ = c; }

  // Set by the model when it has a check to run at this warp's next issued
  // instruction (e.g. a tcgen05.ld not yet waited for, or a lockstep
  // follower's call); keeps the common path of every issue to one test.
  bool issue_check = false;

  // Lockstep (models/sm90/lockstep.h): inside a region that the four warps
  // of a warpgroup run alike, one warp issues for all of them. acts_for():
  // how many warps this warp's arrivals and ops stand for (1 outside a
  // region); follower(): the warp's calls are made by its leader, so the
  // model skips them.
  int acts_for() const { return acts_for_; }
  void set_acts_for(int n) { acts_for_ = n; }
  bool follower() const { return follower_; }
  void set_follower(bool f) {
    follower_ = f;
    if (f) issue_check = true;
  }
  // The calls the warp made inside its current region, as a count and a
  // sum of their lines: a leader's and its followers' must agree.
  void count_region_call(const std::source_location& loc) {
    ++region_calls_;
    region_lines_ += loc.line();
  }
  std::pair<uint64_t, uint64_t> region_calls() const { return {region_calls_, region_lines_}; }
  void clear_region_calls() { region_calls_ = region_lines_ = 0; }
  // Adds stalls recorded by another warp (a leader's, for its followers) and
  // takes back the cycles recorded under `drop` (the follower's own wait).
  void absorb_stalls(const std::vector<std::pair<std::string, Cycle>>& stalls, const std::string& drop);

  // Trace: whether this warp's SM is traced, its track, and a flow that the
  // next slice should terminate.
  bool traced = true;
  uint32_t track = 0;
  uint64_t pending_flow_in = 0;
  // Returns and clears the flow the warp's next slice should terminate.
  uint64_t take_flow() { uint64_t f = pending_flow_in; pending_flow_in = 0; return f; }

 private:
  Engine& engine_;
  int cta_, warp_, lanes_;
  std::string role_;
  bool done_ = false;
  uint64_t mask_;  // bit l: lane l is active (a warp has 32 lanes, a wave 64)
  int active_;     // popcount of mask_, asked for at every intrinsic
  void set_mask(uint64_t m) {
    mask_ = m;
    active_ = __builtin_popcountll(m);
  }
  std::vector<uint64_t> mask_stack_;
  int lane_ = -1;
  int acts_for_ = 1;
  bool follower_ = false;
  uint64_t region_calls_ = 0, region_lines_ = 0;
  Cycle pending_ = 0;
  Cycle pending_traced_ = 0;  // of pending_, the part already on the trace (stall_local)
  uint32_t free_ops_ = 0;  // since the last sync
  std::unique_ptr<sc_core::sc_event> wake_;  // notified by the engine at the end of a sleep
  void sleep(Cycle c);  // waits c > 0 cycles
  void pay();           // sleeps pending_ cycles
  void trace_issue(Cycle begin, Cycle end);  // [begin, end) spent issuing, when traced
  bool blocked_ = false;
  std::function<std::string()> describe_;
  std::source_location loc_;
  std::vector<std::source_location> frames_;   // caller stack, outermost first
  mutable std::vector<uint32_t> chain_ids_;     // interned prefixes of frames_
  Cycle stall_cycles_ = 0;
  std::vector<std::pair<std::string, Cycle>> stalls_by_what_;
  Cycle end_cycle_ = 0;
  Cycle start_cycle_ = 0;
  void add_stall(const std::string& what, Cycle c);
  // A stall of c cycles from `begin`: counted, and traced as a slice.
  void record_stall(Cycle begin, Cycle c, const std::string& what);
};

}  // namespace sk::sim
