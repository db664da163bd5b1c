// api_sync.cc: identity, lanes, named barriers and mbarrier semantics
// (PTX ISA 9.0 9.7.13.15, summarised in research/verify.md 4.1).
#include <fmt/format.h>

#include <systemc>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"

namespace sk::models::sm100::api {
uint32_t warp_idx() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  return static_cast<uint32_t>(w.index());
}
uint32_t cta_idx() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  return static_cast<uint32_t>(w.cta());
}
uint32_t num_ctas() { return static_cast<uint32_t>(gpu().num_ctas()); }
uint8_t* dynamic_smem() { return gpu().cta_of_current().smem; }

uint32_t smem_addr(const void* p, const Loc& loc) {
  gpu().warp().free_op();
  Cta& cta = gpu().cta_of_current();
  auto off = reinterpret_cast<const uint8_t*>(p) - cta.smem;
  if (off < 0 || off > static_cast<std::ptrdiff_t>(cta.smem_size)) {
    gpu().finding("smem", "smem.address_out_of_range",
                  "pointer converted to a shared-memory address is outside the CTA's shared memory",
                  loc);
    return 0;
  }
  return static_cast<uint32_t>(off);
}

uint32_t lane_id() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  int l = w.current_lane();
  return l < 0 ? 0 : static_cast<uint32_t>(l);
}

void sync_warp(const Loc& loc) {
  if (skip_in_lockstep(gpu().warp(), loc)) return;
  sim::Warp& w = issue_local(loc);
  if (sim::Observer* obs = gpu().obs()) obs->warp_sync(w);
}

namespace {
// Observer keys of named barriers (mbarriers use their SMEM offset).
constexpr uint64_t kNamedBarrierKey = 1ull << 40;

// The SMEM offset of [p, p + bytes) when it lies inside the CTA's shared
// memory with the given alignment, else -1 (reported).
int64_t smem_range(const void* p, uint32_t bytes, uint32_t align, const char* op, const Loc& loc) {
  Cta& cta = gpu().cta_of_current();
  auto off = reinterpret_cast<const uint8_t*>(p) - cta.smem;
  if (off < 0 || off + bytes > static_cast<std::ptrdiff_t>(cta.smem_size) || off % align != 0) {
    gpu().finding("smem", "smem.bad_access",
                  fmt::format("{} of {} bytes at shared offset {} is misaligned or outside the "
                              "CTA's {} bytes of shared memory",
                              op, bytes, static_cast<long>(off), cta.smem_size),
                  loc);
    return -1;
  }
  return off;
}

void observe_smem(int64_t off, uint32_t bytes, bool write, const char* op, const Loc& loc) {
  if (gpu().obs() == nullptr) return;
  const sim::Range r{static_cast<uint64_t>(off), static_cast<uint64_t>(off) + bytes};
  gpu().obs()->access(gpu().warp(), 0, sim::Space::kSmem, {&r, 1}, write, sim::Proxy::kGeneric,
                      op, loc);
}

void named_barrier(uint32_t id, uint32_t num_threads, bool wait, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  if (id >= 16) {
    gpu().finding("barrier", "barrier.bad_id", fmt::format("named barrier id {} is not in [0, 16)", id),
                  loc);
    return;
  }
  if (num_threads == 0 || num_threads % 32 != 0) {
    gpu().finding("barrier", "barrier.bad_count",
                  fmt::format("bar.sync/arrive thread count {} is not a nonzero multiple of 32",
                              num_threads),
                  loc);
    return;
  }
  NamedBarrier& nb = cta.named[id];
  if (nb.arrived != 0 && nb.expected != num_threads)
    gpu().finding("barrier", "barrier.count_mismatch",
                  fmt::format("named barrier {} used with {} threads while {} were expected by "
                              "earlier arrivals in the same phase",
                              id, num_threads, nb.expected),
                  loc);
  if (!w.all_lanes_active())
    gpu().finding("warp_collective", "barrier.partial_warp",
                  fmt::format("named barrier {} reached by {} of 32 lanes; bar.sync counts every "
                              "thread, so a partial warp never completes it as intended",
                              id, w.active_count()),
                  loc);
  nb.expected = num_threads;
  nb.arrived += static_cast<uint32_t>(w.active_count());
  uint64_t gen = nb.generation;
  const uint64_t key = kNamedBarrierKey | id;
  sim::Observer* obs = gpu().obs();
  if (obs != nullptr) obs->release(w, key);
  if (nb.arrived >= nb.expected) {
    nb.arrived = 0;
    ++nb.generation;
    if (obs != nullptr) obs->phase_complete(cta.id, key);
    nb.done->notify(sc_core::SC_ZERO_TIME);
    gpu().engine().note_sync();
  }
  if (!wait) return;
  cta.waiting_named[w.index()] = static_cast<int>(id);
  w.block_until(
      *nb.done, [&nb, gen] { return nb.generation != gen; },
      [&nb, id] {
        return fmt::format("named barrier {}: {} of {} threads arrived", id, nb.arrived,
                           nb.expected);
      },
      fmt::format("bar.sync {}", id));
  cta.waiting_named[w.index()] = -1;
  if (obs != nullptr) obs->acquire(w, key);
  w.spend(gpu().params().named_barrier_latency);
}
}  // namespace

void cta_sync(const Loc& loc) {
  named_barrier(0, static_cast<uint32_t>(gpu().cta_of_current().warps * 32), true, loc);
}
void named_barrier_sync(uint32_t id, uint32_t n, const Loc& loc) { named_barrier(id, n, true, loc); }
void named_barrier_arrive(uint32_t id, uint32_t n, const Loc& loc) {
  named_barrier(id, n, false, loc);
}

void st_shared_b128(void* dst, const uint32_t* v, const Loc& loc) {
  gpu().warp().free_op();
  check_ld_waited(loc);
  int64_t off = smem_range(dst, 16, 16, "st.shared.v4", loc);
  if (off < 0) return;
  mbar::check_overwrite(gpu(), gpu().cta_of_current(), off, 16, "st.shared.v4", loc);
  observe_smem(off, 16, true, "st.shared.v4", loc);
  std::memcpy(dst, v, 16);
}

void ld_shared_b128(const void* src, uint32_t* v, const Loc& loc) {
  gpu().warp().free_op();
  check_ld_waited(loc);
  int64_t off = smem_range(src, 16, 16, "ld.shared.v4", loc);
  if (off < 0) {
    std::memset(v, 0, 16);
    return;
  }
  observe_smem(off, 16, false, "ld.shared.v4", loc);
  std::memcpy(v, src, 16);
}

void ld_shared(const void* src, void* out, uint32_t bytes, const Loc& loc) {
  issue(loc);
  int64_t off = smem_range(src, bytes, 1, "ld.shared", loc);
  if (off < 0) {
    std::memset(out, 0, bytes);
    return;
  }
  observe_smem(off, bytes, false, "ld.shared", loc);
  std::memcpy(out, src, bytes);
}

void st_shared(void* dst, const void* v, uint32_t bytes, const Loc& loc) {
  issue(loc);
  int64_t off = smem_range(dst, bytes, 1, "st.shared", loc);
  if (off < 0) return;
  mbar::check_overwrite(gpu(), gpu().cta_of_current(), off, bytes, "st.shared", loc);
  observe_smem(off, bytes, true, "st.shared", loc);
  std::memcpy(dst, v, bytes);
}

// --- mbarrier -------------------------------------------------------------

void mbarrier_init(uint64_t* bar, uint32_t count, const Loc& loc) {
  sim::Warp& w = issue(loc);
  for (int i = 0; i < w.active_count(); ++i) mbar::init(gpu(), bar, count, loc);
}

void mbarrier_inval(uint64_t* bar, const Loc& loc) {
  sim::Warp& w = issue(loc);
  for (int i = 0; i < w.active_count(); ++i) mbar::inval(gpu(), bar, loc);
}

void fence_mbarrier_init(const Loc& loc) { issue_local(loc); }

void mbarrier_arrive(uint64_t* bar, const Loc& loc) {
  // An arrival that leaves the phase incomplete changes nothing another warp
  // can observe, so it is taken at the warp's own time without paying its
  // unpaid cost first (mbar::arrive_ahead); the one that may complete the
  // phase pays first, as any operation on shared state does.
  sim::Warp& w = gpu().warp();
  if (skip_in_lockstep(w, loc)) return;
  // A lockstep leader arrives for its followers too.
  const uint32_t n = static_cast<uint32_t>(w.active_count() * w.acts_for());
  if (!w.issue_check && mbar::arrive_ahead(gpu(), bar, n, local_now(w), loc)) {
    issue_local(loc);
    return;
  }
  issue(loc);
  for (uint32_t i = 0; i < n; ++i) mbar::arrive(gpu(), bar, 1, 0, loc);
}

void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t tx, const Loc& loc) {
  // Taken at the warp's own time when the phase stays incomplete, as
  // mbarrier_arrive's arrivals are (mbar::arrive_ahead).
  sim::Warp& cur = gpu().warp();
  if (!cur.issue_check && mbar::arrive_ahead(gpu(), bar, static_cast<uint32_t>(cur.active_count()),
                                             local_now(cur), loc, tx)) {
    issue_local(loc);
    return;
  }
  sim::Warp& w = issue(loc);
  for (int i = 0; i < w.active_count(); ++i) {
    mbar::expect_tx(gpu(), bar, tx, loc);
    mbar::arrive(gpu(), bar, 1, 0, loc);
  }
}

void mbarrier_expect_tx(uint64_t* bar, uint32_t tx, const Loc& loc) {
  sim::Warp& w = issue(loc);
  for (int i = 0; i < w.active_count(); ++i) mbar::expect_tx(gpu(), bar, tx, loc);
}

bool follower_wait_parity(sim::Warp& w, uint64_t* bar, uint32_t parity, const Loc& loc,
                          sim::Scope scope) {
  if (!gpu().functional()) return true;
  w.set_location(loc);
  w.sync();
  return mbar::wait_parity(gpu(), bar, parity, loc, scope);
}

bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity, const Loc& loc) {
  if (skip_in_lockstep(gpu().warp(), loc))
    return follower_wait_parity(gpu().warp(), bar, parity, loc, sim::Scope::kCta);
  issue(loc);
  return mbar::wait_parity(gpu(), bar, parity, loc);
}

void annotate_wait_phase(uint64_t* bar, int64_t phase) {
  if (skip_in_lockstep(gpu().warp(), Loc::current())) return;
  mbar::expect_phase(gpu(), bar, phase);
}

bool mbarrier_test_wait_parity(uint64_t* bar, uint32_t parity, const Loc& loc) {
  if (skip_in_lockstep(gpu().warp(), loc)) return true;
  issue(loc);
  Mbarrier* b = mbar::checked(gpu(), bar, "mbarrier.test_wait.parity", loc);
  if (b == nullptr) return true;
  bool done = (b->phase & 1) != (parity & 1);
  if (done) {
    b->observed = true;
    b->max_observed = std::max(b->max_observed, static_cast<int64_t>(b->phase) - 1);
    if (gpu().obs() != nullptr) gpu().obs()->acquire(gpu().warp(), b->offset);
  }
  return done;
}

void annotate_barrier(uint64_t* bar, const char* name, int index) {
  Mbarrier* b = mbar::lookup(gpu(), bar);
  if (b != nullptr) {
    b->name = index >= 0 ? fmt::format("{}[{}]", name, index) : std::string(name);
    b->wait_label.clear();
  }
}

}  // namespace sk::models::sm100::api
