// sm90_matmul_probe.h: the points of the SM90 matmul (sm90_matmul.h) that a
// probe may stamp, and the probe of the kernel's own builds, which stamps
// nothing (hw/h200/matmul_stamps.cuh and the model's stamp log are the
// others).
//
// Invariants: a probe's marks are the only code it adds to the kernel; the
// k-block recorder is taken once per tile, outside the k-block loop.
#pragma once

#include <cstdint>

#include "kernels/core/platform.h"

namespace sk {

// Points of a consumer warp's tile that a Probe may stamp (hw/h200/gemm_bench
// --stamp-tiles reads clock64 there, the model its warp's clock); the
// kernel's own builds take NoMatmulProbe, which does nothing.
enum MatmulPoint : uint32_t {
  kMmTileStart,     // top of the tile, before its first stage is acquired
  kMmFirstFull,     // the tile's first stage acquired
  kMmMainloopDone,  // the last k-block's wgmma complete and its stage released
  kMmTileStored,    // the epilogue's stores issued (st.global or TMA)
  kMmPoints
};
// Points of a k-block that a Probe may stamp (gemm_bench --stamp-tiles and
// sim run --stamp-tiles): the producer's stage acquired (empty), and each
// consumer warpgroup's stage acquired (full) and its wgmma group waited for
// (the stage is released next). A probe hands a role its tile's recorder once
// (kblocks(tile, nth), at the tile's top), so that what it decides per tile (is
// this tile stamped, where do its stamps go) stays out of the k-block loop:
// on the GPU a probe that tested the thread, CTA and tile there put a
// special-register read and a branch between each stage's wait and its
// wgmma, and slowed the main loop by 12-25 %. A consumer's kKbFull of k-block
// 0 is also its tile's kMmFirstFull.
// No point follows the release (docs/hardware.md, "What the k-block probe
// costs": with one there, the probe lengthened every CTA's main loop on the
// GPU by 11 % without a cluster and 21 % with one; without it, 8 and 15 %).
enum KblockPoint : uint32_t { kKbEmpty, kKbFull, kKbWaited, kKbPoints };
// Every point names the tile and `nth`, the CTA's count of work units before
// it (its loop index: the stamps' slot), so that a probe finds where a point
// goes without index arithmetic of its own: the GPU probe's 64-bit division
// of the tile index by the grid fell inside the phases it stamped.
struct NoMatmulProbe {
  SK_DEVICE static void mark(MatmulPoint, uint64_t /*tile*/, uint64_t /*nth*/) {}
  struct Kblocks {
    SK_DEVICE void mark(KblockPoint, uint32_t /*kb*/) const {}
  };
  SK_DEVICE static Kblocks kblocks(uint64_t /*tile*/, uint64_t /*nth*/) { return {}; }
};

}  // namespace sk
