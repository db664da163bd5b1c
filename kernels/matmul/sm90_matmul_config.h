// sm90_matmul_config.h: a configuration of the SM90 matmul
// (kernels/matmul/sm90_matmul.h) as compile-time parameters: the tile (BM x
// BN x 64), the stages, the input type, the epilogue, the K split's slots,
// the consumer schedule and whether a launch may give it a cluster; its
// shared memory layout, and kSm90MatmulFits, which the hosts ask before they
// instantiate one.
//
// Invariants: a configuration that instantiates fits 227 KB of shared
// memory (static_assert); combinations the kernel does not run (a K split
// without a cluster, ping-pong with N other than 128, the split along N
// with anything but the plain cooperative epilogue) do not compile.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/lane_array.h"
#include "kernels/core/numeric.h"
#include "kernels/io/wgmma_tile_writer.h"
#include "kernels/matmul/split_k_reduce.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/payloads.h"

namespace sk {

// F16_: A and B are IEEE F16 (wgmma .f16.f16) instead of BF16.
// TmaEpilogue_: D leaves through shared memory by TMA store (WgmmaTileWriter,
// two 2 KiB boxes per consumer warp) instead of st.global from registers. A
// separate instantiation: the TMA path's code beside the register path's
// made ptxas spill the accumulators of the 128 x 256 tile.
// SplitSlots_: the slots and barriers of the K split's reduction
// (split_k_reduce.h), for launches with Params::split_k > 1: 0 none, 7 for
// every split (56 KiB with N = 128), 4 for S = 2 only (32 KiB).
// PingPong_: the ping-pong schedule (consume_pingpong): each consumer
// warpgroup takes every other tile of the CTA's walk whole (128 x 128, two
// m64n128k16 per K step, 128 accumulator registers a thread), so that one
// warpgroup's epilogue runs beside the other's main loop; N = 128 only, no
// cluster or K split.
// BM_: the tile's rows. 128: the consumer warpgroups split the tile along M
// (each 64 rows, the whole N: one m64nBNk16 per K step). 192 or 256: they
// split it along N (cuBLAS's "coopB"): each warpgroup takes every row and
// half the columns, BM / 64 m64n64k16 per K step into as many accumulators
// (BN = 128; 64 or 128 accumulator registers a thread); no cluster, K split,
// ping-pong or TMA-store epilogue.
// NoCluster_: the kernel runs without a cluster, its cluster shape the
// constant 1 x 1 (CUTLASS's static ClusterShape<1, 1, 1>): the tile walk's
// divisions by the cluster's sides, the multicast masks and slices, the
// peers' releases and the cluster barriers fold away at compile time. A
// launch of 1 x 1 without a K split runs this instance (the hosts pick it;
// runs_launch says which launches an instance runs); the others carry the
// cluster as launch parameters (Params::cluster_m, cluster_n, split_k). The
// ping-pong schedule and the split along N, which never run in a cluster,
// are always this instance.
template <int BN_, int Stages_, bool F16_ = false, bool TmaEpilogue_ = false, int SplitSlots_ = 0,
          bool PingPong_ = false, int BM_ = 128, bool NoCluster_ = false>
struct Sm90MatmulConfig {
  static constexpr int BM = BM_, BN = BN_, BK = 64, Stages = Stages_;
  static constexpr bool kSplitN = BM != 128;
  // Whether a launch may give the kernel a cluster (multicast or a K split).
  static constexpr bool kClusters = !NoCluster_ && !PingPong_ && !kSplitN;
  static_assert(!NoCluster_ || SplitSlots_ == 0, "the K split runs in a cluster");
  static_assert(BM == 128 || BM == 192 || BM == 256, "tile M is 128, 192 or 256");
  static_assert(!kSplitN || (BN == 128 && SplitSlots_ == 0 && !PingPong_ && !TmaEpilogue_),
                "the consumers split along N with a 128-column tile, without a K split, "
                "ping-pong or the TMA-store epilogue");
  static constexpr bool kF16 = F16_, kTmaEpilogue = TmaEpilogue_, kSplitK = SplitSlots_ > 0;
  static_assert(SplitSlots_ == 0 || SplitSlots_ == static_cast<int>(kSplitKSlots) ||
                    SplitSlots_ == static_cast<int>(kSplitKSlotsOfTwo),
                "the K split's slots: 0 (none), 7 (every split) or 4 (S = 2)");
  static constexpr uint32_t kSplitSlots = kSplitK ? SplitSlots_ : kSplitKSlots;
  static constexpr bool kPingPong = PingPong_;
  static_assert(!kPingPong || (BN == 128 && !kSplitK), "the ping-pong schedule is 128 x 128 without a K split");
  using Acc = LaneArray<float, BN / 2>;  // a consumer warp's 16 rows
  using Reduce = SplitKReduce<Acc, kSplitSlots>;
  static constexpr int kThreads = 384;
  static constexpr int kConsumerWarps = 8;
  // Consumer warps that read (and release) each stage: one warpgroup's in ping-pong.
  static constexpr uint32_t kStageReaders = kPingPong ? kConsumerWarps / 2 : kConsumerWarps;
  using Payload = StandardPayload<bf16_t, BM, BN, BK, Stages>;
  struct Staging {  // per consumer warp, two boxes of D for the TMA-store epilogue
    alignas(1024) uint8_t box[kConsumerWarps][2 * WgmmaTileWriter<BN>::kBoxBytes];
  };
  struct NoStaging {};
  struct NoReduce {};
  struct Smem {
    typename Payload::Storage tiles;
    typename MbarrierBackend<Stages>::Storage barriers;
    [[no_unique_address]] std::conditional_t<kTmaEpilogue, Staging, NoStaging> staging;
    [[no_unique_address]] std::conditional_t<kSplitK, typename Reduce::Storage, NoReduce> reduce;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;
  static_assert(BN == 128 || BN == 192 || BN == 256, "wgmma tile N is 128, 192 or 256");
  static_assert(kSmemBytes <= 232448, "configuration exceeds 227 KB of shared memory");
  // Whether this instance runs a launch of a cluster_m x cluster_n cluster
  // whose K is split over split_k CTAs (1: none).
  SK_HOST_DEVICE static constexpr bool runs_launch(uint32_t cluster_m, uint32_t cluster_n,
                                                   uint32_t split_k) {
    return kClusters || (cluster_m == 1 && cluster_n == 1 && split_k <= 1);
  }
};

// Whether S stages of a BM x BN tile fit in 227 KB beside the TMA-store
// epilogue's staging and the K split's SplitSlots slots, known without
// instantiating the configuration (whose static_assert refuses one that does
// not fit): the two-stage configuration, which always fits, and S - 2 more
// stages. The hosts (gemm_bench, the model's runner) test it before they
// instantiate a kernel.
template <int BN, int S, bool TmaEpilogue, int SplitSlots, int BM = 128>
inline constexpr bool kSm90MatmulFits =
    Sm90MatmulConfig<BN, 2, false, TmaEpilogue, SplitSlots, false, BM>::kSmemBytes +
        (S - 2) * (BM + BN) * 64 * 2 <=
    232448;

}  // namespace sk
