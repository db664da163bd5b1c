// cdna3_wave_specialized_matmul.h: a wave-specialized BF16 matmul for CDNA3
// (MI300X) on atomic counters: loader waves fill the stage ring by LDS DMA,
// MFMA waves consume it, as the warp-specialized NVIDIA kernels do with TMA
// and mbarriers.
//
// Six waves: waves 0 and 1 load (each issues half of every stage's DMA
// instructions), waves 2..5 compute a 2 x 2 grid of (BM / 2) x (BN / 2)
// parts of the block tile, one per SIMD. The ring is a TilePipeline over
// SingleCounterBackend (one counter per stage, 2 + 4 increments per lap).
//
// A loader wave keeps one stage's loads in flight: it acquires and fills the
// next stage, waits (vmcnt) for the previous one's DMA only, then releases
// that stage. An MFMA wave acquires a stage, runs its MFMAs, releases it, and
// after a tile's last K step stores its accumulators from VGPRs.
//
// Invariants: 6 waves per workgroup, kLoaders + kMmaWaves of them; a stage's
// counter takes exactly kLoaders + kMmaWaves increments per lap.
#pragma once

#include <utility>

#include "kernels/arch/gfx942.h"
#include "kernels/core/lanes.h"
#include "kernels/io/reg_tile_writer.h"
#include "kernels/matmul/cdna3_config.h"
#include "kernels/op/mfma_op.h"
#include "kernels/pipeline/counter_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk {

template <class Cfg>
struct Cdna3WaveSpecializedMatmul {
  static constexpr int kLoaders = 2;
  static constexpr int kMmaWaves = 4;
  static constexpr int kWaves = kLoaders + kMmaWaves;
  using Backend = SingleCounterBackend<Cfg::kStages, kLoaders, kMmaWaves>;
  using Ring = Cdna3Ring<Cfg, Backend>;
  using Pipe = typename Ring::Pipe;
  using Op = typename Cfg::template Op<Cfg::kBM / 2, Cfg::kBN / 2>;
  using Writer = RegTileWriter<Op>;
  static constexpr uint32_t kLdsBytes = Ring::kLdsBytes;
  static constexpr int kVmPerStep = Cfg::Work::vm_per_step(kLoaders);

  SK_DEVICE static void run(const typename Cfg::Params& p) {
    const Pipe pipe = Ring::open(kLoaders, kMmaWaves);
    const uint32_t wave = arch::wave_idx();
    const typename Cfg::Work work(p, arch::block_idx(), arch::num_blocks());
    if (wave < kLoaders)
      load(pipe, work, static_cast<int>(wave));
    else
      compute(pipe, work, p, wave - kLoaders);
  }

 private:
  SK_DEVICE static void load(const Pipe& pipe, const typename Cfg::Work& work, int part) {
    arch::annotate_role("loader");
    auto producer = pipe.producer();
    auto pending = producer.acquire();
    work.load(pending.tiles(), 0, part, kLoaders);
    for (uint32_t step = 1; step < work.steps(); ++step) {
      auto next = producer.acquire();
      work.load(next.tiles(), step, part, kLoaders);
      arch::s_waitcnt_vmcnt<kVmPerStep>();
      std::move(pending).release();
      pending = std::move(next);
    }
    arch::s_waitcnt_vmcnt<0>();
    std::move(pending).release();
  }

  SK_DEVICE static void compute(const Pipe& pipe, const typename Cfg::Work& work,
                                const typename Cfg::Params& p, uint32_t mma_wave) {
    arch::annotate_role("mma");
    const uint32_t m_off = mma_wave / 2 * (Cfg::kBM / 2), n_off = mma_wave % 2 * (Cfg::kBN / 2);
    auto consumer = pipe.consumer();
    typename Op::Accum acc;
    Op::clear(acc);
    for (uint32_t step = 0; step < work.steps(); ++step) {
      {
        auto stage = consumer.acquire();
        Op::mma(acc, reinterpret_cast<const uint8_t*>(stage.tiles().a), m_off,
                reinterpret_cast<const uint8_t*>(stage.tiles().b), n_off);
        std::move(stage).release();
      }
      if (work.last_k(step)) {
        const WorkInfo t = work.tile(step);
        Writer::store(acc, p.d + t.batch * p.stride_d, p.ldd, p.m, p.n,
                      t.m_tile * Cfg::kBM + m_off, t.n_tile * Cfg::kBN + n_off);
        Op::clear(acc);
      }
    }
  }
};

}  // namespace sk
