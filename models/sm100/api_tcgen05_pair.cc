// api_tcgen05_pair.cc: the 2-SM tensor-core forms (.cta_group::2; PTX ISA
// 9.0 9.7.16.7.1 alloc/dealloc, 9.7.16.10 mma, 9.7.16.12.1 commit) and the
// TMA load that completes on the pair leader's barrier (9.7.9.25.5.2).
//
// A pair is ranks 2i (the leader) and 2i + 1 of a cluster. The model keeps
// each CTA's TMEM and tensor core and joins them per instruction:
//   * alloc: one warp of each CTA calls it; the first to arrive waits for
//     the other, whose call places the columns free in BOTH TMEMs and writes
//     the address into each caller's SMEM slot (a peer that never calls
//     leaves the first waiting: deadlock.pair_alloc);
//   * dealloc and relinquish: each CTA's call acts on its own TMEM (both
//     CTAs must call; a CTA that does not leaks, tmem.leak at its exit);
//   * mma (M = 256): issued by the leader, it occupies both SMs' tensor
//     cores for N * umma_ii_per_n cycles (each SM computes its 128 x N half,
//     as a 1-SM M = 128 instruction does), reads A's rows [0, 128) and B's
//     rows [0, N/2) from the leader's SMEM and the rest from the peer's at
//     the same offsets, and writes D's rows into each CTA's own TMEM;
//   * commit (multicast): arrives on the barrier at the same offset in each
//     CTA of the mask, a peer's dsmem_latency cycles after the leader's.
// Findings: an MMA issued by the odd CTA (tcgen05.pair_not_leader), a pair
// op in a launch without a pair peer (tcgen05.pair_no_peer), an M other
// than 256 (tcgen05.pair_shape), a commit mask outside the cluster
// (tcgen05.commit_mask), a multicast commit with nothing to track, which
// arrives on the issuer only (tcgen05.empty_commit_multicast), a pair load completing on a CTA other than its
// own or its peer (tma.pair_barrier), mixing cta_group::1 and ::2
// (tcgen05.mixed_cta_group), and every check of the 1-SM forms.
#include <fmt/format.h>

#include <systemc>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"
#include "models/sm100/tensor_core.h"
#include "models/sm100/umma_decode.h"

namespace sk::models::sm100::api {
namespace {

// The pair peer of the current CTA (rank ^ 1), or null after a finding.
Cta* pair_peer(Cta& cta, const char* op, const Loc& loc) {
  Cta* peer = gpu().peer(cta, cta.cluster_rank ^ 1u);
  if (peer == nullptr || gpu().cluster_size() % 2 != 0) {
    gpu().finding("tcgen05", "tcgen05.pair_no_peer",
                  fmt::format("{} in CTA {} of a cluster of {} CTA(s): .cta_group::2 needs "
                              "clusters of an even number of CTAs (ranks 2i and 2i + 1 are a pair)",
                              op, cta.id, gpu().cluster_size()),
                  loc);
    return nullptr;
  }
  return peer;
}

}  // namespace

void tcgen05_alloc_pair(uint32_t* smem_dst, uint32_t num_cols, const Loc& loc) {
  static constexpr const char* kOp = "tcgen05.alloc.cta_group::2";
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, kOp, loc);
  const int64_t smem_off = tc::checked_alloc(w, cta, smem_dst, num_cols, kOp, loc);
  if (smem_off < 0) return;
  Cta* peer = pair_peer(cta, kOp, loc);
  if (peer == nullptr) return;
  if (peer->exited) {
    gpu().finding("cluster", "cluster.peer_exited",
                  fmt::format("{} by CTA {}: its pair peer CTA {} has exited; both CTAs of the "
                              "pair allocate together while both run",
                              kOp, cta.id, peer->id),
                  loc);
    return;
  }
  if (peer->tmem.pair_request == 0) {
    // First of the pair: wait for the peer's call, which allocates for both.
    cta.tmem.pair_request = num_cols;
    cta.tmem.pair_grant = -1;
    w.block_until(
        *cta.tmem.freed, [&cta] { return cta.tmem.pair_grant >= 0; },
        [&cta, peer, num_cols] {
          return fmt::format("tcgen05.alloc.cta_group::2 of {} columns in CTA {} waits for its "
                             "pair peer CTA {} (rank {}) to allocate too",
                             num_cols, cta.id, peer->id, peer->cluster_rank);
        },
        kOp);
    const uint32_t col = static_cast<uint32_t>(cta.tmem.pair_grant);
    cta.tmem.pair_request = 0;
    cta.tmem.pair_grant = -1;
    tc::write_alloc_address(w, cta, smem_dst, smem_off, col, loc);
    return;
  }
  if (peer->tmem.pair_request != num_cols)
    gpu().finding("tmem", "tmem.pair_mismatch",
                  fmt::format("{} of {} columns in CTA {} while its pair peer CTA {} allocates "
                              "{}: both CTAs of the pair pass the same nCols",
                              kOp, num_cols, cta.id, peer->id, peer->tmem.pair_request),
                  loc);
  Cta* const both[] = {&cta, peer};
  int64_t col = tc::place_alloc(both, num_cols);
  if (col < 0) {
    w.block_until(
        *cta.tmem.freed, [&] { return (col = tc::place_alloc(both, num_cols)) >= 0; },
        [num_cols] {
          return fmt::format("tcgen05.alloc.cta_group::2 of {} columns: the pair's TMEM is full "
                             "and nothing deallocates",
                             num_cols);
        },
        kOp);
  }
  cta.tmem.allocs[static_cast<uint32_t>(col)] = num_cols;
  peer->tmem.allocs[static_cast<uint32_t>(col)] = num_cols;
  peer->tmem.last_alloc_cols = num_cols;
  peer->tmem.pair_grant = col;
  peer->tmem.freed->notify(sc_core::SC_ZERO_TIME);
  tc::write_alloc_address(w, cta, smem_dst, smem_off, static_cast<uint32_t>(col), loc);
}

void tcgen05_dealloc_pair(uint32_t taddr, uint32_t num_cols, const Loc& loc) {
  static constexpr const char* kOp = "tcgen05.dealloc.cta_group::2";
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, kOp, loc);
  if (pair_peer(cta, kOp, loc) == nullptr) return;
  tc::dealloc(w, cta, taddr, num_cols, kOp, loc);
}

void tcgen05_relinquish_alloc_permit_pair(const Loc& loc) {
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, "tcgen05.relinquish_alloc_permit.cta_group::2", loc);
  tc::require_full_warp(w, "tcgen05.relinquish_alloc_permit.cta_group::2", loc);
  cta.tmem.relinquished = true;
}

void tcgen05_mma_f16_ss_pair(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                             bool accumulate, const Loc& loc) {
  static constexpr const char* kOp = "tcgen05.mma.cta_group::2";
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, kOp, loc);
  Cta* peer = pair_peer(cta, kOp, loc);
  if (peer == nullptr) return;
  if (cta.cluster_rank % 2 != 0) {
    gpu().finding("tcgen05", "tcgen05.pair_not_leader",
                  fmt::format("{} issued by CTA {} (rank {}), the odd CTA of its pair; the "
                              "pair's leader, CTA {} (rank {}), issues every 2-SM MMA and commit",
                              kOp, cta.id, cta.cluster_rank, peer->id, peer->cluster_rank),
                  loc);
    return;
  }
  const SmemDesc a = decode_smem_desc(a_desc), b = decode_smem_desc(b_desc);
  const InstrDesc id = decode_instr_desc(idesc);
  if (id.m != 256) {
    gpu().finding("tcgen05", "tcgen05.pair_shape",
                  fmt::format("{} with M = {}: the model's 2-SM MMA is M = 256 (128 rows of A "
                              "and D in each CTA of the pair)",
                              kOp, id.m),
                  loc);
    return;
  }
  InstrDesc half = id;
  half.m = 128;
  std::string err = check_smem_desc(a);
  if (err.empty()) err = check_smem_desc(b);
  if (err.empty()) err = check_instr_desc(half);
  if (err.empty() && (id.a_mn_major || id.b_mn_major))
    err = "MN-major operands are not modelled with cta_group::2";
  if (err.empty() && id.n % 32 != 0) err = fmt::format("N = {} does not split in 16-row halves", id.n);
  if (!err.empty()) {
    gpu().finding("tcgen05", "tcgen05.bad_descriptor", fmt::format("{}: {}", kOp, err), loc);
    return;
  }
  const uint32_t bn = id.n / 2;
  for (Cta* c : {&cta, peer})
    if (!tc::operand_in_smem(*c, a, false, 128) || !tc::operand_in_smem(*c, b, false, bn)) {
      gpu().finding("tcgen05", "tcgen05.operand_out_of_range",
                    fmt::format("{} operand described by a descriptor lies outside the shared "
                                "memory of CTA {}",
                                kOp, c->id),
                    loc);
      return;
    }
  const uint32_t col = d_taddr & 0xFFFF;
  for (Cta* c : {&cta, peer})
    if ((d_taddr >> 16) != 0 || !tc::in_one_alloc(*c, col, id.n)) {
      gpu().finding("tmem_access", "tmem.unallocated_access",
                    fmt::format("{} writes TMEM columns [{}, {}) of CTA {} outside any of its "
                                "allocations (the pair allocates with tcgen05.alloc.cta_group::2)",
                                kOp, col, col + id.n, c->id),
                    loc);
      return;
    }
  const Params& p = gpu().params();
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tc_issued(kOp, gpu().engine().site_here(loc));
  for (int lane = 0; lane < w.active_count(); ++lane) {
    if (sim::Observer* obs = gpu().obs()) {
      // The same kind as the 1-SM MMA: the tensor cores run one issuer's MMAs in
      // order (the race detector orders them by kind and issuer).
      sim::OpId op = obs->issue_async(w, "tcgen05.mma");
      const auto ra = tc::operand_chunks(a, false, 128), rb = tc::operand_chunks(b, false, bn);
      const auto rd = tc::tmem_cells(0, 128, col, id.n);
      for (Cta* c : {&cta, peer}) {
        obs->access_at(w, op, c->id, sim::Space::kSmem, ra, false, sim::Proxy::kAsync,
                       "tcgen05.mma.cta_group::2 (A)", loc);
        obs->access_at(w, op, c->id, sim::Space::kSmem, rb, false, sim::Proxy::kAsync,
                       "tcgen05.mma.cta_group::2 (B)", loc);
        obs->access_at(w, op, c->id, sim::Space::kTmem, rd, true, sim::Proxy::kAsync,
                       "tcgen05.mma.cta_group::2 (D)", loc);
      }
      wa.tc_live.push_back(op);
    }
    // Both tensor cores take the instruction at once.
    const Cycle ii = static_cast<Cycle>(id.n * p.umma_ii_per_n + 0.5);
    cta.tc_free = std::max(cta.tc_free, peer->tc_free);
    const tc::Slot slot = tc::enqueue(cta, w, ii);
    peer->tc_free = cta.tc_free;
    note_busy(peer->tc_busy, slot.start, slot.start + ii);
    if (gpu().functional())
      gpu().engine().at(slot.start, [&cta, peer, a, b, id, col, accumulate, bn] {
        tc::execute_f16_mma(tc::MmaSpan{&cta, peer, 128, bn}, a, b, id, col, accumulate);
      });
    auto& tr = gpu().engine().trace();
    for (Cta* c : {&cta, peer})
      if (c->traced)
        tr.slice(sim::TraceSlice{gpu().engine_track(*c, "tensor core", 10), slot.start,
                                 slot.start + ii,
                                 fmt::format("mma 256x{}x16 pair{}", id.n,
                                             accumulate ? "" : " (init)"),
                                 {{"tmem_col", col}, {"leader_cta", cta.id}},
                                 0,
                                 c == &cta ? w.take_flow() : 0});
  }
}

void tcgen05_commit_pair_multicast(uint64_t* bar, uint16_t cta_mask, const Loc& loc) {
  static constexpr const char* kOp = "tcgen05.commit.cta_group::2.multicast::cluster";
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, kOp, loc);
  if (pair_peer(cta, kOp, loc) == nullptr) return;
  const int size = gpu().cluster_size();
  if (cta_mask == 0 || (size < 16 && (cta_mask >> size) != 0)) {
    gpu().finding("tcgen05", "tcgen05.commit_mask",
                  fmt::format("{}: ctaMask {:#06x} names {} of a cluster of {} CTA(s)", kOp,
                              cta_mask, cta_mask == 0 ? "no CTA" : "ranks outside", size),
                  loc);
    return;
  }
  const int64_t off = mbar::barrier_offset(gpu(), bar, kOp, loc);
  if (off < 0) return;
  // A multicast commit by a thread that has issued no tcgen05 op (an empty
  // commit group) was seen to arrive on the issuer's barrier only (bug 30 of
  // research/verify.md: the peer waits forever); the model does the same and
  // says so. (A commit right after another tracks the same, earlier ops: not
  // empty.)
  const bool others = (cta_mask & ~(1u << cta.cluster_rank)) != 0;
  if (others && cta.warp_async[w.index()].tcgen05_done == 0) {
    gpu().finding("tcgen05", "tcgen05.empty_commit_multicast",
                  fmt::format("{} by CTA {} from a thread that has issued no tcgen05 op: an empty "
                              "commit group was observed to arrive on the issuing CTA's barrier "
                              "only, so the peers wait forever; commit from the thread that "
                              "issued the MMAs, after them",
                              kOp, cta.id),
                  loc);
    cta_mask &= static_cast<uint16_t>(1u << cta.cluster_rank);
    if (cta_mask == 0) return;
  }
  // The issuer's own barrier first (the CTA-exit check follows it).
  std::vector<tc::CommitDest> dests;
  for (uint32_t k = 0; k < 16; ++k) {
    const uint32_t r = (cta.cluster_rank + k) % 16;
    if (((cta_mask >> r) & 1u) == 0) continue;
    Cta* c = gpu().peer(cta, r);
    Mbarrier* b = mbar::peer_barrier(gpu(), cta, *c, off, kOp, "arrives on", loc);
    if (b == nullptr) return;
    dests.push_back(tc::CommitDest{c, b});
  }
  tc::commit(w, cta, dests, loc);
}

void tcgen05_commit_pair(uint64_t* bar, const Loc& loc) {
  static constexpr const char* kOp = "tcgen05.commit.cta_group::2";
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 2, kOp, loc);
  Mbarrier* b = mbar::checked(gpu(), bar, kOp, loc);
  if (b == nullptr) return;
  const tc::CommitDest d{&cta, b};
  tc::commit(w, cta, {&d, 1}, loc);
}

}  // namespace sk::models::sm100::api
