// sm90_matmul_bugs.h: the seeded bugs of the SM90 matmul (sk::ClusterBug),
// the mutation points of kernels/matmul/sm90_matmul.h that the verifier's
// corpus runs (verify/corpus/cluster_cases.cc), each with its fixed twin,
// kNone, the kernel itself.
//
// Invariant: the device builds instantiate kNone only; each value changes
// one thing at a point of the kernel marked `if constexpr (B == ...)`.
#pragma once

namespace sk {

// The cluster seeded bugs of the verifier's corpus (verify/corpus/
// cluster_cases.cc): each changes one thing, at a point marked
// `if constexpr (B == ...)`, into a mistake an author of a clustered kernel
// could make. kNone is the kernel; the device builds instantiate nothing else.
enum class ClusterBug {
  kNone,
  kNoInitClusterSync,   // a CTA barrier after the inits instead of the cluster's
  kExpectOwnBytes,      // expect_tx counts only the bytes this CTA loads, not its peers' slices
  kExpectPeerTwice,     // expect_tx counts the multicast slices once per receiver (too many)
  kReleaseLocal,        // a stage released to this CTA only (the empty barrier counting it alone)
  kReleaseCountLocal,   // released to the row and column, but the empty barrier counts one CTA
  kMaskSelf,            // B's slice loaded into this CTA only, not multicast down its column
  kMaskOutside,         // the multicast mask names a rank past the cluster
  kNoExitSync,          // no drain of the ring and no cluster barrier before exit
  kSyncPerTile,         // the consumers meet the cluster barrier after every tile, the producer never
  kArriveTwice,         // barrier.cluster.arrive twice before the exit's wait
  kEmptyCountAll,       // the empty barrier counts every CTA of the cluster, not its row and column
  kSliceByRow,          // A's slice chosen by the CTA's row in the cluster instead of its column
  kInitRankZero,        // only rank 0 of the cluster initialises its barriers
  kLoadBeforeClusterWait,  // the producer's first stage issued between cluster arrive and wait
  kReleaseWrongRank,    // stages released to the row and column of rank ^ 1
  kWalkByCta,           // the block walk starts at the CTA's index, not its cluster's
  kSkipEdgeTiles,       // a CTA skips the tiles its rank gets past D, and with them its slices
  kReleaseNextStage,    // the release to the peers lands on their next stage's empty barrier
  // The K split (Params::split_k > 1, split_k_reduce.h):
  kSplitFreeBeforeRead,  // the owner hands each slot back before it reads it
  kSplitCtaScopeFull,    // a sender signals its slot full with the CTA-scope remote arrive
  kSplitFullCountsAll,   // the full barriers count every rank of the cluster, the owner too
  kSplitCtaScopeWait,    // the owner waits for its slots with the CTA-scope try_wait
  kSplitNoSyncBeforeFull,  // a sender's elected lane signals with no __syncwarp after the stores
  kSplitFirstByFloor,      // an owner's first warp rounded down (S = 3: rank 1 from warp 2)
  kSplitTailPhaseByTile,   // with --split-tail, the reduction's phase counted over every tile of
                           // the walk, the whole ones too, not over the split ones
  // A shorter than a tile (sm90_a_box_rows): the rows past its box
  kShortANotZeroed,        // never zeroed (wgmma reads what nothing wrote)
  kShortAZeroNoFence,      // zeroed with no fence.proxy.async before wgmma reads them
  kShortAZeroNoSync,       // zeroed by the lanes, published by the elected lane with no __syncwarp
  // B's last tile column boxed at its own rows (sm90_b_edge_rows):
  kEdgeExpectFull,         // the edge column's expect_tx counts the full box
  kEdgeLoadFull,           // the edge column loaded through the full box's map (TMA zero-fills)
  // The ping-pong schedule (Cfg::kPingPong, consume_pingpong):
  kPingPongNoTurn,         // no turns between the warpgroups (the order barrier left out)
  kPingPongCountBoth,      // the empty barrier counts both warpgroups' warps, as cooperatively
  kPingPongNoSkip,         // a warpgroup does not pass over the other's stages
  kPingPongReleaseInFlight,  // each stage released once its k-block's ops are issued, before the
                             // wait_group that covers them (the group one k-block on)
  // The split along N (Cfg::kSplitN, consume_split_n): both warpgroups read every stage.
  kSplitNCountOne,         // the empty barrier counts one warpgroup's warps, as in ping-pong
  kSplitNReleaseFirstHalf, // ... and only warpgroup 0 releases (A is shared: "one release for both")
};

}  // namespace sk
