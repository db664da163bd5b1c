// amd_mutant_matmul.h: the wave-specialized CDNA3 matmul
// (kernels/matmul/cdna3_wave_specialized_matmul.h) with switches that seed
// the AMD bug classes, for the corpus (amd_cases.cc). Bug::kNone is the
// shipped kernel's protocol; each other value changes one line of it. The
// Backend is a parameter so that a mutant backend seeds the ring's
// thresholds.
//
// Bugs seeded here (the fifth AMD class, LDS over capacity, is a config):
//   kEveryLaneSignals  a loader wave signals the stage with an atomic that
//                      every one of its 64 lanes performs (no elect);
//   kNoWaitcnt         a loader wave releases its stage without waiting for
//                      the stage's LDS DMA (s_waitcnt vmcnt);
//   kMissingMmaWave    the workgroup is launched with one MMA wave fewer
//                      than the ring counts per lap;
//   kLastWaitShort     the loader's last wait keeps the loop's count
//                      (s_waitcnt vmcnt(N) instead of 0), so it releases the
//                      last stage and exits with that stage's LDS DMA alive.
//   kInitNoBarrier     wave 0 zeroes the ring's counters but no s_barrier
//                      (workgroup_sync) follows, so the other waves' atomics
//                      and waits on them are not ordered after the init.
#pragma once

#include <utility>

#include "kernels/arch/gfx942.h"
#include "kernels/core/lanes.h"
#include "kernels/io/reg_tile_writer.h"
#include "kernels/matmul/cdna3_config.h"
#include "kernels/op/mfma_op.h"
#include "kernels/pipeline/counter_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk::corpus {

enum class AmdBug {
  kNone, kEveryLaneSignals, kNoWaitcnt, kMissingMmaWave, kLastWaitShort, kInitNoBarrier,
};

template <class Cfg, AmdBug B, class Backend>
struct AmdMutantMatmul {
  static constexpr int kLoaders = 2;
  static constexpr int kMmaWaves = 4;
  static constexpr int kWaves = kLoaders + kMmaWaves - (B == AmdBug::kMissingMmaWave ? 1 : 0);
  using Ring = Cdna3Ring<Cfg, Backend>;
  using Pipe = typename Ring::Pipe;
  using Op = MfmaOp<Cfg::kBM / 2, Cfg::kBN / 2, Cfg::kBK>;
  static constexpr uint32_t kLdsBytes = Ring::kLdsBytes;
  static constexpr int kVmPerStep = Cfg::Work::vm_per_step(kLoaders);

  SK_DEVICE static void run(const typename Cfg::Params& p) {
    const Pipe pipe = open();
    const uint32_t wave = arch::wave_idx();
    const typename Cfg::Work work(p, arch::block_idx(), arch::num_blocks());
    if (wave < kLoaders)
      load(pipe, work, static_cast<int>(wave));
    else
      compute(pipe, work, p, wave - kLoaders);
  }

 private:
  // Ring::open, or for kInitNoBarrier the same without its workgroup_sync.
  SK_DEVICE static Pipe open() {
    if constexpr (B == AmdBug::kInitNoBarrier) {
      auto* lds = reinterpret_cast<typename Ring::Lds*>(arch::dynamic_lds());
      if (arch::wave_idx() == 0) {
        if (auto lane = elect_one()) Pipe::init(&lds->sync, kLoaders, kMmaWaves, "input");
      }
      return Pipe(&lds->sync, typename Cfg::Payload{&lds->tiles});
    } else {
      return Ring::open(kLoaders, kMmaWaves);
    }
  }

  template <class Stage>
  SK_DEVICE static void release_loaded(Stage&& st) {
    if constexpr (B == AmdBug::kEveryLaneSignals) {
      // Every lane of the wave performs the increment.
      const uint32_t s = st.stage();
      std::move(st).release_async();
      arch::atomic_add(&Ring::counters()->full[s], 1u, arch::Scope::kWorkgroup);  // a split ring
    } else {
      std::move(st).release();
    }
  }

  SK_DEVICE static void load(const Pipe& pipe, const typename Cfg::Work& work, int part) {
    arch::annotate_role("loader");
    auto producer = pipe.producer();
    auto pending = producer.acquire();
    work.load(pending.tiles(), 0, part, kLoaders);
    for (uint32_t step = 1; step < work.steps(); ++step) {
      auto next = producer.acquire();
      work.load(next.tiles(), step, part, kLoaders);
      if constexpr (B != AmdBug::kNoWaitcnt) arch::s_waitcnt_vmcnt<kVmPerStep>();
      release_loaded(std::move(pending));
      pending = std::move(next);
    }
    if constexpr (B == AmdBug::kLastWaitShort)
      arch::s_waitcnt_vmcnt<kVmPerStep>();
    else if constexpr (B != AmdBug::kNoWaitcnt)
      arch::s_waitcnt_vmcnt<0>();
    release_loaded(std::move(pending));
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
        RegTileWriter<Op>::store(acc, p.d, p.ldd, p.m, p.n, t.m_tile * Cfg::kBM + m_off,
                                 t.n_tile * Cfg::kBN + n_off);
        Op::clear(acc);
      }
    }
  }
};

// A split-counter ring whose consumers wait one lap early: lap L passes
// once the producers filled the stage L times, not L + 1 (the threshold of
// the lap before).
template <int Stages, uint32_t P, uint32_t C>
struct LapEarlyBackend : SplitCounterBackend<Stages, P, C> {
  using Base = SplitCounterBackend<Stages, P, C>;
  using Base::Base;
  SK_DEVICE void wait_full(uint32_t stage, uint32_t lap) const {
    arch::wait_counter_geq(&this->storage()->full[stage], lap * P, arch::Scope::kWorkgroup);
  }
};

}  // namespace sk::corpus
