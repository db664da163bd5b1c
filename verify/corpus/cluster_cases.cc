// cluster_cases.cc: the SM90 matmul in thread-block clusters
// (kernels/matmul/sm90_matmul.h, Params::cluster_m x cluster_n) as verify
// cases, "corpus_cluster.<bug>" for each seeded bug of sk::ClusterBug and
// "corpus_cluster.fixed" for the kernel itself, on the H200 parameters.
// Config keys: m, n, k (default 300 x 260 x 192: partial tiles, a cluster
// block past M), cm and cn (the cluster, default 2 x 1: B multicast down the
// pair), ctas (default 4: two clusters, each walking several blocks), split
// (default 1; 2, 3, 4 or 8 splits each tile's K over a cluster of that many CTAs,
// with cm = cn = 1: the kernel's K split and its DSMEM reduction), tail
// (default 0; 1 with a split: only the last wave's tiles split, the others
// one CTA each, Params::split_tail).
// "corpus_pingpong.<bug>" and "corpus_pingpong.fixed": the kernel's ping-pong
// schedule (Sm90MatmulConfig's PingPong) and its seeded bugs, no cluster
// (default k 256, cm 1). "corpus_splitn.<bug>" and "corpus_splitn.fixed": the
// split along N (a 192 x 128 tile, consume_split_n), no cluster (default
// k 256, cm 1).
#include <stdexcept>
#include <type_traits>

#include "kernels/matmul/sm90_matmul.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

// The consumer schedule a case runs: the cooperative one (clusters, the K
// split), ping-pong or the split along N (neither in a cluster).
enum class Schedule { kCooperative, kPingPong, kSplitN };

template <ClusterBug B, Schedule Sched = Schedule::kCooperative>
class ClusterCase : public verify::Sm90Case {
  static constexpr bool kSolo = Sched != Schedule::kCooperative;  // no cluster, no split
  // With the K split's slots, or the ping-pong schedule, or 192 x 128 split along N.
  using Cfg = std::conditional_t<
      Sched == Schedule::kPingPong, Sm90MatmulConfig<128, 3, false, false, false, true>,
      std::conditional_t<Sched == Schedule::kSplitN, Sm90MatmulConfig<128, 3, false, false, 0, false, 192>,
                         Sm90MatmulConfig<128, 3, false, false, kSplitKSlots>>>;
  using K = Sm90Matmul<Cfg, B>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    auto get = [&cfg](const char* key, int64_t def, int64_t lo, int64_t hi) {
      return cfg.get_in(key, def, lo, hi);
    };
    p_.m = get("m", 300, 1, 4096);
    p_.n = get("n", 260, 1, 4096);
    p_.k = get("k", kSolo ? 256 : 192, 1, 4096);
    p_.cluster_m = get("cm", kSolo ? 1 : 2, 1, 4);
    p_.split_k = get("split", 1, 1, 8);
    p_.cluster_n = get("cn", 1, 1, 4);
    if (kSolo && p_.cluster_m * p_.cluster_n * p_.split_k > 1)
      throw std::invalid_argument("the ping-pong and N-split cases run without a cluster or a K split");
    if (p_.split_k > 1 && !cfg.has("cm")) p_.cluster_m = 1;
    p_.split_tail = static_cast<uint32_t>(get("tail", 0, 0, 1));
    if (p_.split_tail != 0 && p_.split_k == 1)
      throw std::invalid_argument("tail=1 splits the last wave's tiles: it needs split=2, 3, 4 or 8");
    const uint32_t size = p_.cluster_m * p_.cluster_n * p_.split_k;
    if ((p_.cluster_m & (p_.cluster_m - 1)) != 0 || (p_.cluster_n & (p_.cluster_n - 1)) != 0 ||
        size > 8)
      throw std::invalid_argument("cm and cn must be 1, 2 or 4, and cm * cn at most 8");
    if (p_.split_k > 1 && (!split_k_fits(p_.split_k) || p_.cluster_m * p_.cluster_n > 1 ||
                           (p_.k + 63) / 64 < p_.split_k))
      throw std::invalid_argument(
          "split must be 1, 2, 3, 4 or 8, with cm = cn = 1 and at least split k-blocks of 64");
    const sim::MatmulBuffers buf = sim::allocate_matmul<bf16_t>(gpu, p_.m, p_.n, p_.k, rng);
    lda_ = buf.lda;
    a_ = buf.a;
    b_ = buf.b;
    d_ = buf.d;
    p_.ldd = buf.ldc;
    encode(p_.a, a_, p_.m, sm90_a_box_rows(p_.m, p_.cluster_n, 0, Cfg::BM));
    encode(p_.b, b_, p_.n, 128 / p_.cluster_m);
    p_.b_edge_rows = sm90_b_edge_rows(p_.n, 128, p_.cluster_m, 0);
    if (p_.b_edge_rows != 0) encode(p_.b_edge, b_, p_.n, p_.b_edge_rows);
    p_.d = reinterpret_cast<bf16_t*>(d_);
    p_.batches = 1;
    p_.batch_stride_d = 0;
    verify::Sm100Launch l;
    l.cluster = static_cast<int>(size);
    l.grid = static_cast<int>(get("ctas", 2 * size, size, 132));
    if (l.grid % l.cluster != 0) throw std::invalid_argument("ctas must be a multiple of cm * cn");
    l.warps = static_cast<int>(Cfg::kThreads / 32);
    l.smem_bytes = Cfg::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  std::string check(verify::Gpu& gpu) override {
    auto& mem = gpu.gmem();
    const auto r = sim::check_matmul<bf16_t>(
        p_.m, p_.n, p_.k, reinterpret_cast<uint16_t*>(mem.host(a_)), lda_,
        reinterpret_cast<uint16_t*>(mem.host(b_)), lda_, mem.host(d_), p_.ldd);
    return r.passed ? "" : r.detail;
  }

 private:
  // Rank-3 maps of one matrix (the kernel's loaders are batched), boxes of
  // the CTA's slice of the tile.
  void encode(arch::TensorMap& map, uint64_t addr, uint32_t rows, uint32_t box_rows) {
    const std::string err = sim::encode_operand_map(map, addr, p_.k, rows, lda_,
                                                    uint64_t{rows} * lda_, 1, 64, box_rows);
    if (!err.empty()) throw std::runtime_error(err);
  }
  typename K::Params p_{};
  uint32_t lda_ = 0;
  uint64_t a_ = 0, b_ = 0, d_ = 0;
};

#define SK_CLUSTER_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(ClusterCase<ClusterBug::Value>, "corpus_cluster." name, what)
template <ClusterBug B>
using PingPongCase = ClusterCase<B, Schedule::kPingPong>;
#define SK_PINGPONG_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(PingPongCase<ClusterBug::Value>, "corpus_pingpong." name, what)
template <ClusterBug B>
using SplitNCase = ClusterCase<B, Schedule::kSplitN>;
#define SK_SPLITN_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(SplitNCase<ClusterBug::Value>, "corpus_splitn." name, what)

SK_CLUSTER_CASE(kNone, "fixed", "the SM90 matmul in clusters: twin of every cluster seeded bug");
SK_CLUSTER_CASE(kNoInitClusterSync, "no_init_cluster_sync",
                "a CTA barrier after the inits instead of the cluster barrier");
SK_CLUSTER_CASE(kExpectOwnBytes, "expect_own_bytes",
                "expect_tx counts the bytes this CTA loads, not its peers' slices");
SK_CLUSTER_CASE(kExpectPeerTwice, "expect_peer_twice",
                "expect_tx counts the multicast slices once per receiver");
SK_CLUSTER_CASE(kReleaseLocal, "release_local",
                "stages released to the CTA's own producer only, though peers load into them");
SK_CLUSTER_CASE(kReleaseCountLocal, "release_count_local",
                "stages released to the row and column, the empty barrier counting one CTA");
SK_CLUSTER_CASE(kMaskSelf, "mask_self", "B's slice loaded into this CTA only, not multicast");
SK_CLUSTER_CASE(kMaskOutside, "mask_outside", "the multicast mask names a rank past the cluster");
SK_CLUSTER_CASE(kNoExitSync, "no_exit_sync", "no drain and no cluster barrier before exit");
SK_CLUSTER_CASE(kSyncPerTile, "sync_per_tile",
                "the consumers meet the cluster barrier after every tile, the producer never");
SK_CLUSTER_CASE(kArriveTwice, "arrive_twice", "barrier.cluster.arrive twice before the wait");
SK_CLUSTER_CASE(kEmptyCountAll, "empty_count_all",
                "the empty barrier counts every CTA of the cluster, not its row and column");
SK_CLUSTER_CASE(kSliceByRow, "slice_by_row",
                "A's slice chosen by the CTA's row in the cluster instead of its column");
SK_CLUSTER_CASE(kInitRankZero, "init_rank_zero", "only rank 0 initialises its barriers");
SK_CLUSTER_CASE(kLoadBeforeClusterWait, "load_before_cluster_wait",
                "the producer's first stage issued between cluster arrive and wait");
SK_CLUSTER_CASE(kReleaseWrongRank, "release_wrong_rank",
                "stages released to the row and column of rank ^ 1");
SK_CLUSTER_CASE(kWalkByCta, "walk_by_cta", "the block walk starts at the CTA's index");
SK_CLUSTER_CASE(kSkipEdgeTiles, "skip_edge_tiles",
                "a CTA skips the tiles its rank gets past D, and with them its multicast slices");
SK_CLUSTER_CASE(kReleaseNextStage, "release_next_stage",
                "the release to the peers lands on their next stage's empty barrier");
SK_CLUSTER_CASE(kSplitFreeBeforeRead, "split_free_before_read",
                "K split: the owner hands each slot back before it reads it");
SK_CLUSTER_CASE(kSplitCtaScopeFull, "split_cta_scope_full",
                "K split: a sender signals its slot full with the CTA-scope remote arrive");
SK_CLUSTER_CASE(kSplitFullCountsAll, "split_full_counts_all",
                "K split: the full barriers count every rank of the cluster, the owner too");
SK_CLUSTER_CASE(kSplitCtaScopeWait, "split_cta_scope_wait",
                "K split: the owner waits for its slots with the CTA-scope try_wait");
SK_CLUSTER_CASE(kSplitNoSyncBeforeFull, "split_no_sync_before_full",
                "K split: a sender's elected lane signals with no __syncwarp after the lanes' stores");
SK_CLUSTER_CASE(kSplitFirstByFloor, "split_first_by_floor",
                "K split over 3: an owner's first warp rounded down, its last slot past the seven");
SK_CLUSTER_CASE(kSplitTailPhaseByTile, "split_tail_phase_by_tile",
                "K split of the last wave: the reduction's phase counted over every tile of the "
                "walk, the whole ones too");
SK_CLUSTER_CASE(kShortANotZeroed, "short_a_not_zeroed",
                "A shorter than a tile: the rows past its box are never zeroed");
SK_CLUSTER_CASE(kShortAZeroNoFence, "short_a_zero_no_fence",
                "A shorter than a tile: its rows past the box zeroed with no fence.proxy.async");
SK_CLUSTER_CASE(kShortAZeroNoSync, "short_a_zero_no_sync",
                "A shorter than a tile: its rows past the box zeroed, published with no __syncwarp");
SK_CLUSTER_CASE(kEdgeExpectFull, "edge_expect_full",
                "B's narrow last tile column: its expect_tx counts the full box's bytes");
SK_CLUSTER_CASE(kEdgeLoadFull, "edge_load_full",
                "B's narrow last tile column loaded through the full box's map");

// The ping-pong schedule (Cfg::kPingPong): 300 x 260 x 256 on two CTAs, so
// that each warpgroup takes two or three tiles of four k-blocks on three
// stages and passes over as many of the other's.
SK_PINGPONG_CASE(kNone, "fixed", "the SM90 matmul's ping-pong schedule: twin of its seeded bugs");
SK_PINGPONG_CASE(kPingPongNoTurn, "no_turn",
                 "ping-pong without turns: a warpgroup that passed over the other's stages waits "
                 "on a full barrier two laps behind");
SK_PINGPONG_CASE(kPingPongCountBoth, "count_both",
                 "ping-pong whose empty barriers count both warpgroups' warps, though one reads a stage");
SK_PINGPONG_CASE(kPingPongNoSkip, "no_skip",
                 "ping-pong whose warpgroups do not pass over the other's stages");
SK_PINGPONG_CASE(kPingPongReleaseInFlight, "release_in_flight",
                 "ping-pong that releases each stage once its wgmma ops are issued, before the "
                 "wait_group that covers them");

// The split along N (Cfg::kSplitN): 300 x 260 x 256 in 192 x 128 tiles on
// two CTAs, four k-blocks a tile on three stages; both warpgroups read A's
// whole tile and their half of B from every stage.
SK_SPLITN_CASE(kNone, "fixed", "the SM90 matmul split along N (192 x 128): twin of its seeded bugs");
SK_SPLITN_CASE(kSplitNCountOne, "count_one",
               "N split whose empty barriers count one warpgroup's warps, as ping-pong's do, though "
               "both warpgroups read and release every stage");
SK_SPLITN_CASE(kSplitNReleaseFirstHalf, "release_first_half",
               "N split whose empty barriers count one warpgroup and only warpgroup 0 releases "
               "(one release for the shared A), though warpgroup 1 still reads its half of B");

}  // namespace
}  // namespace sk::corpus
