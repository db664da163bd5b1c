// mutant_matmul.h: the correct SM100 matmul of the seeded-bug corpus, with one
// mutation point per bug.
//
// MutantMatmul<Bug::kNone> is a correct 7-warp persistent matmul (epilogue
// warps 0-3, scheduler 4, load 5, MMA 6; tile 128x64x64, 2 input stages, 2
// TMEM accumulator stages). Its input ring is written at the mbarrier level
// (PipelineState plus intrinsics) so that waits, parities, counts and byte
// announcements can be mutated; the accumulator consumer and the work ring use
// TilePipeline. Each other Bug value changes exactly one thing, marked
// `if constexpr (B == Bug::k...)`, so every seeded bug is a small variant of
// the fixed kernel, its twin. Bug::kPreArrive is the correct variant of the
// pre-arrive protocol (consumers arrive on every empty barrier once at start,
// the producer waits on parity lap & 1), twin of Bug::kMissingPreArrive.
// Bug::kRetargetA is the correct variant of a grouped-GEMM style A operand:
// the load warp keeps its CTA's A tensor map in a global workspace and points
// it at the work tile's rows (tensormap.replace of the base address and row
// count) before loading, after the previous tile's loads have landed and with
// the tensormap proxy fences; twin of Bug::kTensormapNoFence and
// Bug::kTensormapInUse. Bug::kInitNotOrdered moves the input ring's
// mbarrier.init from before the CTA barrier into the load warp's role, after
// it: in the nominal schedule the inits still run before the MMA warp's first
// wait, so only happens-before finds the missing order.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/core/pipeline_state.h"
#include "kernels/core/swizzle.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/matmul/warp_role.h"
#include "kernels/op/umma_op.h"
#include "kernels/pipeline/payloads.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk::corpus {

enum class Bug {
  kNone, kPreArrive,
  kStageOverwrite, kReadUnloadedStage, kExpectTxLow, kExpectTxHigh, kArrivalCountHigh,
  kArrivalCountLow, kParityFromLoopIndex, kParityFixed, kBadParity, kMissingPreArrive,
  kLoopBoundsMismatch, kEpilogueBeforeCommit, kAccumulatorReuse, kTmemLeak, kDeallocEarly,
  kDoubleDealloc, kBadNcols, kAllocAfterRelinquish, kMissingProxyFence, kUseBeforeInit,
  kReinitWithoutInval, kSmemOverCapacity, kMisalignedTmaDst, kStageNeverReleased,
  kStageDoubleRelease, kTileToTwoCtas, kAllocOneLane, kLaneQuarter, kMissingWaitLd,
  kStagingReuse, kMmaPlainRelease, kNamedBarrierPartial,
  kRetargetA, kTensormapNoFence, kTensormapInUse, kStoreAliveAtExit, kLoadAliveAtExit,
  kInitNotOrdered,
};

template <Bug B>
struct MutantMatmul {
  static constexpr int BM = 128, BN = 64, BK = 64, S = 2, kAcc = 2;
  static constexpr uint32_t kCols = kAcc * BN;
  static constexpr uint32_t kStageBytes = (BM + BN) * BK * 2;
  static constexpr uint32_t kRowBytes = 64;  // 32 BF16 outputs per staging row
  static constexpr bool kPreArriveProtocol = B == Bug::kPreArrive || B == Bug::kMissingPreArrive;
  static constexpr bool kRetarget =
      B == Bug::kRetargetA || B == Bug::kTensormapNoFence || B == Bug::kTensormapInUse;
  using Mma = UmmaOp<BM, BN, BK>;
  using AccPipe = TilePipeline<TmemAccumPayload<BN>, kAcc>;
  using WorkPipe = TilePipeline<WorkPayload<WorkInfo>, 2>;

  struct Smem {
    alignas(1024) bf16_t a[S][BM * BK];
    alignas(1024) bf16_t b[S][BN * BK];
    alignas(1024) uint8_t staging[kEpilogueWarps][32 * kRowBytes];
    MbarrierBackend<S>::Storage input;
    MbarrierBackend<kAcc>::Storage acc;
    MbarrierBackend<2>::Storage work;
    WorkInfo work_slots[2];
    uint64_t dealloc_bar;
    uint32_t tmem_slot;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;

  struct Params {
    arch::TensorMap a, b, c;  // c: dims {N, M}, box {32, 32}, 64B swizzle
    uint32_t m, n, k;
    // kRetarget variants: one copy of `a` per CTA in global memory, and A's
    // base address and row pitch for retargeting it.
    arch::TensorMap* a_workspace = nullptr;
    uint64_t a_base = 0, a_row_bytes = 0;
  };

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == kLoadWarp) {
      if (auto lane = elect_one()) {
        if constexpr (B != Bug::kInitNotOrdered) init_input(s);
        if constexpr (B == Bug::kReinitWithoutInval) init_input(s);
        AccPipe::init(&s.acc, 1, B == Bug::kArrivalCountLow ? 1 : kEpilogueWarps, "acc");
        WorkPipe::init(&s.work, 1, 6, "work");
        if constexpr (B != Bug::kUseBeforeInit) arch::mbarrier_init(&s.dealloc_bar, kEpilogueWarps);
        arch::annotate_barrier(&s.dealloc_bar, "tmem_dealloc", -1);
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    const WorkPipe work(&s.work, WorkPayload<WorkInfo>{s.work_slots});
    switch (role_of(warp)) {
      case WarpRole::kScheduler: schedule(p, work); break;
      case WarpRole::kLoad: load(p, s, work); break;
      case WarpRole::kMma: mma(p, s, work); break;
      case WarpRole::kEpilogue: epilogue(p, s, warp, work); break;
      case WarpRole::kEpilogueLoad: break;  // no residual: the kernel has 7 warps
    }
  }

 private:
  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((1024 - (arch::smem_addr(base) & 1023)) & 1023));
  }
  SK_DEVICE static void init_input(Smem& s) {
    for (int i = 0; i < S; ++i) {
      arch::mbarrier_init(&s.input.full[i], B == Bug::kArrivalCountHigh ? 2 : 1);
      arch::mbarrier_init(&s.input.empty[i], 1);
      arch::annotate_barrier(&s.input.full[i], "input.full", i);
      arch::annotate_barrier(&s.input.empty[i], "input.empty", i);
    }
  }
  SK_DEVICE static void wait(uint64_t* bar, uint32_t parity) {
    while (!arch::mbarrier_try_wait_parity(bar, parity)) {
    }
  }
  SK_DEVICE static uint32_t empty_parity(uint32_t lap) {
    return kPreArriveProtocol ? (lap & 1) : ((lap & 1) ^ 1);
  }
  SK_DEVICE static WorkInfo next_work(typename WorkPipe::Consumer& c) {
    auto stage = c.acquire();
    const WorkInfo w = arch::ld_shared(stage.tiles());
    std::move(stage).release();
    return w;
  }

  SK_DEVICE static void schedule(const Params& p, const WorkPipe& work) {
    arch::annotate_role("scheduler");
    const bool dup = B == Bug::kTileToTwoCtas;  // every CTA walks the whole grid
    const StaticPersistentScheduler sched(ceil_div<uint32_t>(p.m, BM), ceil_div<uint32_t>(p.n, BN), 1,
                                          dup ? 0 : arch::cta_idx(), dup ? 1 : arch::num_ctas());
    auto producer = work.producer();
    for (uint32_t i = 0;; ++i) {
      const WorkInfo w = sched.work(i);
      auto stage = producer.acquire();
      if (auto lane = elect_one()) arch::st_shared(stage.tiles(), w);
      arch::sync_warp();
      std::move(stage).release();
      if (!w.valid) break;
    }
  }

  // Points the CTA's A map at the rows of tile `w` once no load that reads the
  // map is in flight: every stage's latest fill has landed (parity[i] is the
  // full-barrier parity of that fill, or -1 for a stage never filled).
  SK_DEVICE static void retarget_a(const Params& p, Smem& s, arch::TensorMap* map,
                                   const WorkInfo& w, const int (&parity)[S]) {
    if (auto lane = elect_one()) {
      if constexpr (B != Bug::kTensormapInUse) {
        for (int i = 0; i < S; ++i)
          if (parity[i] >= 0) wait(&s.input.full[i], static_cast<uint32_t>(parity[i]));
      }
      const uint32_t row0 = w.m_tile * BM;
      arch::tensormap_replace_global_address(map, p.a_base + uint64_t{row0} * p.a_row_bytes);
      arch::tensormap_replace_global_dim<1>(map, p.m - row0 < BM ? p.m - row0 : BM);
      arch::fence_proxy_tensormap_release();
      if constexpr (B != Bug::kTensormapNoFence) arch::fence_proxy_tensormap_acquire(map);
    }
    arch::sync_warp();
  }

  SK_DEVICE static void load(const Params& p, Smem& s, const WorkPipe& work) {
    arch::annotate_role("load");
    if constexpr (B == Bug::kInitNotOrdered) {
      // The producer initialises its own ring after the CTA barrier: no CTA
      // barrier follows these inits, so the MMA warp's waits and commits on
      // the ring are not ordered after them.
      if (auto lane = elect_one()) {
        init_input(s);
        arch::fence_mbarrier_init();
      }
    }
    arch::TensorMap* a_map = kRetarget ? p.a_workspace + arch::cta_idx() : nullptr;
    const TmaTileLoader a_loader(kRetarget ? a_map : &p.a), b_loader(&p.b);
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, BK);
    PipelineState<S> st;
    int filled[S];
    for (int& f : filled) f = -1;
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      if constexpr (kRetarget) retarget_a(p, s, a_map, w, filled);
      const uint32_t a_row = kRetarget ? 0 : w.m_tile * BM;
      for (uint32_t kb = 0; kb < k_blocks; ++kb, st.advance()) {
        const uint32_t i = st.index();
        wait(&s.input.empty[i], empty_parity(st.lap()));
        if (auto lane = elect_one()) {
          const uint32_t bytes = B == Bug::kExpectTxLow    ? BM * BK * 2
                                 : B == Bug::kExpectTxHigh ? kStageBytes + 1024
                                                           : kStageBytes;
          arch::mbarrier_arrive_expect_tx(&s.input.full[i], bytes);
          uint8_t* a_dst = reinterpret_cast<uint8_t*>(s.a[i]);
          if constexpr (B == Bug::kMisalignedTmaDst) a_dst += 512;
          a_loader.load(a_dst, &s.input.full[i], static_cast<int32_t>(kb * BK),
                        static_cast<int32_t>(a_row));
          b_loader.load(s.b[i], &s.input.full[i], static_cast<int32_t>(kb * BK),
                        static_cast<int32_t>(w.n_tile * BN));
        }
        filled[i] = static_cast<int>(st.lap() & 1);
      }
    }
    for (int i = 0; i < S; ++i, st.advance()) wait(&s.input.empty[st.index()], empty_parity(st.lap()));
    if constexpr (B == Bug::kLoadAliveAtExit) {
      // A prefetch of a k-block nobody will compute: no warp waits for it.
      if (auto lane = elect_one()) {
        const uint32_t i = st.index();
        arch::mbarrier_arrive_expect_tx(&s.input.full[i], BM * BK * 2);
        a_loader.load(s.a[i], &s.input.full[i], 0, 0);
      }
    }
  }

  SK_DEVICE static void mma(const Params& p, Smem& s, const WorkPipe& work) {
    arch::annotate_role("mma");
    if constexpr (B == Bug::kAllocOneLane) {
      if (auto lane = elect_one()) arch::tcgen05_alloc(&s.tmem_slot, kCols);
    } else {
      arch::tcgen05_alloc(&s.tmem_slot, B == Bug::kBadNcols ? 96 : kCols);
    }
    if constexpr (B == Bug::kAllocAfterRelinquish) {
      arch::tcgen05_relinquish_alloc_permit();
      arch::tcgen05_alloc(&s.tmem_slot, kCols);
    }
    arch::tcgen05_fence_before_thread_sync();
    arch::named_barrier_arrive(1, 32 * (1 + kEpilogueWarps));
    const uint32_t base = arch::ld_shared(&s.tmem_slot);
    if constexpr (B == Bug::kPreArrive) {
      if (auto lane = elect_one())
        for (int i = 0; i < S; ++i) arch::mbarrier_arrive(&s.input.empty[i]);
    }
    const Mma op;
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, BK);
    const uint32_t k_run = B == Bug::kLoopBoundsMismatch ? k_blocks - 1 : k_blocks;
    PipelineState<S> st;
    PipelineState<kAcc> acc;
    auto items = work.consumer();
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items), acc.advance()) {
      const uint32_t ai = acc.index();
      if constexpr (B != Bug::kAccumulatorReuse) wait(&s.acc.empty[ai], (acc.lap() & 1) ^ 1);
      arch::tcgen05_fence_after_thread_sync();
      const uint32_t d = base + ai * BN;
      for (uint32_t kb = 0; kb < k_run; ++kb, st.advance()) {
        const uint32_t i = st.index();
        const uint32_t parity = B == Bug::kParityFromLoopIndex ? (kb & 1)
                                : B == Bug::kParityFixed       ? 0
                                : B == Bug::kBadParity         ? 2
                                                               : (st.lap() & 1);
        if constexpr (B != Bug::kReadUnloadedStage) wait(&s.input.full[i], parity);
        if (auto lane = elect_one()) {
          // kStageOverwrite: the stage is released before the MMA has read it.
          if constexpr (B == Bug::kStageOverwrite) arch::mbarrier_arrive(&s.input.empty[i]);
          op.mma(d, s.a[i], s.b[i], kb > 0);
          if constexpr (B == Bug::kStageOverwrite) {
          } else if constexpr (B == Bug::kMmaPlainRelease)
            arch::mbarrier_arrive(&s.input.empty[i]);
          else
            op.commit(&s.input.empty[i]);
        }
      }
      if (auto lane = elect_one()) {
        if constexpr (B == Bug::kEpilogueBeforeCommit)
          arch::mbarrier_arrive(&s.acc.full[ai]);
        else
          op.commit(&s.acc.full[ai]);
      }
    }
    arch::tcgen05_relinquish_alloc_permit();
    if constexpr (B != Bug::kDeallocEarly) wait(&s.dealloc_bar, 0);
    arch::tcgen05_fence_after_thread_sync();
    if constexpr (B != Bug::kTmemLeak) arch::tcgen05_dealloc(base, kCols);
    if constexpr (B == Bug::kDoubleDealloc) arch::tcgen05_dealloc(base, kCols);
  }

  SK_DEVICE static void epilogue(const Params& p, Smem& s, uint32_t warp, const WorkPipe& work) {
    arch::annotate_role("epilogue");
    if constexpr (B == Bug::kNamedBarrierPartial) {
      if (auto lane = elect_one()) arch::named_barrier_sync(1, 32 * (1 + kEpilogueWarps));
    } else {
      arch::named_barrier_sync(1, 32 * (1 + kEpilogueWarps));
    }
    arch::tcgen05_fence_after_thread_sync();
    const uint32_t base = arch::ld_shared(&s.tmem_slot);
    const AccPipe acc(&s.acc, TmemAccumPayload<BN>{});
    auto consumer = acc.consumer();
    auto items = work.consumer();
    uint8_t* staging = s.staging[warp];
    for (WorkInfo w = next_work(items); w.valid; w = next_work(items)) {
      auto stage = consumer.acquire();
      arch::tcgen05_fence_after_thread_sync();
      write_tile(p, base + stage.tiles().column, warp % 4, w, staging);
      arch::tcgen05_fence_before_thread_sync();
      if constexpr (B == Bug::kStageDoubleRelease) {
        auto moved = std::move(stage);
        std::move(moved).release();
        std::move(moved).release();
      } else if constexpr (B != Bug::kStageNeverReleased) {
        std::move(stage).release();
      }
    }
    if constexpr (B != Bug::kStoreAliveAtExit)
      if (auto lane = elect_one()) arch::bulk_wait_group<0>();
    arch::sync_warp();
    arch::tcgen05_fence_before_thread_sync();
    if (auto lane = elect_one()) arch::mbarrier_arrive(&s.dealloc_bar);
  }

  // TMEM -> registers -> swizzled staging box -> TMA store, 32 columns at a time.
  SK_DEVICE static void write_tile(const Params& p, uint32_t taddr, uint32_t quarter,
                                   const WorkInfo& w, uint8_t* staging) {
    const uint32_t row0 = w.m_tile * BM + 32 * quarter;
    if (row0 >= p.m) return;
    const uint32_t lanes = B == Bug::kLaneQuarter ? (quarter + 1) % 4 : quarter;
    for (uint32_t c = 0; c < BN / 32; ++c) {
      const uint32_t col0 = w.n_tile * BN + 32 * c;
      if (col0 >= p.n) break;
      LaneArray<uint32_t, 32> acc;
      arch::tcgen05_ld_32x32b_x32(taddr + ((32 * lanes) << 16) + 32 * c, acc);
      if constexpr (B != Bug::kMissingWaitLd) arch::tcgen05_wait_ld();
      if (auto lane = elect_one()) {
        if constexpr (B != Bug::kStagingReuse) arch::bulk_wait_group_read<0>();
      }
      arch::sync_warp();
      for_each_lane([&](uint32_t l) {
        for (uint32_t v = 0; v < 4; ++v) {
          bf16_t out[8];
          for (uint32_t e = 0; e < 8; ++e) out[e] = from_accumulator<bf16_t>(acc.lane(l)[8 * v + e]);
          uint32_t words[4];
          memcpy(words, out, 16);
          arch::st_shared_b128(staging + swizzle_offset<kRowBytes>(l * kRowBytes + 16 * v), words);
        }
      });
      if constexpr (B != Bug::kMissingProxyFence) arch::fence_proxy_async_shared();
      arch::sync_warp();
      if (auto lane = elect_one()) {
        arch::tma_store_2d(&p.c, staging, static_cast<int32_t>(col0), static_cast<int32_t>(row0));
        arch::bulk_commit_group();
      }
    }
  }
};

}  // namespace sk::corpus
