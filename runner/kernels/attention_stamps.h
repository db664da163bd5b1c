// attention_stamps.h: the SM90 attention kernel's probe points
// (kernels/attention/sm90_attention.h, AttentionPoint) read in the model as
// hw/h200/attention_bench.cu --stamp-tiles reads them on a GPU, so that a
// tile's phases can be put next to the hardware's one by one.
//
// What is recorded, at the warp's own clock (the engine's cycle plus the
// cost the warp has issued but not yet paid, which is where clock64 would
// read on the SM):
//  - every tile point (start, Q acquired, blocks done, O and LSE stored) of
//    the first warp of each consumer warpgroup of every CTA;
//  - every block point of CTA 0's first warp of each consumer warpgroup.
// The summary (to_json) gives, like the bench: per tile of CTA 0 and
// warpgroup the cycles from the tile's start to Q acquired (q_wait), to the
// last P V complete (blocks), to O stored (store) and to the next tile's
// start (to_next_tile), and their medians over the tiles that have a next
// one; per warpgroup the medians of a block's segments between successive
// points over CTA 0's blocks (the first and last block of a tile left out,
// as warm-up and drain); and over every CTA's epilogues (an SM's span from
// its first warpgroup's blocks done to its later warpgroup's store) the mean
// number of SMs storing at once while any is, and the median span.
//
// Invariants: recording is off unless a log is installed (StampLog::Scope);
// the kernel's results and timing do not depend on whether it is on (the
// probe reads the clock and writes host memory only).
#pragma once

#include <array>
#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <tuple>

#include "kernels/attention/sm90_attention.h"
#include "runner/kernels/active_log.h"

namespace sk::sim {

class StampLog {
 public:
  // The probe the runner instantiates the kernel with: a no-op unless a
  // log is installed.
  struct Probe {
    static void mark(AttentionPoint point, uint32_t tile, uint32_t block) {
      if (StampLog* log = ActiveLog<StampLog>::get()) log->record(point, tile, block);
    }
  };
  // Installs a log for the lifetime of the scope.
  using Scope = ActiveLog<StampLog>::Scope;

  // The summary described above; `grid` is the launch's CTA count (a
  // CTA's k-th tile is tile cta + k * grid).
  boost::json::object to_json(uint32_t grid) const;

 private:
  void record(AttentionPoint point, uint32_t tile, uint32_t block);
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  // (cta, warpgroup, tile) -> the tile points' cycles, from kTileStart (0: not reached).
  std::map<Key, std::array<uint64_t, kTilePointsEnd - kTileStart>> tiles_;
  // CTA 0's (warpgroup, tile, block) -> the block points' cycles.
  std::map<Key, std::array<uint64_t, kPoints>> blocks_;
};

}  // namespace sk::sim
