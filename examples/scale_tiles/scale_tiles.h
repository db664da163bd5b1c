// scale_tiles.h: an example of a user kernel put under the verifier with
// SK_VERIFY_SM100_CASE and sk_verify_test, outside the project's corpus.
//
// D = alpha * A for a BF16 matrix, one 32 x 64 tile at a time. A load warp
// brings tiles of A into a 3-stage ring by TMA (TilePipeline over mbarriers,
// with this file's own payload); a compute warp scales each tile from SMEM into
// a staging buffer and writes it back with a TMA store. CTAs take tiles
// round-robin. It is built from the project's public layers only: arch
// intrinsics, TilePipeline, TmaTileLoader and sk::elect_one.
//
// Invariants of the correct variant: the compute warp releases a stage only
// after reading it; it rewrites the staging buffer only after the previous TMA
// store has read it (bulk wait_group.read); it fences its generic stores
// (fence.proxy.async) before the TMA store reads them; and the ring's full
// barriers expect the one arrival the load warp makes per stage. Each other
// Variant breaks exactly one of these.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk::examples {

enum class Variant { kCorrect, kEarlyRelease, kNoProxyFence, kStagingNotWaited, kWrongArrivals };

// One tile of A per stage.
template <int Elems, int Stages>
struct TileRingPayload {
  bf16_t (*tiles)[Elems];
  SK_DEVICE bf16_t* stage(uint32_t i) const { return tiles[i]; }
};

template <Variant V>
struct ScaleTiles {
  static constexpr int kRows = 32, kCols = 64, kStages = 3;
  static constexpr uint32_t kTileBytes = kRows * kCols * 2;  // one 128-B row per lane
  static constexpr int kWarps = 2;                           // 0: load, 1: compute
  using Payload = TileRingPayload<kRows * kCols, kStages>;
  using Pipe = TilePipeline<Payload, kStages>;

  struct Smem {
    alignas(128) bf16_t tiles[kStages][kRows * kCols];
    alignas(128) bf16_t staging[kRows * kCols];
    typename MbarrierBackend<kStages>::Storage bars;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 128;

  struct Params {
    arch::TensorMap a, d;  // dims {cols, rows}, box {64, 32}, no swizzle
    uint32_t rows, cols;
    float alpha;
  };

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == 0) {
      if (auto lane = elect_one()) {
        // One producer arrival per stage (expect_bytes); kWrongArrivals
        // expects two, so no stage ever fills.
        Pipe::init(&s.bars, V == Variant::kWrongArrivals ? 2 : 1, 1, "tiles");
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    const Pipe pipe(&s.bars, Payload{s.tiles});
    const uint32_t col_tiles = ceil_div<uint32_t>(p.cols, kCols);
    const uint32_t tiles = ceil_div<uint32_t>(p.rows, kRows) * col_tiles;
    if (warp == 0) {
      arch::annotate_role("load");
      const TmaTileLoader loader(&p.a);
      auto producer = pipe.producer();
      for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
        auto stage = producer.acquire();
        if (auto lane = elect_one()) {
          stage.expect_bytes(kTileBytes);
          loader.load(stage.tiles(), stage.full_barrier(), static_cast<int32_t>(t % col_tiles * kCols),
                      static_cast<int32_t>(t / col_tiles * kRows));
        }
        std::move(stage).release_async();
      }
      producer.drain();
    } else if (warp == 1) {
      arch::annotate_role("compute");
      auto consumer = pipe.consumer();
      for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
        auto stage = consumer.acquire();
        const bf16_t* tile = stage.tiles();
        if constexpr (V == Variant::kEarlyRelease) std::move(stage).release();
        if constexpr (V != Variant::kStagingNotWaited) {
          if (auto lane = elect_one()) arch::bulk_wait_group_read<0>();
        }
        arch::sync_warp();
        arch::for_each_lane([&](uint32_t l) { scale_row(tile, s.staging, l, p.alpha); });
        if constexpr (V != Variant::kEarlyRelease) std::move(stage).release();
        if constexpr (V != Variant::kNoProxyFence) arch::fence_proxy_async_shared();
        arch::sync_warp();
        if (auto lane = elect_one()) {
          arch::tma_store_2d(&p.d, s.staging, static_cast<int32_t>(t % col_tiles * kCols),
                             static_cast<int32_t>(t / col_tiles * kRows));
          arch::bulk_commit_group();
        }
      }
      if (auto lane = elect_one()) arch::bulk_wait_group<0>();
    }
  }

 private:
  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((128 - (arch::smem_addr(base) & 127)) & 127));
  }

  // Lane `l` scales row l of the tile into the staging buffer, 8 elements per
  // 16-byte access.
  SK_DEVICE static void scale_row(const bf16_t* tile, bf16_t* staging, uint32_t l, float alpha) {
    for (uint32_t v = 0; v < kCols / 8; ++v) {
      const uint32_t at = l * kCols + 8 * v;
      uint32_t words[4];
      arch::ld_shared_b128(tile + at, words);
      bf16_t x[8];
      memcpy(x, words, 16);
      for (bf16_t& e : x) e = to_bf16(alpha * to_float(e));
      memcpy(words, x, 16);
      arch::st_shared_b128(staging + at, words);
    }
  }
};

}  // namespace sk::examples
