// api_dsmem.cc: distributed shared memory, the data side (PTX ISA 9.0: mapa
// 9.7.9.23, then ld, st, atom and red on the .shared::cluster state space;
// the rules in research/verify.md 4 and docs/verify.md, "Thread-block
// clusters"). The remote arrives and the cluster barrier are in
// api_cluster.cc.
//
// A DSMEM access names a location of the caller's own shared memory and a
// rank of its cluster; it acts on the same offset in that CTA's shared
// memory (the Cta's bytes, in both modes), as mapa + ld/st.shared::cluster
// does. Semantics:
//   * a load reads the peer's bytes at issue and stalls its warp
//     dsmem_load_latency cycles (the round trip); a store writes them at
//     issue and is posted (the warp goes on); red.add is posted, atom.add
//     returns the value before this call's adds and stalls like a load;
//   * each acting lane adds v (every active lane, or the loop's lane inside a
//     per-lane loop), as the hardware does per thread; loads and stores are
//     warp-uniform outside a per-lane loop (one access) and per lane inside
//     one, where the lowest active lane pays the warp's issue and latency;
//   * the race detector sees each as a generic-proxy access of the peer's
//     SMEM (access_at; atomics through atomic_at), and a peer's access must
//     be ordered before the owning CTA's exit (cluster.exit_not_ordered).
// Findings, after which nothing is read or written (a load returns zeros):
// an offset outside the CTA's shared memory or misaligned for the access
// (smem.bad_access), a rank outside the cluster (cluster.bad_rank), a peer
// that has exited (cluster.peer_exited); a store or atomic over a live
// mbarrier is mbarrier.overwritten_while_live.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"

namespace sk::models::sm100::api {
namespace {

// The calling lane's share of a DSMEM instruction. Outside a per-lane loop
// the warp issues it once; inside one the lowest active lane issues it for
// the warp (`first`) and the other lanes' accesses ride along.
sim::Warp& dsmem_issue(const Loc& loc, bool& first) {
  sim::Warp& w = gpu().warp();
  const int lane = w.current_lane();
  first = lane < 0 || w.active_mask() == 0 || lane == __builtin_ctzll(w.active_mask());
  if (first) return issue(loc);
  check_ld_waited(w, loc);
  w.set_location(loc);
  w.free_op();
  return w;
}

struct Target {
  Cta* cta = nullptr;
  uint32_t off = 0;
};

// Where [local_ptr, local_ptr + bytes) of the caller's shared memory lands in
// CTA `rank` of its cluster; false after a finding.
bool resolve(sim::Warp& w, const void* local_ptr, uint32_t bytes, uint32_t rank, const char* op,
             const Loc& loc, Target& t) {
  Cta& cta = gpu().cta_of_current();
  const auto off = reinterpret_cast<const uint8_t*>(local_ptr) - cta.smem;
  if (bytes == 0 || off < 0 || off + bytes > static_cast<std::ptrdiff_t>(cta.smem_size) ||
      off % bytes != 0) {
    gpu().finding("smem", "smem.bad_access",
                  fmt::format("{} of {} bytes at shared offset {} is misaligned or outside the "
                              "CTA's {} bytes of shared memory (mapa takes an address of the "
                              "caller's own shared memory)",
                              op, bytes, static_cast<long>(off), cta.smem_size),
                  loc);
    return false;
  }
  Cta* peer = cluster_peer(rank, op, loc);
  if (peer == nullptr) return false;
  if (peer->exited) {
    gpu().finding("cluster", "cluster.peer_exited",
                  fmt::format("{} by warp {} of CTA {} accesses the shared memory of CTA {} (rank "
                              "{}), which has exited: a CTA must not exit while a peer may still "
                              "access its shared memory (a cluster barrier before exit)",
                              op, w.index(), cta.id, peer->id, rank),
                  loc);
    return false;
  }
  t.cta = peer;
  t.off = static_cast<uint32_t>(off);
  return true;
}

void observe(sim::Warp& w, const Target& t, uint32_t bytes, bool write, bool atomic,
             const char* op, const Loc& loc) {
  if (t.cta != &gpu().cta_of_current()) gpu().note_dsmem(bytes);
  sim::Observer* obs = gpu().obs();
  if (obs == nullptr) return;
  const sim::Range r{t.off, uint64_t{t.off} + bytes};
  if (atomic)
    obs->atomic_at(w, t.cta->id, sim::Space::kSmem, {&r, 1}, op, loc);
  else
    obs->access_at(w, 0, t.cta->id, sim::Space::kSmem, {&r, 1}, write, sim::Proxy::kGeneric, op,
                   loc);
}

// atom/red.add: the value before the adds of every acting lane.
uint32_t add(uint32_t* local_ptr, uint32_t rank, uint32_t v, bool returns, const char* op,
             const Loc& loc) {
  bool first = false;
  sim::Warp& w = dsmem_issue(loc, first);
  Target t;
  if (!resolve(w, local_ptr, 4, rank, op, loc, t)) return 0;
  mbar::check_overwrite(gpu(), *t.cta, t.off, 4, op, loc);
  observe(w, t, 4, true, true, op, loc);
  const uint32_t lanes = w.current_lane() >= 0 ? 1u : static_cast<uint32_t>(w.active_count());
  uint32_t old;
  std::memcpy(&old, t.cta->smem + t.off, 4);
  const uint32_t now = old + lanes * v;
  std::memcpy(t.cta->smem + t.off, &now, 4);
  if (returns && first) w.spend(gpu().params().dsmem_load_latency);
  return old;
}

}  // namespace

void ld_shared_cluster(const void* local_ptr, uint32_t cta_rank, void* out, uint32_t bytes,
                       const Loc& loc) {
  static constexpr const char* kOp = "ld.shared::cluster";
  bool first = false;
  sim::Warp& w = dsmem_issue(loc, first);
  Target t;
  if (!resolve(w, local_ptr, bytes, cta_rank, kOp, loc, t)) {
    std::memset(out, 0, bytes);
    return;
  }
  observe(w, t, bytes, false, false, kOp, loc);
  std::memcpy(out, t.cta->smem + t.off, bytes);
  if (first) w.spend(gpu().params().dsmem_load_latency);
}

void st_shared_cluster(void* local_ptr, uint32_t cta_rank, const void* v, uint32_t bytes,
                       const Loc& loc) {
  static constexpr const char* kOp = "st.shared::cluster";
  bool first = false;
  sim::Warp& w = dsmem_issue(loc, first);
  Target t;
  if (!resolve(w, local_ptr, bytes, cta_rank, kOp, loc, t)) return;
  mbar::check_overwrite(gpu(), *t.cta, t.off, bytes, kOp, loc);
  observe(w, t, bytes, true, false, kOp, loc);
  std::memcpy(t.cta->smem + t.off, v, bytes);
}

uint32_t atom_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v,
                                 const Loc& loc) {
  return add(local_ptr, cta_rank, v, true, "atom.shared::cluster.add.u32", loc);
}

void red_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v, const Loc& loc) {
  add(local_ptr, cta_rank, v, false, "red.shared::cluster.add.u32", loc);
}

namespace {
// A warp's `instructions` (at least one), an issue slot each.
void issue_slots(uint32_t instructions, const Loc& loc) {
  issue_local(loc).spend((instructions - 1) * gpu().params().issue_cycles);
}
}  // namespace

// Functional mode runs the stores lane by lane, which charge their issue and
// count their bytes (dsmem_issue, observe); timing mode runs no lane. In both
// the bytes then pass the SM-to-SM network: the sending SM's port and the
// receiving SM's port serve one warp's stores at a time, in the order the
// warps reach them (at each warp's own time), at dsmem_store_bytes_per_cycle
// each; the warp goes on (the stores are posted), and its next release at
// cluster scope waits until they have landed (release_after_dsmem_stores).
void account_dsmem_stores(uint32_t cta_rank, uint32_t bytes, uint32_t instructions,
                          const Loc& loc) {
  if (instructions == 0) return;
  if (!gpu().functional()) {
    issue_slots(instructions, loc);
    gpu().note_dsmem(bytes);
  }
  const double rate = gpu().params().dsmem_store_bytes_per_cycle;
  Cta& cta = gpu().cta_of_current();
  Cta* peer = gpu().peer(cta, cta_rank);
  if (rate <= 0 || peer == nullptr || peer == &cta) return;
  sim::Warp& w = gpu().warp();
  const Cycle start = std::max({local_now(w), cta.dsmem_out_free, peer->dsmem_in_free});
  const Cycle end = start + static_cast<Cycle>(std::ceil(bytes / rate));
  cta.dsmem_out_free = peer->dsmem_in_free = end;
  Cycle& drained = cta.dsmem_drained[static_cast<size_t>(w.index())];
  drained = std::max(drained, end);
}

void release_after_dsmem_stores(sim::Warp& w) {
  const Cycle drained = gpu().cta_of_current().dsmem_drained[static_cast<size_t>(w.index())];
  const Cycle now = local_now(w);
  if (drained > now) w.spend(drained - now);
}

// ld.shared.v4 in a per-lane loop is free in both modes (ld_shared_b128):
// the warp's instructions are charged here.
void account_smem_loads(uint32_t instructions, const Loc& loc) {
  if (instructions > 0) issue_slots(instructions, loc);
}

}  // namespace sk::models::sm100::api
