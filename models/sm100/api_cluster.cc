// api_cluster.cc: thread-block clusters (PTX ISA 9.0: %cluster_ctarank,
// barrier.cluster 9.7.13.2, mapa 9.7.9.23 with mbarrier.arrive on
// .shared::cluster 9.7.13.15.13, fence.acq_rel.cluster 9.7.13.4; rules in
// research/verify.md 4). DSMEM loads, stores and atomics: api_dsmem.cc.
//
// The cluster barrier counts warps (the .aligned form: every lane of a warp
// executes it together) over the cluster's non-exited warps; a warp's wait
// returns once the phase it arrived in has completed, cluster_barrier_latency
// cycles after the last arrival. It is a release/acquire at cluster scope. A
// remote arrive lands on the peer's barrier dsmem_latency cycles after issue;
// an arrive on the caller's own rank is a local arrive. Scopes (D8): the
// default remote arrive is a release at CTA scope, which the race detector
// lets order the arriving warp's reads before the peer's later accesses but
// not publish its writes; .release.cluster (mbarrier_arrive_cluster_release)
// publishes them, after a GPU-wide memory barrier that stalls the warp
// cluster_release_latency cycles, once the warp's DSMEM stores have passed
// the SM-to-SM network (api_dsmem.cc); so does a fence.acq_rel.cluster (the
// same stall) before a CTA-scope arrive. The acquire side too: the default
// try_wait acquires at CTA scope, which takes no writes that another CTA
// released into the phase (scope.cta_acquire_cross_cta when the waiter reads
// them); .acquire.cluster (mbarrier_try_wait_parity_cluster) or a
// fence.acq_rel.cluster after the wait takes them. Its timing is the plain
// wait's.
//
// Findings: a rank outside the cluster (cluster.bad_rank), an arrive on a
// peer that has exited (cluster.peer_exited), on an offset holding no
// initialised barrier (mbarrier.use_before_init), a barrier.cluster by part
// of a warp (cluster_barrier.partial_warp), a second arrive before the wait
// (cluster_barrier.double_arrive) and a wait with no arrive
// (cluster_barrier.wait_without_arrive).
#include <fmt/format.h>

#include <systemc>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"

namespace sk::models::sm100::api {

uint32_t cluster_ctarank() {
  gpu().warp().free_op();
  return gpu().cta_of_current().cluster_rank;
}

uint32_t cluster_num_ctas() {
  gpu().warp().free_op();
  return static_cast<uint32_t>(gpu().cluster_size());
}

namespace {
bool whole_warp(sim::Warp& w, const char* op, const Loc& loc) {
  if (w.all_lanes_active()) return true;
  gpu().finding("warp_collective", "cluster_barrier.partial_warp",
                fmt::format("{} reached by {} of 32 lanes; the .aligned cluster barrier must be "
                            "executed by every thread of the warp together",
                            op, w.active_count()),
                loc);
  return false;
}
}  // namespace

void cluster_arrive(const Loc& loc) {
  sim::Warp& w = issue(loc);
  if (!whole_warp(w, "barrier.cluster.arrive", loc)) return;
  Cta& cta = gpu().cta_of_current();
  ClusterState& cl = gpu().cluster(cta);
  int64_t& mine = cta.cluster_arrived[w.index()];
  if (mine == static_cast<int64_t>(cl.generation)) {
    gpu().finding("cluster", "cluster_barrier.double_arrive",
                  fmt::format("warp {} of CTA {} arrives on the cluster barrier twice in one phase; "
                              "each barrier.cluster.arrive needs its barrier.cluster.wait before "
                              "the next",
                              w.index(), cta.id),
                  loc);
    return;
  }
  mine = static_cast<int64_t>(cl.generation);
  if (sim::Observer* obs = gpu().obs())
    obs->release_at(w, cl.first, kClusterBarrierKey, sim::Scope::kCluster);
  ++cl.arrived;
  gpu().complete_cluster_phase_if_due(cl);
}

void cluster_wait(const Loc& loc) {
  sim::Warp& w = issue(loc);
  if (!whole_warp(w, "barrier.cluster.wait", loc)) return;
  Cta& cta = gpu().cta_of_current();
  int64_t& mine = cta.cluster_arrived[w.index()];
  if (mine < 0) {
    gpu().finding("cluster", "cluster_barrier.wait_without_arrive",
                  fmt::format("warp {} of CTA {} waits on the cluster barrier without arriving "
                              "first (barrier.cluster.arrive before barrier.cluster.wait)",
                              w.index(), cta.id),
                  loc);
    return;
  }
  ClusterState& cl = gpu().cluster(cta);
  const uint64_t gen = static_cast<uint64_t>(mine);
  cta.waiting_cluster[w.index()] = 1;
  w.block_until(
      *cl.done, [&cl, gen] { return cl.generation > gen; },
      [&cl] {
        return fmt::format("cluster barrier of CTAs {}-{}: {} of {} live warps arrived", cl.first,
                           cl.first + cl.size - 1, cl.arrived, cl.live_warps);
      },
      "barrier.cluster.wait");
  cta.waiting_cluster[w.index()] = 0;
  mine = -1;
  if (sim::Observer* obs = gpu().obs())
    obs->acquire_at(w, cl.first, kClusterBarrierKey, sim::Scope::kCluster);
  w.spend(gpu().params().cluster_barrier_latency);
}

Cta* cluster_peer(uint32_t rank, const char* op, const Loc& loc) {
  Cta* peer = gpu().peer(gpu().cta_of_current(), rank);
  if (peer == nullptr)
    gpu().finding("cluster", "cluster.bad_rank",
                  fmt::format("{}: mapa to rank {} in a cluster of {} CTA(s)", op, rank,
                              gpu().cluster_size()),
                  loc);
  return peer;
}

namespace {
// One remote arrive per active lane on the barrier at bar's offset in CTA
// `cta_rank`, released at `scope`.
void arrive_cluster(uint64_t* bar, uint32_t cta_rank, sim::Scope scope, const char* op,
                    const Loc& loc) {
  if (skip_in_lockstep(gpu().warp(), loc)) return;
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  const int64_t off = mbar::barrier_offset(gpu(), bar, op, loc);
  // A lockstep leader arrives for its followers too.
  const int arrivals = w.active_count() * w.acts_for();
  if (off < 0) return;
  Cta* peer = cluster_peer(cta_rank, op, loc);
  if (peer == nullptr) return;
  // .release.cluster: the memory barrier before the arrive (MEMBAR.ALL.GPU).
  if (scope == sim::Scope::kCluster) {
    release_after_dsmem_stores(w);
    w.spend(gpu().params().cluster_release_latency);
    w.sync();
  }
  if (peer == &cta) {
    for (int i = 0; i < arrivals; ++i) mbar::arrive(gpu(), bar, 1, 0, loc);
    return;
  }
  Mbarrier* b = mbar::peer_barrier(gpu(), cta, *peer, off, op, "arrives on", loc);
  if (b == nullptr) return;
  // The release is the warp's, in program order; the arrival lands on the
  // peer's barrier after the SM-to-SM latency.
  // In a trace, a flow runs from the issuing CTA to the waiter it wakes.
  const sim::Warp* from = &w;
  auto& tr = gpu().engine().trace();
  for (int i = 0; i < arrivals; ++i) {
    if (sim::Observer* obs = gpu().obs())
      obs->release_at(w, peer->id, static_cast<uint64_t>(off), scope);
    uint64_t flow = 0;
    if (cta.traced) {
      flow = tr.new_flow();
      const Cycle now = local_now(w);
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "remote arrives", 70), now, now,
                               fmt::format("arrive -> CTA {} {}", peer->id,
                                           b->name.empty() ? std::string("mbarrier") : b->name),
                               {},
                               flow,
                               0});
    }
    gpu().engine().at(local_now(w) + gpu().params().dsmem_latency, [peer, b, from, flow] {
      mbar::arrive_remote(gpu(), *peer, *b, from, flow);
    });
  }
}
}  // namespace

void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank, const Loc& loc) {
  arrive_cluster(bar, cta_rank, sim::Scope::kCta, "mbarrier.arrive.shared::cluster", loc);
}

void mbarrier_arrive_cluster_release(uint64_t* bar, uint32_t cta_rank, const Loc& loc) {
  arrive_cluster(bar, cta_rank, sim::Scope::kCluster,
                 "mbarrier.arrive.release.cluster.shared::cluster", loc);
}

bool mbarrier_try_wait_parity_cluster(uint64_t* bar, uint32_t parity, const Loc& loc) {
  if (skip_in_lockstep(gpu().warp(), loc))
    return follower_wait_parity(gpu().warp(), bar, parity, loc, sim::Scope::kCluster);
  issue(loc);
  return mbar::wait_parity(gpu(), bar, parity, loc, sim::Scope::kCluster);
}

void fence_acq_rel_cluster(const Loc& loc) {
  sim::Warp& w = issue(loc);
  release_after_dsmem_stores(w);
  w.spend(gpu().params().cluster_release_latency);
  if (sim::Observer* obs = gpu().obs()) obs->fence_cluster(w);
}

}  // namespace sk::models::sm100::api
