// payloads.h: what flows through a TilePipeline stage.
//
// A payload owns no synchronization; it maps a stage index onto the storage of
// that stage. The same TilePipeline moves A/B tiles (StandardPayload), A/B
// tiles with their scale factors (BlockScaledPayload), TMEM accumulators
// (TmemAccumPayload), residual tiles (ResidualPayload) and scheduler work
// items (WorkPayload).
#pragma once

#include "kernels/core/platform.h"

namespace sk {

// A and B operand tiles, K-major, one pair per stage. Each tile starts on a
// 1024-byte boundary so the 128B swizzle pattern is anchored to it.
template <class T, int BM, int BN, int BK, int Stages>
struct StandardPayload {
  struct Storage {
    alignas(1024) T a[Stages][BM * BK];
    alignas(1024) T b[Stages][BN * BK];
  };
  struct Tiles {
    T* a;
    T* b;
  };
  static constexpr uint32_t kBytesPerStage = (BM + BN) * BK * sizeof(T);
  static_assert((BM * BK * sizeof(T)) % 1024 == 0 && (BN * BK * sizeof(T)) % 1024 == 0,
                "tiles must keep every stage 1024-byte aligned");

  Storage* storage;
  SK_DEVICE Tiles stage(uint32_t i) const { return Tiles{storage->a[i], storage->b[i]}; }
};

// A and B operand tiles of ABytes and BBytes (K-major, 128B swizzle, each on a
// 1024-byte boundary) plus the scale factors of A and B for the same K range,
// SfaBytes and SfbBytes (16-byte aligned, in whatever layout the mainloop's
// scale loads write and its TileOp reads): four TMA loads fill a stage. Tiles
// also carry the stage index, for TileOps that keep per-stage state of their
// own (the TMEM columns the scale factors are copied to).
template <uint32_t ABytes, uint32_t BBytes, uint32_t SfaBytes, uint32_t SfbBytes, int Stages>
struct BlockScaledPayload {
  struct Storage {
    alignas(1024) uint8_t a[Stages][ABytes];
    alignas(1024) uint8_t b[Stages][BBytes];
    alignas(128) uint8_t sfa[Stages][SfaBytes];
    alignas(128) uint8_t sfb[Stages][SfbBytes];
  };
  struct Tiles {
    uint8_t* a;
    uint8_t* b;
    uint8_t* sfa;
    uint8_t* sfb;
    uint32_t index;
  };
  static constexpr uint32_t kBytesPerStage = ABytes + BBytes + SfaBytes + SfbBytes;
  static_assert(ABytes % 1024 == 0 && BBytes % 1024 == 0,
                "operand tiles must keep every stage 1024-byte aligned");
  static_assert(SfaBytes % 128 == 0 && SfbBytes % 16 == 0, "scale tiles are TMA boxes");

  Storage* storage;
  SK_DEVICE Tiles stage(uint32_t i) const {
    return Tiles{storage->a[i], storage->b[i], storage->sfa[i], storage->sfb[i], i};
  }
};

// A TMEM accumulator per stage: stage i uses columns [i * Cols, (i+1) * Cols)
// of the CTA's allocation.
template <uint32_t Cols>
struct TmemAccumPayload {
  struct Tiles {
    uint32_t column;
  };
  SK_DEVICE Tiles stage(uint32_t i) const { return Tiles{i * Cols}; }
};

// A residual tile C[BM][BN] of T per stage, row-major and unswizzled, as the
// epilogue-load warp's TMA load writes it for the epilogue warps to read.
template <class T, int BM, int BN, int Stages>
struct ResidualPayload {
  struct Storage {
    alignas(128) T c[Stages][BM * BN];
  };
  static constexpr uint32_t kBytesPerStage = BM * BN * sizeof(T);
  Storage* storage;
  SK_DEVICE T* stage(uint32_t i) const { return storage->c[i]; }
};

// One work item per stage, written by the scheduler warp.
template <class Work>
struct WorkPayload {
  Work* slots;
  SK_DEVICE Work* stage(uint32_t i) const { return &slots[i]; }
};

}  // namespace sk
