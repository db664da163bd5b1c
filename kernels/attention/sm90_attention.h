// sm90_attention.h: attention forward on Hopper (sm_90a) in the style of
// FlashAttention-3, built from the structured components.
//
// O = softmax(Q K^T * scale) V per (batch, head), BF16 or FP16 in (the
// config's Elem), FP32 softmax and accumulation, O in the input's type and
// FP32 log-sum-exp (natural log) out. Tensors are
// [batch, heads, seqlen, head_dim] with head_dim contiguous (LSE [batch,
// heads, lse_stride]); K and V have
// kv_heads heads, query head h reading kv head h / (heads / kv_heads)
// (grouped-query attention). Sequence lengths need not be multiples of the
// tiles: TMA zero-fills rows past the end, the kernel masks columns past
// seqlen_k and does not store rows past seqlen_q. Causal masking is aligned
// to the bottom right (query row r sees key columns c <= r + seqlen_k -
// seqlen_q), as FlashAttention does; a row that sees no key gets O = 0 and
// LSE = -inf.
//
// Parts (docs/kernels.md):
//   TileIO       BatchedTmaTileLoader: Q once per tile, then K_j and V_j, each
//                as head_dim / 64 boxes of 64 columns (128B swizzle);
//   TilePipeline three rings over the mbarrier backend: Q (one stage), K and V
//                (Stages each), so K_j+1 loads while V_j is still read;
//   TileOp       wgmma: S = Q K^T with both operands in SMEM (m64nBNk16),
//                O += P V with P from registers (wgmma ... RS, V MN-major);
//                BN = 128 keys per block at head dim 64 and 128, 64 at 256
//                (Q alone is 64 KiB there: two stages of K and V fit);
//   warp roles   warpgroup 0 loads (its first warp; the others give their
//                registers away), warpgroups 1 and 2 each own 64 rows of the
//                128-row Q tile.
// What attention adds to the matmul's components: the online softmax (row max
// and sum over a quad of lanes, exp2 on the SFU, rescaling O), P kept in
// registers as the A operand of the second GEMM, and the two consumer
// warpgroups in ping-pong through named barriers: each issues its two GEMMs
// only after the other has issued its own (bar.sync on its barrier, bar.arrive
// on the other's), so one warpgroup's softmax runs while the other's wgmma
// occupy the tensor core. Inside a warpgroup, iteration j issues S_j = Q K_j^T
// and O += P_j-1 V_j-1 back to back and computes the softmax of S_j while the
// second GEMM runs (FlashAttention-3's intra-warpgroup overlap).
//
// Invariants: a K stage is released after the wgmma that read it completed
// (wait_group 1 covers S_j), a V stage after wait_group 0 covers P V; the Q
// stage after the tile's last S GEMM; O and P registers are written only
// while no wgmma that reads them is in flight, with wgmma_fence before the
// next one; the two scheduler barriers see equal numbers of bar.sync and
// bar.arrive per tile.
#pragma once

#include <cmath>
#include <type_traits>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"

namespace sk {

// One tile of Bytes per stage (1024-byte aligned for the 128B swizzle).
template <uint32_t Bytes, int Stages>
struct AttentionTilePayload {
  uint8_t (*tiles)[Bytes];
  SK_DEVICE uint8_t* stage(uint32_t i) const { return tiles[i]; }
};

template <int HeadDim_, int Stages_, class Elem_ = bf16_t>
struct Sm90AttentionConfig {
  static constexpr int HeadDim = HeadDim_, Stages = Stages_;
  using Elem = Elem_;  // Q, K, V and O: bf16_t or f16_t
  static constexpr bool kF16 = std::is_same_v<Elem, f16_t>;
  // Q rows and K/V rows per tile; at head dim 256 a 128-row K or V tile
  // is 64 KiB, so the blocks have 64 keys (FlashAttention-3 takes 80).
  static constexpr int BM = 128, BN = HeadDim == 256 ? 64 : 128;
  static constexpr int kThreads = 384;
  static constexpr int kConsumerWarps = 8;
  static constexpr uint32_t kChunks = HeadDim / 64;         // 64-column boxes per row
  static constexpr uint32_t kQBytes = BM * HeadDim * 2;     // kChunks x BM rows x 128 B
  static constexpr uint32_t kKvBytes = BN * HeadDim * 2;    // kChunks x BN rows x 128 B
  static constexpr uint32_t kQChunkBytes = BM * 128, kKvChunkBytes = BN * 128;
  using QPayload = AttentionTilePayload<kQBytes, 1>;
  using KvPayload = AttentionTilePayload<kKvBytes, Stages>;
  struct Smem {
    alignas(1024) uint8_t q[1][kQBytes];
    alignas(1024) uint8_t k[Stages][kKvBytes];
    alignas(1024) uint8_t v[Stages][kKvBytes];
    typename MbarrierBackend<1>::Storage q_bars;
    typename MbarrierBackend<Stages>::Storage k_bars, v_bars;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;
  // Whether the configuration fits in 227 KB of shared memory (the kernel
  // asserts it; hosts ask before they instantiate one).
  static constexpr bool kFits = kSmemBytes <= 232448;
  static_assert(HeadDim == 64 || HeadDim == 128 || HeadDim == 256, "head dim 64, 128 or 256");
  static_assert(kF16 || std::is_same_v<Elem, bf16_t>, "BF16 or FP16 elements");
};

// The seeded bugs of the verifier's corpus (verify/corpus/attention_cases.cc):
// each changes one line, at a point marked `if constexpr (B == ...)`, into a
// mistake an author of this kernel could make. kNone is the kernel; the
// device builds instantiate nothing else.
enum class AttentionBug {
  kNone,
  kSchedCount,          // the ping-pong bar.sync counts 128 threads, the arrive 256
  kNoInitialArrive,     // warpgroup 1 never lets warpgroup 0 issue first
  kEarlyKRelease,       // K released right after issuing S = Q K^T, before its wait
  kEarlyVRelease,       // V released before the wait that covers P V
  kShortExpectTx,       // expect_tx announces 8 KiB less than the K loads deliver
  kCausalOneWarpgroup,  // the causal mask applied by warpgroup 0 only
  kNoWgmmaFence,        // no wgmma.fence before S = Q K^T after P and O were written
  kEarlyQRelease,       // Q released after the first S GEMM instead of the tile's last
  kWrongKvHead,         // grouped heads: kv head h % kv_heads instead of h / (heads / kv_heads)
};

// Points of a consumer warp's block iteration that a Probe may stamp
// (hw/h200/attention_bench.cu --stamp reads clock64 there); the kernel's
// own builds take NoProbe, which does nothing.
enum AttentionPoint : uint32_t {
  kBlockStart,   // top of block n
  kKReady,       // K_n acquired
  kTurn,         // the ping-pong barrier passed: this warpgroup may issue
  kIssued,       // S_n (and P_n-1 V_n-1) issued, the other warpgroup let go
  kSReady,       // S_n complete (wait_group)
  kSoftmaxDone,  // P_n in the S registers, row max and sum updated
  kPvDone,       // P_n-1 V_n-1 complete (block 0: as kSoftmaxDone)
  kBlockEnd,     // P_n packed into A fragments
  kPoints,
  // A tile's points (block argument 0):
  kTileStart = kPoints,  // top of the tile, before Q is acquired
  kQReady,               // Q acquired
  kBlocksDone,           // the tile's last P V complete
  kTileStored,           // O and LSE stored
  kTilePointsEnd
};
struct NoProbe {
  SK_DEVICE static void mark(AttentionPoint, uint32_t /*tile*/, uint32_t /*block*/) {}
};

template <class Cfg, AttentionBug B = AttentionBug::kNone, class Probe = NoProbe>
struct Sm90Attention {
  static constexpr int D = Cfg::HeadDim, BM = Cfg::BM, BN = Cfg::BN, S = Cfg::Stages;
  static_assert(Cfg::kFits, "configuration exceeds 227 KB of shared memory");
  using QPipe = TilePipeline<typename Cfg::QPayload, 1>;
  using KvPipe = TilePipeline<typename Cfg::KvPayload, S>;
  using Smem = typename Cfg::Smem;
  using SAcc = LaneArray<float, BN / 2>;  // S and P: 64 rows x BN per warpgroup
  using OAcc = LaneArray<float, D / 2>;   // O: 64 rows x D per warpgroup
  using Rows = LaneArray<float, 2>;       // per lane: its rows l/4 and l/4 + 8
  // Named barriers that order the consumer warpgroups: 2 + the warpgroup's
  // half (id 0 is cta_sync). An id computed from the half, not a constexpr
  // array: nvcc keeps no device copy of one indexed at run time.
  static constexpr uint32_t kSchedBarrierBase = 2;

  struct Params {
    arch::TensorMap q;  // dims {D, seqlen_q, batch * heads}, box {64, 128, 1}, 128B swizzle
    arch::TensorMap k;  // dims {D, seqlen_k, batch * kv_heads}, box {64, BN, 1}, 128B swizzle
    arch::TensorMap v;  // as k
    typename Cfg::Elem* o;  // [batch, heads, seqlen_q, D]
    float* lse;         // [batch, heads, lse_stride]: rows lse_stride floats apart
    uint32_t lse_stride;  // >= seqlen_q; a multiple of 4 keeps each 16-byte line in one CTA
    uint32_t batch, heads, kv_heads, seqlen_q, seqlen_k;
    float softmax_scale;  // usually 1 / sqrt(D)
    uint32_t causal;
  };

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == 0) {
      if (auto lane = elect_one()) {
        QPipe::init(&s.q_bars, 1, Cfg::kConsumerWarps, "q");
        KvPipe::init(&s.k_bars, 1, Cfg::kConsumerWarps, "k");
        KvPipe::init(&s.v_bars, 1, Cfg::kConsumerWarps, "v");
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    const QPipe qpipe(&s.q_bars, typename Cfg::QPayload{s.q});
    const KvPipe kpipe(&s.k_bars, typename Cfg::KvPayload{s.k});
    const KvPipe vpipe(&s.v_bars, typename Cfg::KvPayload{s.v});
    const uint32_t tiles = ceil_div<uint32_t>(p.seqlen_q, BM) * p.heads * p.batch;
    if (warp < 4) {
      arch::warpgroup_reg_dealloc<40>();
      arch::annotate_role(warp == 0 ? "load" : "reg_donor");
      if (warp == 0) produce(p, qpipe, kpipe, vpipe, tiles);
    } else {
      arch::warpgroup_reg_alloc<232>();
      arch::annotate_role(warp < 8 ? "softmax_mma0" : "softmax_mma1");
      consume(p, qpipe, kpipe, vpipe, warp / 4 - 1, tiles);
    }
  }

 public:
  // A query tile (public, with store(), for hw/h200/epilogue_beside.cuh).
  struct Tile {
    uint32_t m_tile, head, batch;
    uint32_t n_blocks;  // K/V blocks this tile reads
  };

 private:
  SK_DEVICE static Tile tile_of(const Params& p, uint32_t t) {
    const uint32_t m_tiles = ceil_div<uint32_t>(p.seqlen_q, BM);
    Tile w{t % m_tiles, t / m_tiles % p.heads, t / m_tiles / p.heads, 0};
    uint32_t n_end = ceil_div<uint32_t>(p.seqlen_k, BN);
    if (p.causal != 0) {
      // The tile's last row sees columns up to m0 + BM - 1 + seqlen_k - seqlen_q.
      const int64_t last = int64_t{w.m_tile} * BM + BM - 1 + p.seqlen_k - int64_t{p.seqlen_q};
      const int64_t end = last < 0 ? 0 : last / BN + 1;
      if (end < n_end) n_end = static_cast<uint32_t>(end);
    }
    w.n_blocks = n_end;
    return w;
  }

  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((1024 - (arch::smem_addr(base) & 1023)) & 1023));
  }

  // Public, as consume() is: section 4b of hw/h200/attention_calibrate.cu runs both apart.
 public:
  SK_DEVICE static void produce(const Params& p, const QPipe& qpipe, const KvPipe& kpipe,
                                const KvPipe& vpipe, uint32_t tiles) {
    const BatchedTmaTileLoader q_loader(&p.q), k_loader(&p.k), v_loader(&p.v);
    auto qp = qpipe.producer();
    auto kp = kpipe.producer();
    auto vp = vpipe.producer();
    for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
      const Tile w = tile_of(p, t);
      const int32_t q_matrix = static_cast<int32_t>(w.batch * p.heads + w.head);
      const int32_t kv_matrix = static_cast<int32_t>(
          w.batch * p.kv_heads +
          (B == AttentionBug::kWrongKvHead ? w.head % p.kv_heads : w.head / (p.heads / p.kv_heads)));
      {
        auto stage = qp.acquire();
        if (auto lane = elect_one()) {
          stage.expect_bytes(Cfg::kQBytes);
          for (uint32_t c = 0; c < Cfg::kChunks; ++c)
            q_loader.load(stage.tiles() + c * Cfg::kQChunkBytes, stage.full_barrier(),
                          static_cast<int32_t>(64 * c), static_cast<int32_t>(w.m_tile * BM), q_matrix);
        }
        std::move(stage).release_async();
      }
      for (uint32_t n = 0; n < w.n_blocks; ++n) {
        load_kv(kp, k_loader, n, kv_matrix, B == AttentionBug::kShortExpectTx);
        load_kv(vp, v_loader, n, kv_matrix, false);
      }
    }
    qp.drain();
    kp.drain();
    vp.drain();
  }

 private:
  SK_DEVICE static void load_kv(typename KvPipe::Producer& producer, const BatchedTmaTileLoader& loader,
                                uint32_t n, int32_t matrix, bool short_tx) {
    auto stage = producer.acquire();
    if (auto lane = elect_one()) {
      stage.expect_bytes(short_tx ? Cfg::kKvBytes - Cfg::kKvChunkBytes / 2 : Cfg::kKvBytes);
      for (uint32_t c = 0; c < Cfg::kChunks; ++c)
        loader.load(stage.tiles() + c * Cfg::kKvChunkBytes, stage.full_barrier(),
                    static_cast<int32_t>(64 * c), static_cast<int32_t>(n * BN), matrix);
    }
    std::move(stage).release_async();
  }

  // The consumer warpgroup's steps, public so that a calibration program
  // (hw/h200/attention_calibrate.cu, section 4) can time them without loads.
 public:
  // S = Q K^T for this warpgroup's 64 rows: D / 16 steps of m64nBNk16.
  SK_DEVICE static void gemm_qk(SAcc& s_acc, uint32_t q_rows, uint32_t k_tile) {
    SK_UNROLL
    for (int kk = 0; kk < D / 16; ++kk) {
      const uint32_t chunk = kk / 4, in_chunk = 32 * (kk % 4);
      const uint64_t dq = arch::make_smem_desc_sw128(q_rows + chunk * Cfg::kQChunkBytes + in_chunk);
      const uint64_t dk = arch::make_smem_desc_sw128(k_tile + chunk * Cfg::kKvChunkBytes + in_chunk);
      arch::wgmma_m64nNk16_ss<BN, Cfg::kF16, 0, 0>(s_acc, dq, dk, kk > 0);
    }
  }

  // O += P V: BN / 16 steps with P from registers and V MN-major (64-column
  // boxes of BN rows, LBO one box apart; a K step of 16 rows is 2 KiB).
  SK_DEVICE static void gemm_pv(OAcc& o_acc, const LaneArray<uint32_t, 4> (&p_frag)[BN / 16],
                                uint32_t v_tile) {
    SK_UNROLL
    for (int t = 0; t < BN / 16; ++t) {
      const uint64_t dv = arch::make_smem_desc_sw128_mn(v_tile + 2048 * t, Cfg::kKvChunkBytes, 1024);
      arch::wgmma_m64nNk16_rs<D, Cfg::kF16, 1>(o_acc, p_frag[t], dv, true);
    }
  }

  SK_DEVICE static void consume(const Params& p, const QPipe& qpipe, const KvPipe& kpipe,
                                const KvPipe& vpipe, uint32_t half, uint32_t tiles) {
    auto qc = qpipe.consumer();
    auto kc = kpipe.consumer();
    auto vc = vpipe.consumer();
    const uint32_t quarter = arch::warp_idx() % 4;
    const float scale_log2 = p.softmax_scale * 1.4426950408889634f;
    for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
      const Tile w = tile_of(p, t);
      // The global query rows of this warp's lanes: l / 4 (+ 8) of its 16.
      const uint32_t row0 = w.m_tile * BM + half * 64 + quarter * 16;
      Probe::mark(kTileStart, t, 0);
      auto qs = qc.acquire();
      Probe::mark(kQReady, t, 0);
      const uint32_t q_rows = arch::smem_addr(qs.tiles()) + half * 64 * 128;
      OAcc o_acc;
      Rows row_max, row_sum, scale;
      for_each_lane([&](uint32_t l) {
        for (int i = 0; i < D / 2; ++i) o_acc.lane(l)[i] = 0.0f;
        for (int h = 0; h < 2; ++h) {
          row_max.lane(l)[h] = -__builtin_huge_valf();
          row_sum.lane(l)[h] = 0.0f;
        }
      });
      LaneArray<uint32_t, 4> p_frag[BN / 16];
      SAcc s_acc;
      const uint32_t n_blocks = w.n_blocks;
      // Ping-pong: warpgroup 1 lets warpgroup 0 issue first.
      if (half == 1 && n_blocks > 0 && B != AttentionBug::kNoInitialArrive)
        arch::named_barrier_arrive(kSchedBarrierBase, 256);
      for (uint32_t n = 0; n < n_blocks; ++n) {
        const bool last = n + 1 == n_blocks;
        Probe::mark(kBlockStart, t, n);
        auto ks = kc.acquire();
        Probe::mark(kKReady, t, n);
        arch::named_barrier_sync(kSchedBarrierBase + half,
                                 B == AttentionBug::kSchedCount && half == 0 ? 128 : 256);
        Probe::mark(kTurn, t, n);
        // O's rescale for P_n-1 comes before both GEMMs are issued, so the one
        // fence covers every register they read and no accumulator of an
        // in-flight wgmma is touched between them.
        if (n > 0) rescale(o_acc, scale);
        if constexpr (B != AttentionBug::kNoWgmmaFence) arch::wgmma_fence();
        gemm_qk(s_acc, q_rows, arch::smem_addr(ks.tiles()));
        arch::wgmma_commit_group();
        if constexpr (B == AttentionBug::kEarlyKRelease) std::move(ks).release();
        if constexpr (B == AttentionBug::kEarlyQRelease)
          if (n == 0) std::move(qs).release();
        if (n == 0) {
          if (half == 0 || !last) arch::named_barrier_arrive(kSchedBarrierBase + 1 - half, 256);
          Probe::mark(kIssued, t, n);
          arch::wgmma_wait_group<0>();
          Probe::mark(kSReady, t, n);
          if constexpr (B != AttentionBug::kEarlyKRelease) std::move(ks).release();
          softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
          Probe::mark(kSoftmaxDone, t, n);
          Probe::mark(kPvDone, t, n);
        } else {
          // O += P_n-1 V_n-1 behind S_n; the softmax of S_n runs under it.
          auto vs = vc.acquire();
          gemm_pv(o_acc, p_frag, arch::smem_addr(vs.tiles()));
          arch::wgmma_commit_group();
          if constexpr (B == AttentionBug::kEarlyVRelease) std::move(vs).release();
          if (half == 0 || !last) arch::named_barrier_arrive(kSchedBarrierBase + 1 - half, 256);
          Probe::mark(kIssued, t, n);
          arch::wgmma_wait_group<1>();
          Probe::mark(kSReady, t, n);
          softmax(p, s_acc, row_max, row_sum, scale, scale_log2, row0, n, half);
          // K is released after the softmax, not at once: ptxas moves the
          // wait_group 0 below to the top of the softmax's basic block (the
          // softmax then waits for P V instead of running under it) unless an
          // arrive on a barrier stands in the way; it keeps the wait after it.
          // (SASS on an H100: the wait went from the softmax's first
          // instructions to its middle; one tile over 32k keys 2-5 % faster.)
          if constexpr (B != AttentionBug::kEarlyKRelease) std::move(ks).release();
          Probe::mark(kSoftmaxDone, t, n);
          arch::wgmma_wait_group<0>();
          Probe::mark(kPvDone, t, n);
          if constexpr (B != AttentionBug::kEarlyVRelease) std::move(vs).release();
        }
        to_p(s_acc, p_frag);
        Probe::mark(kBlockEnd, t, n);
      }
      if (n_blocks > 0) {
        auto vs = vc.acquire();
        rescale(o_acc, scale);
        arch::wgmma_fence();
        gemm_pv(o_acc, p_frag, arch::smem_addr(vs.tiles()));
        arch::wgmma_commit_group();
        arch::wgmma_wait_group<0>();
        std::move(vs).release();
      }
      Probe::mark(kBlocksDone, t, 0);
      if (B != AttentionBug::kEarlyQRelease || n_blocks == 0) std::move(qs).release();
      store(p, w, o_acc, row_sum, row_max, row0);
      Probe::mark(kTileStored, t, 0);
    }
  }

  // Online softmax of block n: masks, the new row maxima, P = 2^(S - max) in
  // place, the factor that rescales O and the running row sums.
  SK_DEVICE static void softmax(const Params& p, SAcc& s_acc, Rows& row_max, Rows& row_sum,
                                Rows& scale, float scale_log2, uint32_t row0, uint32_t n,
                                uint32_t half) {
    const uint32_t col0 = n * BN;
    const int64_t diag = int64_t{p.seqlen_k} - p.seqlen_q;
    const bool causal = p.causal != 0 && (B != AttentionBug::kCausalOneWarpgroup || half == 0);
    const bool mask = col0 + BN > p.seqlen_k ||
                      (causal && int64_t{col0} + BN - 1 > int64_t{row0} + diag);
    Rows m;
    for_each_lane([&](uint32_t l) {
      float* sv = s_acc.lane(l);
      // Masking is a loop of its own behind the block's uniform test: merged
      // into the maximum's loop, ptxas predicates it into every block (an
      // index test and a select per score).
      if (mask)
        for (int h = 0; h < 2; ++h) {
          const int64_t limit = int64_t{row0} + l / 4 + 8 * h + diag;  // causal: last column seen
          for (int j = 0; j < BN / 8; ++j)
            for (int e = 0; e < 2; ++e) {
              const uint32_t c = col0 + 8 * j + 2 * (l % 4) + e;
              if (c >= p.seqlen_k || (causal && int64_t{c} > limit))
                sv[4 * j + 2 * h + e] = -__builtin_huge_valf();
            }
        }
      // Four partial maxima per row: chains of BN/16 steps and two to join
      // them, where one running maximum is a chain of BN/4. fmaxf is one
      // instruction (FMNMX); a compare and select are two, both in the chain.
      for (int h = 0; h < 2; ++h) {
        float mx[4] = {-__builtin_huge_valf(), -__builtin_huge_valf(), -__builtin_huge_valf(),
                       -__builtin_huge_valf()};
        for (int j = 0; j < BN / 8; ++j)
          for (int e = 0; e < 2; ++e) {
            float& part = mx[(2 * j + e) % 4];
            part = fmaxf(part, sv[4 * j + 2 * h + e]);
          }
        m.lane(l)[h] = fmaxf(fmaxf(mx[0], mx[1]), fmaxf(mx[2], mx[3]));
      }
    });
    // Per lane: BN/2 max.f32 (half rate) in the two rows' eight chains of
    // BN/16 steps and two joins; a masked block's index tests and selects.
    if (mask) arch::account_alu(BN / 2, 0, BN / 2);
    arch::account_alu(0, 0, BN / 2, BN / 16 + 2);
    arch::quad_allreduce_max(m);
    Rows sum;
    for_each_lane([&](uint32_t l) {
      float* sv = s_acc.lane(l);
      for (int h = 0; h < 2; ++h) {
        const float old_max = row_max.lane(l)[h];
        const float new_max = m.lane(l)[h] > old_max ? m.lane(l)[h] : old_max;
        // A row with nothing seen yet keeps max -inf: subtract 0 instead.
        const float base = new_max == -__builtin_huge_valf() ? 0.0f : new_max * scale_log2;
        scale.lane(l)[h] = arch::exp2_approx(old_max * scale_log2 - base);
        row_max.lane(l)[h] = new_max;
        float s = 0.0f;
        for (int j = 0; j < BN / 8; ++j)
          for (int e = 0; e < 2; ++e) {
            float& x = sv[4 * j + 2 * h + e];
            x = arch::exp2_approx(x * scale_log2 - base);
            s += x;
          }
        sum.lane(l)[h] = s;
      }
    });
    arch::quad_allreduce_sum(sum);
    for_each_lane([&](uint32_t l) {
      for (int h = 0; h < 2; ++h)
        row_sum.lane(l)[h] = row_sum.lane(l)[h] * scale.lane(l)[h] + sum.lane(l)[h];
    });
    // Per lane: BN/2 elements, each an FMA, an ex2 and an add (the rows' sums:
    // chains of BN/4 steps), and the rows' own scale and sum.
    arch::account_alu(BN + 16, BN / 2 + 2, 0, BN / 4);
  }

  SK_DEVICE static void rescale(OAcc& o_acc, const Rows& scale) {
    for_each_lane([&](uint32_t l) {
      for (int j = 0; j < D / 8; ++j)
        for (int h = 0; h < 2; ++h)
          for (int e = 0; e < 2; ++e) o_acc.lane(l)[4 * j + 2 * h + e] *= scale.lane(l)[h];
    });
    arch::account_alu(D / 2, 0);
  }

  // Two FP32 values rounded to the element type and packed, `lo` low.
  SK_DEVICE static uint32_t pack(float lo, float hi) {
    if constexpr (Cfg::kF16)
      return arch::pack_f16x2(lo, hi);
    else
      return arch::pack_bf16x2(lo, hi);
  }

  // P (FP32 in the S accumulator's layout) to A fragments of the element
  // type: k step t is S columns 16t .. 16t + 15, accumulator groups j = 2t
  // and 2t + 1.
  SK_DEVICE static void to_p(const SAcc& s_acc, LaneArray<uint32_t, 4> (&p_frag)[BN / 16]) {
    for_each_lane([&](uint32_t l) {
      const float* sv = s_acc.lane(l);
      for (int t = 0; t < BN / 16; ++t)
        for (int r = 0; r < 4; ++r) {
          const int i = 4 * (2 * t + (r >> 1)) + 2 * (r & 1);
          p_frag[t].lane(l)[r] = pack(sv[i], sv[i + 1]);
        }
    });
    arch::account_alu(0, 0, BN / 4);  // BN/4 packing conversions (half rate)
  }

  // O / row sum to the element type and the rows' log-sum-exp; rows past seqlen_q are not
  // stored. A row that saw no key has sum 0: O = 0 and LSE = -inf. O leaves 16 bytes a
  // lane: each quad transposes its packed pairs (arch::quad_transpose) so that a lane
  // holds eight consecutive columns, and a warp instruction writes whole sectors (the
  // 4-byte stores of the pairs ran at a third of the rate beside other SMs' loads).
  // Public: section 7 of hw/h200/attention_calibrate.cu times it apart.
  SK_DEVICE static void store(const Params& p, const Tile& w, const OAcc& o_acc, const Rows& row_sum,
                              const Rows& row_max, uint32_t row0) {
    const uint64_t matrix = uint64_t{w.batch} * p.heads + w.head;
    typename Cfg::Elem* o = p.o + matrix * p.seqlen_q * D;
    float* lse = p.lse + matrix * p.lse_stride;
    // packed[h][m] register i: the pair of columns 8(4m + i) + 2(l % 4), +1 in row h.
    LaneArray<uint32_t, 4> packed[2][D / 32];
    for_each_lane([&](uint32_t l) {
      const float* r = o_acc.lane(l);
      SK_UNROLL
      for (int h = 0; h < 2; ++h) {
        const float sum = row_sum.lane(l)[h];
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        SK_UNROLL
        for (int j = 0; j < D / 8; ++j)
          packed[h][j / 4].lane(l)[j % 4] = pack(r[4 * j + 2 * h] * inv, r[4 * j + 2 * h + 1] * inv);
      }
    });
    SK_UNROLL
    for (int h = 0; h < 2; ++h) {
      SK_UNROLL
      for (int m = 0; m < D / 32; ++m) arch::quad_transpose(packed[h][m]);
    }
    // The math of this function per lane (D / 2 products, D / 4 packs, two
    // reciprocals, the rows' index tests, selects and branches) issues one
    // instruction after another: one warp per sub-partition takes 16 cycles
    // per column plus 220 per tile without its stores (hw/h200/attention_calibrate.cu
    // section 7, one_wg_no_stores: 1,243 / 2,244 / 4,314 cycles at head dim
    // 64 / 128 / 256), 3.58 dependent steps per column plus 49.
    arch::account_alu(D / 2, 2, D / 4, (358 * D + 4900) / 100);
    for_each_lane([&](uint32_t l) {
      SK_UNROLL
      for (int h = 0; h < 2; ++h) {
        const uint32_t row = row0 + l / 4 + 8 * h;
        if (row >= p.seqlen_q) continue;
        SK_UNROLL
        for (int m = 0; m < D / 32; ++m)
          arch::st_global_v4(o + uint64_t{row} * D + 8 * (4 * m + l % 4), packed[h][m].lane(l));
        if (l % 4 == 0) {
          const float sum = row_sum.lane(l)[h];
          const float value = sum > 0.0f ? row_max.lane(l)[h] * p.softmax_scale + logf(sum)
                                         : -__builtin_huge_valf();
          arch::st_global_b32(lse + row, float_bits(value));
        }
      }
    });
    arch::account_global_store_v4(32 * D);  // 16 rows x D 16-bit elements per warp, whole sectors
    arch::account_global_store(64);         // and 16 LSE, 4 bytes a lane
  }
};

}  // namespace sk
