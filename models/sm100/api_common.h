// api_common.h: helpers shared by the api_*.cc files (not part of the API).
#pragma once

#include <source_location>

#include "models/sm100/gpu.h"
#include "engine/source_loc.h"
#include "models/sm100/tensor_map.h"

namespace sk::models::sm100::api {

inline Gpu& gpu() { return Gpu::current(); }

// tcgen05.ld results are undefined until tcgen05.wait::ld (PTX 9.7.16.8.5):
// any later operation of the warp other than another tcgen05.ld or the wait
// itself uses them too early. The warp's issue_check flag keeps the common
// path to one test; the check itself is out of line (api_tcgen05.cc).
void report_ld_not_waited(sim::Warp& w, const std::source_location& loc);
inline void check_ld_waited(sim::Warp& w, const std::source_location& loc) {
  if (w.issue_check) report_ld_not_waited(w, loc);
}
inline void check_ld_waited(const std::source_location& loc) { check_ld_waited(gpu().warp(), loc); }

// Lockstep (models/sm90/lockstep.h): a call that a warpgroup's leader makes
// for its followers. A follower's is skipped (returns true) after being
// counted; the leader's is counted and made.
inline bool skip_in_lockstep(sim::Warp& w, const std::source_location& loc) {
  if (w.follower()) {
    w.count_region_call(loc);
    return true;
  }
  if (w.acts_for() > 1) w.count_region_call(loc);
  return false;
}

// A lockstep follower's mbarrier wait (its leader waited for it): in a
// functional run it still waits for the phase, for the data it reads
// after it, without an issue cost of its own (api_sync.cc).
bool follower_wait_parity(sim::Warp& w, uint64_t* bar, uint32_t parity, const std::source_location& loc,
                          sim::Scope scope);

// Charges one instruction issue for the calling warp and pays its accumulated
// cost first, so the operation acts at the right cycle before it touches state
// other warps or agents can see.
inline sim::Warp& issue(const std::source_location& loc) {
  sim::Warp& w = gpu().warp();
  check_ld_waited(w, loc);
  w.set_location(loc);
  w.sync();
  w.spend(gpu().params().issue_cycles + gpu().engine().schedule().warp_delay(w.index()));
  gpu().engine().count_event();
  return w;
}

// Charges one instruction issue like issue(), without waiting out the
// warp's accumulated cost first: for operations whose effects are private to
// the warp or scheduled at future times computed from local_now(). A run of
// such operations (the MMAs of a k-block and their commit, a stage's TMA
// loads) then costs the simulation one context switch instead of one each.
// They must not read or change state that another warp can observe at once.
inline sim::Warp& issue_local(const std::source_location& loc) {
  sim::Warp& w = gpu().warp();
  check_ld_waited(w, loc);
  w.set_location(loc);
  w.spend(gpu().params().issue_cycles + gpu().engine().schedule().warp_delay(w.index()));
  gpu().engine().count_event();
  return w;
}

// The issuing warp's own time: the simulation time plus its unpaid cost.
inline Cycle local_now(const sim::Warp& w) { return gpu().engine().now() + w.pending(); }

// CTA `rank` of the current CTA's cluster (mapa), or null after a
// cluster.bad_rank finding naming `op` (api_cluster.cc).
Cta* cluster_peer(uint32_t rank, const char* op, const std::source_location& loc);
// Stalls warp `w` (of the current CTA) until its DSMEM stores accounted with
// account_dsmem_stores have passed the SM-to-SM network (api_dsmem.cc): the
// memory barrier of a release at cluster scope waits for them.
void release_after_dsmem_stores(sim::Warp& w);

// A TMA operation (or prefetch) issued by the current warp reads `map` and is
// in flight until `until`: checks that kernel-side writes to the map were made
// visible to it, and records the use (api_tensormap.cc).
void tensormap_read(const TensorMapModel* map, Cycle until, const std::source_location& loc);

}  // namespace sk::models::sm100::api
