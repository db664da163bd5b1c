// cdna3_pingpong_matmul.h: the 8-wave ping-pong BF16 matmul for CDNA3
// (MI300X), the schedule of HipKittens' and Modular's AMD kernels on our
// structured parts.
//
// Eight waves, two groups of four (group g = wave / 4, two waves per SIMD).
// Every wave is both a loader and an MMA wave: it loads an eighth of each
// stage and computes a (BM / 2) x (BN / 4) part of the block tile (group g
// takes rows [g BM / 2, (g + 1) BM / 2), wave w % 4 one quarter of the
// columns). The ring is a TilePipeline over SplitCounterBackend with 8
// producer and 8 consumer arrivals per lap, so correctness rests on the
// counters alone. The s_barriers only stagger the groups: group 1 takes one
// extra barrier before its first step and group 0 one after its last, so
// while one group runs its MFMA cluster (at raised priority) the other issues
// the next stage's loads and waits for its data; the two alternate on each
// SIMD's matrix core.
//
// Per step, each wave: acquires the next stage and issues its loads, waits
// (vmcnt) for the previous step's loads only, releases that stage (full),
// then between two barriers acquires the current stage, runs the MFMAs and
// releases it (empty); after a tile's last K step it stores its accumulators.
//
// Invariants: 8 waves per workgroup; every wave takes the same number of
// barriers (2 per step + 1); Stages >= 2 (with 2, a group's next load waits
// for the other group's MFMAs on the same stage; 3 lets it run ahead).
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
struct Cdna3PingPongMatmul {
  static constexpr int kWaves = 8;
  static_assert(Cfg::kStages >= 2, "ping-pong double-buffers at least");
  using Backend = SplitCounterBackend<Cfg::kStages, kWaves, kWaves>;
  using Ring = Cdna3Ring<Cfg, Backend>;
  using Pipe = typename Ring::Pipe;
  using Op = typename Cfg::template Op<Cfg::kBM / 2, Cfg::kBN / 4>;
  using Writer = RegTileWriter<Op>;
  static constexpr uint32_t kLdsBytes = Ring::kLdsBytes;
  static constexpr int kVmPerStep = Cfg::Work::vm_per_step(kWaves);

  SK_DEVICE static void run(const typename Cfg::Params& p) {
    const Pipe pipe = Ring::open(kWaves, kWaves);
    const uint32_t wave = arch::wave_idx();
    const typename Cfg::Work work(p, arch::block_idx(), arch::num_blocks());
    const uint32_t group = wave / 4;
    arch::annotate_role(group == 0 ? "group0" : "group1");
    const uint32_t m_off = group * (Cfg::kBM / 2), n_off = wave % 4 * (Cfg::kBN / 4);

    auto producer = pipe.producer();
    auto consumer = pipe.consumer();
    auto pending = producer.acquire();
    work.load(pending.tiles(), 0, static_cast<int>(wave), kWaves);
    if (group == 1) arch::s_barrier();
    typename Op::Accum acc;
    Op::clear(acc);
    for (uint32_t step = 0; step < work.steps(); ++step) {
      if (step + 1 < work.steps()) {
        auto next = producer.acquire();
        work.load(next.tiles(), step + 1, static_cast<int>(wave), kWaves);
        arch::s_waitcnt_vmcnt<kVmPerStep>();
        std::move(pending).release();
        pending = std::move(next);
      } else {
        arch::s_waitcnt_vmcnt<0>();
        std::move(pending).release();
      }
      arch::s_barrier();
      arch::s_setprio<1>();
      {
        auto stage = consumer.acquire();
        Op::mma(acc, reinterpret_cast<const uint8_t*>(stage.tiles().a), m_off,
                reinterpret_cast<const uint8_t*>(stage.tiles().b), n_off);
        std::move(stage).release();
      }
      arch::s_setprio<0>();
      if (work.last_k(step)) {
        const WorkInfo t = work.tile(step);
        Writer::store(acc, p.d + t.batch * p.stride_d, p.ldd, p.m, p.n,
                      t.m_tile * Cfg::kBM + m_off, t.n_tile * Cfg::kBN + n_off);
        Op::clear(acc);
      }
      arch::s_barrier();
    }
    if (group == 0) arch::s_barrier();
  }
};

}  // namespace sk
