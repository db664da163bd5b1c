// matmul_stamps.h: the SM90 matmul's probe points (kernels/matmul/
// sm90_matmul.h, MatmulPoint) read in the model as hw/h200/gemm_bench
// --stamp-tiles reads them on a GPU (hw/h200/matmul_stamps.cuh), so that a
// tile's phases can be put next to the hardware's.
//
// What is recorded, at the warp's own clock (the engine's cycle plus the cost
// the warp has issued but not yet paid, where clock64 would read on the SM):
// every point of the first warp of each consumer warpgroup of every CTA. The
// summary (to_json) gives, like the bench, the medians over every CTA's tiles
// that have a next one of first_wait (tile start -> first stage acquired),
// mainloop (-> last k-block complete), epilogue (-> stores issued), to_next
// (-> the next tile's start) and period (start -> next start); all_tiles,
// like the bench's "all" row, the medians of the first three over every tile
// (the last ones and one-tile CTAs too) and span_cycles, the first tile start
// to the last tile's stores issued over every CTA; tile_spread, per tile
// index t (a CTA's t-th tile, the first 8) the 10th/50th/90th percentile over
// the CTAs of its main loop's end after the first tile start and the median
// epilogue (whether the CTAs store together); and CTA 0's
// first tiles one by one (with "start", the tile's start in cycles of the
// launch, so that the two warpgroups can be put side by side).
//
// Invariants: recording is off unless a log is installed (Scope); the
// kernel's results and timing do not depend on whether it is on (the probe
// reads the clock and writes host memory only).
#pragma once

#include <array>
#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <source_location>
#include <tuple>

#include "kernels/matmul/sm90_matmul.h"
#include "models/sm100/api.h"
#include "runner/kernels/active_log.h"

namespace sk::sim {

class MatmulStampLog {
 public:
  // The probe the runner instantiates the kernel with: a no-op unless a log
  // is installed.
  struct Probe {
    static void mark(MatmulPoint point, uint64_t tile, uint64_t /*nth*/) {
      if (MatmulStampLog* log = ActiveLog<MatmulStampLog>::get(); log != nullptr && log->recording_)
        log->record(point, tile);
    }
    struct Kblocks {
      MatmulStampLog* log = nullptr;
      uint64_t tile = 0;
      void mark(KblockPoint point, uint32_t kb) const {
        if (log == nullptr) return;
        if (log->recording_) {
          log->record_kblock(point, tile, kb);
          if (point == kKbFull && kb == 0) log->record(kMmFirstFull, tile);
        }
        // As hw/h200/matmul_stamps.cuh's HoldProbe: the stage held longer.
        if (point == kKbWaited && log->hold_cycles_ > 0)
          models::sm100::api::spin_cycles(log->hold_cycles_, std::source_location::current());
      }
    };
    static Kblocks kblocks(uint64_t tile, uint64_t /*nth*/) { return {ActiveLog<MatmulStampLog>::get(), tile}; }
  };
  using Scope = ActiveLog<MatmulStampLog>::Scope;

  // recording: keep the points (--stamp-tiles); hold_cycles: each consumer
  // warp spins that many SM cycles after its k-block's wgmma wait, before the
  // release (--hold-kblock), as gemm_bench --hold-kblock does on the GPU.
  explicit MatmulStampLog(bool recording = true, uint32_t hold_cycles = 0)
      : recording_(recording), hold_cycles_(hold_cycles) {}

  // The summary above; `step` is the launch's clusters (its CTA count
  // without a cluster): a CTA's k-th tile is tile first + k * step, first =
  // cta / cluster size < step. With the k-blocks' points, `kblocks` (the
  // stage round trip of the first CTAs' tiles that kblock_first_tile names,
  // runner/report/kblock_trip.h) for a
  // ring of `stages` stages and `k_blocks` k-blocks a tile.
  boost::json::object to_json(uint32_t step, uint32_t stages = 0, uint32_t k_blocks = 0) const;

 private:
  void record(MatmulPoint point, uint64_t tile);
  void record_kblock(KblockPoint point, uint64_t tile, uint32_t kb);
  // (cta, role: 0 the producer, 1 + consumer warpgroup, tile, k-block) ->
  // the points' cycles, for CTAs below kKbCtas; the summary takes kKbTiles
  // of their tiles from the one report::kblock_first_tile names (past the
  // launch's cold first waves where a CTA walks more than two), as
  // hw/h200/matmul_stamps.cuh does.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, std::array<uint64_t, kKbPoints>> kblocks_;
  static constexpr uint32_t kKbCtas = 8, kKbTiles = 2;
  bool recording_ = true;
  uint32_t hold_cycles_ = 0;
  // (cta, warpgroup, tile) -> the points' cycles (0: not reached).
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::array<uint64_t, kMmPoints>> tiles_;
};

}  // namespace sk::sim
