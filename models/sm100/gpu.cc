#include "models/sm100/gpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <systemc>

#include "models/sm100/mbarrier_ops.h"
#include "engine/source_loc.h"

namespace sk::models::sm100 {

Cta::Cta(int id_, uint32_t smem_bytes, bool functional, uint32_t tmem_columns,
         std::shared_ptr<uint8_t[]> storage)
    : id(id_), smem_size(smem_bytes) {
  // A fresh SM's shared memory comes zeroed from calloc (untouched pages stay
  // unmapped: a timing run reads little of it); a reused one is zeroed here.
  if (storage) {
    smem_storage_ = std::move(storage);
    std::memset(smem_storage_.get(), 0, smem_bytes + 1024);
  } else {
    auto* fresh = static_cast<uint8_t*>(std::calloc(smem_bytes + 1024, 1));
    if (fresh == nullptr) throw std::bad_alloc();
    smem_storage_ = std::shared_ptr<uint8_t[]>(fresh, [](uint8_t* q) { std::free(q); });
  }
  smem = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uint64_t>(smem_storage_.get()) + 1023) & ~uint64_t{1023});
  for (auto& nb : named) nb.done = std::make_unique<sc_core::sc_event>();
  tmem.freed = std::make_unique<sc_core::sc_event>();
  if (functional) tmem.data.assign(size_t{128} * tmem_columns, 0);
}

Cta::~Cta() = default;

Gpu::Gpu(const Params& params, bool functional)
    : params_(params),
      reference_(params),
      clock_(params.clock_ghz),
      functional_(functional),
      engine_owner_(std::make_unique<sim::Engine>()),
      engine_(*engine_owner_),
      gmem_(functional),
      l2_(params.l2_bytes, params.l2_side, params.l2_far_line_age) {
  if (current_ != nullptr) throw std::logic_error("only one sm100 Gpu per process");
  current_ = this;
  engine_.set_deadlock_classifier([this](sim::Finding& f) { classify_deadlock(f); });
  lane_loop_.functional = functional;
  engine_.set_lane_loop(&lane_loop_);
}

Gpu::~Gpu() { current_ = nullptr; }

void Gpu::no_launch() {
  throw std::logic_error("sm100 intrinsic called outside a simulated launch");
}

int Gpu::max_active_clusters(const Params& p, int size) {
  if (size <= 1) return p.num_sms;
  int clusters = 0, sms = 0;
  for (uint32_t g : p.gpc_sms) {
    const int n = std::min(static_cast<int>(g), p.num_sms - sms);  // a smaller test GPU keeps the first GPCs
    if (n <= 0) break;
    clusters += n / size;
    sms += n;
  }
  if (p.gpc_sms.empty()) clusters = p.num_sms / size;
  return clusters;
}

std::string Gpu::launch(int grid, int warps_per_cta, uint32_t smem_bytes,
                        const std::function<void()>& body, int cluster_size) {
  if (grid < 1) return "launch: grid must have at least one CTA";
  if (cluster_size < 1 || cluster_size > 16)
    return fmt::format("launch: cluster size {} is outside [1, 16]", cluster_size);
  if (grid % cluster_size != 0)
    return fmt::format("launch: a grid of {} CTAs is not a whole number of clusters of {}", grid,
                       cluster_size);
  if (cluster_size > 1 && max_active_clusters(params_, cluster_size) < 1)
    return fmt::format("launch: no GPC of this GPU holds a cluster of {} CTAs", cluster_size);
  if (warps_per_cta < 1 || warps_per_cta > 32)
    return fmt::format("launch: {} warps per CTA is outside [1, 32]", warps_per_cta);
  if (smem_bytes > params_.smem_per_cta_bytes) {
    sim::Finding f;
    f.cls = "resource";
    f.rule = "resource.smem_capacity";
    f.message = fmt::format("the kernel asks for {} bytes of dynamic shared memory; a CTA may use "
                            "at most {}",
                            smem_bytes, params_.smem_per_cta_bytes);
    engine_.report(std::move(f));
    return fmt::format("launch: {} bytes of dynamic shared memory exceed the {} available per CTA",
                       smem_bytes, params_.smem_per_cta_bytes);
  }
  if (obs() != nullptr) obs()->launch(grid, warps_per_cta, smem_bytes, cluster_size);
  engine_.schedule().set_warps(warps_per_cta);
  auto& tr = engine_.trace();
  gpu_track_ = tr.track(-1, "GPU 0 (sm100 model)");
  body_ = body;
  warps_per_cta_ = warps_per_cta;
  smem_bytes_ = smem_bytes;
  ctas_.resize(static_cast<size_t>(grid));
  sms_.assign(static_cast<size_t>(params_.num_sms), SmSlot{});
  cluster_size_ = cluster_size;
  const int clusters = grid / cluster_size;
  clusters_.clear();
  clusters_.resize(static_cast<size_t>(clusters));
  if (cluster_size == 1) {
    sms_used_ = std::min(grid, params_.num_sms);
    next_pending_ = sms_used_;
    std::vector<int> sms(static_cast<size_t>(sms_used_));
    for (int c = 0; c < sms_used_; ++c) sms[c] = c;
    if (grid < params_.num_sms && params_.fill_order.size() == static_cast<size_t>(params_.num_sms)) {
      for (int c = 0; c < sms_used_; ++c) sms[c] = static_cast<int>(params_.fill_order[c]);
      std::sort(sms.begin(), sms.end());
    }
    for (int c = 0; c < sms_used_; ++c) start_cta(c, sms[c]);
    return "";
  }
  // Cluster slots: C consecutive SMs inside one GPC each.
  std::vector<int> slots;
  int base = 0;
  for (uint32_t g : params_.gpc_sms) {
    const int n = std::min(static_cast<int>(g), params_.num_sms - base);
    if (n <= 0) break;
    for (int j = 0; j + cluster_size <= n; j += cluster_size) slots.push_back(base + j);
    base += n;
  }
  if (params_.gpc_sms.empty())
    for (int s = 0; s + cluster_size <= params_.num_sms; s += cluster_size) slots.push_back(s);
  const int start = std::min(clusters, static_cast<int>(slots.size()));
  sms_used_ = start * cluster_size;
  next_pending_ = start * cluster_size;
  for (int k = 0; k < start; ++k) start_cluster(k, slots[k]);
  return "";
}

void Gpu::start_cluster(int k, int first_sm) {
  auto& slot = clusters_[static_cast<size_t>(k)];
  slot = std::make_unique<ClusterState>();
  ClusterState& cl = *slot;
  cl.first = k * cluster_size_;
  cl.size = cluster_size_;
  cl.done = std::make_unique<sc_core::sc_event>();
  cl.first_sm = first_sm;
  cl.live_warps = cl.size * warps_per_cta_;
  for (int r = 0; r < cl.size; ++r) start_cta(cl.first + r, first_sm + r);
}

ClusterState& Gpu::cluster(const Cta& cta) {
  auto& slot = clusters_[static_cast<size_t>(cta.cluster)];
  if (!slot) {  // a CTA of a launch without clusters: a cluster of one
    slot = std::make_unique<ClusterState>();
    slot->first = cta.id;
    slot->first_sm = cta.sm;
    slot->live_warps = cta.warps - cta.warps_done;
    slot->done = std::make_unique<sc_core::sc_event>();
  }
  return *slot;
}

void Gpu::cluster_warp_exited(Cta& cta, int warp) {
  ClusterState& cl = cluster(cta);
  --cl.live_warps;
  int64_t& arrived = cta.cluster_arrived[static_cast<size_t>(warp)];
  if (arrived == static_cast<int64_t>(cl.generation)) --cl.arrived;  // arrived, never waited
  arrived = -1;
  if (cl.arrived > 0) complete_cluster_phase_if_due(cl);
}

void Gpu::complete_cluster_phase_if_due(ClusterState& cl) {
  if (cl.arrived < cl.live_warps) return;
  cl.arrived = 0;
  ++cl.generation;
  if (obs() != nullptr) obs()->phase_complete(cl.first, kClusterBarrierKey);
  cl.done->notify(sc_core::SC_ZERO_TIME);
  engine_.note_sync();
}

void Gpu::start_cta(int id, int sm) {
  auto& tr = engine_.trace();
  // The SM's shared memory outlives its CTAs: a later CTA reuses (and zeroes)
  // it, so memory stays proportional to the SMs, not to the grid.
  SmSlot& slot = sms_[sm];
  ctas_[id] = std::make_unique<Cta>(id, smem_bytes_, functional_, params_.tmem_columns,
                                    slot.storage);
  Cta& cta = *ctas_[id];
  slot.storage = cta.storage();
  cta.sm = sm;
  cta.warps = warps_per_cta_;
  cta.warp_async.resize(warps_per_cta_);
  cta.waiting_on.assign(warps_per_cta_, nullptr);
  cta.waiting_named.assign(warps_per_cta_, -1);
  cta.cluster = id / cluster_size_;
  cta.cluster_rank = static_cast<uint32_t>(id % cluster_size_);
  cta.cluster_arrived.assign(warps_per_cta_, -1);
  cta.waiting_cluster.assign(warps_per_cta_, 0);
  cta.dsmem_drained.assign(warps_per_cta_, 0);
  const int rank = slot.ctas++;  // the SM's first CTA is rank 0
  cta.traced = tr.enabled() &&
               ((trace_sms_.empty() && trace_ctas_.empty()) ||
                std::find(trace_sms_.begin(), trace_sms_.end(), sm) != trace_sms_.end() ||
                std::find(trace_ctas_.begin(), trace_ctas_.end(), id) != trace_ctas_.end());
  if (cta.traced) {
    uint32_t sm_track = tr.track(static_cast<int>(gpu_track_), fmt::format("SM {}", sm), sm);
    cta.sm_track = sm_track;
    // In a cluster launch the track names the CTA's cluster and rank.
    const std::string name =
        cluster_size_ > 1
            ? fmt::format("CTA {} (cluster {}, rank {})", id, cta.cluster, cta.cluster_rank)
            : fmt::format("CTA {}", id);
    cta.trace_track = tr.track(static_cast<int>(sm_track), name, rank);
    cta.bytes_track =
        tr.track(static_cast<int>(sm_track), "TMA bytes in flight", 200, true, "bytes");
  }
  for (int w = 0; w < warps_per_cta_; ++w) {
    sim::Warp& warp = engine_.spawn_warp(id, w, 32, [this, &cta, body = body_] {
      if (params_.cta_start_latency > 0) this->warp().stall(params_.cta_start_latency, "CTA start");
      body();
      check_bulk_groups_at_exit(cta, this->warp());
      if (warp_exit_hook_) warp_exit_hook_(cta, this->warp());
      if (clusters_[static_cast<size_t>(cta.cluster)]) cluster_warp_exited(cta, this->warp().index());
      on_warp_exit(cta);
    });
    warp.traced = cta.traced;
    if (cta.traced)
      warp.track = tr.track(static_cast<int>(cta.trace_track), fmt::format("warp {}", w), w);
  }
}

int Gpu::cancel_pending() {
  // In a cluster launch the pending CTAs go by whole clusters.
  if (next_pending_ >= num_ctas()) return -1;
  const int first = next_pending_;
  next_pending_ += cluster_size_;
  cancelled_ += cluster_size_;
  return first;
}

void Gpu::check_bulk_groups_at_exit(Cta& cta, const sim::Warp& w) {
  const WarpAsync& wa = cta.warp_async[static_cast<size_t>(w.index())];
  uint32_t stores = 0;
  const sim::Site* first = nullptr;
  for (size_t i = wa.reads_waited; i < wa.groups.size(); ++i)
    if (wa.groups[i].stores > 0) {
      stores += wa.groups[i].stores;
      if (first == nullptr) first = &wa.groups[i].first;
    }
  if (wa.open_nonempty) {
    stores += wa.open.stores;
    if (first == nullptr) first = &wa.open.first;
  }
  if (stores == 0) return;
  sim::Finding f;
  f.cls = "commit_group";
  f.rule = "bulk_group.alive_at_exit";
  f.message = fmt::format(
      "warp {} of CTA {} exited with {} TMA store(s) whose reads of shared memory it never waited "
      "for{}; the CTA's shared memory may be given to the next CTA on this SM while they still "
      "read it: cp.async.bulk.wait_group.read 0 before the warp exits",
      w.index(), cta.id, stores, wa.open_nonempty ? " (some never committed)" : "");
  sim::locate(f, *first);
  f.cta = cta.id;
  f.warp = w.index();
  engine_.report(std::move(f));
}

// A tcgen05.mma or tcgen05.cp is done for the CTA only when a tcgen05.commit
// issued after it by the same thread (which covers every earlier op of the
// thread, PTX 9.7.16.12.1) arrived in a phase some wait then observed. Judged
// from the commits and waits, not from the tensor core's timing: an op no
// waited commit covers may still read shared memory or write TMEM after the
// CTA is gone. One finding per warp, at the first such op.
void Gpu::check_tcgen05_at_exit(Cta& cta) {
  for (size_t wi = 0; wi < cta.warp_async.size(); ++wi) {
    const WarpAsync& wa = cta.warp_async[wi];
    size_t from = 0;  // the commits after the last waited one
    for (size_t i = wa.tc_commits.size(); i-- > 0;)
      if (tc_waited(wa.tc_commits[i])) {
        from = i + 1;
        break;
      }
    const TcSegment* seg = nullptr;
    for (size_t i = from; i < wa.tc_commits.size() && seg == nullptr; ++i)
      if (wa.tc_commits[i].ops > 0) seg = &wa.tc_commits[i];
    if (seg == nullptr && wa.tc_open.ops > 0) seg = &wa.tc_open;
    if (seg == nullptr) continue;
    uint32_t alive = wa.tc_open.ops;
    for (size_t i = from; i < wa.tc_commits.size(); ++i) alive += wa.tc_commits[i].ops;
    std::string why;
    if (seg->bar == nullptr) {
      why = "no tcgen05.commit after it: it was never committed";
    } else {
      const std::string bar = seg->bar->name.empty()
                                  ? fmt::format("the mbarrier at SMEM offset {}", seg->bar->offset)
                                  : seg->bar->name;
      const std::string commit = sim::format_site(seg->commit);
      why = seg->landed < 0 ? fmt::format("its tcgen05.commit on {} ({}) had not arrived", bar, commit)
            : static_cast<int64_t>(seg->bar->phase) <= seg->landed
                ? fmt::format("its tcgen05.commit on {} ({}) arrived in phase {}, which never "
                              "completed",
                              bar, commit, seg->landed)
                : fmt::format("its tcgen05.commit on {} ({}) completed phase {}, which no wait "
                              "observed",
                              bar, commit, seg->landed);
    }
    sim::Finding f;
    f.cls = "commit_group";
    f.rule = "tcgen05.alive_at_exit";
    f.message = fmt::format(
        "CTA {} exited with {} {} issued by warp {} that no waited tcgen05.commit covers ({}; {} "
        "such op(s) from this warp); it may still read shared memory or write TMEM after the CTA "
        "is gone: commit it to an mbarrier and wait for that phase before exiting",
        cta.id, seg->op, sim::format_site(seg->first), wi, why, alive);
    sim::locate(f, seg->first);
    f.cta = cta.id;
    f.warp = static_cast<int>(wi);
    engine_.report(std::move(f));
  }
}

void Gpu::on_warp_exit(Cta& cta) {
  if (++cta.warps_done != cta.warps) return;
  // CTA exit: every TMA load must be ordered before it by a wait on the
  // phase it completes; otherwise its bytes may land in shared memory the
  // SM has given to the next CTA.
  for (auto& [offset, b] : cta.barriers) {
    if (!b.valid) continue;
    const bool unwaited = b.loads_in_flight > 0 || b.loads_this_phase > 0 ||
                          (!b.observed && b.completed_had_loads);
    if (!unwaited) continue;
    sim::Finding f;
    f.cls = "tma";
    f.rule = "tma.load_alive_at_exit";
    f.message = fmt::format(
        "CTA {} exited with TMA loads completing on {} that no wait ordered before its exit ({}); "
        "they may write shared memory after the SM gives it to the next CTA: wait on the phase "
        "they complete before exiting, or do not issue them",
        cta.id, b.name.empty() ? fmt::format("the mbarrier at SMEM offset {}", offset) : b.name,
        b.loads_in_flight > 0 ? fmt::format("{} still in flight", b.loads_in_flight)
        : b.loads_this_phase > 0 ? "their phase never completed"
                                 : "the phase they completed was never waited for");
    sim::locate(f, b.last_load);
    f.cta = cta.id;
    engine_.report(std::move(f));
  }
  check_tcgen05_at_exit(cta);
  // CTA exit: TMEM must be fully deallocated (PTX 9.7.16.7.1).
  for (auto [col, n] : cta.tmem.allocs) {
    sim::Finding f;
    f.cls = "tmem";
    f.rule = "tmem.leak";
    f.message = fmt::format(
        "CTA {} exited with TMEM columns [{}, {}) still allocated; every tcgen05.alloc needs a "
        "tcgen05.dealloc before the kernel exits",
        cta.id, col, col + n);
    f.cta = cta.id;
    engine_.report(std::move(f));
  }
  cta.exited = true;
  if (obs() != nullptr) obs()->cta_exit(cta.id);
  if (cluster_size_ > 1) {
    // A cluster's SMs free up together: the next pending cluster starts on
    // them once its last CTA has exited.
    ClusterState& cl = cluster(cta);
    if (++cl.exited == cl.size && next_pending_ < num_ctas()) {
      warp().sync();
      const int k = next_pending_ / cluster_size_;
      next_pending_ += cluster_size_;
      start_cluster(k, cl.first_sm);
    }
    return;
  }
  // The SM is free: it starts the lowest pending CTA, at the exiting warp's
  // own time.
  if (next_pending_ < num_ctas()) {
    warp().sync();
    start_cta(next_pending_++, cta.sm);
  }
}

// The most specific explanation over every warp blocked on an mbarrier:
// undelivered bytes, then missing arrivals within a phase, then a barrier that
// never received any arrival, then arrivals that stopped coming.
void Gpu::classify_deadlock(sim::Finding& f) {
  // Whether the warps that `b` still lacks all wait on another mbarrier:
  // then `b` is short because of where they wait (a ring's release barrier
  // behind consumers held by a barrier of their own), and among barriers
  // short of arrivals one whose missing arrivers are not held so explains
  // more (in a cycle of waits every one is held, and the first found stands).
  // The missing arrivers: those of the last completed phase that have not
  // arrived in this one; in the first phase, the warps of the arrivers' CTA
  // and role that have not arrived (the other consumer warpgroup of a ring),
  // when the arrivers are the barrier's own CTA's.
  const auto held_elsewhere = [this](const Mbarrier& b) {
    const auto arrived = [&b](const sim::Warp* w) {
      return std::find(b.arrivers.begin(), b.arrivers.end(), w) != b.arrivers.end();
    };
    std::vector<const sim::Warp*> missing;
    if (!b.prev_arrivers.empty()) {
      for (const sim::Warp* w : b.prev_arrivers)
        if (w == nullptr) return false;  // an async op's arrival: not a warp's
        else if (!arrived(w)) missing.push_back(w);
    } else {
      for (const auto& w : engine_.warps()) {
        if (arrived(w.get())) continue;
        for (const sim::Warp* a : b.arrivers)
          if (a != nullptr && a->cta() == b.cta && w->cta() == b.cta && a->role() == w->role() &&
              !a->role().empty()) {
            missing.push_back(w.get());
            break;
          }
      }
    }
    for (const sim::Warp* w : missing) {
      if (w->done() || !started(w->cta())) return false;
      const Cta& c = cta(w->cta());
      const size_t i = static_cast<size_t>(w->index());
      if (i >= c.waiting_on.size() || c.waiting_on[i] == nullptr || c.waiting_on[i] == &b)
        return false;
    }
    return !missing.empty();
  };
  int best_key = 0;  // 2 x the score below, + 1 unless held_elsewhere
  const Mbarrier* why = nullptr;
  for (auto& cta : ctas_)
    for (size_t w = 0; cta && w < cta->waiting_on.size(); ++w) {
      const Mbarrier* b = cta->waiting_on[w];
      if (b == nullptr) continue;
      // A never-arrived release ("empty") barrier is where a protocol starts.
      const bool release = b->name.find("empty") != std::string::npos;
      const int score = b->pending == 0 && b->tx > 0        ? 8
                        : b->pending > 0 && b->arrivals > 0 ? 6
                        : b->arrivals_total == 0            ? (release ? 5 : 4)
                                                            : 2;
      const int key = 2 * score + (score == 6 && held_elsewhere(*b) ? 0 : 1);
      if (key > best_key) {
        best_key = key;
        why = b;
      }
    }
  const int best = best_key / 2;
  // Whether the warp that last arrived on `b` is now blocked at a cluster
  // barrier (or a named barrier): the arrivals `b` lacks would come from
  // warps held there, so that barrier, not `b`'s count, is the cause. When
  // its arriving warps are blocked on mbarriers themselves (or have exited),
  // a barrier short of arrivals is the explanation (its count, or arrivals
  // sent elsewhere), whatever other warps wait at a CTA-wide barrier.
  auto arriver_held = [this](const Mbarrier* b, bool cluster) {
    if (b == nullptr || b->last_warp == nullptr) return false;
    const sim::Warp& w = *b->last_warp;
    if (w.done() || !started(w.cta())) return false;
    const Cta& c = cta(w.cta());
    const size_t i = static_cast<size_t>(w.index());
    return cluster ? i < c.waiting_cluster.size() && c.waiting_cluster[i] != 0
                   : i < c.waiting_named.size() && c.waiting_named[i] >= 0;
  };
  // A 2-SM allocation one CTA of the pair made and its peer never will (the
  // peer's allocating warp is blocked elsewhere, or skips the allocation).
  for (auto& cta : ctas_) {
    if (!cta || cta->tmem.pair_request == 0) continue;
    const Cta* mate = peer(*cta, cta->cluster_rank ^ 1u);
    f.cls = "deadlock";
    f.rule = "deadlock.pair_alloc";
    f.message += fmt::format(
        "; likely cause: CTA {} (rank {}) waits in tcgen05.alloc.cta_group::2 for its pair peer "
        "CTA {} to allocate too; one warp of EACH CTA of the pair executes the 2-SM allocation, "
        "and the peer's never does",
        cta->id, cta->cluster_rank, mate != nullptr ? mate->id : -1);
    return;
  }
  // A barrier short of arrivals in its current phase, and whether a warp of
  // `c` waits on it.
  const auto short_of = [](const Mbarrier& m) { return m.pending > 0 && m.arrivals > 0; };
  const auto waited_in = [](const Cta& c, const Mbarrier* m) {
    return std::find(c.waiting_on.begin(), c.waiting_on.end(), m) != c.waiting_on.end();
  };
  // Whether the last arrival on `m`, a barrier of `c`, came from another
  // CTA (a remote arrive): only then can its arrivals be ones meant for a
  // barrier elsewhere (a ring whose CTAs release locally keeps its own).
  const auto remote_last = [](const Cta& c, const Mbarrier& m) {
    return m.last_warp != nullptr && m.last_warp->cta() != c.id;
  };
  // In a cluster: fn(cta, b, other) for every mbarrier b a warp of `cta` is
  // blocked on and every other CTA of its cluster, until fn reports (true).
  const auto each_waited_and_peer = [this](auto&& fn) {
    if (cluster_size_ <= 1) return false;
    for (auto& cta : ctas_)
      for (size_t w = 0; cta && w < cta->waiting_on.size(); ++w) {
        const Mbarrier* b = cta->waiting_on[w];
        if (b == nullptr) continue;
        for (uint32_t r = 0; r < static_cast<uint32_t>(cluster_size_); ++r) {
          Cta* other = peer(*cta, r);
          if (other != nullptr && other != cta.get() && fn(*cta, *b, *other)) return true;
        }
      }
    return false;
  };
  // A barrier blocked on a signal that went to another CTA: it never
  // received an arrival while the barrier at the same offset in a peer did (a
  // commit or arrive meant for every CTA sent to one, not multicast), or it is
  // short of arrivals while its counterpart in a peer, which no warp waits on,
  // holds arrivals of an incomplete phase (releases sent to the wrong CTA).
  if (each_waited_and_peer([&](const Cta& cta, const Mbarrier& b, Cta& other) {
        const bool never = b.arrivals_total == 0;
        if (!never && !short_of(b)) return false;
        const Mbarrier* c = other.find_barrier(b.offset);
        if (c == nullptr || !c->valid) return false;
        const std::string name = b.name.empty() ? "the mbarrier" : b.name;
        if (never && c->arrivals_total > 0) {
          f.cls = "cluster";
          f.rule = "cluster.signal_one_cta";
          f.message += fmt::format(
              "; likely cause: {} of CTA {} (rank {}) never received an arrival, while the "
              "barrier at the same offset in CTA {} (rank {}) completed {} phase(s), the last "
              "arrival from {}: a signal meant for this CTA reaches another only (a 2-SM kernel's "
              "tcgen05.commit must be .cta_group::2 .multicast::cluster with the pair's mask; "
              "a multicast load's mask must name every receiver; a remote "
              "mbarrier.arrive.shared::cluster must name this CTA's rank)",
              name, cta.id, cta.cluster_rank, other.id, other.cluster_rank, c->phase,
              mbar::last_arrival(*c));
          return true;
        }
        if (short_of(b) && !waited_in(other, c) && short_of(*c) && remote_last(other, *c)) {
          f.cls = "arrival_count";
          f.rule = "arrival_count.under_arrival";
          f.message += fmt::format(
              "; likely cause: {} of CTA {} (rank {}) has {} of its {} arrivals in this phase, "
              "while the barrier at the same offset in CTA {} (rank {}), which no warp waits "
              "on, holds {} (last from {}): arrivals meant for CTA {} go to its peer's barrier "
              "(a release to the CTA whose warp waits: mbarrier.arrive.shared::cluster to its "
              "rank)",
              name, cta.id, cta.cluster_rank, b.arrivals, b.expected, other.id,
              other.cluster_rank, c->arrivals, mbar::last_arrival(*c), cta.id);
          return true;
        }
        return false;
      }))
    return;
  // A barrier short of arrivals while a barrier of the same name stem in a
  // peer ("input.empty[1]" for "input.empty[0]"), which no warp waits on,
  // holds arrivals of an incomplete phase: releases that land on the wrong
  // stage's barrier.
  if (each_waited_and_peer([&](const Cta& cta, const Mbarrier& b, Cta& other) {
        if (!short_of(b) || b.name.empty()) return false;
        const std::string stem = b.name.substr(0, b.name.find('['));
        for (const auto& [off, c] : other.barrier_list) {
          if (off == b.offset || !c->valid || c->name.substr(0, c->name.find('[')) != stem ||
              !short_of(*c) || waited_in(other, c) || !remote_last(other, *c))
            continue;
          f.cls = "arrival_count";
          f.rule = "arrival_count.under_arrival";
          f.message += fmt::format(
              "; likely cause: {} of CTA {} (rank {}) has {} of its {} arrivals in this phase, "
              "while {} of CTA {} (rank {}), which no warp waits on, holds {} of an incomplete "
              "phase (last from {}): arrivals meant for one stage land on another's barrier (a "
              "remote release to the wrong stage)",
              b.name, cta.id, cta.cluster_rank, b.arrivals, b.expected, c->name, other.id,
              other.cluster_rank, c->arrivals, mbar::last_arrival(*c));
          return true;
        }
        return false;
      }))
    return;
  // A bar.sync that some threads reached and the rest never will (a
  // missing bar.arrive on one side of a hand-off between warpgroups) ranks
  // above a ring's barriers, which then wait on the stalled warps.
  for (auto& cta : ctas_)
    for (size_t w = 0; cta && w < cta->waiting_named.size() && best < 7 &&
                       (best < 6 || arriver_held(why, false));
         ++w) {
      const int id = cta->waiting_named[w];
      if (id < 0) continue;
      const NamedBarrier& nb = cta->named[id];
      if (nb.arrived == 0 || nb.arrived >= nb.expected) continue;
      f.cls = "deadlock";
      f.rule = "deadlock.named_barrier";
      f.message += fmt::format(
          "; likely cause: named barrier {} of CTA {}: {} of {} threads arrived in this phase and "
          "the warps that make up the rest are blocked elsewhere or gone (a bar.arrive or bar.sync "
          "missing on one side of a hand-off, or a thread count that does not match them)",
          id, cta->id, nb.arrived, nb.expected);
      return;
    }
  // A cluster barrier that some warps reached and the rest never will (a
  // warp that skips barrier.cluster, or waits elsewhere on a peer).
  for (const auto& slot : clusters_) {
    if (!slot) continue;
    const ClusterState& cl = *slot;
    if (best >= 7 || (best >= 6 && !arriver_held(why, true)) || cl.arrived == 0 ||
        cl.arrived >= cl.live_warps)
      continue;
    f.cls = "deadlock";
    f.rule = "deadlock.cluster_barrier";
    f.message += fmt::format(
        "; likely cause: the cluster barrier of CTAs {}-{}: {} of the cluster's {} live warps "
        "arrived in this phase; barrier.cluster counts every non-exited thread of the cluster, so "
        "a warp that never reaches it (or is blocked on something a peer CTA provides) stops the "
        "whole cluster",
        cl.first, cl.first + cl.size - 1, cl.arrived, cl.live_warps);
    return;
  }
  if (why == nullptr) return;
  f.cls = best >= 8 ? "expect_tx" : best >= 6 ? "arrival_count" : "deadlock";
  f.rule = best >= 8   ? "expect_tx.too_high"
           : best >= 6 ? "arrival_count.under_arrival"
           : best >= 4 ? "deadlock.never_arrived"
                       : "deadlock.arrivals_stopped";
  f.message += "; likely cause: " +
               (why->name.empty() ? std::string() : fmt::format("{} of CTA {}: ", why->name, why->cta)) +
               mbar::likely_cause(*why);
}

sim::RunStatus Gpu::run(Cycle max_cycles) { return engine_.run(max_cycles); }

void Gpu::set_sm_clock(double ghz) {
  if (ghz == clock_.ghz()) return;
  clock_.set(engine_.now(), ghz);
  params_ = reference_.at_sm_clock(ghz);
}

void Gpu::not_in_kernel() { throw std::logic_error("sm100 intrinsic called outside kernel code"); }


void Gpu::count_bytes_in_flight(Cta& cta, Cycle at, int64_t delta) {
  if (!cta.traced) return;
  engine_.at(at, [this, &cta, delta] {
    cta.bytes_in_flight += delta;
    engine_.trace().counter(cta.bytes_track, engine_.now(), static_cast<double>(cta.bytes_in_flight));
  });
}

void Gpu::count_ring_stage(Cta& cta, const std::string& barrier, Cycle at) {
  if (!cta.traced) return;
  // "<ring>.full[i]" completing fills a stage; "<ring>.empty[i]" frees one.
  const auto dot = barrier.rfind('.');
  if (dot == std::string::npos) return;
  const std::string kind = barrier.substr(dot + 1, barrier.find('[', dot) - dot - 1);
  if (kind != "full" && kind != "empty") return;
  const std::string ring = barrier.substr(0, dot);
  auto it = cta.ring_full.find(ring);
  if (it == cta.ring_full.end()) {
    const uint32_t track = engine_.trace().track(static_cast<int>(cta.sm_track),
                                                 ring + " stages full", 210, true, "stages");
    it = cta.ring_full.emplace(ring, std::pair<uint32_t, int64_t>{track, 0}).first;
  }
  auto& [track, value] = it->second;
  value = kind == "full" ? value + 1 : std::max<int64_t>(value - 1, 0);
  engine_.trace().counter(track, at, static_cast<double>(value));
}

Mbarrier& Cta::barrier_at(uint32_t offset) {
  if (Mbarrier* b = find_barrier(offset)) return *b;
  Mbarrier& b = barriers[offset];
  barrier_list.emplace_back(offset, &b);
  return b;
}

int Gpu::grid_warp() {
  sim::Warp& w = warp();
  return w.cta() * ctas_[w.cta()]->warps + w.index();
}

void Gpu::finding(const std::string& cls, const std::string& rule, const std::string& message,
                  const std::source_location& loc) {
  sim::Finding f;
  f.cls = cls;
  f.rule = rule;
  f.message = message;
  sim::locate(f, engine_.site_here(loc));
  engine_.report(std::move(f));
}

namespace {
Cycle pass(SharedLink& link, Cycle start, uint64_t bytes, double bytes_per_cycle) {
  return static_cast<Cycle>(link.pass(static_cast<double>(start), bytes, bytes_per_cycle) + 0.999);
}
}  // namespace

Cycle Gpu::l2_transfer(Cycle start, uint64_t bytes) {
  return pass(l2_link_, start, bytes, params_.l2_bytes_per_cycle);
}

Cycle Gpu::oob_fill(int sm, Cycle issued, Cycle start, uint32_t rows) {
  return oob_path_.pass(params_.tma_oob_rates, params_.tma_oob_rows_per_cycle, sm, issued, start, rows);
}

void Gpu::oob_landed(int sm, Cycle done) {
  if (!params_.tma_oob_rates.empty()) oob_path_.landed_at(sm, done);
}

Cycle Gpu::hbm_transfer(Cycle start, uint64_t bytes) {
  hbm_bytes_ += bytes;
  if (params_.hbm_queue_latency > 0) {
    // Loads are issued at their warps' own times, a little out of order:
    // the average moves forward only.
    hbm_recent_ = hbm_recent(start);
    hbm_recent_at_ = std::max(hbm_recent_at_, start);
    hbm_recent_ += static_cast<double>(bytes) / params_.hbm_queue_window;
  }
  return pass(hbm_link_, start, bytes, params_.hbm_bytes_per_cycle);
}

double Gpu::hbm_recent(Cycle at) const {
  if (at <= hbm_recent_at_) return hbm_recent_;
  return hbm_recent_ * std::exp(-static_cast<double>(at - hbm_recent_at_) / params_.hbm_queue_window);
}

double Gpu::hbm_load(Cycle at) const {
  return std::min(0.9, hbm_recent(at) / params_.hbm_bytes_per_cycle);
}

uint32_t Gpu::engine_track(Cta& cta, const std::string& name, int rank) {
  return engine_.trace().track(static_cast<int>(cta.sm_track), name, 100 + rank);
}

}  // namespace sk::models::sm100
