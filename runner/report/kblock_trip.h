// kblock_trip.h: a pipelined matmul's stage round trip from its k-blocks'
// stamps, the same arithmetic for the GPU's clock64 (hw/h200/matmul_stamps.cuh,
// gemm_bench --stamp-tiles) and the model's warp clocks (runner/kernels/
// matmul_stamps.cc). Header-only, host code.
//
// The stamps (KblockPoint, kernels/matmul/sm90_matmul.h): the producer's
// stage acquired (empty: its loads are issued next), and per consumer
// warpgroup the stage acquired (full) and its wgmma group waited for, which
// stands for the stage's release (the next instruction). For each stamped
// CTA and tile, k-block kb of a ring of S stages (kb past the first laps and
// kb + S still in the tile), the medians over all of them:
//   kblock           full(kb) - full(kb - 1), warpgroup 0
//   issue_to_full    the earlier warpgroup's full(kb) - empty(kb)
//   hold             the later warpgroup's release(kb) - the earlier full(kb)
//   release_to_issue empty(kb + S) - the later release(kb): the stage back
//                    to its producer
//   consumer_wait    full(kb) - release(kb - 1), warpgroup 0: waiting for data
// A stage's round trip is issue_to_full + hold + release_to_issue = S
// k-blocks when the ring is what limits.
//
// Invariants: a missing stamp (0) drops that sample; no samples give 0.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "runner/report/median.h"

namespace sk::report {

// Which of a CTA's tiles (by its index in the CTA's walk) the first stamped
// one is, for a launch whose CTA 0 walks `cta0_tiles` tiles: the third, past
// the launch's cold first waves, where it walks more than two; else the
// first, so that a launch of one or two tiles a CTA (few CTAs on a long K) is
// stamped too (kblock_trip's skip of 8 k-blocks leaves the ring's fill out).
// The board's probe (hw/h200/matmul_stamps.cuh) and the model's
// (runner/kernels/matmul_stamps.cc) take the same tiles by it.
constexpr uint32_t kblock_first_tile(uint64_t cta0_tiles) { return cta0_tiles > 2 ? 2 : 0; }

struct KblockTrip {
  double kblock = 0, issue_to_full = 0, hold = 0, release_to_issue = 0, consumer_wait = 0;
  int samples = 0;
};

// at(cta, role, tile, kb, point) -> the stamp (0: none); role 0 is the
// producer, 1 and 2 the consumer warpgroups; point is KblockPoint's value
// (0 empty, 1 full, 2 waited: the stage is released right after).
template <class At>
KblockTrip kblock_trip(At&& at, uint32_t ctas, uint32_t tiles, uint32_t k_blocks, uint32_t stages,
                       uint32_t skip = 8) {
  std::array<std::vector<double>, 5> v;
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t t = 0; t < tiles; ++t)
      for (uint32_t kb = std::max(skip, 1u); kb + stages < k_blocks; ++kb) {
        const double f0 = static_cast<double>(at(c, 1, t, kb, 1)), f1 = static_cast<double>(at(c, 2, t, kb, 1));
        const double r0 = static_cast<double>(at(c, 1, t, kb, 2)), r1 = static_cast<double>(at(c, 2, t, kb, 2));
        const double e = static_cast<double>(at(c, 0, t, kb, 0));
        const double e_next = static_cast<double>(at(c, 0, t, kb + stages, 0));
        const double f0_prev = static_cast<double>(at(c, 1, t, kb - 1, 1));
        const double r0_prev = static_cast<double>(at(c, 1, t, kb - 1, 2));
        if (f0 == 0 || f1 == 0 || r0 == 0 || r1 == 0 || e == 0 || e_next == 0 || f0_prev == 0 || r0_prev == 0)
          continue;
        const double full = std::min(f0, f1), released = std::max(r0, r1);
        v[0].push_back(f0 - f0_prev);
        v[1].push_back(full - e);
        v[2].push_back(released - full);
        v[3].push_back(e_next - released);
        v[4].push_back(f0 - r0_prev);
      }
  KblockTrip r;
  r.samples = static_cast<int>(v[0].size());
  r.kblock = median(v[0]);
  r.issue_to_full = median(v[1]);
  r.hold = median(v[2]);
  r.release_to_issue = median(v[3]);
  r.consumer_wait = median(v[4]);
  return r;
}

}  // namespace sk::report
