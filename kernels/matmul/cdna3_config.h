// cdna3_config.h: what the CDNA3 (MI300X) matmuls share: the problem's
// parameters, the block tile, the stage payload, the LDS loaders and the walk
// of a workgroup over its (output tile, K tile) steps.
//
// D[m x n] (BF16, row-major, ldd) = A[m x k] * B[n x k]^T, A and B BF16,
// each K-contiguous (rows of K elements lda / ldb apart, the default) or
// MN-contiguous (Layouts: K rows of M or N elements lda / ldb apart), as the
// NVIDIA matmuls take them; the layouts are compile-time, one instantiation
// per pair, chosen once at launch; `batches` such GEMMs, matrix i of each operand stride_* elements
// after matrix i - 1, walked in the order of StaticPersistentScheduler.
// The stage payload (StandardPayload), the ring (TilePipeline) and the tile
// order (StaticPersistentScheduler) are the NVIDIA kernels' own; only the
// TileIO (LdsTileLoader), the TileOp (MfmaOp), the epilogue (RegTileWriter)
// and the sync backend (counter_backend.h) are AMD's.
//
// Cdna3Ring places a kernel's ring in LDS and opens it.
//
// Invariants: persistent workgroups, grid <= number of output tiles, so every
// workgroup has at least one step; a step is one K tile of one output tile,
// and every role of a workgroup walks the same steps in the same order.
#pragma once

#include "kernels/arch/gfx942.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/core/operand_layout.h"
#include "kernels/core/platform.h"
#include "kernels/core/lanes.h"
#include "kernels/io/lds_tile_loader.h"
#include "kernels/op/mfma_op.h"
#include "kernels/pipeline/payloads.h"
#include "kernels/pipeline/tile_pipeline.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk {

struct Cdna3MatmulParams {
  const uint16_t* a;  // BF16 bits, m x k, rows lda apart (MN-major: k rows of m)
  const uint16_t* b;  // BF16 bits, n x k, rows ldb apart (MN-major: k rows of n)
  bf16_t* d;          // m x n, rows ldd apart
  uint32_t m, n, k, lda, ldb, ldd;
  uint32_t batches = 1;
  uint64_t stride_a = 0, stride_b = 0, stride_d = 0;  // elements between matrices
};

// F16: A and B are IEEE F16 (the kernels' MfmaOp issues the f16 MFMA).
// Layouts: which operands are MN-major (their loaders, LDS tile layouts and
// MFMA operand reads).
template <int BM, int BN, int BK, int Stages, bool F16 = false, OperandLayouts Layouts = {}>
struct Cdna3MatmulConfig {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kStages = Stages;
  static constexpr bool kF16 = F16;
  static constexpr OperandLayouts kLayouts = Layouts;
  using Params = Cdna3MatmulParams;
  using Payload = StandardPayload<bf16_t, BM, BN, BK, Stages>;
  using Tiles = typename Payload::Tiles;
  using LoaderA = LdsTileLoader<BM, BK, Layouts.a_mn_major != 0>;
  using LoaderB = LdsTileLoader<BN, BK, Layouts.b_mn_major != 0>;
  // The TileOp of a wave's WM x WN part of the block tile.
  template <int WM, int WN>
  using Op = MfmaOp<WM, WN, BK, F16, typename LoaderA::Layout, typename LoaderB::Layout>;

  // The steps of one workgroup.
  class Work {
   public:
    SK_DEVICE Work(const Params& p, uint32_t block, uint32_t grid)
        : sched_(ceil_div<uint32_t>(p.m, BM), ceil_div<uint32_t>(p.n, BN), p.batches, block, grid),
          k_tiles_(ceil_div<uint32_t>(p.k, BK)),
          loader_a_(p.a, p.m, p.k, p.lda, p.stride_a),
          loader_b_(p.b, p.n, p.k, p.ldb, p.stride_b) {
      const uint32_t tiles =
          ceil_div<uint32_t>(p.m, BM) * ceil_div<uint32_t>(p.n, BN) * p.batches;
      steps_ = (tiles > block ? (tiles - block + grid - 1) / grid : 0) * k_tiles_;
    }
    SK_DEVICE uint32_t steps() const { return steps_; }
    SK_DEVICE WorkInfo tile(uint32_t step) const { return sched_.work(step / k_tiles_); }
    SK_DEVICE bool last_k(uint32_t step) const { return step % k_tiles_ == k_tiles_ - 1; }

    // Issues this wave's share (part of parts) of the step's A and B loads.
    SK_DEVICE void load(const Tiles& t, uint32_t step, int part, int parts) const {
      const WorkInfo w = tile(step);
      const uint32_t k0 = step % k_tiles_ * BK;
      const auto batch = static_cast<uint32_t>(w.batch);
      loader_a_.load(reinterpret_cast<uint8_t*>(t.a), w.m_tile * BM, k0, part, parts, batch);
      loader_b_.load(reinterpret_cast<uint8_t*>(t.b), w.n_tile * BN, k0, part, parts, batch);
    }
    // The LDS DMA instructions one of `parts` loader waves issues per step.
    static constexpr int vm_per_step(int parts) {
      return LoaderA::instrs_per_wave(parts) + LoaderB::instrs_per_wave(parts);
    }

   private:
    StaticPersistentScheduler sched_;
    uint32_t k_tiles_, steps_ = 0;
    LoaderA loader_a_;
    LoaderB loader_b_;
  };
};

// The stage ring of a CDNA3 matmul: the workgroup's LDS (every stage's
// tiles, then the Backend's counters) and the setup every kernel starts with.
template <class Cfg, class Backend>
struct Cdna3Ring {
  using Pipe = TilePipeline<typename Cfg::Payload, Cfg::kStages, Backend>;
  struct Lds {
    typename Cfg::Payload::Storage tiles;
    typename Backend::Storage sync;
  };
  static constexpr uint32_t kLdsBytes = sizeof(Lds);

  // One lane of wave 0 initialises the counters ("input"), the workgroup
  // syncs, and every wave gets the pipeline over its dynamic LDS. Lane: wave.
  SK_DEVICE static Pipe open(uint32_t producer_arrivals, uint32_t consumer_arrivals) {
    auto* lds = reinterpret_cast<Lds*>(arch::dynamic_lds());
    if (arch::wave_idx() == 0) {
      if (auto lane = elect_one())
        Pipe::init(&lds->sync, producer_arrivals, consumer_arrivals, "input");
    }
    arch::workgroup_sync();
    return Pipe(&lds->sync, typename Cfg::Payload{&lds->tiles});
  }
  SK_DEVICE static typename Backend::Storage* counters() {
    return &reinterpret_cast<Lds*>(arch::dynamic_lds())->sync;
  }
};

}  // namespace sk
