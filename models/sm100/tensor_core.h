// tensor_core.h: what the tcgen05 model files share (api_tcgen05.cc for
// alloc/ld/kind::f16 MMA and commit, api_tcgen05_block_scale.cc for the
// block-scaled MMA and tcgen05.cp, api_tcgen05_pair.cc for the 2-SM forms);
// not part of the API.
//
// Invariants: a CTA's tensor core runs its instructions one at a time in
// issue order (cta.tc_free), each occupying it for its issue interval and
// delivering its result umma_latency_extra cycles later (a 2-SM MMA occupies
// both CTAs' tensor cores from the same cycle); every instruction's
// completion raises the issuing warp's tcgen05_done, which tcgen05.commit
// waits for; a CTA's tcgen05 ops use one cta_group. TMEM cells are addressed as the race detector sees them (lane
// quarter * kTmemQuarterStride + column).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/phase_clock.h"
#include "models/sm100/umma_decode.h"

namespace sk::models::sm100::api::tc {

// The allocation holding TMEM columns [col, col + n), or allocs.end().
inline std::map<uint32_t, uint32_t>::const_iterator find_alloc(const Cta& cta, uint32_t col,
                                                               uint32_t n) {
  const auto& a = cta.tmem.allocs;
  auto it = a.upper_bound(col);
  if (it == a.begin()) return a.end();
  --it;
  if (col >= it->first && col + n <= it->first + it->second) return it;
  return a.end();
}

inline bool in_one_alloc(const Cta& cta, uint32_t col, uint32_t n) {
  return find_alloc(cta, col, n) != cta.tmem.allocs.end();
}

// TMEM cells of lanes [lane0, lane0 + lanes) x columns [col, col + cols).
inline std::vector<sim::Range> tmem_cells(uint32_t lane0, uint32_t lanes, uint32_t col,
                                          uint32_t cols) {
  std::vector<sim::Range> r;
  for (uint32_t q = lane0 / 32; q < (lane0 + lanes + 31) / 32 && q < 4; ++q)
    r.push_back(sim::Range{q * sim::kTmemQuarterStride + col,
                           q * sim::kTmemQuarterStride + col + cols});
  return r;
}

// Whether all 32 lanes of `w` execute the warp-collective `op`; a finding
// (tcgen05.partial_warp) otherwise.
bool require_full_warp(sim::Warp& w, const char* op, const Loc& loc);

// Records that `cta` issued a tcgen05 op with .cta_group::`group`; a CTA
// that mixes groups gets one tcgen05.mixed_cta_group finding (PTX
// 9.7.16.7.1: every tcgen05 op of a kernel uses the same cta_group).
bool note_cta_group(Cta& cta, uint8_t group, const char* op, const Loc& loc);

// tcgen05.alloc's checks (whole warp, nCols, no growth, not after
// relinquish, a 4-byte aligned SMEM destination): the destination's SMEM
// offset, or -1 after a finding.
int64_t checked_alloc(sim::Warp& w, Cta& cta, const uint32_t* smem_dst, uint32_t num_cols,
                      const char* op, const Loc& loc);
// First fit of `num_cols` columns (aligned to their number) free in every
// CTA of `ctas`, or -1 while TMEM is full.
int64_t place_alloc(std::span<Cta* const> ctas, uint32_t num_cols);
// Writes the allocation's address (lane 0, column col) to `cta`'s SMEM slot.
void write_alloc_address(sim::Warp& w, Cta& cta, uint32_t* smem_dst, int64_t smem_off,
                         uint32_t col, const Loc& loc);

// tcgen05.dealloc of `cta`'s columns [taddr, taddr + num_cols): checks that
// they are a live allocation and nothing still uses them, then frees them.
void dealloc(sim::Warp& w, Cta& cta, uint32_t taddr, uint32_t num_cols, const char* op,
             const Loc& loc);

// Where a kind::f16 MMA's rows live: rows [0, m_split) of A and of D in
// `lo`, the rest in `hi`, and B's rows [0, n_split) in `lo`, the rest in
// `hi`. cta_group::1: {cta, cta, M, N}; cta_group::2: {leader, peer, 128,
// N / 2}. Operands are read at the descriptors' offsets in each CTA; D's
// rows go to TMEM lanes from 0 in each CTA.
struct MmaSpan {
  Cta* lo;
  Cta* hi;
  uint32_t m_split, n_split;
};
// Functional mode: D (+)= A x B^T for one K = 16 step.
void execute_f16_mma(const MmaSpan& s, SmemDesc a, SmemDesc b, InstrDesc id, uint32_t col,
                     bool accumulate);
// The 16-byte SMEM chunks an operand of `rows` rows x 16 elements reads: 8
// K elements of a row (K-major), or 8 rows of one K (MN-major).
std::vector<sim::Range> operand_chunks(const SmemDesc& d, bool mn_major, uint32_t rows);
// Whether the operand's `rows` rows lie inside the CTA's shared memory.
bool operand_in_smem(const Cta& cta, const SmemDesc& d, bool mn_major, uint32_t rows);

// A barrier a tcgen05.commit arrives on: the issuer's own, or (multicast) a
// peer's at the same offset.
struct CommitDest {
  Cta* cta;
  Mbarrier* bar;
};
// tcgen05.commit by warp `w` of `cta`: once every tcgen05 op the thread
// issued has completed, one arrive on each destination (a peer's
// dsmem_latency later). The first destination's barrier is the one the
// CTA-exit check (tcgen05.alive_at_exit) follows.
void commit(sim::Warp& w, Cta& cta, std::span<const CommitDest> dests, const Loc& loc);

struct Slot {
  Cycle start;  // the tensor core starts the instruction
  Cycle done;   // its result is in TMEM
};

// Queues an instruction that occupies the CTA's tensor core for `busy`
// cycles, issued by warp `w` at its local time.
inline Slot enqueue(Cta& cta, sim::Warp& w, Cycle busy) {
  const Cycle start = std::max(local_now(w), cta.tc_free) +
                      gpu().engine().schedule().agent_delay(sim::Agent::kTensorCore, busy);
  cta.tc_free = start + busy;
  const Cycle done = start + busy + gpu().params().umma_latency_extra;
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tcgen05_done = std::max(wa.tcgen05_done, done);
  note_busy(cta.tc_busy, start, start + busy);
  phase_clock().tensor_work(cta.tc_free);
  return Slot{start, done};
}

}  // namespace sk::models::sm100::api::tc
