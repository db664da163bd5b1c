// config.h: compile-time configuration of the SM100 structured matmul.
//
// D[M, N] = A[M, K] * B[N, K]^T, A and B BF16 and K-major, accumulation in
// FP32, D in OutT (float or bf16_t). Tiles are BM x BN x BK with BM = 128
// (one UMMA M), Stages input stages, and as many TMEM accumulator stages
// (up to 2) as fit in 512 columns. The SMEM layout is a struct, so its size
// and every alignment are known at compile time; kFitsSmem says whether the
// configuration fits in the 227 KB a CTA may use, and validate() turns a
// configuration that does not into a compile error.
//
// Scheduler_ picks where work items come from: StaticPersistentScheduler (the
// default; grid = min(tiles, SMs)) or ClcScheduler (grid = tiles, cluster
// launch control; its SMEM Storage follows the core layout, which is
// otherwise unchanged).
//
// ALoader_ is the TileIO of operand A: TmaTileLoader (a tiled tensor map of
// A[M, K]) or a loader that produces the same [BM rows x BK] K-major tile by
// other addressing, such as conv2d's im2col loader (kernels/conv2d/). It
// takes (k, row) coordinates of the GEMM and its Source is the kernel
// parameter it reads.
//
// Residual_ fuses D = A * B^T + beta * C: an 8th warp (epilogue load) loads
// each output tile's C by TMA into a 2-stage ring while the MMA runs, and the
// epilogue warps add beta * C to the accumulators in registers before the
// store. The other seven warps run the same code either way.
//
// Mainloop_ is what an input stage holds and how the MMA warp consumes it
// (kernels/matmul/mainloop.h): Bf16Mainloop for BF16 operands, or a
// block-scaled one (kernels/blockscaled/) whose stages also carry scale
// factors and whose TileOp also uses TMEM columns of its own. TMEM holds the
// accumulators in columns [0, kAccStages * BN) and the op's columns from
// kOpTmemCol; kFits says whether both SMEM and TMEM suffice.
//
// Batched_ makes the kernel a batched GEMM: A, B and D are rank-3 tensor maps
// (one matrix per plane), the scheduler walks the tiles of every matrix and
// each load and store names its tile's matrix (BatchedTmaTileLoader and a
// rank-3 TmemTileWriter). A single GEMM runs as a batch of one. Only the
// plain TMA-loaded mainloops take it (A by TmaTileLoader, no residual).
//
// A 2-SM mainloop (kCtaGroup 2: Bf16PairMainloop, F16PairMainloop) makes the
// kernel run in clusters of two CTAs that compute one 256 x BN tile with the
// pair's MMA: each CTA loads its 128 rows of A and BN / 2 rows of B (B's
// tensor map has boxes of BN / 2 rows), holds its 128 x BN accumulator in
// its own TMEM and stores it. Either scheduler (with CLC one pair per block
// of tiles is launched and the pairs cancel whole pairs); no residual.
#pragma once

#include <string>
#include <type_traits>

#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/core/platform.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/io/tmem_tile_writer.h"
#include "kernels/matmul/mainloop.h"
#include "kernels/matmul/warp_role.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/payloads.h"
#include "kernels/sched/clc_scheduler.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk {

inline constexpr uint32_t kSm100SmemPerCta = 232448;

template <int BM_, int BN_, int BK_, int Stages_, class OutT_,
          class Scheduler_ = StaticPersistentScheduler, class ALoader_ = TmaTileLoader,
          bool Residual_ = false,
          template <int, int, int, int> class Mainloop_ = Bf16Mainloop, bool Batched_ = false>
struct Sm100MatmulConfig {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, Stages = Stages_;
  using OutT = OutT_;
  using Scheduler = Scheduler_;
  static constexpr bool kBatched = Batched_;
  using ALoader = std::conditional_t<Batched_, BatchedTmaTileLoader, ALoader_>;
  using BLoader = std::conditional_t<Batched_, BatchedTmaTileLoader, TmaTileLoader>;
  static constexpr bool kResidual = Residual_;
  static constexpr uint32_t kWarps = kSm100MatmulWarps + (Residual_ ? 1 : 0);
  static constexpr int kResidualStages = Residual_ ? 2 : 1;
  static constexpr bool kClc = std::is_same_v<Scheduler_, ClcScheduler>;
  using Mainloop = Mainloop_<BM, BN, BK, Stages>;
  static constexpr int kCtaGroup = cta_group_of<Mainloop>();
  static constexpr bool kPair = kCtaGroup == 2;
  using Payload = typename Mainloop::Payload;
  using Mma = typename Mainloop::Op;
  using ScaleIo = typename Mainloop::ScaleIo;
  static constexpr uint32_t kOpTmemColsTotal = Stages * Mainloop::kTmemColsPerStage;
  static constexpr int kAccStages = (2 * BN + kOpTmemColsTotal <= 512) ? 2 : 1;
  static constexpr uint32_t kOpTmemCol = kAccStages * BN;
  static constexpr uint32_t kTmemUsed = kOpTmemCol + kOpTmemColsTotal;
  static constexpr bool kFitsTmem = kTmemUsed <= 512;
  static constexpr uint32_t kTmemCols = next_pow2(kTmemUsed < 32 ? 32 : kTmemUsed);
  static constexpr int kWorkStages = 2;

  using ResidualTile = ResidualPayload<OutT, BM, BN, kResidualStages>;
  using Writer = TmemTileWriter<OutT, BN, Batched_ ? 3 : 2>;

  struct SmemCore {
    typename Payload::Storage tiles;
    alignas(1024) uint8_t staging[kEpilogueWarps][Writer::kStagingBytes];
    typename MbarrierBackend<Stages>::Storage input_barriers;
    typename MbarrierBackend<kAccStages>::Storage acc_barriers;
    typename MbarrierBackend<kWorkStages>::Storage work_barriers;
    WorkInfo work[kWorkStages];
    uint64_t tmem_dealloc_barrier;
    uint32_t tmem_slot;
  };
  struct SmemResidual : SmemCore {
    typename ResidualTile::Storage residual;
    typename MbarrierBackend<kResidualStages>::Storage residual_barriers;
  };
  struct SmemClc : SmemCore {
    ClcScheduler::Storage clc;
  };
  using Smem = std::conditional_t<kClc, SmemClc, std::conditional_t<Residual_, SmemResidual, SmemCore>>;
  // Dynamic SMEM is only guaranteed 16-byte aligned: reserve room to align.
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;
  static constexpr bool kFitsSmem = kSmemBytes <= kSm100SmemPerCta;
  static constexpr bool kFits = kFitsSmem && kFitsTmem;

  SK_HOST_DEVICE static constexpr void validate() {
    static_assert(BM == 128, "BM must be 128 (UMMA M with cta_group::1)");
    static_assert(BN % 32 == 0 && BN >= 32 && BN <= 256, "BN must be a multiple of 32 in [32, 256]");
    static_assert(std::is_same_v<Mainloop, Bf16Mainloop<BM, BN, BK, Stages>> ||
                          std::is_same_v<Mainloop, F16Mainloop<BM, BN, BK, Stages>>
                      ? BK == 64
                      : true,
                  "BK must be 64 (one 128-byte swizzle span of 16-bit elements)");
    static_assert(kFitsTmem, "accumulators and the op's TMEM columns exceed 512 columns");
    static_assert(Stages >= 2 && Stages <= 8, "2 to 8 input stages");
    static_assert(kFitsSmem, "configuration exceeds the 227 KB of shared memory per CTA");
    static_assert(kClc || std::is_same_v<Scheduler_, StaticPersistentScheduler>,
                  "the scheduler is StaticPersistentScheduler or ClcScheduler");
    static_assert(!(kClc && Residual_), "the fused residual is instantiated with the static scheduler");
    static_assert(!Batched_ || (std::is_same_v<ALoader_, TmaTileLoader> && !Residual_),
                  "a batched GEMM loads A by TMA and has no residual");
    static_assert(!kPair || (!Residual_ && std::is_same_v<ALoader_, TmaTileLoader>),
                  "the 2-SM kernel loads A by TMA and has no residual");
  }

  static std::string name() {
    return std::string("sm100_matmul_") + Mainloop::kName + "_" + std::to_string(BM * kCtaGroup) + "x" + std::to_string(BN) + "x" +
           std::to_string(BK) + "_s" + std::to_string(Stages) +
           (sizeof(OutT) == 4 ? "_f32out" : "_bf16out") + (kClc ? "_clc" : "") +
           (Residual_ ? "_residual" : "") + (kPair ? "_2sm" : "");
  }
};

}  // namespace sk
