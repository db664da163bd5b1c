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
//   Pair          with a 2-SM mainloop (Cfg::kPair), CTAs run in clusters of
//                 two (kernels/sched/cluster_shape.h, a 2 x 1 block of tiles
//                 per pair): each loads its tile's A rows and its half of B,
//                 completing on the leader's (even rank's) input barriers,
//                 whose expect_tx counts both CTAs' bytes; the leader alone
//                 issues the pair's MMAs, and its commits arrive on both
//                 CTAs' input.empty and acc.full; each CTA's epilogue drains
//                 its own TMEM and releases the accumulator to the leader's
//                 acc.empty (remote arrives). The peer's MMA warp takes part
//                 in the pair's TMEM allocation and deallocation only. The
//                 barriers are published with a cluster barrier after init,
//                 and every warp meets a cluster barrier before exit.
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
// residual.empty 4 (one per epilogue warp), and work.empty 7. A pair's
// leader counts 8 on acc.empty (both CTAs' epilogue warps).
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
#include "kernels/sched/cluster_shape.h"

namespace sk {

// The 2-SM seeded bugs of the verifier's corpus (verify/corpus/
// pair_cases.cc): each changes one thing, at a point marked
// `if constexpr (B == ...)`, into a mistake an author of a 2-SM kernel
// makes. kNone is the kernel itself.
enum class PairBug {
  kNone,
  kPeerIssuesMma,   // the odd CTA of the pair leads (issues the MMAs, owns the barriers)
  kCommitLocal,     // the accumulator's commit arrives on the leader's barrier only
  kPeerSkipsAlloc,  // the peer's MMA warp leaves before the pair's TMEM allocation
  kExpectOwnBytes,  // the leader's expect_tx counts its own bytes, not the peer's
  kReleaseLocal,    // each epilogue releases the accumulator to its own CTA
  kNoExitSync,      // no cluster barrier before exit
  kSameBHalf,       // both CTAs load the first half of B's tile
  kMixedCommit,     // the input stage is released with a cta_group::1 commit
  kPeerFreesEarly,  // the peer frees the pair's TMEM without waiting for its dealloc barrier
};

template <class Cfg, PairBug B = PairBug::kNone>
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
  static constexpr bool kPair = Cfg::kPair;
  // The CTAs whose epilogue warps release each accumulator stage.
  static constexpr uint32_t kAccReleases = kEpilogueWarps * (kPair ? 2 : 1);
  static constexpr ClusterShape kPairShape{2, 1};

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
        AccPipe::init(&s.acc_barriers, 1, kAccReleases, "acc");
        WorkPipe::init(&s.work_barriers, 1, kWorkConsumers, "work");
        arch::mbarrier_init(&s.tmem_dealloc_barrier, kEpilogueWarps);
        arch::annotate_barrier(&s.tmem_dealloc_barrier, "tmem_dealloc", -1);
        if constexpr (Cfg::kClc) ClcScheduler::init(&s.clc);
        if constexpr (Cfg::kResidual)
          ResidualPipe::init(&s.residual_barriers, 1, kEpilogueWarps, "residual");
        arch::fence_mbarrier_init();
      }
    }
    // A pair's peer completes loads on, and arrives on, the leader's
    // barriers (and the leader's commits on the peer's): the whole cluster
    // sees them initialised first.
    if constexpr (kPair)
      arch::cluster_sync();
    else
      arch::cta_sync();

    const InputPipe input(&s.input_barriers, typename Cfg::Payload{&s.tiles});
    // Each CTA's epilogue releases an accumulator stage to the MMA warp that
    // fills it: the leader's, in a pair.
    const AccPipe acc(MbarrierBackend<Cfg::kAccStages>(
                          &s.acc_barriers, kPair && B != PairBug::kReleaseLocal ? leader_mask() : 0),
                      TmemAccumPayload<Cfg::BN>{});
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
    // No CTA of a pair exits while its peer may still load into, arrive on
    // or commit to it.
    if constexpr (kPair && B != PairBug::kNoExitSync) arch::cluster_sync();
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
  // The CTAs of the launch's clusters (2 for a pair, else 1) and the blocks
  // of tiles they walk (kernels/sched/cluster_shape.h).
  static constexpr uint32_t kClusterSize = kPair ? 2 : 1;
  SK_HOST_DEVICE static constexpr uint64_t blocks(uint32_t m, uint32_t n, uint32_t batch) {
    return kPair ? cluster_blocks(tiles_m(m), tiles_n(n), batch, kPairShape)
                 : uint64_t{tiles_m(m)} * tiles_n(n) * batch;
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
  // The pair: its leader's rank (the even one), whether this CTA leads, and
  // the leader's rank bit.
  SK_DEVICE static uint32_t leader_rank() {
    return (arch::cluster_ctarank() & ~1u) | (B == PairBug::kPeerIssuesMma ? 1u : 0u);
  }
  SK_DEVICE static bool leads() { return !kPair || arch::cluster_ctarank() == leader_rank(); }
  SK_DEVICE static uint16_t leader_mask() { return static_cast<uint16_t>(1u << leader_rank()); }

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
    if constexpr (Cfg::kClc && kPair) {
      ClcScheduler sched(tiles_m(p.m), tiles_n(p.n), batches(p), &s.clc, ClcScheduler::PairTag{});
      publish(work, [&sched](uint32_t) { return sched.next(); });
    } else if constexpr (Cfg::kClc) {
      ClcScheduler sched(tiles_m(p.m), tiles_n(p.n), batches(p), &s.clc);
      publish(work, [&sched](uint32_t) { return sched.next(); });
    } else if constexpr (kPair) {
      // Both CTAs of a pair walk the same blocks: block c, c + clusters, ...
      const uint32_t tm = tiles_m(p.m), tn = tiles_n(p.n), nb = batches(p);
      const uint64_t first = arch::cta_idx() / 2, step = arch::num_ctas() / 2,
                     total = cluster_blocks(tm, tn, nb, kPairShape);
      const uint32_t rank = arch::cluster_ctarank();
      publish(work, [&](uint32_t i) {
        const uint64_t t = first + i * step;
        return t < total ? cluster_tile_work(t, tm, tn, nb, 1, kPairShape, rank) : WorkInfo{};
      });
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
          const int32_t k0 = static_cast<int32_t>(kb * Cfg::Mainloop::kKCoordPerStage);
          if constexpr (kPair) {
            // Both CTAs' bytes complete on the leader's barrier; each CTA
            // loads its tile's A rows and its half of B (by rank: the MMA
            // reads the even rank's half first).
            const uint32_t leader = leader_rank();
            const int32_t half = B == PairBug::kSameBHalf ? 0 : arch::cluster_ctarank() % 2;
            if (leads())
              stage.expect_bytes((B == PairBug::kExpectOwnBytes ? 1 : 2) *
                                 Cfg::Mainloop::kBytesPerStage);
            a_loader.load_pair(stage.tiles().a, stage.full_barrier(), leader, k0,
                               w.m_tile * Cfg::BM, w.batch);
            b_loader.load_pair(stage.tiles().b, stage.full_barrier(), leader, k0,
                               w.n_tile * Cfg::BN + half * (Cfg::BN / 2), w.batch);
          } else {
            stage.expect_bytes(Cfg::Mainloop::kBytesPerStage);
            a_loader.load(stage.tiles().a, stage.full_barrier(), k0, w.m_tile * Cfg::BM, w.batch);
            b_loader.load(stage.tiles().b, stage.full_barrier(), k0, w.n_tile * Cfg::BN, w.batch);
            scale_loader.load(stage.tiles(), stage.full_barrier(), kb, w.m_tile, w.n_tile,
                              w.batch);
          }
        }
        std::move(stage).release_async();
      }
    }
    producer.drain();
  }

  SK_DEVICE static void mma(const Params& p, Smem& s, const InputPipe& input, const AccPipe& acc,
                            const WorkPipe& work) {
    arch::annotate_role("mma");
    if constexpr (B == PairBug::kPeerSkipsAlloc)
      if (!leads()) return skip_work(work);
    if constexpr (B == PairBug::kPeerFreesEarly)
      if (!leads()) {
        // The context's allocation and hand-off, then the free at once: the
        // leader's MMAs still write this CTA's half and its epilogue reads it.
        using Alloc = TmemAllocation<Cfg::kTmemCols, Cfg::kCtaGroup>;
        Alloc::allocate(&s.tmem_slot);
        const Alloc t = Alloc::from_shared(&s.tmem_slot);
        arch::tcgen05_fence_before_thread_sync();
        arch::named_barrier_arrive(kTmemAllocBarrierId, 32 * (1 + kEpilogueWarps));
        skip_work(work);
        t.release_lock();
        t.deallocate();
        return;
      }
    const MmaWarpContext<Cfg::kTmemCols, kEpilogueWarps, Cfg::kCtaGroup> ctx(
        &s.tmem_slot, &s.tmem_dealloc_barrier);
    // The peer's MMA warp allocates and frees the pair's TMEM with the
    // leader's and takes its work items; the leader issues for both.
    if (!leads()) return skip_work(work);
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
            if constexpr (B == PairBug::kMixedCommit)
              arch::tcgen05_commit(stage.empty_barrier());
            else
              op.commit(stage.empty_barrier());
          }
          std::move(stage).release_async();
        }
        if (auto lane = elect_one()) {
          if constexpr (B == PairBug::kCommitLocal)
            arch::tcgen05_commit_pair(out.full_barrier());
          else
            op.commit(out.full_barrier());
        }
        std::move(out).release_async();
      }
    }
  }

  // A warp with no part in the work items' processing takes them anyway
  // (the work ring counts its releases).
  SK_DEVICE static void skip_work(const WorkPipe& work) {
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
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
