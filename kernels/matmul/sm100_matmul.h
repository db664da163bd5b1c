// sm100_matmul.h: the SM100 structured matmul kernel (7 warps, persistent).
//
// Composition, one component per concern:
//   TileIO        Cfg::ALoader (A: TmaTileLoader, or im2col for conv2d),
//                 Cfg::BLoader (B: TmaTileLoader; both rank 3 for a batched
//                 GEMM, and K- or MN-major as Params::layouts say, the
//                 TileOp told the same), Cfg::ScaleIo (scale factors of
//                 block-scaled mainloops; none for BF16) -> input TilePipeline
//   TilePipeline  input:  load warp -> MMA warp        (Cfg::Payload, Stages)
//                 acc:    MMA warp -> epilogue warps   (TmemAccumPayload)
//                 work:   scheduler -> every role      (WorkPayload)
//   TileOp        Cfg::Mma (UmmaOp, or a block-scaled UMMA op), inside
//                 MmaWarpContext / EpilogueWarpContext
//   Output        TmemTileWriter (TMA store)
//   Promotion     with Cfg::Mainloop::kPromote (blockwise-scaled FP8), the
//                 accumulator ring carries one partial per k-block, and the
//                 epilogue warps scale each partial (scales from the input
//                 stage, which they also consume) into registers before the
//                 store
//   Residual      with Cfg::kResidual, warp 7 (epilogue load) TMA-loads C
//                 into the residual TilePipeline -> epilogue warps, which
//                 add beta * C in registers (D = A * B^T + beta * C)
//   Scheduling    StaticPersistentScheduler or ClcScheduler (Cfg::Scheduler)
//                 on warp 4, over the tiles of every matrix of the batch
//                 (Params::batches, Cfg::kBatched; one otherwise); with CLC the load warp also signals the
//                 scheduler's throttle each time it starts a tile
// This file only wires them together; it is compiled verbatim by nvcc for
// sm_100a and by the host compiler against the model.
//
// Barrier arrival counts: input.full 1 (the load warp's arrive.expect_tx; TMA
// delivers the bytes), input.empty 1 (tcgen05.commit; with promotion 5: also
// one per epilogue warp, which read the stage's scales), acc.full 1
// (tcgen05.commit), acc.empty 4 (one per epilogue warp), work.full 1, work.empty
// 6 (load, MMA and the four epilogue warps), tmem_dealloc 4; with CLC also
// clc.response 1 (the issuer's arrive.expect_tx; the response's complete_tx)
// and clc_throttle.full 1 (load warp), clc_throttle.empty 1 (scheduler); with
// the residual also residual.full 1 (epilogue load's arrive.expect_tx) and
// residual.empty 4 (one per epilogue warp), and work.empty 7.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/operand_layout.h"
#include "kernels/core/platform.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/matmul/config.h"
#include "kernels/op/umma_op.h"
#include "kernels/op/warp_context.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk {

template <class Cfg>
struct Sm100Matmul {
  using Smem = typename Cfg::Smem;
  using InputPipe = TilePipeline<typename Cfg::Payload, Cfg::Stages>;
  using AccPipe = TilePipeline<TmemAccumPayload<Cfg::BN>, Cfg::kAccStages>;
  using WorkPipe = TilePipeline<WorkPayload<WorkInfo>, Cfg::kWorkStages>;
  using ResidualPipe = TilePipeline<typename Cfg::ResidualTile, Cfg::kResidualStages>;
  using Mma = typename Cfg::Mma;
  static constexpr uint32_t kWorkConsumers = 2 + kEpilogueWarps + (Cfg::kResidual ? 1 : 0);
  static constexpr bool kPromote = Cfg::Mainloop::kPromote;
  static constexpr uint32_t kInputReleases = 1 + (kPromote ? kEpilogueWarps : 0);

  struct Params {
    typename Cfg::ALoader::Source a;  // matmul: dims {K, M}, box {BK, BM}, 128B swizzle
    arch::TensorMap b;  // dims {K, N}, box {BK, BN}, 128B swizzle
    arch::TensorMap c;  // dims {N, M}, box {32, 32}, swizzle = one box row
    uint32_t m, n, k;
    typename Cfg::ScaleIo::Source scales;  // block-scaled mainloops' scale-factor maps
    // With Cfg::kResidual: C, dims {N, M}, box {BN, BM}, unswizzled; D += beta * C.
    arch::TensorMap residual;
    float beta;
    // With Cfg::kBatched: the number of matrices (dim 2 of the maps of A, B
    // and D); a configuration that is not batched runs one.
    uint32_t batches = 1;
    // With Cfg::kBatched: whether A and B are MN-major (their maps then have
    // dims {M or N, K, batches} and boxes of one 128-byte span of rows: 64
    // 16-bit or 128 8-bit elements); K-major otherwise.
    OperandLayouts layouts;
  };

  SK_DEVICE static void run(const Params& p) {
    Cfg::validate();
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == kLoadWarp) {
      if (auto lane = elect_one()) {
        InputPipe::init(&s.input_barriers, 1, kInputReleases, "input");
        AccPipe::init(&s.acc_barriers, 1, kEpilogueWarps, "acc");
        WorkPipe::init(&s.work_barriers, 1, kWorkConsumers, "work");
        arch::mbarrier_init(&s.tmem_dealloc_barrier, kEpilogueWarps);
        arch::annotate_barrier(&s.tmem_dealloc_barrier, "tmem_dealloc", -1);
        if constexpr (Cfg::kClc) ClcScheduler::init(&s.clc);
        if constexpr (Cfg::kResidual)
          ResidualPipe::init(&s.residual_barriers, 1, kEpilogueWarps, "residual");
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();

    const InputPipe input(&s.input_barriers, typename Cfg::Payload{&s.tiles});
    const AccPipe acc(&s.acc_barriers, TmemAccumPayload<Cfg::BN>{});
    const WorkPipe work(&s.work_barriers, WorkPayload<WorkInfo>{s.work});

    switch (role_of(warp)) {
      case WarpRole::kScheduler: schedule(p, s, work); break;
      case WarpRole::kLoad: load(p, s, input, work); break;
      case WarpRole::kMma: mma(p, s, input, acc, work); break;
      case WarpRole::kEpilogue:
        if constexpr (kPromote)
          epilogue_promoted(p, s, warp, acc, input, work);
        else
          epilogue(p, s, warp, acc, work);
        break;
      case WarpRole::kEpilogueLoad:
        if constexpr (Cfg::kResidual) epilogue_load(p, s, work);
        break;
    }
  }

  SK_HOST_DEVICE static constexpr uint32_t tiles_m(uint32_t m) {
    return ceil_div<uint32_t>(m, Cfg::BM);
  }
  SK_HOST_DEVICE static constexpr uint32_t tiles_n(uint32_t n) {
    return ceil_div<uint32_t>(n, Cfg::BN);
  }
  SK_HOST_DEVICE static constexpr uint32_t batches(const Params& p) {
    return Cfg::kBatched ? p.batches : 1;
  }

  // An operand's loader: with the configuration's layouts for the plain
  // (batched) matmul, K-major for the others.
  template <class Loader>
  SK_DEVICE static Loader operand_loader(const typename Loader::Source* src, uint32_t mn_major,
                                         uint32_t rows) {
    if constexpr (Cfg::kBatched)
      return Loader(src, MnTiling::of(mn_major, rows, Cfg::BK, Cfg::Mainloop::kElemBytes));
    else
      return Loader(src);
  }
  // The TileOp, told the operands' layouts where the configuration has them.
  SK_DEVICE static Mma make_op(const Params& p) {
    if constexpr (Cfg::kBatched)
      return Mma(Cfg::kOpTmemCol, p.layouts);
    else
      return Mma(Cfg::kOpTmemCol);
  }

 private:
  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    const uint32_t pad = (1024 - (arch::smem_addr(base) & 1023)) & 1023;
    return *reinterpret_cast<Smem*>(base + pad);
  }

  // Takes the next work item (lane: warp). Every consumer role calls this once
  // per item, including the final invalid one.
  SK_DEVICE static WorkInfo next_work(typename WorkPipe::Consumer& consumer) {
    auto stage = consumer.acquire();
    const WorkInfo w = arch::ld_shared(stage.tiles());
    std::move(stage).release();
    return w;
  }

  // Publishes the scheduler's items, the final invalid one included.
  template <class Next>
  SK_DEVICE static void publish(const WorkPipe& work, Next&& next) {
    auto producer = work.producer();
    for (uint32_t i = 0;; ++i) {
      const WorkInfo w = next(i);
      auto stage = producer.acquire();
      if (auto lane = elect_one()) arch::st_shared(stage.tiles(), w);
      arch::sync_warp();
      std::move(stage).release();
      if (!w.valid) break;
    }
  }

  SK_DEVICE static void schedule(const Params& p, Smem& s, const WorkPipe& work) {
    arch::annotate_role("scheduler");
    if constexpr (Cfg::kClc) {
      ClcScheduler sched(tiles_m(p.m), tiles_n(p.n), batches(p), &s.clc);
      publish(work, [&sched](uint32_t) { return sched.next(); });
    } else {
      const StaticPersistentScheduler sched(tiles_m(p.m), tiles_n(p.n), batches(p),
                                            arch::cta_idx(), arch::num_ctas());
      publish(work, [&sched](uint32_t i) { return sched.work(i); });
    }
  }

  SK_DEVICE static void load(const Params& p, Smem& s, const InputPipe& input,
                             const WorkPipe& work) {
    if constexpr (Cfg::kClc) {
      typename ClcScheduler::LoadSignal throttle(&s.clc);
      load_tiles(p, input, work, [&throttle] { throttle.tile_started(); });
    } else {
      load_tiles(p, input, work, [] {});
    }
  }

  // The load warp's loop; tile_started() runs as each tile begins.
  template <class TileStarted>
  SK_DEVICE static void load_tiles(const Params& p, const InputPipe& input, const WorkPipe& work,
                                   TileStarted&& tile_started) {
    arch::annotate_role("load");
    const auto a_loader =
        operand_loader<typename Cfg::ALoader>(&p.a, p.layouts.a_mn_major, Cfg::BM);
    const auto b_loader =
        operand_loader<typename Cfg::BLoader>(&p.b, p.layouts.b_mn_major, Cfg::BN);
    const typename Cfg::ScaleIo scale_loader(&p.scales);
    if (auto lane = elect_one()) {
      a_loader.prefetch();
      b_loader.prefetch();
      scale_loader.prefetch();
    }
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, Cfg::BK);
    auto producer = input.producer();
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      tile_started();
      for (uint32_t kb = 0; kb < k_blocks; ++kb) {
        auto stage = producer.acquire();
        if (auto lane = elect_one()) {
          stage.expect_bytes(Cfg::Mainloop::kBytesPerStage);
          const int32_t k0 = static_cast<int32_t>(kb * Cfg::Mainloop::kKCoordPerStage);
          a_loader.load(stage.tiles().a, stage.full_barrier(), k0, w.m_tile * Cfg::BM, w.batch);
          b_loader.load(stage.tiles().b, stage.full_barrier(), k0, w.n_tile * Cfg::BN, w.batch);
          scale_loader.load(stage.tiles(), stage.full_barrier(), kb, w.m_tile, w.n_tile,
                            w.batch);
        }
        std::move(stage).release_async();
      }
    }
    producer.drain();
  }

  SK_DEVICE static void mma(const Params& p, Smem& s, const InputPipe& input, const AccPipe& acc,
                            const WorkPipe& work) {
    arch::annotate_role("mma");
    const MmaWarpContext<Cfg::kTmemCols, kEpilogueWarps> ctx(&s.tmem_slot,
                                                             &s.tmem_dealloc_barrier);
    const Mma op = make_op(p);
    auto consumer = input.consumer();
    auto accumulators = acc.producer();
    auto items = work.consumer();
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, Cfg::BK);
    // One accumulator per tile, or with promotion one per k-block.
    const uint32_t per_acc = kPromote ? 1 : k_blocks;
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      for (uint32_t kb0 = 0; kb0 < k_blocks; kb0 += per_acc) {
        auto out = accumulators.acquire();
        arch::tcgen05_fence_after_thread_sync();
        for (uint32_t kb = kb0; kb < kb0 + per_acc; ++kb) {
          auto stage = consumer.acquire();
          if (auto lane = elect_one()) {
            op.mma(ctx.tmem().base(), out.tiles().column, stage.tiles(), kb > kb0);
            op.commit(stage.empty_barrier());
          }
          std::move(stage).release_async();
        }
        if (auto lane = elect_one()) op.commit(out.full_barrier());
        std::move(out).release_async();
      }
    }
  }

  SK_DEVICE static void epilogue(const Params& p, Smem& s, uint32_t warp, const AccPipe& acc,
                                 const WorkPipe& work) {
    arch::annotate_role("epilogue");
    if constexpr (Cfg::kResidual) {
      const ResidualPipe pipe(&s.residual_barriers, typename Cfg::ResidualTile{&s.residual});
      auto residuals = pipe.consumer();
      epilogue_tiles(p, s, warp, acc, work, &residuals);
    } else {
      epilogue_tiles(p, s, warp, acc, work, static_cast<int*>(nullptr));
    }
  }

  // The epilogue warps' loop; `residuals` is the residual ring's consumer end
  // (unused without a residual).
  template <class Residuals>
  SK_DEVICE static void epilogue_tiles(const Params& p, Smem& s, uint32_t warp, const AccPipe& acc,
                                       const WorkPipe& work, [[maybe_unused]] Residuals* residuals) {
    const EpilogueWarpContext<Cfg::kTmemCols, kEpilogueWarps> ctx(&s.tmem_slot,
                                                                  &s.tmem_dealloc_barrier);
    const typename Cfg::Writer writer(&p.c, s.staging[warp], p.m, p.n);
    auto consumer = acc.consumer();
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      auto stage = consumer.acquire();
      arch::tcgen05_fence_after_thread_sync();
      if constexpr (Cfg::kResidual) {
        auto c = residuals->acquire();
        writer.write(ctx.tmem().base(), stage.tiles().column, warp % 4, w.m_tile * Cfg::BM,
                     w.n_tile * Cfg::BN, w.batch, c.tiles(), p.beta);
        std::move(c).release();
      } else {
        writer.write(ctx.tmem().base(), stage.tiles().column, warp % 4, w.m_tile * Cfg::BM,
                     w.n_tile * Cfg::BN, w.batch);
      }
      arch::tcgen05_fence_before_thread_sync();
      std::move(stage).release();
    }
    writer.flush();
  }

  // The epilogue warps' loop with promotion: per tile, each k-block's partial
  // accumulator is scaled (by the scales of the input stage it came from)
  // into registers; then the tile is stored from the registers.
  SK_DEVICE static void epilogue_promoted(const Params& p, Smem& s, uint32_t warp,
                                          const AccPipe& acc, const InputPipe& input,
                                          const WorkPipe& work) {
    arch::annotate_role("epilogue");
    using Mainloop = typename Cfg::Mainloop;
    const EpilogueWarpContext<Cfg::kTmemCols, kEpilogueWarps> ctx(&s.tmem_slot,
                                                                  &s.tmem_dealloc_barrier);
    const typename Cfg::Writer writer(&p.c, s.staging[warp], p.m, p.n);
    auto partials = acc.consumer();
    auto stages = input.consumer();
    auto items = work.consumer();
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, Cfg::BK);
    typename Mainloop::Accumulator sum;
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      Mainloop::clear(sum);
      for (uint32_t kb = 0; kb < k_blocks; ++kb) {
        auto part = partials.acquire();
        arch::tcgen05_fence_after_thread_sync();
        auto stage = stages.acquire();
        Mainloop::promote(sum, ctx.tmem().base(), part.tiles().column, warp % 4, stage.tiles());
        std::move(stage).release();
        arch::tcgen05_fence_before_thread_sync();
        std::move(part).release();
      }
      writer.write_registers(sum, warp % 4, w.m_tile * Cfg::BM, w.n_tile * Cfg::BN, w.batch);
    }
    writer.flush();
  }

  // Warp 7: one C tile per work item, loaded while the MMA computes that
  // tile's accumulator; edge tiles are zero-filled by TMA.
  SK_DEVICE static void epilogue_load(const Params& p, Smem& s, const WorkPipe& work) {
    arch::annotate_role("epilogue_load");
    const ResidualPipe pipe(&s.residual_barriers, typename Cfg::ResidualTile{&s.residual});
    const TmaTileLoader c_loader(&p.residual);
    if (auto lane = elect_one()) c_loader.prefetch();
    auto producer = pipe.producer();
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      auto stage = producer.acquire();
      if (auto lane = elect_one()) {
        stage.expect_bytes(Cfg::ResidualTile::kBytesPerStage);
        c_loader.load(stage.tiles(), stage.full_barrier(), static_cast<int32_t>(w.n_tile * Cfg::BN),
                      static_cast<int32_t>(w.m_tile * Cfg::BM));
      }
      std::move(stage).release_async();
    }
    producer.drain();
  }
};

}  // namespace sk
