// tensor_core.h: what the tcgen05 model files share (api_tcgen05.cc for
// alloc/ld/kind::f16 MMA, api_tcgen05_block_scale.cc for the block-scaled
// MMA and tcgen05.cp); not part of the API.
//
// Invariants: a CTA's tensor core runs its instructions one at a time in
// issue order (cta.tc_free), each occupying it for its issue interval and
// delivering its result umma_latency_extra cycles later; every instruction's
// completion raises the issuing warp's tcgen05_done, which tcgen05.commit
// waits for. TMEM cells are addressed as the race detector sees them (lane
// quarter * kTmemQuarterStride + column).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/phase_clock.h"

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
