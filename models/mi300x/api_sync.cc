// api_sync.cc: scoped atomics, counter waits, s_barrier, workgroup_sync,
// s_sleep, s_setprio and counter annotations
// (kernels/arch/gfx942/device/{atomics,sched,hooks}.h).
//
// Invariants: each active lane performs its own atomic (a whole-wave add of 1
// adds 64). An add or store at workgroup scope or wider releases the calling
// wave's earlier accesses on the counter (an add is acq_rel, so the counter's
// releases accumulate); an acquire load, an add, or a completed
// wait_counter_geq at that scope acquires them. A wavefront-scope atomic
// orders nothing for other waves. A wave waiting on a counter is blocked on
// it (never spins), so a counter that never gets there is a deadlock finding
// with the counter's ledger. Only atomics wake waiters: a plain st_lds to a
// counter is not seen until the next atomic on it. An LDS counter's init is
// the store that zeroes it, recognised when the same wave then annotates the
// counter (as the backends do); every atomic or wait on it must be ordered
// after that init (counter.init_not_ordered). An s_barrier completes at the
// latest of its waves' arrival times, once every live wave has arrived; a
// wave arrives at its own time, without paying its unpaid cost first.
#include <fmt/format.h>

#include <systemc>

#include "models/mi300x/api.h"
#include "models/mi300x/api_common.h"

namespace sk::models::mi300x::api {
namespace {
constexpr uint64_t kBarrierKey = 1ull << 41;
// A pipeline counter in LDS is initialised by one wave's plain store (the
// backends zero it, then annotate it); the other waves may use it only after
// an s_barrier that orders that store before them.
constexpr sim::Observer::InitKind kCounterInit{
    "counter init (the store that zeroes it)", "counter.init_not_ordered",
    "after one wave zeroes the counters, run arch::workgroup_sync() (s_barrier) before any "
    "other wave increments, reads or waits on them"};

// Tells the observer that wave `w` uses LDS counter `c` (global counters are
// initialised by the host, before the launch, and need no check).
void use(sim::Warp& w, const Counter& c, const char* what, const Loc& loc) {
  if (gpu().obs() != nullptr && c.block >= 0) gpu().obs()->sync_use(w, c.key, what, c.name, loc);
}

bool orders(Scope s) { return s != Scope::kWavefront; }

// How many lanes perform this call's atomic: the lane itself inside a
// per-lane loop that visits every lane, else every active lane.
uint32_t acting_lanes(sim::Warp& w) {
  if (w.current_lane() >= 0 && gpu().wave_state().sampled) return 1;
  return static_cast<uint32_t>(w.active_count());
}

void set_value(Counter& c, uint32_t v) {
  if (c.cell != nullptr)
    *c.cell = v;
  else
    c.shadow = v;
  c.changed->notify(sc_core::SC_ZERO_TIME);
  gpu().engine().note_sync();
}

void release(sim::Warp& w, const Counter& c) {
  if (gpu().obs() == nullptr) return;
  gpu().obs()->release(w, c.key);
  gpu().obs()->phase_complete(w.cta(), c.key);
}

void acquire(sim::Warp& w, const Counter& c) {
  if (gpu().obs() != nullptr) gpu().obs()->acquire(w, c.key);
}

// A wave arrives at its own time without paying it first: the barrier
// completes at the latest arrival time (Gpu::maybe_release_barrier), and each
// wave waits for that without first sleeping out its own cost
// (Warp::block_until), so the times are those of arriving synced, one
// context switch fewer per wave and barrier.
void barrier(bool fences, const Loc& loc) {
  sim::Warp& w = gpu().warp();
  Workgroup& wg = gpu().wg_of_current();
  Cycle arrival = 0;
  if (fences) {
    issue(loc);
    // The release fence waits for the wave's LDS operations (lgkmcnt(0)).
    WaveState& ws = gpu().wave_state();
    if (!ws.lgkm.empty()) stall_until(w, ws.lgkm.back(), kLgkmcntStall);
    ws.lgkm.clear();
    arrival = gpu().engine().now();
  } else {
    arrival = local_now(w);  // where the issue below would have synced
    issue_local(loc);
  }
  wg.bar_release_at = std::max(wg.bar_release_at, arrival);
  const uint64_t gen = wg.bar_generation;
  ++wg.bar_arrived;
  if (gpu().obs() != nullptr) gpu().obs()->release(w, kBarrierKey);
  gpu().maybe_release_barrier(wg);
  w.block_until(
      *wg.bar_done, [&wg, gen] { return wg.bar_generation != gen; },
      [&wg] {
        return fmt::format("s_barrier: {} of {} live waves arrived", wg.bar_arrived, wg.alive);
      },
      kBarrierWait);
  if (gpu().obs() != nullptr) gpu().obs()->acquire(w, kBarrierKey);
  w.spend(gpu().params().s_barrier_latency);
}
}  // namespace

uint32_t atomic_add(uint32_t* p, uint32_t v, Scope s, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Counter* c = gpu().counter(p, &loc);
  if (c == nullptr) return 0;
  use(w, *c, "atomic_add", loc);
  const uint32_t n = acting_lanes(w);
  if (c->arrivals_per_lap > 0 && n > 1 && w.current_lane() < 0 && !c->multi_reported) {
    c->multi_reported = true;
    gpu().finding("arrival_count", "counter.multi_lane_increment",
                  fmt::format("{} lanes of wave {} each added {} to {}; a pipeline counter takes "
                              "one increment per wave (issue it under sk::elect_one())",
                              n, w.index(), v, c->name),
                  loc);
  }
  if (w.current_lane() >= 0) {  // one lane of a per-lane loop: counted at the loop's end
    WaveState& ws = gpu().wave_state();
    if (ws.loop_atomic != c) ws.loop_atomic_lanes = 0;
    ws.loop_atomic = c;
    ws.loop_atomic_lanes += static_cast<int>(n);
  }
  const uint32_t old = c->value();
  c->increments += n;
  c->since_lap += n;
  c->last_wave = w.index();
  set_value(*c, old + n * v);
  if (orders(s)) {
    acquire(w, *c);
    release(w, *c);
  }
  gpu().cu_of_current().atomics += n;
  w.spend(gpu().params().atomic_latency);
  return old;
}

uint32_t atomic_load_acquire(const uint32_t* p, Scope s, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Counter* c = gpu().counter(p, &loc);
  if (c == nullptr) return 0;
  use(w, *c, "atomic_load (acquire)", loc);
  if (orders(s)) acquire(w, *c);
  gpu().cu_of_current().atomics += acting_lanes(w);
  w.spend(gpu().params().atomic_latency);
  return c->value();
}

void atomic_store_release(uint32_t* p, uint32_t v, Scope s, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Counter* c = gpu().counter(p, &loc);
  if (c == nullptr) return;
  use(w, *c, "atomic_store (release)", loc);
  c->since_lap = 0;
  set_value(*c, v);
  if (orders(s)) release(w, *c);
  gpu().cu_of_current().atomics += acting_lanes(w);
}

void wait_counter_geq(const uint32_t* p, uint32_t target, Scope s, const Loc& loc) {
  // Counters only grow: one short of its target at the simulation's time is
  // short until it next changes, so the wave waits for that at once, without
  // first sleeping out its own unpaid cost (Warp::block_until judges it at
  // the wave's own time). A counter already there is taken at the wave's
  // own time, after paying it, as any issue.
  Counter* c = gpu().counter(p, nullptr);
  const bool short_now = c != nullptr && c->value() < target;
  sim::Warp& w = short_now ? issue_local(loc) : issue(loc);
  if (!short_now) c = gpu().counter(p, &loc);
  if (c == nullptr) return;
  use(w, *c, "wait_counter_geq", loc);
  if (c->value() < target) {
    WaveState& ws = gpu().wave_state();
    ws.waiting_on = c;
    w.block_until(
        *c->changed, [c, target] { return c->value() >= target; },
        [c, target] {
          return fmt::format("counter {} = {}, waiting for >= {} ({})", c->name, c->value(),
                             target,
                             c->last_wave < 0 ? std::string("never incremented")
                                              : fmt::format("last increment by wave {}",
                                                            c->last_wave));
        },
        c->wait_label());
    ws.waiting_on = nullptr;
  }
  if (orders(s)) acquire(w, *c);
  ++gpu().cu_of_current().atomics;
  w.spend(gpu().params().atomic_latency + gpu().params().s_sleep0_cycles);
}

void s_sleep(int n, const Loc& loc) {
  sim::Warp& w = issue(loc);
  w.stall(n == 0 ? gpu().params().s_sleep0_cycles : Cycle{64} * static_cast<Cycle>(n), kSleepStall);
}

// The priority is recorded only: the model issues each wave's instructions
// from its own thread, so arbitration between the waves of a SIMD (what
// s_setprio changes on hardware) is not modelled.
void s_setprio(int p, const Loc& loc) {
  issue_local(loc);
  gpu().wave_state().prio = p;
}

void s_barrier(const Loc& loc) { barrier(false, loc); }
void workgroup_sync(const Loc& loc) { barrier(true, loc); }

void annotate_counter(const uint32_t* counter, const char* name, int index,
                      uint32_t arrivals_per_lap) {
  Counter* c = gpu().counter(counter, nullptr);
  if (c == nullptr) return;
  c->name = index >= 0 ? fmt::format("{}[{}]", name, index) : std::string(name);
  c->arrivals_per_lap = arrivals_per_lap;
  // The backends annotate a counter right after zeroing it, from the same
  // lane: that store is the counter's init. A wave that names a counter it
  // did not just store to only names it.
  if (gpu().obs() == nullptr || c->block < 0) return;
  const auto& stores = gpu().wave_state().word_stores;
  for (auto it = stores.rbegin(); it != stores.rend(); ++it)
    if (it->first == c->key) {
      gpu().obs()->sync_init(gpu().warp(), c->key, kCounterInit, it->second);
      return;
    }
}

}  // namespace sk::models::mi300x::api
