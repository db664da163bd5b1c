// gpu.h: the simulated SM100 device for one kernel launch.
//
// State is per CTA (this kernel family runs one CTA per SM, as every kernel
// that allocates TMEM does): shared memory with real bytes, the mbarriers
// living in it, named barriers, TMEM, the tensor core queue and per-warp
// async-operation bookkeeping (bulk async-groups, outstanding tcgen05 ops).
// Global memory is shared by all CTAs, and so is HBM bandwidth.
//
// Grids larger than the SM count: at most num_sms CTAs are resident, one per
// SM; the others are pending in launch order. When a CTA exits, its SM starts
// the lowest pending CTA id (a fresh Cta whose SMEM reuses the SM's storage,
// zeroed). clusterlaunchcontrol.try_cancel (api_clc.cc) removes the lowest
// pending id instead, so every CTA id runs at most once. A grid of at most
// num_sms CTAs starts them all at cycle 0, CTA c on SM c; one of fewer CTAs
// on the first `grid` SMs of Params::fill_order where the file gives one
// (the hardware's spread over GPCs), CTA c on the c-th lowest of them.
//
// Thread-block clusters (launch's cluster_size C > 1): the grid is C-CTA
// clusters, CTA id c being rank c % C of cluster c / C. A cluster runs on C
// SMs of one GPC at once (Params::gpc_sms: the SMs each GPC offers clusters,
// in SM order; empty: any C consecutive SMs), so at most
// max_active_clusters(C) run together; a pending cluster starts when a whole
// cluster has exited, on its SMs. The CTAs of a cluster reach each other's
// SMEM and mbarriers (api_cluster.cc) and share a cluster barrier
// (barrier.cluster) over their non-exited warps.
//
// Modes: in functional mode global memory, SMEM and TMEM hold real bytes and
// tcgen05.mma computes real products. In timing mode only addresses, sizes and
// times are tracked, so large grids simulate quickly; global memory then has
// no backing store and TMA data movement is skipped.
#pragma once

#include <cstdint>
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/global_memory.h"
#include "models/common/shared_link.h"
#include "models/sm100/l2_cache.h"
#include "models/sm100/oob_path.h"
#include "models/sm100/params.h"
#include "models/sm100/sm_clock.h"
#include "engine/engine.h"
#include "engine/lanes.h"
#include "engine/warp.h"

namespace sc_core {
class sc_event;
}

namespace sk::models::sm100 {

using sim::Cycle;

// Global memory is shared with the other models (models/common/global_memory.h).
using Allocation = sk::models::Allocation;
using GlobalMemory = sk::models::GlobalMemory;

struct Mbarrier {
  bool valid = false;
  bool overwrite_reported = false;  // mbarrier.overwritten_while_live, once per barrier
  int cta = -1;
  uint32_t offset = 0;  // SMEM offset: the barrier's key for the observer
  uint32_t expected = 0;
  uint32_t pending = 0;
  int64_t tx = 0;
  uint64_t phase = 0;   // number of completed phases
  std::string name;     // from annotate_barrier, e.g. "full[2]"
  std::string wait_label;  // "wait full[2]": the trace slice of a blocked wait
  std::unique_ptr<sc_core::sc_event> flipped;
  // PTX 9.7.13.15.4: each completed phase must be observed by a successful
  // wait before the next phase receives an arrival.
  bool observed = true;
  bool overrun_reported = false;
  uint64_t flow = 0;    // trace flow from the op that completed the phase
  uint64_t pending_flow = 0;  // flow of the last async arrival in this phase
  // Ledger of the incomplete phase, for deadlock reports.
  uint64_t tx_expected = 0, tx_delivered = 0;
  uint32_t arrivals = 0;
  // Who arrived last, in any phase: a warp, or (null warp) the async op.
  // Formatted only for a report (mbar::likely_cause).
  const sim::Warp* last_warp = nullptr;
  const char* last_op = nullptr;
  // The warps that arrived in the incomplete phase and in the last completed
  // one (an async op's arrival: null): a deadlock report follows a short
  // barrier's missing arrivers to where they are blocked.
  std::vector<const sim::Warp*> arrivers, prev_arrivers;
  uint64_t arrivals_total = 0;
  uint32_t loads_in_flight = 0;       // TMA loads issued, complete_tx pending
  // TMA loads issued into the incomplete phase; whether the last completed
  // phase had any; where the latest load was issued (CTA-exit check).
  uint32_t loads_this_phase = 0;
  bool completed_had_loads = false;
  sim::Site last_load;
  int last_load_cta = -1;  // the CTA that issued it (a multicast's may be a peer)
  bool early_reported = false;
  std::vector<int64_t> observed_by;   // per warp: last completed phase it observed
  // Per warp: the phase its next wait is for, as the kernel's pipeline
  // declared it (annotate_wait_phase: its lap), or kNoPhase.
  static constexpr int64_t kNoPhase = INT64_MIN;
  std::vector<int64_t> wanted_by;
  bool stale_reported = false;
  // The latest completed phase any wait observed (-1: none): a tcgen05.commit
  // that landed in phase p was waited for once this reaches p.
  int64_t max_observed = -1;
  // Arrivals taken ahead of the engine's time (mbar::arrive_ahead) were made
  // at warps' own times up to `horizon`: the phase completes no earlier, at an
  // engine callback if the last arrival comes before it (completion_due).
  Cycle horizon = 0;
  bool completion_due = false;
};

struct NamedBarrier {
  uint32_t expected = 0;
  uint32_t arrived = 0;
  uint64_t generation = 0;
  std::unique_ptr<sc_core::sc_event> done;
};

struct BulkGroup {
  Cycle read_done = 0;
  Cycle write_done = 0;
  std::vector<sim::OpId> reads, writes;  // observer operations of its stores
  uint32_t stores = 0;                   // TMA stores in the group
  sim::Site first;                       // where its first store was issued
};

// Async bookkeeping of one warp (tcgen05 and bulk async-group state is per
// issuing thread; kernels issue from one elected lane, so per warp suffices).
// tcgen05.mma and tcgen05.cp ops of one thread between two commits: the
// commit that ends the segment covers them (and every earlier op of the
// thread). Checked at CTA exit (tcgen05.alive_at_exit).
struct TcSegment {
  uint32_t ops = 0;               // async tcgen05 ops in the segment
  const char* op = nullptr;       // the first of them and where it was issued
  sim::Site first;
  Mbarrier* bar = nullptr;        // the commit's barrier (null: not committed yet)
  int64_t landed = -1;            // phase its arrival landed in (-1: not arrived)
  sim::Site commit;               // where the commit was issued
};

// Whether a wait observed the phase the segment's commit landed in.
inline bool tc_waited(const TcSegment& s) {
  return s.bar != nullptr && s.landed >= 0 && s.bar->max_observed >= s.landed;
}

struct WarpAsync {
  BulkGroup open;              // stores issued since the last commit_group
  bool open_nonempty = false;
  std::deque<BulkGroup> groups;
  size_t reads_waited = 0;     // leading groups whose reads were waited for
  Cycle tcgen05_done = 0;      // completion of the latest async tcgen05 op
  Cycle ld_ready = 0;          // completion of outstanding tcgen05.ld
  std::vector<sim::OpId> tc_live;  // tcgen05.mma ops not yet known complete
  std::vector<sim::OpId> lds;      // tcgen05.ld ops awaiting wait::ld
  Cycle st_ready = 0;              // completion of outstanding tcgen05.st
  std::vector<sim::OpId> sts;      // tcgen05.st ops awaiting wait::st
  bool ld_pending = false;         // a tcgen05.ld not yet waited for
  sim::Site ld_site;               // where it was issued
  // tcgen05.alive_at_exit: ops since the last commit, and the commits not yet
  // known to be waited for (a waited commit drops itself and every earlier
  // one; tc_dropped counts those dropped from the front).
  TcSegment tc_open;
  std::deque<TcSegment> tc_commits;
  uint64_t tc_dropped = 0;
  void tc_issued(const char* op, const sim::Site& site) {
    if (tc_open.ops++ == 0) {
      tc_open.op = op;
      tc_open.first = site;
    }
  }
};

// Kernel-side changes to one tensor map (tensormap.replace) and their
// visibility to the tensormap proxy, which is how TMA reads the map (PTX 9.0
// 9.7.9.26 and fence.proxy.tensormap in 9.7.13.4). A map the host encoded has
// no writes and needs no fence.
struct TensorMapState {
  uint64_t writes = 0;     // tensormap.replace ops made so far
  uint64_t released = 0;   // writes covered by fence.proxy.tensormap::generic.release
  int last_writer = -1;    // warp (cta * warps + warp) of the latest write
  std::string write_site;  // where the latest write was made
  std::unordered_map<int, uint64_t> acquired;  // per warp: writes its acquire made visible
  Cycle in_use_until = 0;  // completion of the latest TMA that read the map
  sim::Site use_site;             // where that TMA was issued
  bool fence_reported = false, in_use_reported = false;
};

struct TmemState {
  std::vector<uint32_t> data;            // 128 lanes x columns, functional mode
  std::map<uint32_t, uint32_t> allocs;   // first column -> number of columns
  bool relinquished = false;
  uint32_t last_alloc_cols = 0;          // nCols of the CTA's latest tcgen05.alloc (0: none)
  // The .cta_group of the CTA's tcgen05 ops so far (0: none yet), and
  // whether mixing them was reported (api_tcgen05.cc).
  uint8_t cta_group = 0;
  bool mixed_reported = false;
  // A cta_group::2 allocation (api_tcgen05_pair.cc): the columns this CTA's
  // warp asked for while it waits for its pair peer (0: not waiting), and
  // the column the peer's call allocated for both (-1: not yet).
  uint32_t pair_request = 0;
  int64_t pair_grant = -1;
  std::unique_ptr<sc_core::sc_event> freed;
};

// The observer key of a cluster's barrier (kept by the cluster's first CTA).
inline constexpr uint64_t kClusterBarrierKey = 1ull << 41;

// One cluster's shared state: its CTAs and its cluster barrier (arrivals
// count warps: barrier.cluster is .aligned, every lane takes part).
struct ClusterState {
  int first = 0;          // CTA ids [first, first + size)
  int size = 1;
  int live_warps = 0;     // warps started and not exited: the barrier's count
  int arrived = 0;        // warps arrived in the current phase
  uint64_t generation = 0;
  int exited = 0;         // CTAs that exited
  int first_sm = 0;       // its SMs: [first_sm, first_sm + size)
  std::unique_ptr<sc_core::sc_event> done;
};

class Cta {
 public:
  // `storage` (smem_bytes + 1024 bytes, from an earlier CTA of the same SM)
  // is zeroed and reused; without it the CTA allocates its own.
  Cta(int id, uint32_t smem_bytes, bool functional, uint32_t tmem_columns,
      std::shared_ptr<uint8_t[]> storage = nullptr);
  ~Cta();
  int id;
  int sm = 0;         // the SM it runs on
  int cluster = 0;            // id / cluster size
  uint32_t cluster_rank = 0;  // %cluster_ctarank
  bool exited = false;        // every warp has exited
  // 1: a query decoded a failed try_cancel response; 2: and a later
  // try_cancel was reported.
  uint8_t clc_failed = 0;
  uint32_t smem_size;
  uint8_t* smem;  // 1024-byte aligned
  std::unordered_map<uint32_t, Mbarrier> barriers;  // by SMEM offset
  // The same barriers as a flat list for lookup: a CTA has a few dozen at
  // most, and a scan beats hashing on the hot wait/arrive path.
  std::vector<std::pair<uint32_t, Mbarrier*>> barrier_list;
  Mbarrier* find_barrier(uint32_t offset) {
    for (auto& [off, b] : barrier_list)
      if (off == offset) return b;
    return nullptr;
  }
  Mbarrier& barrier_at(uint32_t offset);  // creates it when absent
  // The SMEM bytes [barriers_lo, barriers_hi) span every barrier ever
  // initialised: a write outside it cannot touch one (the common case, so
  // the live-barrier check costs one comparison per store).
  uint32_t barriers_lo = UINT32_MAX, barriers_hi = 0;
  NamedBarrier named[16];
  TmemState tmem;
  std::vector<WarpAsync> warp_async;
  std::vector<Mbarrier*> waiting_on;  // per warp: the mbarrier it is blocked on
  std::vector<int> waiting_named;     // per warp: the named barrier it is blocked on (-1: none)
  // Per warp: the cluster-barrier phase it arrived in (-1: none pending) and
  // whether it is blocked in barrier.cluster.wait.
  std::vector<int64_t> cluster_arrived;
  std::vector<uint8_t> waiting_cluster;
  // The SM-to-SM network (Params::dsmem_store_bytes_per_cycle): when this
  // SM's sending and receiving ports are next free, and per warp when its
  // posted DSMEM stores have all landed (a release at cluster scope waits).
  Cycle dsmem_out_free = 0, dsmem_in_free = 0;
  std::vector<Cycle> dsmem_drained;
  Cycle tc_free = 0;    // tensor core: next issue slot (SM90: the latest of tc_quarter_free)
  // SM90: per sub-partition (warp index % 4), when its tensor core is next
  // free for a wgmma quarter (api_wgmma.cc).
  Cycle tc_quarter_free[4] = {};
  // Per sub-partition (warp index % 4): when its FP32 pipe and its SFU are
  // next free for accounted per-lane math (api_alu.cc).
  Cycle fp32_free[4] = {}, sfu_free[4] = {};
  Cycle tma_free = 0;   // SM ingest port
  int warps = 0;
  int warps_done = 0;
  // Busy intervals of the TMA load path and the tensor core, for the summary
  // (add with note_busy).
  std::vector<std::pair<Cycle, Cycle>> tma_busy, tc_busy;
  uint64_t bytes_loaded = 0;
  uint32_t loads_in_flight = 0;  // TMA loads issued and not yet landed
  // Tensor maps whose descriptor this SM has fetched or is fetching, and
  // when each arrives (tensormap_fetch_latency).
  std::vector<std::pair<const void*, Cycle>> maps_fetched;
  uint64_t l2_hits = 0;      // TMA L2 lookups (boxes, im2col row chunks) served by L2
  // The SM's translation cache for TMA (2 MiB pages, least recently used
  // first out): page numbers and their last-use ticks, tlb_size in use.
  uint64_t tlb_page[Params::kMaxTlbEntries] = {};
  uint64_t tlb_used[Params::kMaxTlbEntries] = {};
  uint32_t tlb_size = 0;
  uint64_t tlb_tick = 0;
  bool traced = false;       // tracing is on and this CTA's SM was chosen
  uint32_t trace_track = 0;  // the CTA's track
  uint32_t sm_track = 0;     // its SM's track (engine tracks live there)
  // Counter tracks: TMA bytes in flight, and full stages per pipeline ring.
  uint32_t bytes_track = 0;
  int64_t bytes_in_flight = 0;
  std::map<std::string, std::pair<uint32_t, int64_t>> ring_full;  // ring -> (track, value)
  const std::shared_ptr<uint8_t[]>& storage() const { return smem_storage_; }

 private:
  std::shared_ptr<uint8_t[]> smem_storage_;
};

// Records [begin, end) as busy. Intervals come in nearly sorted (in issue
// order), so one that starts inside the last is folded into it: the union is
// unchanged and the list stays short (one entry per burst, not per op).
inline void note_busy(std::vector<std::pair<Cycle, Cycle>>& v, Cycle begin, Cycle end) {
  if (!v.empty() && begin >= v.back().first && begin <= v.back().second) {
    v.back().second = std::max(v.back().second, end);
    return;
  }
  v.emplace_back(begin, end);
}

class Gpu {
 public:
  Gpu(const Params& params, bool functional);
  ~Gpu();
  // The Gpu of the running launch (inline: every intrinsic asks for it).
  static Gpu& current() {
    if (current_ == nullptr) no_launch();
    return *current_;
  }

  // The parameters at the SM clock now in effect (see set_sm_clock).
  const Params& params() const { return params_; }
  // Changes the SM clock from the current cycle on: the parameters become
  // the construction-time ones at `ghz` (Params::at_sm_clock: the memory
  // side keeps its speed in time), and the clock log records the change.
  // Operations already scheduled keep their times.
  void set_sm_clock(double ghz);
  // The SM clock over the launch so far: maps cycles to time.
  const SmClock& sm_clock() const { return clock_; }
  bool functional() const { return functional_; }
  GlobalMemory& gmem() { return gmem_; }
  sim::Engine& engine() { return engine_; }
  // The verification observer, or nullptr.
  sim::Observer* obs() const { return engine_.observer(); }

  // Launches `grid` CTAs of `warps_per_cta` warps, each running body(): the
  // first min(grid, num_sms) start now, the rest when an SM frees up (unless
  // cancelled). Returns an error message (and launches nothing) when the
  // launch is impossible.
  // With cluster_size > 1 the grid must be a whole number of clusters.
  std::string launch(int grid, int warps_per_cta, uint32_t smem_bytes,
                     const std::function<void()>& body, int cluster_size = 1);
  // Clusters of `size` CTAs (one per SM) that fit on the GPU at once; for
  // size 1, num_sms. Call with the parameters of the launch.
  static int max_active_clusters(const Params& p, int size);
  int cluster_size() const { return cluster_size_; }
  // The cluster's state; a launch without clusters makes each CTA's on its
  // first use of barrier.cluster (a cluster of one).
  ClusterState& cluster(const Cta& cta);
  // Completes the cluster barrier's phase once every live warp has arrived:
  // the waiters (and the observer) see the next generation.
  void complete_cluster_phase_if_due(ClusterState& cl);
  // CTA `rank` of cta's cluster (null when rank is outside the cluster).
  Cta* peer(const Cta& cta, uint32_t rank) {
    if (rank >= static_cast<uint32_t>(cluster_size_)) return nullptr;
    return ctas_[static_cast<size_t>(cta.cluster * cluster_size_) + rank].get();
  }
  sim::RunStatus run(Cycle max_cycles);

  // CTA i (only once started: see started()).
  Cta& cta(int i) { return *ctas_[i]; }
  bool started(int i) const { return ctas_[i] != nullptr; }
  // The launch's grid size (gridDim.x), started or not.
  int num_ctas() const { return static_cast<int>(ctas_.size()); }
  // SMs the launch occupies: min(grid, num_sms), or the clusters' SMs.
  int sms_used() const { return sms_used_; }
  // clusterlaunchcontrol.try_cancel: removes and returns the lowest pending
  // CTA id (in a cluster launch, the lowest pending cluster, by its first
  // CTA), or -1 when every CTA has started or been cancelled.
  int cancel_pending();
  int cancelled() const { return cancelled_; }

  // Current warp and CTA (valid only inside kernel code).
  sim::Warp& warp() {
    sim::Warp* w = engine_.current();
    if (w == nullptr) not_in_kernel();
    return *w;
  }
  Cta& cta_of_current() { return *ctas_[warp().cta()]; }

  // Reports a finding attributed to the current warp at `loc`.
  void finding(const std::string& cls, const std::string& rule, const std::string& message,
               const std::source_location& loc);

  // Kernel-side writes to tensor maps and TMA uses of them, by map address.
  TensorMapState& tensormap_state(const void* map) { return tensormaps_[map]; }
  std::unordered_map<const void*, TensorMapState>& tensormaps() { return tensormaps_; }
  // Index of the current warp across the grid.
  int grid_warp();

  // Shared HBM: reserves `bytes` of bandwidth and returns when they have
  // streamed (all SMs contend for it).
  Cycle hbm_transfer(Cycle start, uint64_t bytes);
  // HBM's recent load at `at` (0..1): its bytes over the last
  // Params::hbm_queue_window cycles (an exponential average, updated by
  // hbm_transfer) against its rate.
  double hbm_load(Cycle at) const;
  // Shared L2 bandwidth: every load streams through it, hit or miss.
  Cycle l2_transfer(Cycle start, uint64_t bytes);
  // The path that zero-fills the rows of TMA boxes outside their tensors,
  // shared by all SMs (Params::oob_path_on()): reserves the `rows` of a box
  // issued at `issued` on `sm`, offered at `start`, and returns when they have
  // passed; oob_landed tells the path when that box lands (its load).
  Cycle oob_fill(int sm, Cycle issued, Cycle start, uint32_t rows);
  void oob_landed(int sm, Cycle done);
  L2& l2() { return l2_; }
  uint64_t hbm_bytes() const { return hbm_bytes_; }
  // Bytes TMA loads read out of L2 (a multicast box once, however many CTAs
  // it lands in); what they wrote into shared memory is the CTAs' bytes_loaded.
  uint64_t tma_l2_read_bytes() const { return tma_l2_read_bytes_; }
  void note_tma_l2_read(uint64_t bytes) { tma_l2_read_bytes_ += bytes; }
  // Bytes of a multicast box's copies past the first that still took the
  // L2's rate (Params::tma_multicast_l2_share of each copy).
  uint64_t tma_l2_copy_bytes() const { return tma_l2_copy_bytes_; }
  void note_tma_l2_copy(uint64_t bytes) { tma_l2_copy_bytes_ += bytes; }
  // Bytes that ld, st, atom and red on .shared::cluster moved between the
  // SMs of a cluster (a peer's shared memory; api_dsmem.cc).
  uint64_t dsmem_bytes() const { return dsmem_bytes_; }
  void note_dsmem(uint64_t bytes) { dsmem_bytes_ += bytes; }
  // SMs with TMA loads in flight; load_started/load_landed keep the count.
  int loading_sms() const { return loading_sms_; }
  void load_started(Cta& cta) {
    if (cta.loads_in_flight++ == 0) ++loading_sms_;
  }
  void load_landed(Cta& cta) {
    if (--cta.loads_in_flight == 0) --loading_sms_;
  }

  // Called when per-lane math on `cta`'s SM, from `at` on, costs the
  // tensor core `lost` cycles (Params::tensor_under_fp32): the arch's wgmma
  // model moves its queued work by that much (models/sm90/api_wgmma.cc).
  void set_tensor_lost_hook(std::function<void(Cta&, sim::Cycle at, sim::Cycle lost)> hook) {
    tensor_lost_hook_ = std::move(hook);
  }
  void tensor_lost(Cta& cta, sim::Cycle at, sim::Cycle lost) {
    if (tensor_lost_hook_) tensor_lost_hook_(cta, at, lost);
  }
  // Called as each warp exits, after the model's own checks: the SM90
  // warpgroup-MMA API checks its groups there (models/sm90/api_wgmma.cc).
  void set_warp_exit_hook(std::function<void(Cta&, const sim::Warp&)> hook) {
    warp_exit_hook_ = std::move(hook);
  }
  // What a trace covers: the CTAs on these SMs and the CTAs with these ids
  // (a timeline names CTAs, whose SMs the launch chooses: clusters,
  // fill_order); every CTA when both are empty. Call before launch().
  void set_trace_sms(std::vector<int> sms) { trace_sms_ = std::move(sms); }
  void set_trace_ctas(std::vector<int> ctas) { trace_ctas_ = std::move(ctas); }
  // Counter updates of a traced CTA, applied at simulated time `at`.
  void count_bytes_in_flight(Cta& cta, Cycle at, int64_t delta);
  void count_ring_stage(Cta& cta, const std::string& barrier, Cycle at);

  // Trace helpers.
  uint32_t engine_track(Cta& cta, const std::string& name, int rank);
  uint32_t gpu_track() const { return gpu_track_; }

 private:
  inline static Gpu* current_ = nullptr;
  [[noreturn]] static void no_launch();
  [[noreturn]] static void not_in_kernel();
  void start_cta(int id, int sm);
  void start_cluster(int cluster, int first_sm);
  // A warp of a cluster's CTA exited: the cluster barrier no longer counts it.
  void cluster_warp_exited(Cta& cta, int warp);
  void on_warp_exit(Cta& cta);
  // A warp that exits with TMA stores whose reads of SMEM it never waited
  // for (cp.async.bulk.wait_group.read): the CTA's SMEM may go to the next
  // CTA on the SM while they still read it. A finding at the first store.
  void check_bulk_groups_at_exit(Cta& cta, const sim::Warp& w);
  // CTA exit: tcgen05.mma/cp no waited commit covers (tcgen05.alive_at_exit).
  void check_tcgen05_at_exit(Cta& cta);

  void classify_deadlock(sim::Finding& f);

  Params params_;
  Params reference_;  // as constructed: what set_sm_clock scales from
  SmClock clock_;
  bool functional_;
  std::unique_ptr<sim::Engine> engine_owner_;
  sim::Engine& engine_;
  GlobalMemory gmem_;
  std::vector<std::unique_ptr<Cta>> ctas_;  // by CTA id; null until started
  // The launch, for CTAs started later.
  std::function<void()> body_;
  std::function<void(Cta&, const sim::Warp&)> warp_exit_hook_;
  std::function<void(Cta&, sim::Cycle, sim::Cycle)> tensor_lost_hook_;
  int warps_per_cta_ = 0;
  uint32_t smem_bytes_ = 0;
  int next_pending_ = 0;  // pending CTAs are [next_pending_, grid)
  int cluster_size_ = 1;
  int sms_used_ = 0;
  std::vector<std::unique_ptr<ClusterState>> clusters_;  // by cluster id; null until used
  int cancelled_ = 0;
  struct SmSlot {
    std::shared_ptr<uint8_t[]> storage;  // SMEM, shared by the SM's CTAs in turn
    int ctas = 0;                        // CTAs started on it so far
  };
  std::vector<SmSlot> sms_;
  std::unordered_map<const void*, TensorMapState> tensormaps_;
  std::vector<int> trace_sms_;
  std::vector<int> trace_ctas_;
  SharedLink hbm_link_, l2_link_;
  OobPath oob_path_;
  uint64_t hbm_bytes_ = 0;
  double hbm_recent_ = 0;   // bytes per cycle, exponential average
  Cycle hbm_recent_at_ = 0;  // the time it is of
  // The average decayed to `at` (not before hbm_recent_at_).
  double hbm_recent(Cycle at) const;
  uint64_t tma_l2_read_bytes_ = 0;
  uint64_t dsmem_bytes_ = 0;
  uint64_t tma_l2_copy_bytes_ = 0;
  int loading_sms_ = 0;
  L2 l2_;
  uint32_t gpu_track_ = 0;
  // Per-lane code moves real bytes only in functional mode; in timing mode
  // its cost is carried by the surrounding intrinsics, so no lane runs it.
  struct LaneLoop final : sim::LaneLoop {
    bool functional = false;
    uint64_t begin(sim::Warp& w, const void*, uint32_t) override {
      return functional ? w.active_mask() : 0;
    }
  } lane_loop_;
};

}  // namespace sk::models::sm100
