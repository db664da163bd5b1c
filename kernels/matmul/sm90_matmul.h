// sm90_matmul.h: the structured matmul on Hopper (sm_90a).
//
// D[M, N] = A[M, K] * B[N, K]^T, BF16 in, FP32 accumulate, BF16 out, all
// row-major with K contiguous for A and B; a batched GEMM (Params::batches
// matrices of each, rank-3 tensor maps, D's matrices batch_stride_d elements
// apart), a single one being a batch of one. The same TilePipeline, mbarrier
// backend, payload and TMA tile loader as the SM100 kernel; what differs is
// the TileOp (wgmma with register accumulators instead of tcgen05 into TMEM)
// and the warp-role layout: three warpgroups per CTA,
//   warpgroup 0: producer; its first warp issues the TMA loads, the warpgroup
//                gives its registers to the consumers (setmaxnreg);
//   warpgroups 1, 2: consumers; each computes 64 rows of the 128 x BN tile
//                with wgmma m64nBNk16 and writes them to D (cooperative), or,
//                with Cfg::kPingPong, every other tile whole in turns
//                (consume_pingpong), one storing while the other computes,
//                or, with a BM of 192 or 256 (Cfg::kSplitN), every row of
//                the BM x 128 tile and 64 of its columns (consume_split_n).
// CTAs are persistent and walk the tiles c, c + G, ... (G = grid size) in the
// order of the static SM100 scheduler (tile_work: M, then N, then the batch,
// or in bands of Params::tile_group N columns); no scheduler warp is needed
// because every role computes the same sequence.
//
// Operand layouts (Params::layouts): an MN-major A or B (column-major A,
// row-major B) is loaded as 64-row boxes (MnTiling; maps of dims {M or N, K,
// batches}) and read by wgmma with its transpose operand set, from an
// MN-major descriptor (8-row K groups 1024 bytes apart, 64-row blocks 8 KiB
// apart; a K step of 16 advances it 2 KiB). A consumer half's 64 rows of A
// start 8 KiB into the tile in either layout.
//
// Thread-block clusters (Params::cluster_m x cluster_n CTAs, launched with
// cluster dimension cluster_m * cluster_n; kernels/sched/cluster_shape.h;
// an instance with Cfg::kClusters false runs only 1 x 1, folded):
// the cluster walks blocks of cluster_m x cluster_n tiles. The cluster_n CTAs
// of a row share their A tile: each loads 128 / cluster_n rows of it (A's
// map has boxes of that height) and multicasts them to the row; likewise B
// down a column, BN / cluster_m rows each. Every CTA still expects the whole
// stage's bytes on its own full barrier. A consumer warp releases a stage to
// every CTA of its row and column (remote arrives), whose producers write
// into it, so an empty barrier counts kConsumerWarps x (cluster_m +
// cluster_n - 1) arrivals. The barriers are initialised, fenced at cluster
// scope and published with a cluster barrier before any peer uses them, and
// every warp meets a cluster barrier before the CTA exits. K-major operands
// only (the hosts refuse MN-major layouts with a cluster).
//
// K split over a cluster (Params::split_k = S of 2, 3, 4 or 8; a launch
// cluster of S CTAs along K, cluster_m = cluster_n = 1, Cfg::kSplitK): the
// cluster walks tiles, its rank r computing k-blocks [r * KB / S, (r + 1) *
// KB / S) of each, each CTA's stage ring its own (no multicast, local
// releases); after the main loop the accumulators are reduced through DSMEM
// (split_k_reduce.h), each CTA writing D for the rows of its share of the 8 consumer warps.
// For the shapes with few tiles and long K that leave most SMs idle. With
// Params::split_tail only the last wave's tiles are split: each CTA takes
// the tiles of the waves before it whole, on its own, and the clusters then
// share the rest (sm90_split_from), so a last wave of at most G / S tiles
// takes 1 / S of a tile's time (G CTAs).
//
// A shorter than one tile (M < 128, K-major, no cluster along N: the decode
// shapes): A's box is A's own M rows (sm90_a_box_rows), so TMA zero-fills no
// row outside A. Rows outside a tensor pass one path of the whole GPU at
// about 8 rows a cycle, which held the 128-row box of M = 1 to 1.4x the time
// of a box without them (docs/hardware.md, "Rows outside the tensor"). The
// producer zeroes the tile's rows past M once per stage, before the stage's
// first load; TMA never writes them, wgmma reads them, and the rows of D they
// give lie past M and are not stored.
//
// B's last tile column narrower than the tile (N not a multiple of BN,
// K-major B, no cluster along M): that column loads through a second map
// whose box is N mod BN rows (Params::b_edge, sm90_b_edge_rows), so TMA
// zero-fills none of B's rows there either (they cost 12 % with 117 CTAs on
// long K: docs/hardware.md, "A half-width last tile column"). The rows past
// the box hold zeros from the stage's first use or a full box's earlier
// rows; the columns of D they give lie past N and are not stored.
//
// Invariants: a stage is released (empty barrier, one arrival per consumer
// warp and releasing CTA) only after the wgmma ops that read it have
// completed (wait_group 0; ping-pong: wait_group 1 once the next k-block's
// group is committed); accumulators are read only after wait_group 0, and
// are never copied while a group may write them (wgmma_fence_operand);
// tiles start on 1024-byte boundaries (128B swizzle atoms).
#pragma once

#include <type_traits>
#include <utility>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/core/operand_layout.h"
#include "kernels/io/tma_tile_loader.h"
#include "kernels/io/wgmma_tile_writer.h"
#include "kernels/matmul/sm90_matmul_bugs.h"
#include "kernels/matmul/sm90_matmul_config.h"
#include "kernels/matmul/sm90_matmul_launch.h"
#include "kernels/matmul/sm90_matmul_probe.h"
#include "kernels/matmul/split_k_reduce.h"
#include "kernels/pipeline/payloads.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"
#include "kernels/sched/cluster_shape.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk {

template <class Cfg, ClusterBug B = ClusterBug::kNone, class Probe = NoMatmulProbe>
struct Sm90Matmul {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, S = Cfg::Stages;
  using Pipe = TilePipeline<typename Cfg::Payload, S>;
  using Smem = typename Cfg::Smem;
  static constexpr uint32_t kStageBytes = Cfg::Payload::kBytesPerStage;

  using Params = Sm90MatmulParams;
  // The K split's reduction's seeded bug, if B is one.
  static constexpr SplitKBug kSplitBug =
      B == ClusterBug::kSplitFreeBeforeRead  ? SplitKBug::kFreeBeforeRead
      : B == ClusterBug::kSplitCtaScopeFull  ? SplitKBug::kCtaScopeFull
      : B == ClusterBug::kSplitFullCountsAll ? SplitKBug::kFullCountsAll
      : B == ClusterBug::kSplitCtaScopeWait  ? SplitKBug::kCtaScopeWait
      : B == ClusterBug::kSplitNoSyncBeforeFull ? SplitKBug::kNoSyncBeforeFull
      : B == ClusterBug::kSplitFirstByFloor  ? SplitKBug::kFirstByFloor
                                             : SplitKBug::kNone;

  // Per-tile latency of the consumer's own instructions, in dependent steps
  // of the FP32 pipe (alu_chain_step, 4.47 cycles), for the model (the
  // device build charges nothing): measured with the tile stamps on an H100
  // (docs/hardware.md, "A tile's phases, stamped"; gemm_bench --stamp-tiles
  // --ctas 1, every configuration alike): ~430 cycles from a tile's stores
  // to the next tile's start (the tile index's divisions and the loop) and
  // ~400 from a tile's start to its first stage acquired, which was loaded
  // long before (with the probe that finds its slot without a division of
  // its own: "The probe's own division"; the first probe's division had put
  // ~360 more into each phase). The instance that takes its cluster from
  // its parameters (Cfg::kClusters) divides by the cluster's sides as well:
  // ~170 cycles more from the stores to the next tile, at 1x1, 2x1 and 1x2
  // alike (docs/hardware.md, "The instance without a cluster, measured").
  static constexpr uint32_t kTileLoopChain = Cfg::kClusters ? 134 : 96, kTileStartChain = 92;

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    // Without a cluster the shape is a constant, and everything below that
    // depends on it folds (Cfg::kClusters).
    const ClusterShape cs = Cfg::kClusters ? ClusterShape{p.cluster_m, p.cluster_n} : ClusterShape{};
    const uint32_t splits = Cfg::kSplitK ? p.split_k : 1;
    const bool multicast = cs.size() > 1;
    const bool clustered = multicast || splits > 1;
    const uint32_t rank = clustered ? arch::cluster_ctarank() : 0;
    if (warp == 0) {
      if (auto lane = elect_one()) {
        if constexpr (Cfg::kSplitK)
          if (splits > 1) Cfg::Reduce::template init<kSplitBug>(&s.reduce, splits);
        const bool local = B == ClusterBug::kReleaseLocal || B == ClusterBug::kReleaseCountLocal;
        const uint32_t releasers =
            local ? 1 : B == ClusterBug::kEmptyCountAll ? cs.size() : cs.releasers();
        if (B != ClusterBug::kInitRankZero || rank == 0) {
          const uint32_t readers =
              B == ClusterBug::kPingPongCountBoth ? Cfg::kConsumerWarps
              : B == ClusterBug::kSplitNCountOne || B == ClusterBug::kSplitNReleaseFirstHalf
                  ? Cfg::kConsumerWarps / 2
                  : Cfg::kStageReaders;
          Pipe::init(&s.barriers, 1, readers * releasers, "input");
          arch::fence_mbarrier_init();
        }
      }
    }
    // Peers arrive on these barriers and load into this CTA's stages: the
    // whole cluster sees them initialised first.
    if (B == ClusterBug::kLoadBeforeClusterWait && clustered) {
      // The producer's wait comes after its first stage (produce()).
      arch::cluster_arrive();
      if (warp != 0) arch::cluster_wait();
    } else if (clustered && B != ClusterBug::kNoInitClusterSync) {
      arch::cluster_sync();
    } else {
      arch::cta_sync();
    }
    const bool release_peers = multicast && B != ClusterBug::kReleaseLocal;
    const uint32_t release_rank = B == ClusterBug::kReleaseWrongRank ? rank ^ 1u : rank;
    const Pipe pipe(
        MbarrierBackend<S>(&s.barriers, release_peers ? cs.release_peers(release_rank) : 0),
        typename Cfg::Payload{&s.tiles});
    const Walk walk = walk_of(p, cs, rank, splits, reduce_storage(s));
    if (warp < 4) {
      arch::warpgroup_reg_dealloc<40>();
      // Warps 1-3 of the producer warpgroup only give their registers to
      // the consumers (setmaxnreg.dec).
      arch::annotate_role(warp == 0 ? "load" : "reg_donor");
      if (warp == 0) produce(p, pipe, walk);
    } else {
      arch::warpgroup_reg_alloc<232>();
      arch::annotate_role("mma");
      consume(p, pipe, warp / 4 - 1, walk);
    }
    // No CTA leaves while a peer may still load into it or arrive on it.
    if (clustered && B != ClusterBug::kNoExitSync) {
      if constexpr (B == ClusterBug::kArriveTwice) arch::cluster_arrive();
      arch::cluster_sync();
    }
  }

 public:
  using Acc = typename Cfg::Acc;

 private:
  SK_DEVICE static typename Cfg::Reduce::Storage* reduce_storage(Smem& s) {
    if constexpr (Cfg::kSplitK)
      return &s.reduce;
    else
      return nullptr;
  }

  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((1024 - (arch::smem_addr(base) & 1023)) & 1023));
  }

  // One step of a CTA's walk: block t of the cluster grid (a tile without a
  // cluster) and the k-blocks [kb_begin, kb_end) this CTA computes of it;
  // `split`: the tile's K is split over the cluster and its accumulators go
  // through the reduction.
  struct Unit {
    uint64_t t;
    uint32_t kb_begin, kb_end;
    bool split;
  };

  // The units this CTA walks (kernels/sched/cluster_shape.h): first the
  // blocks below split_from, whole, its cluster's first_whole, first_whole +
  // step_whole, ... (every block without a K split; with Params::split_tail
  // the waves before the last, one CTA a tile); then from split_from the
  // K-split tiles, its cluster's split_from + first_split, + step_split, ...,
  // the k-blocks of its rank (sm90_split_from). Every role of the CTA walks
  // the same units, and every CTA of a K-split cluster the same split ones.
  struct Walk {
    uint32_t tiles_m, tiles_n;
    uint64_t blocks;
    ClusterShape cs;
    uint32_t rank;                  // in the multicast cluster (0 without one)
    uint64_t split_from;
    uint32_t first_whole, step_whole, first_split, step_split;
    uint32_t k_blocks, kb_begin, kb_end;  // the tile's, and this CTA's share of a split one
    uint64_t whole, units;          // the CTA's whole units, and all of them
    typename Cfg::Reduce reduce;    // the K split's (splits 1: none)
    SK_DEVICE Unit unit(uint64_t i) const {
      if (i < whole) return {first_whole + i * step_whole, 0, k_blocks, false};
      return {split_from + first_split + (i - whole) * step_split, kb_begin, kb_end, true};
    }
    SK_DEVICE WorkInfo work(uint64_t t, const Params& p) const {
      return cluster_tile_work(t, tiles_m, tiles_n, p.batches, p.tile_group, cs, rank);
    }
    // Whether the tile lies inside D (a block at the edge hands some ranks
    // a tile past it).
    SK_DEVICE bool inside(const WorkInfo& w) const {
      return static_cast<uint32_t>(w.m_tile) < tiles_m && static_cast<uint32_t>(w.n_tile) < tiles_n;
    }
  };

  // Of from, from + step, ... those below end.
  SK_DEVICE static uint64_t steps_below(uint64_t from, uint64_t step, uint64_t end) {
    return from < end ? (end - from + step - 1) / step : 0;
  }

  SK_DEVICE static Walk walk_of(const Params& p, const ClusterShape& cs, uint32_t rank, uint32_t splits,
                                typename Cfg::Reduce::Storage* reduce) {
    const uint32_t tiles_m = ceil_div<uint32_t>(p.m, BM), tiles_n = ceil_div<uint32_t>(p.n, BN);
    const uint64_t blocks = cluster_blocks(tiles_m, tiles_n, p.batches, cs);
    const uint32_t k_blocks = ceil_div<uint32_t>(p.k, BK);
    // A K split's cluster walks its split tiles as one CTA would, its rank
    // the split; whole tiles one CTA each (a K split has no multicast).
    const uint32_t walkers = arch::num_ctas() / cs.size();
    const uint64_t split_from = sm90_split_from(blocks, walkers, splits, p.split_tail != 0);
    const uint32_t split = splits > 1 ? rank : 0;
    Walk w{tiles_m, tiles_n, blocks, cs, cs.size() > 1 ? rank : 0, split_from,
           B == ClusterBug::kWalkByCta ? arch::cta_idx() : arch::cta_idx() / cs.size(), walkers,
           arch::cta_idx() / splits, arch::num_ctas() / splits,
           k_blocks, split * k_blocks / splits, (split + 1) * k_blocks / splits,
           0, 0, typename Cfg::Reduce{reduce, splits, split}};
    w.whole = steps_below(w.first_whole, w.step_whole, split_from);
    w.units = w.whole + (splits > 1 ? steps_below(split_from + w.first_split, w.step_split, blocks) : 0);
    return w;
  }

  SK_DEVICE static void produce(const Params& p, const Pipe& pipe, const Walk& walk) {
    const BatchedTmaTileLoader a_loader(&p.a, MnTiling::of(p.layouts.a_mn_major, BM, BK));
    // This CTA's slices of the shared tiles and who receives them (mask 0:
    // no multicast, the whole tile for this CTA alone).
    const ClusterShape& cs = walk.cs;
    const uint32_t a_rows = sm90_a_box_rows(p.m, cs.n, p.layouts.a_mn_major, BM), b_rows = BN / cs.m;
    // A shorter than a tile: the rows past its box are zeroed once per stage
    // (zero_rows) and never loaded.
    const uint32_t a_loaded = sm90_a_loaded_rows(p.m, cs.n, p.layouts.a_mn_major, BM);
    const uint32_t a_slice =
        (B == ClusterBug::kSliceByRow ? cs.rank_m(walk.rank) : cs.rank_n(walk.rank)) * a_rows;
    const uint32_t b_slice = cs.rank_m(walk.rank) * b_rows;
    const uint16_t a_mask = cs.n > 1 ? cs.a_peers(walk.rank) : 0;
    uint16_t b_mask = cs.m > 1 ? cs.b_peers(walk.rank) : 0;
    if constexpr (B == ClusterBug::kMaskSelf) b_mask = 0;
    if constexpr (B == ClusterBug::kMaskOutside) b_mask |= static_cast<uint16_t>(1u << cs.size());
    // The bytes each stage brings to this CTA: all of A and B, whoever loads them.
    uint32_t stage_bytes = kStageBytes - (BM - a_loaded) * BK * 2;
    if constexpr (B == ClusterBug::kExpectOwnBytes) stage_bytes = (a_rows + b_rows) * BK * 2;
    if constexpr (B == ClusterBug::kExpectPeerTwice)
      stage_bytes = kStageBytes + (cs.m - 1) * b_rows * BK * 2;
    // B's last tile column through its own box (b_edge_rows rows; 0: none).
    const uint32_t b_edge = p.b_edge_rows;
    const auto* b_edge_map = B == ClusterBug::kEdgeLoadFull ? &p.b : &p.b_edge;
    const uint32_t edge_bytes =
        B == ClusterBug::kEdgeExpectFull ? stage_bytes : stage_bytes - (BN - b_edge) * BK * 2;
    auto producer = pipe.producer();
    // Stages whose rows past A's box and B's edge box are zero.
    const bool zero_a = a_loaded < BM && B != ClusterBug::kShortANotZeroed;
    uint32_t zeroed = zero_a || b_edge != 0 ? 0 : S;
    bool cluster_waited = B != ClusterBug::kLoadBeforeClusterWait || cs.size() == 1;
    for (uint64_t i = 0; i < walk.units; ++i) {
      const Unit u = walk.unit(i);
      const uint64_t t = u.t;
      const WorkInfo w = walk.work(t, p);
      if constexpr (B == ClusterBug::kSkipEdgeTiles)
        if (!walk.inside(w)) continue;
      const int32_t m0 = w.m_tile * BM + static_cast<int32_t>(a_slice);
      const int32_t n0 = w.n_tile * BN + static_cast<int32_t>(b_slice);
      // The tile's B loader and bytes: the edge box's in B's last tile column.
      const bool edge = b_edge != 0 && static_cast<uint32_t>(w.n_tile) + 1 == walk.tiles_n;
      // Built from the chosen map, not a reference to one of two loaders:
      // that kept both in local memory and read the chosen one's fields
      // from there at every k-block (a 48-byte stack frame under nvcc).
      const BatchedTmaTileLoader b_tile_loader(
          edge ? b_edge_map : &p.b, MnTiling::of(edge ? 0 : p.layouts.b_mn_major, BN, BK));
      const uint32_t tile_bytes = edge ? edge_bytes : stage_bytes;
      const auto probe = Probe::kblocks(t, i);
      for (uint32_t kb = u.kb_begin; kb < u.kb_end; ++kb) {
        auto stage = producer.acquire();
        probe.mark(kKbEmpty, kb);
        if (zeroed < S) {  // the stage's first use (the ring is filled in order)
          if (zero_a) zero_rows<BM>(stage.tiles().a, a_loaded);
          if (b_edge != 0) zero_rows<BN>(stage.tiles().b, b_edge);
          publish_zeros();
          ++zeroed;
        }
        if (auto lane = elect_one()) {
          const auto tl = stage.tiles();
          const int32_t k0 = static_cast<int32_t>(kb * BK);
          stage.expect_bytes(tile_bytes);
          a_loader.load_multicast(tl.a + a_slice * BK, stage.full_barrier(), k0, m0, w.batch, a_mask);
          b_tile_loader.load_multicast(tl.b + b_slice * BK, stage.full_barrier(), k0, n0, w.batch, b_mask);
        }
        std::move(stage).release_async();
        if (!cluster_waited) {
          arch::cluster_wait();
          cluster_waited = true;
        }
      }
    }
    if (!cluster_waited) arch::cluster_wait();
    if constexpr (B != ClusterBug::kNoExitSync) producer.drain();
  }

  // Rows [from, Rows) of a stage's K-major A or B tile (128 bytes a row,
  // whatever the swizzle does inside it) zeroed by the warp's lanes, 16
  // bytes a store; publish_zeros() then makes them visible to the async
  // proxy (wgmma) and gathers them before the elected lane's arrive
  // publishes them with the stage.
  template <uint32_t Rows>
  SK_DEVICE static void zero_rows(void* tile, uint32_t from) {
    uint8_t* const rows = static_cast<uint8_t*>(tile) + from * BK * 2;
    const uint32_t bytes = (Rows - from) * BK * 2;
    for_each_lane([&](uint32_t l) {
      const uint32_t zero[4] = {0, 0, 0, 0};
      for (uint32_t o = 16 * l; o < bytes; o += 32 * 16) arch::st_shared_b128(rows + o, zero);
    });
    // The stores for_each_lane does not run in timing mode: one a lane per
    // 512 bytes.
    arch::account_alu(ceil_div<uint32_t>(bytes, 512), 0);
  }
  SK_DEVICE static void publish_zeros() {
    if constexpr (B != ClusterBug::kShortAZeroNoFence) arch::fence_proxy_async_shared();
    if constexpr (B != ClusterBug::kShortAZeroNoSync) arch::sync_warp();
  }

  template <int TA, int TB>
  SK_DEVICE static void mma(Acc& acc, uint64_t da, uint64_t db, bool accumulate) {
    arch::wgmma_m64nNk16_ss<BN, Cfg::kF16, TA, TB>(acc, da, db, accumulate);
  }

  // The descriptor of K step k (16 elements) of an operand tile at `tile`.
  template <int MnMajor>
  SK_DEVICE static uint64_t desc(uint32_t tile, int k) {
    if constexpr (MnMajor != 0)
      return arch::make_smem_desc_sw128_mn(tile + 2048 * k, 128 * BK, 1024);
    else
      return arch::make_smem_desc_sw128(tile + 32 * k);
  }

  // The transpose operands are wgmma immediates: the layouts pick one
  // instantiation of the consumer loop once, so the loop itself has no
  // branch on them.
  SK_DEVICE static void consume(const Params& p, const Pipe& pipe, uint32_t half, const Walk& walk) {
    const OperandLayouts& l = p.layouts;
    if (l.a_mn_major != 0 && l.b_mn_major != 0)
      consume_tiles<1, 1>(p, pipe, half, walk);
    else if (l.a_mn_major != 0)
      consume_tiles<1, 0>(p, pipe, half, walk);
    else if (l.b_mn_major != 0)
      consume_tiles<0, 1>(p, pipe, half, walk);
    else
      consume_tiles<0, 0>(p, pipe, half, walk);
  }

  template <int TA, int TB>
  SK_DEVICE static void consume_tiles(const Params& p, const Pipe& pipe, uint32_t half,
                                      const Walk& walk) {
    if constexpr (Cfg::kPingPong) {
      consume_pingpong<TA, TB>(p, pipe, half, walk);
      return;
    }
    if constexpr (Cfg::kSplitN) {
      consume_split_n<TA, TB>(p, pipe, half, walk);
      return;
    }
    auto consumer = pipe.consumer();
    const uint32_t quarter = arch::warp_idx() % 4;  // this warp's 16 rows of the 64
    [[maybe_unused]] auto writer = make_writer(p);
    [[maybe_unused]] uint32_t reduced = 0;  // tiles this warp took through the K split's slots
    for (uint64_t i = 0; i < walk.units; ++i) {
      const Unit u = walk.unit(i);
      const uint64_t t = u.t;
      const WorkInfo w = walk.work(t, p);
      if constexpr (B == ClusterBug::kSkipEdgeTiles)
        if (!walk.inside(w)) continue;
      // The tile index's arithmetic and the loop, and the tile's start before
      // its first stage is acquired: latency the model charges as dependent
      // chains (kTileLoopChain, kTileStartChain below).
      arch::account_alu(0, 0, 0, kTileLoopChain);
      Probe::mark(kMmTileStart, t, i);
      arch::account_alu(0, 0, 0, kTileStartChain);
      Acc acc;
      const auto probe = Probe::kblocks(t, i);
      const auto issue = [&](const typename Pipe::ConsumerStage& stage, uint32_t kb) {
        const auto tl = stage.tiles();
        // This warpgroup's 64 rows of A start 64 rows (8 KiB) into the tile.
        const uint32_t a_base = arch::smem_addr(tl.a) + half * 64 * BK * 2;
        const uint32_t b_base = arch::smem_addr(tl.b);
        arch::wgmma_fence();
        SK_UNROLL
        for (int k = 0; k < BK / 16; ++k)
          mma<TA, TB>(acc, desc<TA>(a_base, k), desc<TB>(b_base, k), kb > u.kb_begin || k > 0);
        arch::wgmma_commit_group();
      };
      const auto release = [&](typename Pipe::ConsumerStage&& stage) {
        if constexpr (B == ClusterBug::kReleaseNextStage) {
          // This CTA's own empty barrier, and the peers' one stage further on.
          uint64_t* next = stage.empty_barrier() + (stage.stage() + 1 == S ? 1 - S : 1);
          const uint16_t peers = walk.cs.release_peers(walk.rank);
          if (auto lane = elect_one())
            for (uint32_t r = 0; r < 16; ++r)
              if ((peers >> r) & 1u)
                arch::mbarrier_arrive_cluster(r == walk.rank ? stage.empty_barrier() : next, r);
          std::move(stage).release_async();
        } else {
          std::move(stage).release();
        }
      };
      main_loop<0>(consumer, u, probe, issue, release, [] {}, acc);
      Probe::mark(kMmMainloopDone, t, i);
      const auto write_tile = [&](const Acc& out) {
        if (walk.inside(w)) write_rows(p, writer, out, w, quarter, w.m_tile * BM + half * 64);
      };
      if constexpr (Cfg::kSplitK) {
        // The sum goes to other registers: accumulators written on a path
        // that ptxas cannot prove warpgroup-uniform (this warp owns its rows
        // or not) would serialize the next tile's wgmma.
        Acc sum = acc;
        if constexpr (B == ClusterBug::kSplitTailPhaseByTile) reduced = static_cast<uint32_t>(i);
        if (!u.split ||
            walk.reduce.template reduce<kSplitBug>(acc, sum, half * 4 + quarter, reduced++))
          write_tile(sum);
      } else {
        write_tile(acc);
      }
      Probe::mark(kMmTileStored, t, i);
      if constexpr (B == ClusterBug::kSyncPerTile)
        if (walk.cs.size() > 1) arch::cluster_sync();
    }
    if constexpr (Cfg::kTmaEpilogue) writer.flush();
  }

  // One tile's main loop, the warpgroup converged (the model simulates its
  // four warps once). InFlight 0 (the cooperative schedule): each k-block's
  // ops are issued (issue(stage, kb)), waited for (wait_group 0) and its stage
  // released (release(stage)) before the next acquire; the two warpgroups
  // fill each other's gaps on the tensor core. InFlight 1 (ping-pong, one
  // warpgroup in its main loop at a time): k-block kb's ops are issued before
  // kb - 1's are waited for (wait_group 1) and its stage released, so the
  // tensor core has work across the release and the next acquire; the last
  // k-block runs outside the converged region, after last_acquired() (which
  // may sync with the other warpgroup). Measured on an H100 (docs/hardware.md,
  // "The wgmma operand fence"): the cooperative loop with InFlight 1 is no
  // faster at its best configuration and up to 36 % slower with 2 stages.
  // Either way the accumulators `accs` are read only after wait_group 0, and
  // fenced (wgmma_fence_operand) around each k-block's ops and after each
  // wait: without, nvcc copies them at the join after the peeled k-block
  // while a group is in flight, and ptxas serializes every wgmma (C7514).
  template <int InFlight, class Consumer, class KbProbe, class Issue, class Release, class LastAcquired,
            class... Accs>
  SK_DEVICE static void main_loop(Consumer& consumer, const Unit& u, const KbProbe& probe, const Issue& issue,
                                const Release& release, const LastAcquired& last_acquired, Accs&... accs) {
    static_assert(InFlight == 0 || InFlight == 1, "one wgmma group in flight at most");
    const auto fence = [&] { (arch::wgmma_fence_operand(accs), ...); };
    const auto issue_fenced = [&](const typename Pipe::ConsumerStage& stage, uint32_t kb) {
      fence();
      issue(stage, kb);
      fence();
    };
    arch::warpgroup_converged_begin();
    if constexpr (InFlight == 0) {
      for (uint32_t kb = u.kb_begin; kb < u.kb_end; ++kb) {
        auto stage = consumer.acquire();
        probe.mark(kKbFull, kb);  // at kb 0 also the tile's kMmFirstFull
        if (kb + 1 == u.kb_end) last_acquired();
        issue_fenced(stage, kb);
        arch::wgmma_wait_group<0>();
        fence();
        probe.mark(kKbWaited, kb);  // the release is the next instruction
        release(std::move(stage));
      }
      arch::warpgroup_converged_end();
    } else {
      // Seeded (kPingPongReleaseInFlight): each stage goes back right after
      // its k-block's ops are issued, while the group may still read it.
      constexpr bool kEarly = B == ClusterBug::kPingPongReleaseInFlight;
      auto held = consumer.acquire();
      probe.mark(kKbFull, u.kb_begin);
      issue_fenced(held, u.kb_begin);
      if constexpr (kEarly) release(std::move(held));
      const auto step = [&](uint32_t kb) {
        auto stage = consumer.acquire();
        probe.mark(kKbFull, kb);
        if (kb + 1 == u.kb_end) last_acquired();
        issue_fenced(stage, kb);
        if constexpr (kEarly) release(std::move(stage));
        arch::wgmma_wait_group<1>();
        fence();
        if constexpr (kEarly) return;
        probe.mark(kKbWaited, kb - 1);
        release(std::move(held));
        static_cast<void>(held = std::move(stage));  // (the handle type is [[nodiscard]])
      };
      uint32_t kb = u.kb_begin + 1;
      for (; kb + 1 < u.kb_end; ++kb) step(kb);
      arch::warpgroup_converged_end();
      if (kb < u.kb_end)
        step(kb);
      else
        last_acquired();
      arch::wgmma_wait_group<0>();
      fence();
      probe.mark(kKbWaited, u.kb_end - 1);
      if constexpr (!kEarly) release(std::move(held));
    }
  }

  // The ping-pong schedule (Cfg::kPingPong): warpgroup `wg` takes the tiles
  // wg, wg + 2, ... of the CTA's walk, each whole: per K step two m64n128k16
  // into its two accumulators (A's rows 0-63 and 64-127 against the same B),
  // and passes over the stages of the other warpgroup's tiles (the producer
  // fills the ring in walk order, so each stage has one reader, four warps).
  // Turns: a warpgroup starts a tile's main loop only once the other has
  // acquired the last stage of the tile before (named barrier
  // kOrderBarrier + wg, 256 threads: the other arrives, this one syncs). That
  // order is what makes the pass-over safe: a full barrier's wait tells laps
  // apart by parity only, so a warpgroup that skipped ahead may wait on a
  // stage at most one lap behind it, never two. It also hands the tensor core
  // over: one warpgroup's main loop runs while the other stores its tile.
  static constexpr uint32_t kOrderBarrier = 1;  // ids 1 and 2 (0: __syncthreads)
  template <int TA, int TB>
  SK_DEVICE static void consume_pingpong(const Params& p, const Pipe& pipe, uint32_t wg,
                                         const Walk& walk) {
    auto consumer = pipe.consumer();
    const uint32_t quarter = arch::warp_idx() % 4;  // this warp's 16 rows of each 64
    [[maybe_unused]] auto writer = make_writer(p);
    const uint64_t tiles = walk.units;  // every one whole (no K split)
    for (uint64_t i = 0; i < tiles; ++i) {
      const Unit u = walk.unit(i);
      const uint64_t t = u.t;
      if (i % 2 != wg) {
        if constexpr (B != ClusterBug::kPingPongNoSkip) consumer.skip(u.kb_end - u.kb_begin);
        continue;
      }
      // The other warpgroup has acquired every stage of tile i - 1.
      if (i > 0 && B != ClusterBug::kPingPongNoTurn) arch::named_barrier_sync(kOrderBarrier + wg, 256);
      const WorkInfo w = walk.work(t, p);
      arch::account_alu(0, 0, 0, kTileLoopChain);
      Probe::mark(kMmTileStart, t, i);
      arch::account_alu(0, 0, 0, kTileStartChain);
      Acc lo, hi;  // A's rows 0-63 and 64-127
      const auto probe = Probe::kblocks(t, i);
      const auto issue = [&](const typename Pipe::ConsumerStage& stage, uint32_t kb) {
        const auto tl = stage.tiles();
        const uint32_t a_base = arch::smem_addr(tl.a), b_base = arch::smem_addr(tl.b);
        arch::wgmma_fence();
        SK_UNROLL
        for (int k = 0; k < BK / 16; ++k) {
          const bool accumulate = kb > u.kb_begin || k > 0;
          mma<TA, TB>(lo, desc<TA>(a_base, k), desc<TB>(b_base, k), accumulate);
          mma<TA, TB>(hi, desc<TA>(a_base + 64 * BK * 2, k), desc<TB>(b_base, k), accumulate);
        }
        arch::wgmma_commit_group();
      };
      // Tile i's last stage acquired: the other warpgroup's turn (tile i + 1).
      // A named barrier, which the model does not run in lockstep: the last
      // k-block runs outside the converged region.
      const auto hand_over = [&] {
        if (i + 1 < tiles && B != ClusterBug::kPingPongNoTurn)
          arch::named_barrier_arrive(kOrderBarrier + 1 - wg, 256);
      };
      main_loop<1>(
          consumer, u, probe, issue, [](typename Pipe::ConsumerStage&& s) { std::move(s).release(); },
          hand_over, lo, hi);
      Probe::mark(kMmMainloopDone, t, i);
      if (walk.inside(w)) {
        write_rows(p, writer, lo, w, quarter, w.m_tile * BM);
        write_rows(p, writer, hi, w, quarter, w.m_tile * BM + 64);
      }
      Probe::mark(kMmTileStored, t, i);
    }
    if constexpr (Cfg::kTmaEpilogue) writer.flush();
  }

  // The consumers split along N (Cfg::kSplitN, BM 192 or 256): warpgroup
  // `half` takes columns [64 half, 64 half + 64) of every row of the tile,
  // per K step BM / 64 m64n64k16 into its accumulators acc[i] (rows
  // [64 i, 64 i + 64)), each with A's 64-row block i (8 KiB into the stage
  // per block, either layout) against B's half (8 KiB in). Both warpgroups
  // read every stage and release it, as in the cooperative schedule.
  template <int TA, int TB>
  SK_DEVICE static void consume_split_n(const Params& p, const Pipe& pipe, uint32_t half,
                                        const Walk& walk) {
    constexpr int kBlocks = BM / 64;
    using Acc64 = LaneArray<float, 32>;
    auto consumer = pipe.consumer();
    const uint32_t quarter = arch::warp_idx() % 4;  // this warp's 16 rows of each 64
    for (uint64_t i = 0; i < walk.units; ++i) {
      const Unit u = walk.unit(i);
      const uint64_t t = u.t;
      const WorkInfo w = walk.work(t, p);
      arch::account_alu(0, 0, 0, kTileLoopChain);
      Probe::mark(kMmTileStart, t, i);
      arch::account_alu(0, 0, 0, kTileStartChain);
      Acc64 acc[kBlocks];
      const auto probe = Probe::kblocks(t, i);
      const auto issue = [&](const typename Pipe::ConsumerStage& stage, uint32_t kb) {
        const auto tl = stage.tiles();
        const uint32_t a_base = arch::smem_addr(tl.a);
        const uint32_t b_base = arch::smem_addr(tl.b) + half * 64 * BK * 2;
        arch::wgmma_fence();
        SK_UNROLL
        for (int k = 0; k < BK / 16; ++k) {
          const bool accumulate = kb > u.kb_begin || k > 0;
          SK_UNROLL
          for (int r = 0; r < kBlocks; ++r)
            arch::wgmma_m64nNk16_ss<64, Cfg::kF16, TA, TB>(acc[r], desc<TA>(a_base + r * 64 * BK * 2, k),
                                                          desc<TB>(b_base, k), accumulate);
        }
        arch::wgmma_commit_group();
      };
      const auto release = [half](typename Pipe::ConsumerStage&& stage) {
        if (B == ClusterBug::kSplitNReleaseFirstHalf && half != 0)
          std::move(stage).release_async();  // gives the handle up, arrives nowhere
        else
          std::move(stage).release();
      };
      [&]<size_t... R>(std::index_sequence<R...>) {
        main_loop<0>(consumer, u, probe, issue, release, [] {}, acc[R]...);
      }(std::make_index_sequence<kBlocks>{});
      Probe::mark(kMmMainloopDone, t, i);
      if (walk.inside(w)) {
        SK_UNROLL
        for (int r = 0; r < kBlocks; ++r)
          store<64>(p, p.d + w.batch * p.batch_stride_d, acc[r], quarter, w.m_tile * BM + 64 * r,
                    w.n_tile * BN + 64 * half);
      }
      Probe::mark(kMmTileStored, t, i);
    }
  }

  // A warp's 16 rows (`quarter` of the 64 from row0) of tile w to D, by the
  // configuration's epilogue (TMA store through `writer`, or st.global).
  template <class Writer>
  SK_DEVICE static void write_rows(const Params& p, Writer& writer, const Acc& acc, const WorkInfo& w,
                                   uint32_t quarter, uint32_t row0) {
    if constexpr (Cfg::kTmaEpilogue)
      writer.write(acc, row0 + 16 * quarter, w.n_tile * BN, w.batch);
    else
      store(p, p.d + w.batch * p.batch_stride_d, acc, quarter, row0, w.n_tile * BN);
  }

  // The TMA-store epilogue's writer for this warp, or nothing.
  struct NoWriter {};
  SK_DEVICE static auto make_writer(const Params& p) {
    if constexpr (Cfg::kTmaEpilogue)
      return WgmmaTileWriter<BN>(&p.d_map, smem().staging.box[arch::warp_idx() - 4], p.m, p.n);
    else
      return NoWriter{};
  }

  // Public (with Acc), so that hw/h200/epilogue_beside.cuh can time it apart.
 public:
  // Registers to matrix d of D in the wgmma accumulator layout (see
  // wgmma.h), rounding to BF16; rows and columns past the matrix edge are
  // skipped. With K = 0 blocks nothing was accumulated and D is not written.
  // W: the accumulator's columns (BN, or 64 where the consumers split along N).
  template <int W = BN>
  SK_DEVICE static void store(const Params& p, bf16_t* d, const LaneArray<float, W / 2>& acc,
                              uint32_t quarter, uint32_t row0, uint32_t col0) {
    for_each_lane([&](uint32_t l) {
      const float* r = acc.lane(l);
      SK_UNROLL
      for (int j = 0; j < W / 8; ++j) {
        SK_UNROLL
        for (int h = 0; h < 2; ++h) {
          const uint32_t row = row0 + 16 * quarter + l / 4 + 8 * h;
          const uint32_t col = col0 + 8 * j + 2 * (l % 4);
          if (row >= p.m || col >= p.n) continue;
          bf16_t* out = d + static_cast<uint64_t>(row) * p.ldd + col;
          const bf16_t lo = to_bf16(r[4 * j + 2 * h]), hi = to_bf16(r[4 * j + 2 * h + 1]);
          if (col + 1 < p.n)
            arch::st_global_b32(out, static_cast<uint32_t>(lo.bits) |
                                         static_cast<uint32_t>(hi.bits) << 16);
          else
            arch::st_global_b16(out, lo.bits);
        }
      }
    });
    // The warp's W / 4 store instructions, each 8 rows x 8 columns, with
    // the bytes each writes inside D: an edge tile's warps issue every one,
    // predicated off past the edge, and the SM's store path takes each
    // (docs/hardware.md, "An edge tile's stores").
    // Of 8 rows or columns from `at`, those before `end`.
    const auto in_d_of = [](uint32_t at, uint32_t end) { return at >= end ? 0u : end - at < 8 ? end - at : 8u; };
    uint16_t in_d[W / 4];
    SK_UNROLL
    for (int j = 0; j < W / 8; ++j) {
      SK_UNROLL
      for (int h = 0; h < 2; ++h)
        in_d[2 * j + h] = static_cast<uint16_t>(
            in_d_of(row0 + 16 * quarter + 8 * h, p.m) * in_d_of(col0 + 8 * j, p.n) * 2);
    }
    arch::account_global_stores(in_d, W / 4);
  }
};

}  // namespace sk
