// race_detector.h: happens-before race detection over the events a model emits
// (engine/observer.h).
//
// Clocks: one vector clock per warp. Sync objects release the joined clocks of
// their arrivals when a phase completes; waiters acquire them. Async operations
// (TMA, tcgen05) carry the clock of their issuer at issue; their accesses are
// recorded with the epoch of the completion that publishes them, which is
// known only later: the mbarrier phase their complete_tx or commit lands in,
// or the issuer's own wait (wait_group, wait::ld). Until then nobody is
// ordered after them.
//
// Shadow state: per 16-byte granule of SMEM and global memory and per TMEM
// cell (lane quarter x column), the last write and the unordered reads since,
// each with its proxy. Checks on every access:
//   * conflicting accesses not ordered by happens-before: a race (or, when the
//     later access is ordered after the earlier operation's issue but not its
//     completion, a missing completion wait: commit_group / tmem_access);
//   * an async-proxy access after a generic write that no fence.proxy.async by
//     the writer (ordered before the access) covers: proxy_fence;
//   * a read of SMEM or TMEM that nothing wrote: uninitialized.
// Scope: CTAs synchronize with each other only through kernel launch, so
// conflicting global accesses from two CTAs are always reported, unless
// they belong to one thread-block cluster: a cluster is one clock domain
// (component of warp w of rank r: r x warps_per_cta + w; sync objects after
// them), so a remote arrive, a multicast load's complete_tx on a peer's
// barrier or a cluster barrier orders accesses of different CTAs. Shared
// memory is shadowed per CTA; an access may target a peer's (access_at).
//
// Release scopes (PTX memory model: a release and an acquire synchronize
// only when each is in the other's scope, "morally strong"; D8): every warp
// and async operation has two clocks. `clock` orders what others did before
// it; `wclock` (never ahead of clock) says which writes it may read: an
// earlier write is visible to a later read (or an atomic's read) only when
// wclock covers it. Every edge carries both, except a release at CTA scope
// into another CTA of the cluster (the default mbarrier.arrive.shared::
// cluster): it carries the releaser's clock but, in place of its wclock,
// only what its last fence.acq_rel.cluster covered. So a consumer that read
// a stage can hand it back to a peer's producer with a CTA-scope arrive
// (CUTLASS's ClusterBarrier::arrive) and the producer's refill is ordered
// after those reads and, by coherence, after the write they read; while data
// a CTA wrote and signalled that way is a scope finding
// (scope.cta_release_cross_cta) when the peer reads it. A later write, and
// a CTA's exit, are judged on the clock: a write that nobody read, then
// overwritten by a peer after a CTA-scope hand-off, is not reported. A
// warp's own component is the same in both clocks.
//
// Lanes: a warp is one thread of execution in the model, but its lanes are
// not one thread to the memory model. A write made in a lane loop keeps its
// lane; another warp (or an async operation the warp issues) is ordered
// after it only through a release that published that lane's writes: one
// the lane took part in, or one after a __syncwarp of the whole warp or a
// release by the whole warp (else syncwarp.missing_before_release). After
// an acquire by part of a warp (an elected lane's wait), its other lanes
// see the warp's clocks from before it until a __syncwarp or a whole-warp
// acquire (else syncwarp.missing_after_acquire). 32-lane warps only.
//
// A peer's shared memory and barriers are used only by an accessor ordered
// after something the peer did (cluster.peer_not_started): the model's CTAs
// of a cluster start together, the hardware's need not.
//
// Atomics (atomic_at) are kept with a granule's reads, so they do not
// replace its last plain write; they race with plain accesses, never with
// each other.
//
// Initialisation order (init_order.cc): an mbarrier's init (and an MI300X
// counter's) is an event on its warp's clock; every use of the object must be
// ordered after it, or it is an `<object>.init_not_ordered` finding, whether
// the use came after the init in time or before it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "engine/observer.h"
#include "engine/warp.h"
#include "verify/hb/vector_clock.h"

namespace sk::verify {

class RaceDetector : public sim::Observer {
 public:
  explicit RaceDetector(sim::Engine& engine);

  void launch(int ctas, int warps_per_cta, uint64_t smem_bytes, int cluster_size) override;
  sim::OpId issue_async(const sim::Warp& issuer, const char* kind) override;
  void access(const sim::Warp& w, sim::OpId op, sim::Space space,
              std::span<const sim::Range> ranges, bool write, sim::Proxy proxy, const char* what,
              const std::source_location& loc) override;
  void access_at(const sim::Warp& w, sim::OpId op, int cta, sim::Space space,
                 std::span<const sim::Range> ranges, bool write, sim::Proxy proxy, const char* what,
                 const std::source_location& loc) override;
  void atomic_at(const sim::Warp& w, int cta, sim::Space space, std::span<const sim::Range> ranges,
                 const char* what, const std::source_location& loc) override;
  void sync_init(const sim::Warp& w, uint64_t key, const InitKind& init,
                 const std::source_location& loc) override;
  void sync_use(const sim::Warp& w, uint64_t key, const char* what, std::string_view name,
                const std::source_location& loc) override;
  void sync_use_at(const sim::Warp& w, int cta, uint64_t key, const char* what,
                   std::string_view name, const std::source_location& loc) override;
  void release(const sim::Warp& w, uint64_t key) override;
  void release_at(const sim::Warp& w, int cta, uint64_t key, sim::Scope scope) override;
  void fence_cluster(const sim::Warp& w) override;
  void release_op(sim::OpId op, int cta, uint64_t key, std::span<const sim::OpId> covered) override;
  void phase_complete(int cta, uint64_t key) override;
  void acquire(const sim::Warp& w, uint64_t key) override;
  void acquire_at(const sim::Warp& w, int cta, uint64_t key, sim::Scope scope) override;
  void complete_local(const sim::Warp& w, sim::OpId op) override;
  bool known_complete(const sim::Warp& w, sim::OpId op) const override;
  void fence_proxy_async(const sim::Warp& w, sim::FenceScope scope) override;
  void warp_sync(const sim::Warp& w) override;
  void cta_exit(int cta) override;
  uint64_t order_digest() const override;

  uint64_t accesses_checked() const { return accesses_; }
  // Names a global address in reports ("D+0x1c00"), so that reports do not
  // depend on where the host placed the buffers.
  void set_global_namer(std::function<std::string(uint64_t)> fn) { global_namer_ = std::move(fn); }

 private:
  static constexpr int kMaxReads = 8;
  struct Op {
    int cta = 0;
    const sim::Warp* issuer = nullptr;
    uint32_t issue_clock = 0;
    uint64_t lanes = 0;          // the issuer's lanes that issued it
    const char* kind = "";
    VectorClock clock;           // the issuer's clocks at issue
    VectorClock wclock;
    std::vector<Epoch> resolved;  // completions that publish the op
  };
  struct Record {
    const sim::Warp* warp = nullptr;  // the warp, or the op's issuer
    sim::OpId op = 0;
    uint32_t clock = 0;  // warp accesses: the warp's clock
    bool write = false;
    bool atomic = false;  // an atomic read-modify-write (write is set too)
    sim::Proxy proxy = sim::Proxy::kGeneric;
    sim::Space space = sim::Space::kSmem;
    const char* what = "";
    sim::Site site;  // the access's call site and the components above it
    sim::Cycle cycle = 0;
    uint64_t lo = 0, hi = 0;  // the whole access, for reports
    int cta = 0;              // whose memory (SMEM, TMEM): the warp's or a cluster peer's
    int8_t lane = -1;         // a warp's access made by one lane (a lane loop), else -1
  };
  // A point after which a warp's releases publish all its lanes' accesses
  // up to `upto` (its clock component): a __syncwarp (then from `need` =
  // upto + 1 on) or a release by every lane (`need` = upto).
  struct LaneSync {
    uint32_t upto = 0, need = 0;
  };
  struct Cell {
    uint32_t write = 0;  // record index + 1; 0 = never written
    uint32_t reads[kMaxReads] = {};
    uint8_t nreads = 0;
  };
  // A point in one warp's program order: an init or a use of a sync object.
  struct SyncEvent {
    const sim::Warp* warp = nullptr;
    uint32_t clock = 0;  // the warp's own clock component at the event
    const char* what = "";
    std::string name;    // the object's name in reports (uses only)
    sim::Site site;
    sim::Cycle cycle = 0;
  };
  struct Sync {
    uint32_t comp = 0;
    uint32_t completed = 0;
    // The arrivals' clocks and write clocks, pending and of the last
    // completed phase; the writes that releases from other CTAs of the
    // cluster published (`_remote`: only an acquire at cluster scope takes
    // them).
    VectorClock pending, last, pending_w, last_w, pending_w_remote, last_w_remote;
    std::string name;  // from the uses, for reports
    // The latest init (init.warp null: none yet) and, before it, the first
    // use by each warp that came earlier in time (checked at the init).
    SyncEvent init;
    InitKind kind{};
    std::vector<SyncEvent> early;
    // order_digest: a running hash of the object's events in time order.
    uint64_t seq = 0;
  };
  // A peer's remote access to a CTA (a remote arrive or a DSMEM access by a
  // warp, a multicast load's write by an op), checked against the CTA's exit.
  struct Remote {
    const sim::Warp* warp = nullptr;
    sim::OpId op = 0;
    uint32_t clock = 0;  // the warp's own component at a warp's access
    const char* what = "";
    sim::Site site;
    sim::Cycle cycle = 0;
  };
  // A release at CTA scope into another CTA (reports of the scope rule).
  struct CtaScopeRelease {
    const sim::Warp* warp = nullptr;
    uint32_t clock = 0;   // the warp's own component at the release
    uint32_t fenced = 0;  // ... at its last fence.acq_rel.cluster (what it publishes)
    int cta = 0;          // the CTA of the sync object
    uint64_t key = 0;
    sim::Site site;
    sim::Cycle cycle = 0;
  };
  // An acquire at CTA scope of a phase into which other CTAs published
  // writes (reports of the scope rule).
  struct CtaScopeAcquire {
    const sim::Warp* warp = nullptr;
    uint32_t clock = 0;  // the warp's own component at the acquire
    uint64_t key = 0;    // the mbarrier (of the warp's CTA)
    sim::Site site;
    sim::Cycle cycle = 0;
  };
  struct CtaState {
    std::vector<Remote> remote;
    // Per warp: its clock and write clock, its write clock at its last
    // fence.acq_rel.cluster (empty: none), and the other CTAs' published
    // writes its acquires at CTA scope did not take (until such a fence).
    std::vector<VectorClock> warp, wwarp, cluster_fence, unacquired;
    // Per warp: its lane syncs (ascending), and per lane the warp's clock
    // component at its latest release by a part of the warp that included
    // the lane (an elected lane's arrive publishes that lane's accesses).
    std::vector<std::vector<LaneSync>> lane_syncs;
    std::vector<std::array<uint32_t, 32>> lane_released;
    // Per warp: the lanes that did not take part in an acquire of part of
    // the warp since its last lane sync, the warp's clocks before that
    // acquire, and its own component's value then.
    struct Lag {
      uint64_t lanes = 0;
      VectorClock clock, wclock;
      uint32_t from = 0;
    };
    std::vector<Lag> lag;
    // Per warp: clocks of its fence.proxy.async covering shared memory
    // (.shared::cta or all) and covering global memory (.global or all).
    std::vector<std::vector<uint32_t>> fences, global_fences;
    std::unordered_map<uint64_t, Sync> syncs;
    std::vector<Cell> smem, tmem;
  };
  struct Accessor {
    int cta;
    const VectorClock* clock;
    const VectorClock* wclock;
    const sim::Warp* warp;
    sim::OpId op;
    sim::Proxy proxy;
    bool write;
    bool atomic;
    const char* kind;  // op kind, or "" for the warp itself
    // A lane that did not take part in its warp's latest acquires (an
    // elected lane's wait) since the warp's last lane sync: `clock` and
    // `wclock` are the warp's from before them, `lag_from` the first of the
    // warp's own completion epochs it does not see, and `full_*` the
    // warp's own clocks (for the report). 0 / null otherwise.
    uint32_t lag_from = 0;
    const VectorClock* full_clock = nullptr;
    const VectorClock* full_wclock = nullptr;
  };

  Sync& sync(int cta, uint64_t key);
  // The clock domain (cluster) of a CTA, a warp's component in it, and the
  // next free sync-object component of a domain.
  int domain(int cta) const { return cta / cluster_size_; }
  uint32_t comp(const sim::Warp& w) const {
    return static_cast<uint32_t>((w.cta() % cluster_size_) * warps_per_cta_ + w.index());
  }
  VectorClock& clock_of(const sim::Warp& w) { return ctas_[w.cta()].warp[w.index()]; }
  VectorClock& wclock_of(const sim::Warp& w) { return ctas_[w.cta()].wwarp[w.index()]; }
  // Advances the warp's own component (in both of its clocks).
  uint32_t tick(const sim::Warp& w) {
    const uint32_t c = clock_of(w).tick(comp(w));
    wclock_of(w).set(comp(w), c);
    return c;
  }
  uint32_t new_component(int cta) { return domain_components_[domain(cta)]++; }
  Cell& cell(int cta, sim::Space space, uint64_t granule);
  // Whether r happens before a in clock `vc` (a's clock or write clock);
  // ordered() takes the one the pair needs: the write clock when a reads
  // what r wrote (a load, or an atomic's read), else the clock.
  // With `lanes`, a warp's access made by one lane is ordered only through a
  // release that publishes that lane's accesses (its own, or any after a
  // __syncwarp or a release by the whole warp).
  bool ordered_in(const Record& r, const Accessor& a, const VectorClock& vc,
                  bool lanes = true) const;
  bool lane_published(const Record& r, uint32_t seen) const;
  // Whether a lane sync of the writing warp lies between lane write `r` and
  // a point whose clock of that warp is `seen`.
  bool lane_synced(const Record& r, uint32_t seen) const;
  // The lane making warp `w`'s access: a lane loop's, or the one active lane
  // (an elected lane's); -1 for an access by several lanes.
  static int access_lane(const sim::Warp& w);
  // An acquire by part of warp `w` (lanes outside it lag until a lane sync);
  // `from` is the warp's own component value from which they lag.
  void note_partial_acquire(const sim::Warp& w, uint32_t from);
  void clear_lag(const sim::Warp& w) { ctas_[w.cta()].lag[w.index()].lanes = 0; }
  // Whether a lane's write `r` is ordered before operation `o` that its own
  // warp issued: the lane issued it, or a lane sync came between.
  bool lane_before_op(const Record& r, const Op& o) const;
  static bool reads_write(const Record& r, const Accessor& a) {
    return r.write && (!a.write || a.atomic);
  }
  bool ordered(const Record& r, const Accessor& a) const {
    return ordered_in(r, a, reads_write(r, a) ? *a.wclock : *a.clock);
  }
  bool after_issue(const Record& r, const Accessor& a) const;
  bool fenced(const Record& r, const Accessor& a) const;
  // Returns true when a finding was made for this access. `read_since`: for
  // a write after a write, whether a read of the earlier write is ordered
  // before it (coherence then orders the two writes, whatever the scope of
  // the releases between them).
  bool check(uint32_t prior, const Accessor& a, uint32_t current, uint64_t granule,
             bool read_since = false);
  void report_pair(const std::string& cls, const std::string& rule, const std::string& why,
                   const Record& earlier, const Record& later, uint64_t granule,
                   const std::string& extra = "");
  // A finding of rule `rule` (class `cls`) at `site` about CTA `cta`, once
  // per (rule, the site's line, cta) and within the report cap; none when
  // left out. The caller writes the message and reports it.
  std::optional<sim::Finding> new_finding(const char* cls, const char* rule, const sim::Site& site,
                                          int cta);
  // Whether clock `vc` orders anything CTA `cta` did after the accessor's
  // CTA's launch: any of its warps' components (each starts at 1 there).
  bool knows_started(const VectorClock& vc, int cta) const;
  // A use of CTA `cta`'s shared memory or barriers by `w` (or by its
  // operation, whose clock is `vc`) before `vc` orders it after that CTA
  // started: cluster.peer_not_started, once per call site.
  void check_peer_started(const sim::Warp& w, const VectorClock& vc, int cta, const char* what,
                          const sim::Site& site);
  // A write that only a CTA-scope release orders before a peer's access.
  void report_scope(const Record& earlier, const Record& later, const Accessor& a,
                    uint64_t granule);
  void record_access(const sim::Warp& w, sim::OpId op, int cta, sim::Space space,
                     std::span<const sim::Range> ranges, bool write, bool atomic,
                     sim::Proxy proxy, const char* what, const std::source_location& loc);
  std::string describe(const Record& r) const;
  // init_order.cc: a use of a sync object not ordered after its init.
  SyncEvent event_now(const sim::Warp& w, const char* what, const std::source_location& loc) const;
  void report_init_order(const Sync& s, const SyncEvent& use, uint64_t key, bool use_first);
  std::string range_text(sim::Space s, uint64_t lo, uint64_t hi) const;

  sim::Engine& engine_;
  std::function<std::string(uint64_t)> global_namer_;
  std::vector<CtaState> ctas_;
  int cluster_size_ = 1, warps_per_cta_ = 0;
  std::vector<uint32_t> domain_components_;  // per cluster: components handed out
  uint64_t smem_cells_ = 0;     // 16-byte granules of a CTA's SMEM
  std::deque<Op> ops_;          // OpId i -> ops_[i - 1]
  std::deque<Record> records_;  // record index i -> records_[i]
  std::vector<CtaScopeRelease> cta_scope_releases_;
  std::vector<CtaScopeAcquire> cta_scope_acquires_;
  void report_scope_acquire(const CtaScopeAcquire& acq, const Record& earlier, const Record& later,
                            const Accessor& a, uint64_t granule);
  // A sync object's name in reports ("the mbarrier at offset 0x..." when unnamed).
  std::string barrier_name(int cta, uint64_t key) const;
  // Global memory's granules in pages of 2^kGlobalPageShift, created zeroed on
  // first touch (a never-touched granule is a default Cell); the last page
  // found is remembered, since an access walks consecutive granules.
  static constexpr uint64_t kGlobalPageShift = 8;
  std::unordered_map<uint64_t, std::unique_ptr<Cell[]>> global_pages_;
  uint64_t last_page_ = ~uint64_t{0};
  Cell* last_cells_ = nullptr;
  std::set<std::tuple<std::string, std::string, std::string>> reported_;
  int race_reports_ = 0;
  int init_reports_ = 0;
  uint64_t accesses_ = 0;
  // Adds event `kind` (1 arrive, 2 async completion, 3 phase completion,
  // 4 successful wait) of warp `who` to the object's order (Sync::seq).
  static void note_order(Sync& s, uint32_t kind, uint32_t who);
};

}  // namespace sk::verify
