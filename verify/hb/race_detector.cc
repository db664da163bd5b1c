// race_detector.cc: the happens-before race detector (race_detector.h):
// clocks, sync edges, the shadow state of SMEM, TMEM and global memory, and
// the checks of each access (the reports' text: reports.cc; a cluster's
// start and exit order: cluster_order.cc; lanes: lanes.cc). Invariants: a
// warp's write clock never runs ahead of its clock and equals it on the
// warp's own component; every finding names both accesses (and, for the
// scope rule, the CTA-scope release between them).
#include "verify/hb/race_detector.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "engine/source_loc.h"
#include "engine/warp.h"
#include "verify/hb/report_text.h"

namespace sk::verify {

void RaceDetector::launch(int ctas, int warps_per_cta, uint64_t smem_bytes, int cluster_size) {
  cluster_size_ = std::max(cluster_size, 1);
  warps_per_cta_ = warps_per_cta;
  ctas_.resize(static_cast<size_t>(ctas));
  domain_components_.assign(static_cast<size_t>((ctas + cluster_size_ - 1) / cluster_size_),
                            static_cast<uint32_t>(cluster_size_ * warps_per_cta));
  for (size_t i = 0; i < ctas_.size(); ++i) {
    CtaState& c = ctas_[i];
    c.warp.resize(static_cast<size_t>(warps_per_cta));
    c.wwarp.resize(static_cast<size_t>(warps_per_cta));
    c.cluster_fence.resize(static_cast<size_t>(warps_per_cta));
    c.unacquired.resize(static_cast<size_t>(warps_per_cta));
    c.fences.resize(static_cast<size_t>(warps_per_cta));
    c.global_fences.resize(static_cast<size_t>(warps_per_cta));
    c.lane_syncs.resize(static_cast<size_t>(warps_per_cta));
    c.lane_released.assign(static_cast<size_t>(warps_per_cta), std::array<uint32_t, 32>{});
    c.lag.assign(static_cast<size_t>(warps_per_cta), CtaState::Lag{});
    const uint32_t first = static_cast<uint32_t>((static_cast<int>(i) % cluster_size_) * warps_per_cta);
    for (int w = 0; w < warps_per_cta; ++w) {
      c.warp[w].set(first + static_cast<uint32_t>(w), 1);
      c.wwarp[w].set(first + static_cast<uint32_t>(w), 1);
    }
  }
  // Shadow cells are allocated at a CTA's first access: a CLC grid launches
  // many CTAs that are cancelled and never run.
  smem_cells_ = (smem_bytes + 15) / 16;
}

sim::OpId RaceDetector::issue_async(const sim::Warp& issuer, const char* kind) {
  Op op;
  op.cta = issuer.cta();
  op.issuer = &issuer;
  op.issue_clock = tick(issuer);
  op.lanes = issuer.active_mask();
  op.kind = kind;
  op.clock = clock_of(issuer);
  op.wclock = wclock_of(issuer);
  ops_.push_back(std::move(op));
  return static_cast<sim::OpId>(ops_.size());
}

RaceDetector::Sync& RaceDetector::sync(int cta, uint64_t key) {
  CtaState& c = ctas_[cta];
  auto it = c.syncs.find(key);
  if (it != c.syncs.end()) return it->second;
  Sync& s = c.syncs[key];
  s.comp = new_component(cta);
  return s;
}

namespace {
// A few records' verdicts within one access (access() below). 16 slots: a
// granule holds a write and up to kMaxReads reads.
struct RecordMemo {
  static constexpr uint32_t kSlots = 16;
  uint32_t id[kSlots] = {}, next = 0;
  bool val[kSlots] = {};
  const bool* find(uint32_t rid) const {
    for (uint32_t i = 0; i < kSlots; ++i)
      if (id[i] == rid + 1) return &val[i];
    return nullptr;
  }
  void put(uint32_t rid, bool v) {
    id[next] = rid + 1;
    val[next] = v;
    next = (next + 1) % kSlots;
  }
};

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

void RaceDetector::note_order(Sync& s, uint32_t kind, uint32_t who) {
  s.seq = mix64(s.seq ^ (uint64_t{kind} << 32 | who));
}

uint64_t RaceDetector::order_digest() const {
  // Each object's events in time order (which warp arrived, completed or
  // waited, and between which phase completions); summed over the objects,
  // so the order of events on different objects does not enter: schedules
  // differ only where some object saw its events in another order.
  uint64_t d = 0;
  for (size_t c = 0; c < ctas_.size(); ++c)
    for (const auto& [key, s] : ctas_[c].syncs)
      d += mix64(mix64(static_cast<uint64_t>(c) << 48 ^ key) ^ s.seq);
  return d == 0 ? 1 : d;
}

void RaceDetector::release(const sim::Warp& w, uint64_t key) {
  release_at(w, w.cta(), key, sim::Scope::kCta);
}

void RaceDetector::release_at(const sim::Warp& w, int cta, uint64_t key, sim::Scope scope) {
  VectorClock& vc = clock_of(w);
  // What of the warp's lanes' accesses this release publishes.
  CtaState& own = ctas_[w.cta()];
  const uint32_t at = vc.get(comp(w));
  if (w.all_lanes_active()) {
    own.lane_syncs[w.index()].push_back(LaneSync{at, at});
  } else if (w.lanes() == 32) {
    for (uint64_t m = w.active_mask(); m != 0; m &= m - 1)
      own.lane_released[w.index()][__builtin_ctzll(m)] = at;
  }
  Sync& s = sync(cta, key);
  const bool remote = cta != w.cta();
  if (remote && key < (1ull << 40)) {  // a remote mbarrier arrive (not a cluster barrier)
    check_peer_started(w, vc, cta, "mbarrier.arrive.shared::cluster", w.here());
    ctas_[cta].remote.push_back(Remote{&w, 0, vc.get(comp(w)), "remote mbarrier arrive",
                                       w.here(), engine_.now()});
  }
  note_order(s, 1, comp(w));
  s.pending.join(vc);
  if (!remote) {
    s.pending_w.join(wclock_of(w));
  } else if (scope == sim::Scope::kCluster) {
    s.pending_w_remote.join(wclock_of(w));
  } else {
    // CTA scope into a peer: the warp's reads are ordered, its writes (and
    // those it saw) are published only as far as a cluster fence covers them.
    s.pending_w_remote.join(ctas_[w.cta()].cluster_fence[w.index()]);
    cta_scope_releases_.push_back(
        CtaScopeRelease{&w, vc.get(comp(w)), ctas_[w.cta()].cluster_fence[w.index()].get(comp(w)),
                        cta, key, w.here(), engine_.now()});
  }
  tick(w);
}

void RaceDetector::fence_cluster(const sim::Warp& w) {
  CtaState& c = ctas_[w.cta()];
  wclock_of(w).join(c.unacquired[w.index()]);  // the acquire side of the fence
  c.unacquired[w.index()].clear();
  c.cluster_fence[w.index()] = wclock_of(w);
  tick(w);  // later writes are not covered
}

void RaceDetector::release_op(sim::OpId op, int cta, uint64_t key,
                              std::span<const sim::OpId> covered) {
  Sync& s = sync(cta, key);
  const sim::Warp* issuer = ops_[op - 1].issuer;
  if (issuer != nullptr && cta != ops_[op - 1].cta)
    check_peer_started(*issuer, ops_[op - 1].clock, cta, ops_[op - 1].kind, issuer->here());
  note_order(s, 2, issuer != nullptr ? comp(*issuer) : 0xffff);
  s.pending.join(ops_[op - 1].clock);
  s.pending_w.join(ops_[op - 1].wclock);
  const Epoch e{s.comp, s.completed + 1};
  ops_[op - 1].resolved.push_back(e);
  for (sim::OpId c : covered)
    if (c != 0 && ops_[c - 1].resolved.size() < 8) ops_[c - 1].resolved.push_back(e);
}

void RaceDetector::phase_complete(int cta, uint64_t key) {
  Sync& s = sync(cta, key);
  note_order(s, 3, 0);
  ++s.completed;
  s.last = s.pending;
  s.last.set(s.comp, s.completed);
  s.pending.clear();
  s.last_w = s.pending_w;
  s.last_w.set(s.comp, s.completed);
  s.pending_w.clear();
  s.last_w_remote = s.pending_w_remote;
  s.pending_w_remote.clear();
}

void RaceDetector::acquire(const sim::Warp& w, uint64_t key) {
  acquire_at(w, w.cta(), key, sim::Scope::kCta);
}

void RaceDetector::acquire_at(const sim::Warp& w, int cta, uint64_t key, sim::Scope scope) {
  if (w.all_lanes_active())
    clear_lag(w);
  else
    note_partial_acquire(w, clock_of(w).get(comp(w)) + 1);
  Sync& s = sync(cta, key);
  note_order(s, 4, comp(w));
  clock_of(w).join(s.last);
  wclock_of(w).join(s.last_w);
  if (s.last_w_remote.empty()) return;
  if (scope == sim::Scope::kCluster) {
    wclock_of(w).join(s.last_w_remote);
    return;
  }
  // CTA scope: another CTA's release does not synchronize with it; a later
  // fence.acq_rel.cluster by the warp takes what it left.
  ctas_[w.cta()].unacquired[w.index()].join(s.last_w_remote);
  cta_scope_acquires_.push_back(
      CtaScopeAcquire{&w, clock_of(w).get(comp(w)), key, w.here(), engine_.now()});
}

void RaceDetector::complete_local(const sim::Warp& w, sim::OpId op) {
  if (op == 0) return;
  if (!w.all_lanes_active()) note_partial_acquire(w, clock_of(w).get(comp(w)) + 1);
  const uint32_t c = tick(w);
  ops_[op - 1].resolved.push_back(Epoch{comp(w), c});
}

bool RaceDetector::known_complete(const sim::Warp& w, sim::OpId op) const {
  if (op == 0) return true;
  const VectorClock& vc = ctas_[w.cta()].warp[w.index()];  // clock_of is not const
  for (const Epoch& e : ops_[op - 1].resolved)
    if (vc.get(e.comp) >= e.value) return true;
  return false;
}

void RaceDetector::fence_proxy_async(const sim::Warp& w, sim::FenceScope scope) {
  CtaState& c = ctas_[w.cta()];
  const uint32_t now = c.warp[w.index()].get(comp(w));
  if (scope != sim::FenceScope::kGlobal) c.fences[w.index()].push_back(now);
  if (scope != sim::FenceScope::kShared) c.global_fences[w.index()].push_back(now);
  tick(w);
}

RaceDetector::Cell& RaceDetector::cell(int cta, sim::Space space, uint64_t granule) {
  static Cell scratch;
  if (space == sim::Space::kGlobal) {
    const uint64_t page = granule >> kGlobalPageShift;
    if (page != last_page_) {
      std::unique_ptr<Cell[]>& cells = global_pages_[page];
      if (cells == nullptr) cells = std::make_unique<Cell[]>(size_t{1} << kGlobalPageShift);
      last_page_ = page;
      last_cells_ = cells.get();
    }
    return last_cells_[granule & ((uint64_t{1} << kGlobalPageShift) - 1)];
  }
  auto& v = space == sim::Space::kSmem ? ctas_[cta].smem : ctas_[cta].tmem;
  if (v.empty()) v.resize(space == sim::Space::kSmem ? smem_cells_ : 4 * sim::kTmemQuarterStride);
  if (granule >= v.size()) {
    scratch = Cell{};
    return scratch;
  }
  return v[granule];
}

bool RaceDetector::ordered_in(const Record& r, const Accessor& a, const VectorClock& vc,
                              bool lanes) const {
  if (domain(r.warp->cta()) != domain(a.cta)) return false;
  if (r.op == 0) {
    const uint32_t seen = vc.get(comp(*r.warp));
    if (seen < r.clock) return false;
    if (!lanes || r.lane < 0 || !r.write) return true;
    if (a.warp != r.warp) return lane_published(r, seen);
    // The warp's own later access: an async operation it issued reads the
    // lane's write only after a lane sync (or if the lane issued it); another
    // lane's access in a lane loop only after a lane sync (lane_synced). A
    // warp-wide access is not judged (which lane touches which bytes is not
    // known).
    if (a.op != 0) return lane_before_op(r, ops_[a.op - 1]);
    const int lane = access_lane(*a.warp);
    return lane < 0 || lane == r.lane || lane_synced(r, seen);
  }
  if (r.op == a.op) return true;
  const Op& o = ops_[r.op - 1];
  // A lagging lane does not see its warp's own completions from lag_from on.
  const uint32_t own = a.lag_from != 0 ? comp(*a.warp) : ~0u;
  for (const Epoch& e : o.resolved)
    if (vc.get(e.comp) >= e.value && (e.comp != own || e.value < a.lag_from)) return true;
  // The tensor core executes one warp's MMAs in issue order (PTX 9.7.16.6.2).
  return a.op != 0 && a.warp == o.issuer && std::string_view(o.kind) == "tcgen05.mma" &&
         std::string_view(a.kind) == "tcgen05.mma";
}

bool RaceDetector::after_issue(const Record& r, const Accessor& a) const {
  if (r.op == 0 || domain(r.warp->cta()) != domain(a.cta)) return false;
  const Op& o = ops_[r.op - 1];
  return a.clock->get(comp(*o.issuer)) >= o.issue_clock;
}

bool RaceDetector::fenced(const Record& r, const Accessor& a) const {
  if (!r.write || r.proxy != sim::Proxy::kGeneric || a.proxy != sim::Proxy::kAsync) return true;
  const CtaState& c = ctas_[r.warp->cta()];
  const auto& f = (r.space == sim::Space::kGlobal ? c.global_fences : c.fences)[r.warp->index()];
  auto it = std::lower_bound(f.begin(), f.end(), r.clock);
  return it != f.end() && (reads_write(r, a) ? a.wclock : a.clock)->get(comp(*r.warp)) >= *it;
}

bool RaceDetector::check(uint32_t prior, const Accessor& a, uint32_t current, uint64_t granule,
                         bool read_since) {
  const Record& p = records_[prior];
  const Record& cur = records_[current];
  if (!p.write && !a.write) return false;
  if (p.atomic && a.atomic) return false;
  // A write over a thread's write from another CTA that nobody read since:
  // only the write clock orders the two (coherence through a read does not
  // apply), so a CTA-scope release between them leaves them unordered. An
  // async operation's write (a TMA load's) is complete when its barrier
  // phase is, as the CTA-scope waits for it assume (acquire_at).
  if (p.write && a.write && p.op == 0 && !p.atomic && !a.atomic && !read_since &&
      ordered_in(p, a, *a.clock) && !ordered_in(p, a, *a.wclock)) {
    report_scope(p, cur, a, granule);
    return true;
  }
  if (ordered(p, a)) {
    if (fenced(p, a)) return false;
    report_pair("proxy_fence", "proxy.missing_fence_proxy_async",
                p.space == sim::Space::kGlobal
                    ? "the generic-proxy write to global memory reaches an async-proxy access "
                      "(a TMA load) without a fence.proxy.async.global (or fence.proxy.async) by "
                      "the writing thread in between; fence.proxy.async.shared::cta does not "
                      "cover global memory"
                    : "the generic-proxy write reaches an async-proxy access (TMA, tcgen05) "
                      "without a fence.proxy.async by the writing thread in between",
                p, cur, granule);
    return true;
  }
  if (a.full_clock != nullptr) {
    Accessor full = a;
    full.clock = a.full_clock;
    full.wclock = a.full_wclock;
    full.lag_from = 0;
    if (ordered(p, full)) {
      report_pair("warp_collective", "syncwarp.missing_after_acquire",
                  fmt::format("lane {} of {} made this access after a wait that only other "
                              "lanes of its warp made (an elected lane's mbarrier wait or bulk "
                              "wait_group) with no __syncwarp between: an acquire orders the "
                              "waiting threads' own later accesses, not the other lanes' (PTX "
                              "memory model; bar.warp.sync orders memory among a warp's lanes); "
                              "arch::sync_warp() after the elected lane's wait",
                              a.warp->current_lane(), who(*a.warp)),
                  p, cur, granule);
      return true;
    }
  }
  if (p.lane >= 0 && a.warp == p.warp && a.op == 0) {
    // Another lane of the writing warp, with no __syncwarp since: only where
    // the bytes meet (lanes share the detector's 16-byte granules).
    if (p.hi <= cur.lo || cur.hi <= p.lo) return false;
    report_pair("warp_collective", "syncwarp.missing_within_warp",
                fmt::format("lane {} of {} {} what lane {} of the same warp wrote, with no "
                            "__syncwarp between: a warp's lanes are scheduled independently "
                            "(since Volta) and a converged warp orders nothing among them (PTX "
                            "memory model; bar.warp.sync does); arch::sync_warp() between the "
                            "write and the other lane's access",
                            access_lane(*a.warp), who(*a.warp), a.write ? "overwrites" : "reads",
                            p.lane),
                p, cur, granule);
    return true;
  }
  if (p.lane >= 0 && ordered_in(p, a, reads_write(p, a) ? *a.wclock : *a.clock, false)) {
    report_pair("warp_collective", "syncwarp.missing_before_release",
                fmt::format("lane {} of the earlier warp wrote, and what orders this access "
                            "after it was done by other lanes of that warp (an elected lane's "
                            "arrive, or its issue of an async operation) with no __syncwarp "
                            "between: a thread's release or issue orders its own writes, not the "
                            "other lanes' (PTX memory model; bar.warp.sync orders memory among a "
                            "warp's lanes, a converged warp does not); arch::sync_warp() before "
                            "the elected lane's release or issue",
                            p.lane),
                p, cur, granule);
    return true;
  }
  if (reads_write(p, a) && ordered_in(p, a, *a.clock)) {
    report_scope(p, cur, a, granule);
    return true;
  }
  const std::string_view pk = p.op != 0 ? ops_[p.op - 1].kind : "";
  const std::string_view ak = a.kind;
  // Either form: tcgen05.dealloc and the 2-SM kernel's .cta_group::2.
  if (std::string_view(cur.what).starts_with("tcgen05.dealloc")) {
    report_pair("tmem", "tmem.dealloc_in_use",
                "TMEM is deallocated while this access may still be in flight: wait until every "
                "reader (the epilogue) has signalled that it is done before tcgen05.dealloc",
                p, cur, granule);
    return true;
  }
  if (p.space == sim::Space::kTmem && p.write && !a.write && pk == "tcgen05.st") {
    report_pair("tmem_access", "tmem.read_before_store_wait",
                "TMEM written by tcgen05.st is read before the writing warp's tcgen05.wait::st "
                "and a barrier that orders this reader after it (tcgen05.fence::"
                "before_thread_sync, arrive; wait, tcgen05.fence::after_thread_sync)",
                p, cur, granule);
    return true;
  }
  if (p.space == sim::Space::kTmem && p.write && !a.write) {
    report_pair("tmem_access", "tmem.read_before_commit",
                "TMEM written by tcgen05.mma is read before the MMA's tcgen05.commit completed "
                "an mbarrier phase that this reader waited on",
                p, cur, granule);
    return true;
  }
  if (after_issue(p, a)) {
    if (pk == "tma.store.read" || pk == "tma.store.write") {
      report_pair("commit_group", "bulk_group.reuse_before_wait",
                  "the TMA store was issued before, but its bulk async-group was not waited for "
                  "(cp.async.bulk.wait_group.read before reusing the source, wait_group before "
                  "relying on the destination)",
                  p, cur, granule);
      return true;
    }
    if (pk == "tcgen05.mma") {
      report_pair("commit_group", "tcgen05.reuse_before_commit",
                  "the tcgen05.mma was issued before, but no tcgen05.commit covering it has "
                  "arrived on an mbarrier this access waited on; release the operands through "
                  "tcgen05.commit, not a plain arrive",
                  p, cur, granule);
      return true;
    }
    if (pk == "tcgen05.ld") {
      report_pair("tmem_access", "tcgen05.ld_not_waited",
                  "the tcgen05.ld was not followed by tcgen05.wait::ld before the cells were "
                  "overwritten",
                  p, cur, granule);
      return true;
    }
  }
  if (ak == "tma.load" && a.write && pk == "tma.load" && p.write) {
    // Two loads onto the same bytes with nothing ordering them: a refill
    // before the stage's release (the ring's next lap, or a peer's), or one
    // lap's boxes with overlapping destinations; the pair alone does not tell
    // which, so the report names both.
    report_pair("race", "race.stage_overwritten",
                "two TMA loads write the same shared-memory bytes with nothing ordering them: "
                "either one refills the stage before it was released to its producer, or their "
                "destinations overlap (a multicast slice indexed by the wrong cluster "
                "coordinate, or two boxes given one offset)",
                p, cur, granule);
    return true;
  }
  if (ak == "tma.load" && a.write) {
    report_pair("race", "race.stage_overwritten",
                "the TMA load overwrites bytes still in use: the producer did not wait for the "
                "consumer to release the stage",
                p, cur, granule);
    return true;
  }
  if (pk == "tma.load" && !a.write) {
    report_pair("race", "race.read_before_tma_complete",
                "the read did not wait for the mbarrier phase that the TMA load's complete_tx "
                "finishes",
                p, cur, granule);
    return true;
  }
  if (p.space == sim::Space::kTmem && !p.write) {
    report_pair("race", "race.accumulator_overwritten",
                "the accumulator is overwritten while a reader may still read it: wait for the "
                "epilogue to release it",
                p, cur, granule);
    return true;
  }
  const char* rule = p.write && a.write ? "race.write_after_write"
                     : p.write          ? "race.read_after_write"
                                        : "race.write_after_read";
  report_pair("race", rule, "no happens-before edge (mbarrier, named barrier, wait) orders them",
              p, cur, granule);
  return true;
}

void RaceDetector::access(const sim::Warp& w, sim::OpId op, sim::Space space,
                          std::span<const sim::Range> ranges, bool write, sim::Proxy proxy,
                          const char* what, const std::source_location& loc) {
  record_access(w, op, w.cta(), space, ranges, write, false, proxy, what, loc);
}

void RaceDetector::access_at(const sim::Warp& w, sim::OpId op, int cta, sim::Space space,
                             std::span<const sim::Range> ranges, bool write, sim::Proxy proxy,
                             const char* what, const std::source_location& loc) {
  record_access(w, op, cta, space, ranges, write, false, proxy, what, loc);
}

void RaceDetector::atomic_at(const sim::Warp& w, int cta, sim::Space space,
                             std::span<const sim::Range> ranges, const char* what,
                             const std::source_location& loc) {
  record_access(w, 0, cta, space, ranges, true, true, sim::Proxy::kGeneric, what, loc);
}

void RaceDetector::record_access(const sim::Warp& w, sim::OpId op, int cta, sim::Space space,
                                 std::span<const sim::Range> ranges, bool write, bool atomic,
                                 sim::Proxy proxy, const char* what,
                                 const std::source_location& loc) {
  if (ranges.empty()) return;
  ++accesses_;
  CtaState& c = ctas_[w.cta()];
  const VectorClock& vc = op != 0 ? ops_[op - 1].clock : c.warp[w.index()];
  const VectorClock& wvc = op != 0 ? ops_[op - 1].wclock : c.wwarp[w.index()];
  Record rec;
  rec.warp = &w;
  rec.op = op;
  rec.cta = cta;
  rec.clock = vc.get(comp(w));
  rec.write = write;
  rec.atomic = atomic;
  rec.proxy = proxy;
  rec.space = space;
  rec.what = what;
  rec.site = w.site(loc);
  rec.cycle = engine_.now();
  // NVIDIA's lanes are scheduled independently (since Volta); a CDNA wave's
  // 64 lanes issue in lockstep, their LDS accesses in order.
  // A lane's read is not judged so: the warp issues it before the elected
  // lane's release in its one instruction stream (the letter of the memory
  // model would ask for a __syncwarp there too).
  // (A write by one elected lane keeps no lane: the fences and releases of
  // that lane are not recorded per lane.)
  if (op == 0 && write && w.current_lane() >= 0 && w.lanes() == 32 && space != sim::Space::kTmem)
    rec.lane = static_cast<int8_t>(w.current_lane());
  rec.lo = ranges.front().begin;
  rec.hi = ranges.front().end;
  for (const auto& r : ranges) {
    rec.lo = std::min(rec.lo, r.begin);
    rec.hi = std::max(rec.hi, r.end);
  }
  // A peer's access to this CTA's memory must be ordered before its exit: a
  // warp's DSMEM access, or the write of an operation (a multicast load).
  if (cta != w.cta() && (op == 0 || write))
    ctas_[cta].remote.push_back(
        Remote{&w, op, op == 0 ? rec.clock : 0, what, rec.site, rec.cycle});
  records_.push_back(rec);
  const uint32_t id = static_cast<uint32_t>(records_.size() - 1);
  Accessor a{w.cta(), &vc,   &wvc,  &w, op, proxy, write, atomic,
             op != 0 ? ops_[op - 1].kind : ""};
  // A lane (or a warp-wide access with lanes) that did not take part in the
  // warp's latest partial acquires sees the warp's clocks from before them
  // (its own component as now: program order holds).
  VectorClock lag_clock, lag_wclock;
  const CtaState::Lag& lag = c.lag[w.index()];
  const uint64_t lanes_now = w.current_lane() >= 0 ? uint64_t{1} << w.current_lane() : w.active_mask();
  if (op == 0 && lag.lanes != 0 && (lanes_now & lag.lanes) != 0) {
    lag_clock = lag.clock;
    lag_wclock = lag.wclock;
    lag_clock.set(comp(w), vc.get(comp(w)));
    lag_wclock.set(comp(w), vc.get(comp(w)));
    a.clock = &lag_clock;
    a.wclock = &lag_wclock;
    a.lag_from = lag.from;
    a.full_clock = &vc;
    a.full_wclock = &wvc;
  }
  const uint64_t g = space == sim::Space::kTmem ? 1 : 16;
  bool reported = false, uninit = false;
  // Whether this access is a TMA load's write (the rule below; once per
  // access, not per granule).
  const bool tma_write = write && !atomic && std::string_view(a.kind) == "tma.load";
  // The granules of one access mostly share their earlier records (a tile
  // written by one TMA load, read by one MMA): what check() and ordered()
  // found for a record holds for every granule of this access (they depend
  // on the record and the accessor only), so each record is judged once.
  // check() returning false reports nothing; a record it passed is skipped.
  RecordMemo passed, ord;
  auto check_once = [&](uint32_t rid, uint64_t gi, bool read_since = false) {
    if (passed.find(rid) != nullptr) return false;
    const bool rep = check(rid, a, id, gi, read_since);
    // A pass that coherence gave holds only for the granules it holds in.
    if (!rep && !read_since) passed.put(rid, true);
    return rep;
  };
  auto ordered_once = [&](uint32_t rid) {
    if (const bool* v = ord.find(rid)) return *v;
    const bool v = ordered(records_[rid], a);
    ord.put(rid, v);
    return v;
  };
  for (const auto& r : ranges) {
    if (r.end <= r.begin) continue;
    for (uint64_t gi = r.begin / g; gi < (r.end + g - 1) / g; ++gi) {
      Cell& cl = cell(cta, space, gi);
      if (write && !atomic) {
        // A TMA load over an earlier TMA load's bytes: the reads in between
        // are judged first, so that a stage refilled before its release is
        // reported against the reader it overwrites, and the two loads' own
        // race only when no reader is in it.
        const bool tma_over_tma = tma_write && cl.write != 0 && records_[cl.write - 1].op != 0 &&
                                  std::string_view(ops_[records_[cl.write - 1].op - 1].kind) ==
                                      "tma.load";
        // A read of the last write ordered before this one (coherence):
        // asked only where check() uses it, over a thread's plain write.
        bool read_since = false;
        if (cl.write != 0 && records_[cl.write - 1].op == 0 && !records_[cl.write - 1].atomic)
          for (int i = 0; i < cl.nreads && !read_since; ++i)
            read_since = ordered_in(records_[cl.reads[i] - 1], a, *a.clock);
        if (!reported && cl.write != 0 && !tma_over_tma)
          reported = check_once(cl.write - 1, gi, read_since);
        for (int i = 0; i < cl.nreads && !reported; ++i) reported = check_once(cl.reads[i] - 1, gi);
        if (!reported && tma_over_tma) reported = check_once(cl.write - 1, gi, read_since);
        cl.write = id + 1;
        cl.nreads = 0;
        continue;
      }
      // A read, or an atomic: kept with the reads (an atomic does not replace
      // the last plain write), checked against the last plain write and the
      // atomics since (an atomic also against the plain reads).
      bool atomics = false;
      for (int i = 0; i < cl.nreads; ++i) {
        const Record& e = records_[cl.reads[i] - 1];
        if (!e.write && !atomic) continue;
        atomics |= e.atomic;
        if (!reported) reported = check_once(cl.reads[i] - 1, gi);
      }
      if (cl.write == 0 && !atomics) {
        if (space != sim::Space::kGlobal && !uninit) {
          uninit = true;
          auto key = std::make_tuple(std::string("uninitialized"), sim::format_location(loc),
                                     std::string());
          if (reported_.insert(key).second && race_reports_ < kMaxRaceReports) {
            ++race_reports_;
            sim::Finding f;
            f.cls = "uninitialized";
            f.rule = space == sim::Space::kTmem ? "uninitialized.tmem_read" : "uninitialized.smem_read";
            f.message = fmt::format("{} by {} reads {} {} of CTA {} that nothing has written",
                                    what, who(w), space_name(space),
                                    range_text(space, gi * g, gi * g + g), cta);
            sim::locate(f, w.site(loc));
            engine_.report(std::move(f));
          }
        }
      } else if (!reported && cl.write != 0) {
        reported = check_once(cl.write - 1, gi);
      }
      int n = 0;
      for (int i = 0; i < cl.nreads; ++i)
        if (!ordered_once(cl.reads[i] - 1)) cl.reads[n++] = cl.reads[i];
      if (n == kMaxReads) {
        std::copy(cl.reads + 1, cl.reads + n, cl.reads);
        --n;
      }
      cl.reads[n++] = id + 1;
      cl.nreads = static_cast<uint8_t>(n);
    }
  }
  // After the races: a race with the peer's own accesses says more.
  if (cta != w.cta() && (op == 0 || write)) check_peer_started(w, vc, cta, what, rec.site);
}

}  // namespace sk::verify
