// sm100_attention.h: attention forward on Blackwell (sm_100a) in the style of
// FlashAttention-4, built from the structured components.
//
// Same problem, layouts and conventions as kernels/attention/sm90_attention.h
// (O = softmax(Q K^T * scale) V, BF16 or FP16 in, FP32 softmax and
// accumulation, LSE out, grouped-query heads, masked edges, causal aligned to
// the bottom right), with O and LSE stored by TMA.
//
// Parts (docs/kernels.md):
//   TileIO       BatchedTmaTileLoader: two Q tiles of 128 rows once per work
//                unit, then K_j and V_j through one ring of Stages stages;
//                TmemTileWriter stores O, a TMA store of 32 floats LSE;
//   TilePipeline the mbarrier backend, for the loads (Q, the K/V ring) and for
//                every hand-off between roles: S (MMA -> softmax), P (softmax
//                -> MMA), O (MMA -> correction) and the softmax statistics
//                (softmax -> correction), one of each per Q tile;
//   TileOp       tcgen05.mma: S_t = Q_t K^T into TMEM (both operands in SMEM,
//                M = 128, N = 128 keys), O_t += P_t V with P read from TMEM
//                (the TS form, M = 128, N = head dim, V MN-major);
//   warp roles   warps 0-3 and 4-7: the softmax of Q tile 0 and 1 (a thread
//                owns one row: TMEM lane = row), warps 8-11: correction and
//                epilogue, warp 12: MMA (it allocates TMEM), warp 13: loads.
// TMEM: S_0 and S_1 in columns [0, 128) and [128, 256), O_0 and O_1 after
// them (head dim columns each); P_t is written as packed 16-bit pairs over
// the first 64 columns of S_t.
//
// What attention adds on SM100 beyond the matmul's components: the softmax
// reads S from TMEM and writes P back there (tcgen05.ld / tcgen05.st), the
// second GEMM reads its A operand from TMEM, and O never leaves TMEM until
// the epilogue: a correction warpgroup rescales it in place, and only when
// some row's maximum grew by more than 2^8 (kRescaleLog2) since that row's
// last rescale: otherwise the softmax keeps the stale maximum (P <= 2^8, exact
// in FP32 accumulation) and the correction skips the warp's rows (a warp vote).
// The MMA warp alternates the two Q tiles, so one tile's softmax runs while the
// tensor core works for the other (FlashAttention-4's ping-pong).
//
// MMA order per block j and tile t: P_t(j-1) V_(j-1) into O_t, then
// S_t(j) = Q_t K_j^T. The tensor core executes one thread's MMAs in order, so
// S_t(j) cannot overwrite P_t(j-1) before the PV MMA read it.
//
// Invariants: a K/V stage is released by a commit after the MMAs that read it;
// Q after the unit's last S MMA. S_t is written only after the softmax
// released the previous S_t (its loads waited) and P_t only after the PV MMA
// that read the previous P_t completed (the P ring's empty barrier); O_t is
// read or rescaled only between a PV MMA's completion (the O ring's full
// barrier) and the correction's release, which the next PV MMA acquires.
// Every TMEM hand-off is fenced: tcgen05.fence::before_thread_sync before the
// arrive, ::after_thread_sync after the wait.
#pragma once

#include <cmath>
#include <type_traits>

#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/io/tmem_tile_writer.h"
#include "kernels/op/umma_op.h"
#include "kernels/op/warp_context.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk {

// One tile of Bytes per stage (1024-byte aligned for the 128B swizzle).
template <uint32_t Bytes>
struct AttentionTilePayloadSm100 {
  uint8_t (*tiles)[Bytes];
  SK_DEVICE uint8_t* stage(uint32_t i) const { return tiles[i]; }
};

// A stage that carries no data: the hand-off of a TMEM region.
struct SignalPayload {
  SK_DEVICE uint32_t stage(uint32_t i) const { return i; }
};

// The softmax's statistics for one Q tile, per row: the factor that rescales
// O before the next PV MMA, and at the end of a unit the row sum and maximum.
struct AttentionStats {
  float scale[128];
  float sum[128];
  float max[128];
};
struct StatsPayload {
  AttentionStats* stats;
  SK_DEVICE AttentionStats* stage(uint32_t) const { return stats; }
};

template <int HeadDim_, int Stages_, class Elem_ = bf16_t>
struct Sm100AttentionConfig {
  static constexpr int HeadDim = HeadDim_, Stages = Stages_;
  using Elem = Elem_;
  static constexpr bool kF16 = std::is_same_v<Elem, f16_t>;
  static constexpr int BM = 128, BN = 128, kTiles = 2;  // two Q tiles of 128 rows per unit
  static constexpr int kSoftmaxWarps = 8, kCorrectionWarps = 4;
  static constexpr uint32_t kMmaWarp = 12, kLoadWarp = 13;
  static constexpr int kThreads = 14 * 32;
  static constexpr uint32_t kChunks = HeadDim / 64;
  static constexpr uint32_t kQTileBytes = BM * HeadDim * 2, kQBytes = kTiles * kQTileBytes;
  static constexpr uint32_t kKvBytes = BN * HeadDim * 2;
  static constexpr uint32_t kQChunkBytes = BM * 128, kKvChunkBytes = BN * 128;
  // TMEM columns: S_t at t * BN, O_t at 2 * BN + t * HeadDim.
  static constexpr uint32_t kTmemCols = 512;
  SK_HOST_DEVICE static constexpr uint32_t s_col(uint32_t t) { return t * BN; }
  SK_HOST_DEVICE static constexpr uint32_t o_col(uint32_t t) { return kTiles * BN + t * HeadDim; }
  using Writer = TmemTileWriter<Elem, HeadDim, 3>;
  using QPayload = AttentionTilePayloadSm100<kQBytes>;
  using KvPayload = AttentionTilePayloadSm100<kKvBytes>;
  struct Smem {
    alignas(1024) uint8_t q[1][kQBytes];
    alignas(1024) uint8_t kv[Stages][kKvBytes];
    alignas(1024) uint8_t staging[kCorrectionWarps][Writer::kStagingBytes];
    alignas(128) float lse_staging[kCorrectionWarps][32];
    AttentionStats stats[kTiles];
    typename MbarrierBackend<1>::Storage q_bars;
    typename MbarrierBackend<Stages>::Storage kv_bars;
    typename MbarrierBackend<1>::Storage s_bars[kTiles], p_bars[kTiles], o_bars[kTiles],
        stats_bars[kTiles];
    uint64_t tmem_dealloc_barrier;
    uint32_t tmem_slot;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;
  static constexpr bool kFits = kSmemBytes <= 232448 && Stages >= 2;
  static_assert(HeadDim == 64 || HeadDim == 128, "head dim 64 or 128 (S, P and O of two tiles in 512 TMEM columns)");
  static_assert(kF16 || std::is_same_v<Elem, bf16_t>, "BF16 or FP16 elements");
};

// The seeded bugs of the verifier's corpus (verify/corpus/attention_cases.cc).
// Each changes one line, at a point marked `if constexpr (B == ...)`, into a
// mistake an author of this kernel could make; kNone is the kernel.
enum class Sm100AttentionBug {
  kNone,
  kNoSWait,           // the softmax reads S before waiting for the MMA's commit
  kPOverOtherS,       // P written at the other Q tile's S columns (its QK^T may be in flight)
  kNoCorrectionWait,  // the epilogue reads O before the last PV MMA's commit
  kEarlyKvRelease,    // K released by a plain arrive right after issuing S (no commit)
  kNoStWait,          // P signalled before tcgen05.wait::st
  kVoteLaneZero,      // the correction asks lane 0 instead of voting: rows left unscaled
};

template <class Cfg, Sm100AttentionBug B = Sm100AttentionBug::kNone>
struct Sm100Attention {
  static constexpr int D = Cfg::HeadDim, BM = Cfg::BM, BN = Cfg::BN, S = Cfg::Stages;
  static constexpr uint32_t kTiles = Cfg::kTiles;
  static_assert(Cfg::kFits, "configuration exceeds 227 KB of shared memory");
  using QPipe = TilePipeline<typename Cfg::QPayload, 1>;
  using KvPipe = TilePipeline<typename Cfg::KvPayload, S>;
  using SignalPipe = TilePipeline<SignalPayload, 1>;
  using StatsPipe = TilePipeline<StatsPayload, 1>;
  using Smem = typename Cfg::Smem;
  // A row's maximum is refreshed (and O rescaled) only when it grew by more
  // than this many powers of two: P stays below 2^8.
  static constexpr float kRescaleLog2 = 8.0f;
  static constexpr uint32_t kTmemUsers = Cfg::kSoftmaxWarps + Cfg::kCorrectionWarps;
  static constexpr uint32_t kInstrS = umma::f16_instr_desc(
      128, BN, Cfg::kF16 ? umma::InputType::kF16 : umma::InputType::kBF16);
  static constexpr uint32_t kInstrPv =
      umma::f16_instr_desc(128, D, Cfg::kF16 ? umma::InputType::kF16 : umma::InputType::kBF16) |
      umma::mn_major_bits(0, 1);

  struct Params {
    arch::TensorMap q;    // dims {D, seqlen_q, batch * heads}, box {64, 128, 1}, 128B swizzle
    arch::TensorMap k;    // dims {D, seqlen_k, batch * kv_heads}, box {64, BN, 1}, 128B swizzle
    arch::TensorMap v;    // as k
    arch::TensorMap o;    // dims {D, seqlen_q, batch * heads}, box {32, 32, 1}, 64B swizzle
    arch::TensorMap lse;  // FP32 dims {seqlen_q, batch * heads} (rows lse_stride apart), box {32, 1}
    uint32_t batch, heads, kv_heads, seqlen_q, seqlen_k;
    float softmax_scale;
    uint32_t causal;
  };

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == Cfg::kLoadWarp) {
      if (auto lane = elect_one()) {
        QPipe::init(&s.q_bars, 1, 1, "q");
        KvPipe::init(&s.kv_bars, 1, 1, "kv");
        for (uint32_t t = 0; t < kTiles; ++t) {
          SignalPipe::init(&s.s_bars[t], 1, 4, t == 0 ? "s0" : "s1");
          SignalPipe::init(&s.p_bars[t], 4, 1, t == 0 ? "p0" : "p1");
          SignalPipe::init(&s.o_bars[t], 1, 4, t == 0 ? "o0" : "o1");
          StatsPipe::init(&s.stats_bars[t], 4, 4, t == 0 ? "stats0" : "stats1");
        }
        arch::mbarrier_init(&s.tmem_dealloc_barrier, kTmemUsers);
        arch::annotate_barrier(&s.tmem_dealloc_barrier, "tmem_dealloc", -1);
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    const uint32_t units = work_units(p);
    if (warp == Cfg::kLoadWarp) {
      arch::annotate_role("load");
      load(p, s, units);
    } else if (warp == Cfg::kMmaWarp) {
      arch::annotate_role("mma");
      mma(p, s, units);
    } else if (warp < 8) {
      arch::annotate_role(warp < 4 ? "softmax0" : "softmax1");
      softmax(p, s, warp / 4, warp % 4, units);
    } else {
      arch::annotate_role("correction");
      correction(p, s, warp % 4, units);
    }
  }

  SK_HOST_DEVICE static uint32_t work_units(const Params& p) {
    return ceil_div<uint32_t>(p.seqlen_q, kTiles * BM) * p.heads * p.batch;
  }

 private:
  struct Unit {
    uint32_t m0, head, batch;
    uint32_t n_blocks;  // K/V blocks the unit reads (the later tile's, when causal)
  };
  SK_DEVICE static Unit unit_of(const Params& p, uint32_t u) {
    const uint32_t m_units = ceil_div<uint32_t>(p.seqlen_q, kTiles * BM);
    Unit w{u % m_units * kTiles * BM, u / m_units % p.heads, u / m_units / p.heads, 0};
    uint32_t n_end = ceil_div<uint32_t>(p.seqlen_k, BN);
    if (p.causal != 0) {
      const int64_t last = int64_t{w.m0} + kTiles * BM - 1 + p.seqlen_k - int64_t{p.seqlen_q};
      const int64_t end = last < 0 ? 0 : last / BN + 1;
      if (end < n_end) n_end = static_cast<uint32_t>(end);
    }
    w.n_blocks = n_end;
    return w;
  }
  SK_DEVICE static uint32_t matrix(const Params& p, const Unit& w) { return w.batch * p.heads + w.head; }

  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((1024 - (arch::smem_addr(base) & 1023)) & 1023));
  }

  // ---- load warp --------------------------------------------------------
  SK_DEVICE static void load(const Params& p, Smem& s, uint32_t units) {
    const QPipe qpipe(&s.q_bars, typename Cfg::QPayload{s.q});
    const KvPipe kvpipe(&s.kv_bars, typename Cfg::KvPayload{s.kv});
    const BatchedTmaTileLoader q_loader(&p.q), k_loader(&p.k), v_loader(&p.v);
    auto qp = qpipe.producer();
    auto kvp = kvpipe.producer();
    for (uint32_t u = arch::cta_idx(); u < units; u += arch::num_ctas()) {
      const Unit w = unit_of(p, u);
      const auto q_matrix = static_cast<int32_t>(matrix(p, w));
      const auto kv_matrix =
          static_cast<int32_t>(w.batch * p.kv_heads + w.head / (p.heads / p.kv_heads));
      {
        auto stage = qp.acquire();
        if (auto lane = elect_one()) {
          stage.expect_bytes(Cfg::kQBytes);
          for (uint32_t t = 0; t < kTiles; ++t)
            for (uint32_t c = 0; c < Cfg::kChunks; ++c)
              q_loader.load(stage.tiles() + t * Cfg::kQTileBytes + c * Cfg::kQChunkBytes,
                            stage.full_barrier(), static_cast<int32_t>(64 * c),
                            static_cast<int32_t>(w.m0 + t * BM), q_matrix);
        }
        std::move(stage).release_async();
      }
      for (uint32_t n = 0; n < w.n_blocks; ++n) {
        load_kv(kvp, k_loader, n, kv_matrix);
        load_kv(kvp, v_loader, n, kv_matrix);
      }
    }
    qp.drain();
    kvp.drain();
  }

  SK_DEVICE static void load_kv(typename KvPipe::Producer& producer,
                                const BatchedTmaTileLoader& loader, uint32_t n, int32_t matrix) {
    auto stage = producer.acquire();
    if (auto lane = elect_one()) {
      stage.expect_bytes(Cfg::kKvBytes);
      for (uint32_t c = 0; c < Cfg::kChunks; ++c)
        loader.load(stage.tiles() + c * Cfg::kKvChunkBytes, stage.full_barrier(),
                    static_cast<int32_t>(64 * c), static_cast<int32_t>(n * BN), matrix);
    }
    std::move(stage).release_async();
  }

  // ---- MMA warp ----------------------------------------------------------
  SK_DEVICE static void mma(const Params& p, Smem& s, uint32_t units) {
    const MmaWarpContext<Cfg::kTmemCols, kTmemUsers> ctx(&s.tmem_slot, &s.tmem_dealloc_barrier);
    const uint32_t tmem = ctx.tmem().base();
    const QPipe qpipe(&s.q_bars, typename Cfg::QPayload{s.q});
    const KvPipe kvpipe(&s.kv_bars, typename Cfg::KvPayload{s.kv});
    const SignalPipe s_pipe0(&s.s_bars[0], {}), s_pipe1(&s.s_bars[1], {});
    const SignalPipe p_pipe0(&s.p_bars[0], {}), p_pipe1(&s.p_bars[1], {});
    const SignalPipe o_pipe0(&s.o_bars[0], {}), o_pipe1(&s.o_bars[1], {});
    auto qc = qpipe.consumer();
    auto kvc = kvpipe.consumer();
    typename SignalPipe::Producer s_out[2] = {s_pipe0.producer(), s_pipe1.producer()};
    typename SignalPipe::Consumer p_in[2] = {p_pipe0.consumer(), p_pipe1.consumer()};
    typename SignalPipe::Producer o_out[2] = {o_pipe0.producer(), o_pipe1.producer()};
    for (uint32_t u = arch::cta_idx(); u < units; u += arch::num_ctas()) {
      const Unit w = unit_of(p, u);
      auto qs = qc.acquire();
      const uint8_t* q_tiles = qs.tiles();
      if (w.n_blocks == 0) {
        // Nothing to attend to: the softmax reports empty rows and the
        // correction stores O = 0.
        if (auto lane = elect_one()) arch::tcgen05_commit(qs.empty_barrier());
        std::move(qs).release_async();
        continue;
      }
      {
        auto ks = kvc.acquire();  // K_0
        for (uint32_t t = 0; t < kTiles; ++t) qk(tmem, t, q_tiles, ks, s_out[t]);
        release_k(std::move(ks));
      }
      if (w.n_blocks == 1) release_q(std::move(qs));
      for (uint32_t j = 1; j < w.n_blocks; ++j) {
        // The first PV MMA needs only V_j-1, so K_j is waited for after it is
        // issued; V_j-1 goes back as soon as the last PV MMA that reads it
        // completes, before the second tile's S GEMM.
        auto vs = kvc.acquire();  // V_j-1
        pv(tmem, 0, vs, p_in[0], o_out[0], j - 1);
        auto ks = kvc.acquire();  // K_j
        qk(tmem, 0, q_tiles, ks, s_out[0]);
        pv(tmem, 1, vs, p_in[1], o_out[1], j - 1);
        release_kv(std::move(vs));
        qk(tmem, 1, q_tiles, ks, s_out[1]);
        release_k(std::move(ks));
        if (j + 1 == w.n_blocks) release_q(std::move(qs));
      }
      auto vs = kvc.acquire();  // V_n-1
      for (uint32_t t = 0; t < kTiles; ++t) pv(tmem, t, vs, p_in[t], o_out[t], w.n_blocks - 1);
      release_kv(std::move(vs));
    }
  }

  // A K/V or Q stage goes back when the MMAs issued so far have read it.
  SK_DEVICE static void release_kv(typename KvPipe::ConsumerStage&& st) {
    if (auto lane = elect_one()) arch::tcgen05_commit(st.empty_barrier());
    std::move(st).release_async();
  }
  SK_DEVICE static void release_k(typename KvPipe::ConsumerStage&& st) {
    if constexpr (B == Sm100AttentionBug::kEarlyKvRelease)
      std::move(st).release();
    else
      release_kv(std::move(st));
  }
  SK_DEVICE static void release_q(typename QPipe::ConsumerStage&& st) {
    if (auto lane = elect_one()) arch::tcgen05_commit(st.empty_barrier());
    std::move(st).release_async();
  }

  // S_t = Q_t K^T: D / 16 steps of M = 128, N = BN, K = 16 into S_t's columns,
  // once the softmax released S_t.
  SK_DEVICE static void qk(uint32_t tmem, uint32_t t, const uint8_t* q_tiles,
                           const typename KvPipe::ConsumerStage& ks,
                           typename SignalPipe::Producer& s_out) {
    using Op = UmmaOp<128, BN, 64, Cfg::kF16 ? umma::InputType::kF16 : umma::InputType::kBF16>;
    auto st = s_out.acquire();
    arch::tcgen05_fence_after_thread_sync();
    if (auto lane = elect_one()) {
      const Op op;
      const uint8_t* q = q_tiles + t * Cfg::kQTileBytes;
      for (uint32_t c = 0; c < Cfg::kChunks; ++c)
        op.mma(tmem + Cfg::s_col(t), q + c * Cfg::kQChunkBytes, ks.tiles() + c * Cfg::kKvChunkBytes,
               c > 0);
      arch::tcgen05_commit(st.full_barrier());
    }
    std::move(st).release_async();
  }

  // O_t += P_t V (block j): BN / 16 steps of M = 128, N = D, K = 16 with P
  // from TMEM (8 columns of packed pairs a step) and V MN-major (64-column
  // boxes of BN rows; a K step of 16 rows is 2 KiB), once P_t is written and
  // the correction released O_t. The commits free P_t's columns and publish O_t.
  SK_DEVICE static void pv(uint32_t tmem, uint32_t t, const typename KvPipe::ConsumerStage& vs,
                           typename SignalPipe::Consumer& p_in, typename SignalPipe::Producer& o_out,
                           uint32_t j) {
    auto ps = p_in.acquire();
    auto os = o_out.acquire();
    arch::tcgen05_fence_after_thread_sync();
    if (auto lane = elect_one()) {
      const uint32_t v = arch::smem_addr(vs.tiles());
      for (uint32_t kk = 0; kk < BN / 16; ++kk)
        arch::tcgen05_mma_f16_ts(tmem + Cfg::o_col(t), tmem + Cfg::s_col(t) + 8 * kk,
                                 umma::mnmajor_desc(v + 2048 * kk, Cfg::kKvChunkBytes, 1024),
                                 kInstrPv, j > 0 || kk > 0);
      arch::tcgen05_commit(ps.empty_barrier());
      arch::tcgen05_commit(os.full_barrier());
    }
    std::move(ps).release_async();
    std::move(os).release_async();
  }

  // ---- softmax warpgroups -------------------------------------------------
  using Row = LaneArray<float, 1>;
  using Chunk = LaneArray<uint32_t, 32>;

  SK_DEVICE static void softmax(const Params& p, Smem& s, uint32_t t, uint32_t quarter,
                                uint32_t units) {
    const EpilogueWarpContext<Cfg::kTmemCols, kTmemUsers> ctx(&s.tmem_slot,
                                                              &s.tmem_dealloc_barrier);
    const uint32_t lanes = (32 * quarter) << 16;
    const uint32_t s_tmem = ctx.tmem().base() + lanes + Cfg::s_col(t);
    const SignalPipe s_pipe(&s.s_bars[t], {}), p_pipe(&s.p_bars[t], {});
    const StatsPipe stats_pipe(&s.stats_bars[t], StatsPayload{&s.stats[t]});
    auto s_in = s_pipe.consumer();
    auto p_out = p_pipe.producer();
    auto stats_out = stats_pipe.producer();
    const float scale_log2 = p.softmax_scale * 1.4426950408889634f;
    for (uint32_t u = arch::cta_idx(); u < units; u += arch::num_ctas()) {
      const Unit w = unit_of(p, u);
      const uint32_t row0 = w.m0 + t * BM + 32 * quarter;  // lane l: row row0 + l
      Row row_max, row_sum, scale;
      for_each_lane([&](uint32_t l) {
        row_max.lane(l)[0] = -__builtin_huge_valf();
        row_sum.lane(l)[0] = 0.0f;
      });
      for (uint32_t j = 0; j < w.n_blocks; ++j) {
        Chunk x[BN / 32];
        {
          if constexpr (B == Sm100AttentionBug::kNoSWait) {
            // Reads S_t as soon as the previous block's P is written.
            for (uint32_t c = 0; c < BN / 32; ++c) arch::tcgen05_ld_32x32b_x32(s_tmem + 32 * c, x[c]);
            arch::tcgen05_wait_ld();
            auto ss = s_in.acquire();
            arch::tcgen05_fence_before_thread_sync();
            std::move(ss).release();
          } else {
            auto ss = s_in.acquire();
            arch::tcgen05_fence_after_thread_sync();
            for (uint32_t c = 0; c < BN / 32; ++c) arch::tcgen05_ld_32x32b_x32(s_tmem + 32 * c, x[c]);
            arch::tcgen05_wait_ld();
            arch::tcgen05_fence_before_thread_sync();
            std::move(ss).release();
          }
        }
        Chunk pk[BN / 64];
        online_softmax(p, x, pk, row_max, row_sum, scale, scale_log2, row0, j);
        {
          const uint32_t p_tmem = B == Sm100AttentionBug::kPOverOtherS
                                      ? ctx.tmem().base() + lanes + Cfg::s_col(1 - t)
                                      : s_tmem;
          auto ps = p_out.acquire();
          arch::tcgen05_fence_after_thread_sync();
          for (uint32_t c = 0; c < BN / 64; ++c) arch::tcgen05_st_32x32b_x32(p_tmem + 32 * c, pk[c]);
          if constexpr (B != Sm100AttentionBug::kNoStWait) arch::tcgen05_wait_st();
          arch::tcgen05_fence_before_thread_sync();
          arch::sync_warp();
          std::move(ps).release();
          if constexpr (B == Sm100AttentionBug::kNoStWait) arch::tcgen05_wait_st();
        }
        if (j > 0) {
          auto ms = stats_out.acquire();
          AttentionStats* st = ms.tiles();
          for_each_lane([&](uint32_t l) { arch::st_shared(&st->scale[32 * quarter + l], scale.lane(l)[0]); });
          arch::sync_warp();
          std::move(ms).release();
        }
      }
      auto ms = stats_out.acquire();
      AttentionStats* st = ms.tiles();
      for_each_lane([&](uint32_t l) {
        arch::st_shared(&st->sum[32 * quarter + l], row_sum.lane(l)[0]);
        arch::st_shared(&st->max[32 * quarter + l], row_max.lane(l)[0]);
      });
      arch::sync_warp();
      std::move(ms).release();
    }
    // The last PV MMA's commit arrives on the P ring: wait for it before exit.
    p_out.drain();
  }

  // Block j of the online softmax for this lane's row: masks, the row maximum
  // (kept stale unless it grew by more than 2^kRescaleLog2), P = 2^(S - max)
  // packed into 16-bit pairs, the factor that rescales O and the row sum.
  SK_DEVICE static void online_softmax(const Params& p, const Chunk (&x)[BN / 32],
                                       Chunk (&pk)[BN / 64], Row& row_max, Row& row_sum, Row& scale,
                                       float scale_log2, uint32_t row0, uint32_t j) {
    const uint32_t col0 = j * BN;
    const int64_t diag = int64_t{p.seqlen_k} - p.seqlen_q;
    const bool causal = p.causal != 0;
    const bool mask = col0 + BN > p.seqlen_k || (causal && int64_t{col0} + BN - 1 > int64_t{row0} + diag);
    for_each_lane([&](uint32_t l) {
      float v[BN];
      for (int i = 0; i < BN; ++i) v[i] = bits_float(x[i / 32].lane(l)[i % 32]);
      if (mask) {
        const int64_t limit = int64_t{row0} + l + diag;  // causal: the last column this row sees
        for (int i = 0; i < BN; ++i) {
          const uint32_t c = col0 + static_cast<uint32_t>(i);
          if (c >= p.seqlen_k || (causal && int64_t{c} > limit)) v[i] = -__builtin_huge_valf();
        }
      }
      // The maximum over eight independent chains, then across them; fmaxf is
      // one instruction (FMNMX), a compare and select two in each step.
      float m8[8];
      for (int k = 0; k < 8; ++k) m8[k] = v[k];
      for (int i = 8; i < BN; ++i) m8[i % 8] = fmaxf(m8[i % 8], v[i]);
      float mx = m8[0];
      for (int k = 1; k < 8; ++k) mx = fmaxf(mx, m8[k]);
      const float old_max = row_max.lane(l)[0];
      float use = old_max, sc = 1.0f;
      if (mx > old_max) {
        if (old_max == -__builtin_huge_valf()) {
          use = mx;  // nothing accumulated yet: O is 0 in this row
        } else if ((mx - old_max) * scale_log2 > kRescaleLog2) {
          use = mx;
          sc = arch::exp2_approx((old_max - mx) * scale_log2);
        }
      }
      const float base = use == -__builtin_huge_valf() ? 0.0f : use * scale_log2;
      float s8[8] = {};
      for (int i = 0; i < BN; ++i) {
        v[i] = arch::exp2_approx(v[i] * scale_log2 - base);
        s8[i % 8] += v[i];
      }
      float sum = 0.0f;
      for (int k = 0; k < 8; ++k) sum += s8[k];
      for (int i = 0; i < BN / 2; ++i) pk[i / 32].lane(l)[i % 32] = pack(v[2 * i], v[2 * i + 1]);
      row_sum.lane(l)[0] = row_sum.lane(l)[0] * sc + sum;
      row_max.lane(l)[0] = use;
      scale.lane(l)[0] = sc;
    });
    // Per lane: BN FMAs and BN adds, BN ex2, BN max.f32 and BN / 2 packing
    // conversions (half rate); the longest chains are the eight-way maximum
    // and sum (BN / 8 + 7 steps each) and the rescale decision between them.
    arch::account_alu(2 * BN + 4, BN + 1, BN + BN / 2, 2 * (BN / 8 + 7) + 4);
  }

  SK_DEVICE static uint32_t pack(float lo, float hi) {
    if constexpr (Cfg::kF16)
      return arch::pack_f16x2(lo, hi);
    else
      return arch::pack_bf16x2(lo, hi);
  }

  // ---- correction warpgroup -------------------------------------------------
  SK_DEVICE static void correction(const Params& p, Smem& s, uint32_t quarter, uint32_t units) {
    const EpilogueWarpContext<Cfg::kTmemCols, kTmemUsers> ctx(&s.tmem_slot,
                                                              &s.tmem_dealloc_barrier);
    const uint32_t lanes = (32 * quarter) << 16;
    const SignalPipe o_pipe0(&s.o_bars[0], {}), o_pipe1(&s.o_bars[1], {});
    const StatsPipe stats_pipe0(&s.stats_bars[0], StatsPayload{&s.stats[0]}),
        stats_pipe1(&s.stats_bars[1], StatsPayload{&s.stats[1]});
    typename SignalPipe::Consumer o_in[2] = {o_pipe0.consumer(), o_pipe1.consumer()};
    typename StatsPipe::Consumer stats_in[2] = {stats_pipe0.consumer(), stats_pipe1.consumer()};
    const typename Cfg::Writer writer(&p.o, s.staging[quarter], p.seqlen_q, D);
    for (uint32_t u = arch::cta_idx(); u < units; u += arch::num_ctas()) {
      const Unit w = unit_of(p, u);
      for (uint32_t j = 1; j < w.n_blocks; ++j)
        for (uint32_t t = 0; t < kTiles; ++t) {
          auto os = o_in[t].acquire();
          arch::tcgen05_fence_after_thread_sync();
          auto ms = stats_in[t].acquire();
          rescale(ctx.tmem().base() + lanes + Cfg::o_col(t), quarter, ms.tiles());
          std::move(ms).release();
          arch::tcgen05_fence_before_thread_sync();
          std::move(os).release();
        }
      for (uint32_t t = 0; t < kTiles; ++t)
        epilogue(p, s, writer, ctx.tmem().base() + lanes + Cfg::o_col(t), quarter, t, w, o_in[t],
                 stats_in[t]);
    }
    writer.flush();
  }

  // O's rows times their scale factors, in TMEM, unless every factor of the
  // warp's 32 rows is 1.
  SK_DEVICE static void rescale(uint32_t o_tmem, uint32_t quarter, const AttentionStats* st) {
    Row sc;
    LaneArray<uint32_t, 1> need;
    for_each_lane([&](uint32_t l) {
      sc.lane(l)[0] = arch::ld_shared(&st->scale[32 * quarter + l]);
      need.lane(l)[0] = sc.lane(l)[0] != 1.0f ? 1u : 0u;
    });
    if constexpr (B == Sm100AttentionBug::kVoteLaneZero) {
      if (need.lane(0)[0] == 0) return;
    } else {
      if (!arch::any_lane(need)) return;
    }
    for (uint32_t c = 0; c < D / 32; ++c) {
      Chunk o;
      arch::tcgen05_ld_32x32b_x32(o_tmem + 32 * c, o);
      arch::tcgen05_wait_ld();
      for_each_lane([&](uint32_t l) {
        for (int i = 0; i < 32; ++i) o.lane(l)[i] = float_bits(bits_float(o.lane(l)[i]) * sc.lane(l)[0]);
      });
      arch::account_alu(32, 0);
      arch::tcgen05_st_32x32b_x32(o_tmem + 32 * c, o);
    }
    arch::tcgen05_wait_st();
  }

  // O_t / row sum to the element type and the rows' log-sum-exp, by TMA. A
  // row that saw no key has sum 0: O = 0 and LSE = -inf.
  SK_DEVICE static void epilogue(const Params& p, Smem& s, const typename Cfg::Writer& writer,
                                 uint32_t o_tmem, uint32_t quarter, uint32_t t, const Unit& w,
                                 typename SignalPipe::Consumer& o_in,
                                 typename StatsPipe::Consumer& stats_in) {
    const uint32_t mat = matrix(p, w);
    const uint32_t m0 = w.m0 + t * BM, row0 = m0 + 32 * quarter;
    LaneArray<float, D> o;
    Row inv;
    auto ms = stats_in.acquire();
    const AttentionStats* st = ms.tiles();
    float* lse = s.lse_staging[quarter];
    if (auto lane = elect_one()) arch::bulk_wait_group_read<0>();
    arch::sync_warp();
    for_each_lane([&](uint32_t l) {
      const float sum = arch::ld_shared(&st->sum[32 * quarter + l]);
      const float mx = arch::ld_shared(&st->max[32 * quarter + l]);
      inv.lane(l)[0] = sum > 0.0f ? 1.0f / sum : 0.0f;
      arch::st_shared(&lse[l], sum > 0.0f ? mx * p.softmax_scale + logf(sum) : -__builtin_huge_valf());
    });
    std::move(ms).release();
    if (w.n_blocks > 0) {
      auto read_o = [&] {
        for (uint32_t c = 0; c < D / 32; ++c) {
          Chunk part;
          arch::tcgen05_ld_32x32b_x32(o_tmem + 32 * c, part);
          arch::tcgen05_wait_ld();
          for_each_lane([&](uint32_t l) {
            for (int i = 0; i < 32; ++i)
              o.lane(l)[32 * c + i] =
                  inv.lane(l)[0] > 0.0f ? bits_float(part.lane(l)[i]) * inv.lane(l)[0] : 0.0f;
          });
        }
        arch::account_alu(D, 0);
      };
      if constexpr (B == Sm100AttentionBug::kNoCorrectionWait) read_o();  // before the last PV's commit
      auto os = o_in.acquire();
      arch::tcgen05_fence_after_thread_sync();
      if constexpr (B != Sm100AttentionBug::kNoCorrectionWait) read_o();
      arch::tcgen05_fence_before_thread_sync();
      std::move(os).release();
    } else {
      for_each_lane([&](uint32_t l) {
        for (int i = 0; i < D; ++i) o.lane(l)[i] = 0.0f;
      });
    }
    if (row0 < p.seqlen_q) {
      arch::fence_proxy_async_shared();
      arch::sync_warp();
      if (auto lane = elect_one()) {
        arch::tma_store_2d(&p.lse, lse, static_cast<int32_t>(row0), static_cast<int32_t>(mat));
        arch::bulk_commit_group();
      }
    }
    writer.write_registers(o, quarter, m0, 0, static_cast<int32_t>(mat));
  }
};

}  // namespace sk
