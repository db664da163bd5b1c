#include "models/sm100/mbarrier_ops.h"

#include <fmt/format.h>

#include <algorithm>

#include <systemc>

#include "engine/source_loc.h"

namespace sk::models::sm100::mbar {
namespace {
constexpr int64_t kMaxCount = (1 << 20) - 1;
// PTX ISA, mbarrier.init and fence.mbarrier_init: other threads may use the
// barrier only after a synchronization that orders the init (and the fence
// that makes it visible) before them.
constexpr sim::Observer::InitKind kInitKind{
    "mbarrier.init", "mbarrier.init_not_ordered",
    "after mbarrier.init and fence.mbarrier_init, synchronize the CTA (arch::cta_sync(), "
    "bar.sync 0) before any other warp arrives on, waits on or loads into the barrier"};

void maybe_complete(Gpu& gpu, Mbarrier& b, uint64_t flow) {
  if (flow != 0) b.pending_flow = flow;
  if (b.pending != 0 || b.tx != 0) return;
  if (b.horizon > gpu.engine().now()) {
    // An arrival was taken ahead, at a warp's time later than now.
    if (!b.completion_due) {
      b.completion_due = true;
      gpu.engine().at(b.horizon, [&gpu, &b] {
        b.completion_due = false;
        maybe_complete(gpu, b, 0);
      });
    }
    return;
  }
  if (gpu.obs() != nullptr) gpu.obs()->phase_complete(b.cta, b.offset);
  if (b.loads_in_flight > 0 && !b.early_reported) {
    // No TMA for the next phase can be in flight before this phase completes
    // (the producer refills a stage only after the consumer released it), so
    // these loads were announced for this phase: expect_tx was too low. In a
    // cluster a peer's producer may also have refilled the stage early (its
    // empty barrier passed before every CTA that reads the stage released
    // it), which looks the same from here: the report names that peer.
    b.early_reported = true;
    sim::Finding f;
    f.cls = "expect_tx";
    f.rule = "expect_tx.too_low";
    const bool from_peer = b.last_load_cta >= 0 && b.last_load_cta != b.cta;
    f.message = fmt::format(
        "{}: phase {} completed after {} bytes while {} TMA load(s) targeting it were still in "
        "flight{}; expect_tx announced fewer bytes than the loads deliver{}, so the waiter reads "
        "data that has not arrived",
        b.name.empty() ? "mbarrier" : b.name, b.phase, b.tx_delivered, b.loads_in_flight,
        from_peer ? fmt::format(" (the latest a multicast issued by CTA {} into CTA {})",
                                b.last_load_cta, b.cta)
                  : std::string(),
        from_peer ? fmt::format(", or CTA {}'s producer loaded its next lap into this stage before "
                                "CTA {} released the stage to it",
                                b.last_load_cta, b.cta)
                  : std::string());
    f.cta = b.cta;
    gpu.engine().report(std::move(f));
  }
  b.tx_expected = b.tx_delivered = 0;
  b.arrivals = 0;
  b.prev_arrivers.swap(b.arrivers);
  b.arrivers.clear();
  gpu.count_ring_stage(gpu.cta(b.cta), b.name, gpu.engine().now());
  ++b.phase;
  b.pending = b.expected;
  b.observed = false;
  b.completed_had_loads = b.loads_this_phase > 0;
  b.loads_this_phase = 0;
  b.flow = b.pending_flow;
  b.pending_flow = 0;
  b.flipped->notify(sc_core::SC_ZERO_TIME);
  gpu.engine().note_sync();
}

// Common to every arrival: the phase-observation rule, then the count.
// Returns false (and reports) when the arrival cannot be applied.
bool take_arrival(Gpu& gpu, Cta& cta, Mbarrier& b, const char* op, const Loc* loc) {
  auto report = [&](const char* rule, std::string msg) {
    sim::Finding f;
    f.cls = "arrival_count";
    f.rule = rule;
    f.message = std::move(msg);
    f.cta = cta.id;
    if (loc != nullptr) sim::locate(f, gpu.engine().site_here(*loc));
    gpu.engine().report(std::move(f));
  };
  const std::string_view name = b.name.empty() ? "mbarrier" : std::string_view(b.name);
  if (!b.observed && !b.overrun_reported) {
    b.overrun_reported = true;
    report("mbarrier.arrive_before_wait",
           fmt::format("{}: {} arrives in phase {} before any wait observed the completion of phase "
                       "{}; the arriving side has run a full lap ahead (missing wait, or too many "
                       "arrivals)",
                       name, op, b.phase, b.phase - 1));
  }
  if (b.pending == 0) {
    report("mbarrier.over_arrival",
           fmt::format("{}: {} with no pending arrival left in phase {}", name, op, b.phase));
    return false;
  }
  --b.pending;
  ++b.arrivals;
  ++b.arrivals_total;
  b.last_warp = gpu.engine().current();
  b.last_op = op;
  b.arrivers.push_back(b.last_warp);
  return true;
}

// PTX 9.7.13.15.16: a wait is meaningful only for the current phase or the one
// just before it. A warp whose wait succeeds on a completed phase it has
// already observed is waiting with a stale parity (phase aliasing): it passes
// without the data of the phase it meant.
// The last completed phase warp `w` observed on `b` (-1: none yet).
int64_t& observed_by(Mbarrier& b, const sim::Warp& w) {
  if (b.observed_by.size() <= static_cast<size_t>(w.index())) b.observed_by.resize(w.index() + 1, -1);
  return b.observed_by[w.index()];
}

void check_stale(Gpu& gpu, Mbarrier& b, sim::Warp& w, uint32_t parity, const Loc& loc) {
  const int64_t completed = static_cast<int64_t>(b.phase) - 1;  // -1: before any completion
  int64_t& seen = observed_by(b, w);
  if (completed >= 0 && seen == completed && !b.stale_reported) {
    b.stale_reported = true;
    gpu.finding("phase", "mbarrier.stale_phase_wait",
                fmt::format("{}: try_wait.parity({}) succeeded on phase {}, whose completion this "
                            "warp already observed; the parity does not follow the pipeline lap, "
                            "so the wait passes without the next phase (phase aliasing)",
                            b.name.empty() ? "mbarrier" : b.name, parity, completed),
                loc);
  }
  seen = completed;
}

uint32_t offset_of(Gpu& gpu, const void* p) {
  return static_cast<uint32_t>(reinterpret_cast<const uint8_t*>(p) - gpu.cta_of_current().smem);
}
}  // namespace

std::string describe(const Mbarrier& b) {
  return fmt::format("mbarrier {}: phase {} (parity {}) incomplete, {} of {} arrivals pending, tx {}",
                     b.name.empty() ? "?" : b.name, b.phase, b.phase & 1, b.pending, b.expected,
                     b.tx);
}

// Who arrived last ("warp 6 (mma)", "CTA 1 warp 4 (mma)" for a peer's remote
// arrive, or the async op).
std::string last_arrival(const Mbarrier& b) {
  if (b.last_warp == nullptr) return b.last_op != nullptr ? b.last_op : "?";
  const sim::Warp& w = *b.last_warp;
  return fmt::format("{}warp {} ({})", w.cta() != b.cta ? fmt::format("CTA {} ", w.cta()) : "",
                     w.index(), w.role().empty() ? "?" : w.role());
}

std::string likely_cause(const Mbarrier& b) {
  const std::string name = b.name.empty() ? "the mbarrier" : b.name;
  if (b.pending == 0 && b.tx > 0)
    return fmt::format("expect_tx {} bytes, {} delivered: the async loads of this phase deliver "
                       "fewer bytes than announced",
                       b.tx_expected, b.tx_delivered);
  if (b.pending > 0 && b.arrivals > 0)
    return fmt::format("{} arrivals expected per phase, {} arrived in this phase (last from {}): "
                       "the arrival count does not match the threads that arrive",
                       b.expected, b.arrivals, last_arrival(b));
  if (b.arrivals_total == 0)
    return name.find("empty") != std::string::npos
               ? fmt::format("nothing ever arrived on {}: the consumer never pre-arrived on it or "
                             "released the stage",
                             name)
               : fmt::format("nothing ever arrived on {}: the role that should arrive never ran "
                             "or exited early",
                             name);
  return fmt::format("no arrival on {} in phase {} (the last came from {}): the arriving role "
                     "stopped early (mismatched loop bounds?) or is itself blocked",
                     name, b.phase, last_arrival(b));
}

int64_t barrier_offset(Gpu& gpu, uint64_t* bar, const char* op, const Loc& loc) {
  Cta& cta = gpu.cta_of_current();
  auto off = reinterpret_cast<uint8_t*>(bar) - cta.smem;
  if (off < 0 || off + 8 > static_cast<std::ptrdiff_t>(cta.smem_size) || off % 8 != 0) {
    gpu.finding("mbarrier", "mbarrier.bad_address",
                fmt::format("{} on an address that is not an 8-byte aligned location in the CTA's "
                            "shared memory",
                            op),
                loc);
    return -1;
  }
  return off;
}

Mbarrier* lookup(Gpu& gpu, uint64_t* bar) {
  Cta& cta = gpu.cta_of_current();
  return cta.find_barrier(offset_of(gpu, bar));
}

Mbarrier* checked(Gpu& gpu, uint64_t* bar, const char* op, const Loc& loc) {
  Cta& cta = gpu.cta_of_current();
  int64_t off = barrier_offset(gpu, bar, op, loc);
  if (off < 0) return nullptr;
  Mbarrier* found = cta.find_barrier(static_cast<uint32_t>(off));
  // Every use, valid or not, is checked against the init by happens-before
  // (mbarrier.init_not_ordered), independently of the order in time.
  if (sim::Observer* obs = gpu.obs())
    obs->sync_use(gpu.warp(), static_cast<uint64_t>(off), op,
                  found != nullptr ? std::string_view(found->name) : std::string_view(), loc);
  if (found == nullptr || !found->valid) {
    gpu.finding("mbarrier", "mbarrier.use_before_init",
                fmt::format("{} on shared-memory offset {} which holds no initialised mbarrier",
                            op, static_cast<long>(off)),
                loc);
    return nullptr;
  }
  return found;
}

void init(Gpu& gpu, uint64_t* bar, uint32_t count, const Loc& loc) {
  int64_t off = barrier_offset(gpu, bar, "mbarrier.init", loc);
  if (off < 0) return;
  Cta& cta = gpu.cta_of_current();
  Mbarrier& b = cta.barrier_at(static_cast<uint32_t>(off));
  if (b.valid)
    gpu.finding("mbarrier", "mbarrier.reinit_without_inval",
                fmt::format("mbarrier.init on {} which is already a valid mbarrier; invalidate it "
                            "with mbarrier.inval first",
                            b.name.empty() ? fmt::format("offset {}", static_cast<long>(off)) : b.name),
                loc);
  if (count < 1 || count > kMaxCount) {
    gpu.finding("mbarrier", "mbarrier.bad_count",
                fmt::format("mbarrier.init count {} is outside [1, 2^20-1]", count), loc);
    count = 1;
  }
  if (!b.flipped) b.flipped = std::make_unique<sc_core::sc_event>();
  b.valid = true;
  b.overwrite_reported = false;
  cta.barriers_lo = std::min(cta.barriers_lo, static_cast<uint32_t>(off));
  cta.barriers_hi = std::max(cta.barriers_hi, static_cast<uint32_t>(off) + 8);
  b.cta = cta.id;
  b.offset = static_cast<uint32_t>(off);
  b.tx_expected = b.tx_delivered = 0;
  b.arrivals = 0;
  b.arrivers.clear();
  b.prev_arrivers.clear();
  b.arrivals_total = 0;
  b.loads_in_flight = 0;
  b.observed_by.clear();
  b.max_observed = -1;
  if (gpu.obs() != nullptr) gpu.obs()->sync_init(gpu.warp(), b.offset, kInitKind, loc);
  b.expected = b.pending = count;
  b.tx = 0;
  b.phase = 0;
}

void inval(Gpu& gpu, uint64_t* bar, const Loc& loc) {
  Mbarrier* b = checked(gpu, bar, "mbarrier.inval", loc);
  if (b != nullptr) b->valid = false;
}

void expect_tx(Gpu& gpu, uint64_t* bar, uint32_t tx, const Loc& loc) {
  Mbarrier* b = checked(gpu, bar, "mbarrier.expect_tx", loc);
  if (b == nullptr) return;
  b->tx += tx;
  b->tx_expected += tx;
  if (b->tx > kMaxCount)
    gpu.finding("mbarrier", "mbarrier.tx_overflow",
                fmt::format("{}: tx-count {} exceeds 2^20-1", b->name, b->tx), loc);
}

void arrive(Gpu& gpu, uint64_t* bar, uint32_t count, uint64_t flow, const Loc& loc) {
  Mbarrier* b = checked(gpu, bar, "mbarrier.arrive", loc);
  if (b == nullptr) return;
  Cta& cta = gpu.cta_of_current();
  if (gpu.obs() != nullptr) gpu.obs()->release(gpu.warp(), b->offset);
  for (uint32_t i = 0; i < count; ++i)
    if (!take_arrival(gpu, cta, *b, "mbarrier.arrive", &loc)) return;
  maybe_complete(gpu, *b, flow);
}

bool arrive_ahead(Gpu& gpu, uint64_t* bar, uint32_t count, Cycle at, const Loc& loc, uint32_t tx) {
  if (gpu.obs() != nullptr) return false;
  Mbarrier* b = lookup(gpu, bar);
  if (b == nullptr || !b->valid || !b->observed) return false;
  // The phase must stay incomplete: arrivals left, or bytes these arrivals
  // announce still to come (an overflow is reported on the engine's path).
  const int64_t tx_after = b->tx + static_cast<int64_t>(tx) * count;
  if (tx > 0 && tx_after > kMaxCount) return false;
  if (b->pending <= count && !(tx > 0 && tx_after > 0)) return false;
  b->horizon = std::max(b->horizon, at);
  Cta& cta = gpu.cta_of_current();
  for (uint32_t i = 0; i < count; ++i) {
    if (tx > 0) expect_tx(gpu, bar, tx, loc);
    take_arrival(gpu, cta, *b, "mbarrier.arrive", &loc);
  }
  return true;
}

void arrive_async(Gpu& gpu, Cta& cta, Mbarrier& b, uint64_t flow, const char* op, sim::OpId id,
                  std::span<const sim::OpId> covered) {
  if (!b.valid) return;
  if (gpu.obs() != nullptr && id != 0) gpu.obs()->release_op(id, cta.id, b.offset, covered);
  if (!take_arrival(gpu, cta, b, op, nullptr)) return;
  maybe_complete(gpu, b, flow);
}

Mbarrier* peer_barrier(Gpu& gpu, const Cta& issuer, Cta& target, int64_t off, const char* op,
                       const char* verb, const Loc& loc) {
  Mbarrier* b = target.find_barrier(static_cast<uint32_t>(off));
  if (sim::Observer* obs = gpu.obs())
    obs->sync_use_at(gpu.warp(), target.id, static_cast<uint64_t>(off), op,
                     b != nullptr ? std::string_view(b->name) : std::string_view(), loc);
  if (target.exited) {
    gpu.finding("cluster", "cluster.peer_exited",
                fmt::format("{} by CTA {} {} CTA {} (rank {}), which has exited: a CTA must not "
                            "exit while a peer may still write its shared memory or arrive on "
                            "its barriers (a cluster barrier before exit)",
                            op, issuer.id, verb, target.id, target.cluster_rank),
                loc);
    return nullptr;
  }
  if (b == nullptr || !b->valid) {
    gpu.finding("mbarrier", "mbarrier.use_before_init",
                fmt::format("{} by CTA {} {} shared-memory offset {} of CTA {} (rank {}), which "
                            "holds no initialised mbarrier",
                            op, issuer.id, verb, static_cast<long>(off), target.id,
                            target.cluster_rank),
                loc);
    return nullptr;
  }
  return b;
}

void arrive_remote(Gpu& gpu, Cta& cta, Mbarrier& b, const sim::Warp* from, uint64_t flow) {
  if (!b.valid) return;
  if (!take_arrival(gpu, cta, b, "mbarrier.arrive.shared::cluster", nullptr)) return;
  b.last_warp = from;
  if (!b.arrivers.empty()) b.arrivers.back() = from;
  maybe_complete(gpu, b, flow);
}

void report_overwrite(Gpu& gpu, Cta& cta, uint64_t off, uint64_t bytes, const char* op,
                      const Loc& loc) {
  for (auto& [boff, b] : cta.barrier_list) {
    if (!b->valid || b->overwrite_reported || boff + 8 <= off || boff >= off + bytes) continue;
    b->overwrite_reported = true;
    gpu.finding("mbarrier", "mbarrier.overwritten_while_live",
                fmt::format("{} writes shared memory bytes [{}, {}) of CTA {} (rank {}), over {} "
                            "(offset {}), a valid mbarrier: its memory may be reused only after "
                            "mbarrier.inval; the write corrupts the barrier on hardware (a "
                            "shared-memory layout whose buffers overlap the barriers, or a store "
                            "past a buffer's end)",
                            op, off, off + bytes, cta.id, cta.cluster_rank,
                            b->name.empty() ? "the mbarrier" : b->name, boff),
                loc);
  }
}

void load_issued(Mbarrier& b, const Loc& loc, int issuing_cta) {
  b.last_load_cta = issuing_cta;
  ++b.loads_in_flight;
  ++b.loads_this_phase;
  b.last_load = sim::Engine::get().site_here(loc);
}

void complete_tx(Gpu& gpu, Cta& cta, Mbarrier& b, uint32_t bytes, uint64_t flow, sim::OpId id) {
  if (b.loads_in_flight > 0) --b.loads_in_flight;
  if (gpu.obs() != nullptr && id != 0) gpu.obs()->release_op(id, cta.id, b.offset, {});
  b.tx_delivered += bytes;
  b.tx -= bytes;
  if (b.tx < 0 && b.pending == 0) {
    sim::Finding f;
    f.cls = "mbarrier";
    f.rule = "mbarrier.tx_underflow";
    f.message = fmt::format(
        "{}: {} bytes delivered by TMA after every arrival of phase {} was made, leaving tx-count "
        "at {}; expect_tx is lower than the bytes the loads deliver",
        b.name.empty() ? "mbarrier" : b.name, bytes, b.phase, b.tx);
    f.cta = cta.id;
    gpu.engine().report(std::move(f));
  }
  maybe_complete(gpu, b, flow);
}

void expect_phase(Gpu& gpu, uint64_t* bar, int64_t phase) {
  Mbarrier* b = lookup(gpu, bar);
  if (b == nullptr) return;  // the wait reports it
  const size_t w = static_cast<size_t>(gpu.warp().index());
  if (b->wanted_by.size() <= w) b->wanted_by.resize(w + 1, Mbarrier::kNoPhase);
  b->wanted_by[w] = phase;
}

namespace {
// The phase the current warp declared for this wait (expect_phase), taken
// (kNoPhase: none).
int64_t take_wanted(Mbarrier& b, const sim::Warp& w) {
  const size_t i = static_cast<size_t>(w.index());
  if (i >= b.wanted_by.size()) return Mbarrier::kNoPhase;
  const int64_t p = b.wanted_by[i];
  b.wanted_by[i] = Mbarrier::kNoPhase;
  return p;
}
}  // namespace

bool wait_parity(Gpu& gpu, uint64_t* bar, uint32_t parity, const Loc& loc, sim::Scope scope) {
  Mbarrier* b = checked(gpu, bar, "mbarrier.try_wait.parity", loc);
  if (b == nullptr) return true;  // reported; do not hang on an unusable barrier
  if (parity > 1) {
    gpu.finding("phase", "mbarrier.bad_parity",
                fmt::format("{}: try_wait.parity with parity {}; only 0 and 1 are valid (pass "
                            "phase & 1)",
                            b->name, parity),
                loc);
    parity &= 1;
  }
  sim::Warp& w = gpu.warp();
  auto ready = [b, parity] { return (b->phase & 1) != parity; };
  // A wait whose phase the pipeline declared (its lap): stale exactly when
  // the barrier has not reached that phase yet, for then the parity names an
  // older phase (completed: the wait passes without the data; or in
  // progress two phases back: it wakes a lap early). A warp that passes over
  // phases other readers take (a ping-pong consumer) is no fault.
  const int64_t wanted = take_wanted(*b, w);
  const bool declared = wanted != Mbarrier::kNoPhase;
  if (declared && static_cast<int64_t>(b->phase) < wanted && !b->stale_reported) {
    b->stale_reported = true;
    const int64_t named = ready() ? static_cast<int64_t>(b->phase) - 1 : static_cast<int64_t>(b->phase);
    gpu.finding("phase", "mbarrier.stale_phase_wait",
                fmt::format("{}: try_wait.parity({}) for phase {} (the pipeline's lap), but the "
                            "barrier is in phase {}: the parity names {}, so the wait {} (phase "
                            "aliasing: the stage is taken a lap early)",
                            b->name.empty() ? "mbarrier" : b->name, parity, wanted, b->phase,
                            named < 0 ? std::string("its state before the first completion")
                                      : fmt::format("phase {}", named),
                            ready() ? "passes at once" : "wakes when that phase completes"),
                loc);
  }
  if (ready()) {
    b->observed = true;
    b->max_observed = std::max(b->max_observed, static_cast<int64_t>(b->phase) - 1);
    if (declared)
      observed_by(*b, w) = static_cast<int64_t>(b->phase) - 1;
    else
      check_stale(gpu, *b, w, parity, loc);
    if (gpu.obs() != nullptr) gpu.obs()->acquire_at(w, w.cta(), b->offset, scope);
    return true;
  }
  // Blocking for the phase after one that completed unobserved: the warp
  // last saw phase `seen` and waits with that phase's parity again, so it
  // skips phase seen + 1 and waits for seen + 2 (the parity is out of step;
  // the same bug as a stale pass, seen from the other side of the race).
  if (const int64_t seen = observed_by(*b, w);
      !declared && seen >= 0 && static_cast<int64_t>(b->phase) - 1 > seen && !b->stale_reported) {
    b->stale_reported = true;
    gpu.finding("phase", "mbarrier.stale_phase_wait",
                fmt::format("{}: try_wait.parity({}) waits for phase {}, but phase {} completed "
                            "and this warp never observed it (it last observed phase {}); the "
                            "parity does not follow the pipeline lap",
                            b->name.empty() ? "mbarrier" : b->name, parity, b->phase, seen + 1,
                            seen),
                loc);
  }
  if (b->wait_label.empty()) b->wait_label = "wait " + (b->name.empty() ? "mbarrier" : b->name);
  const std::string& what = b->wait_label;
  Cta& cta = gpu.cta_of_current();
  cta.waiting_on[w.index()] = b;
  w.block_until(
      *b->flipped, ready,
      [b, parity] {
        return fmt::format("waits for parity {} on {}; likely cause: {}", parity, describe(*b),
                           likely_cause(*b));
      },
      what);
  cta.waiting_on[w.index()] = nullptr;
  b->observed = true;
  b->max_observed = std::max(b->max_observed, static_cast<int64_t>(b->phase) - 1);
  observed_by(*b, w) = static_cast<int64_t>(b->phase) - 1;
  if (gpu.obs() != nullptr) gpu.obs()->acquire_at(w, w.cta(), b->offset, scope);
  // The waiter observes the flip after the barrier's propagation latency.
  w.spend(gpu.params().mbarrier_latency +
          gpu.engine().schedule().agent_delay(sim::Agent::kSignal, gpu.params().mbarrier_latency));
  if (b->flow != 0) w.pending_flow_in = b->flow;
  return true;
}

}  // namespace sk::models::sm100::mbar
