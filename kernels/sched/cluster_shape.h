// cluster_shape.h: a thread-block cluster's block of output tiles, and which
// CTAs of the cluster share an operand tile.
//
// A cluster of m x n CTAs (m along M, n along N; 1-D launch with cluster
// dimension m * n) works on an m x n block of output tiles at a time: rank r
// takes tile (r % m, r / m) of the block. The n CTAs with the same r % m need
// the same A tile and the m CTAs with the same r / m the same B tile, so each
// of them loads one slice of the shared tile and multicasts it to the others
// (a_peers, b_peers: masks of ranks, bit r for rank r, the CTA's own
// included). A CTA's stage may be refilled only once every CTA that loads
// into it has released it, so a consumer releases a stage to release_peers()
// (its row and column of the cluster: m + n - 1 CTAs), and each CTA's empty
// barrier counts that many consumers' arrivals.
//
// The cluster's blocks are walked like tiles (tile_work over the grid of
// blocks, ceil(tiles_m / m) x ceil(tiles_n / n), the tile order included);
// a block at the grid's edge hands some ranks a tile past the matrix: they
// still load and multicast their slices (zero-filled where out of bounds) and
// write nothing. With m = n = 1 this is tile_work itself.
#pragma once

#include "kernels/core/platform.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk {

struct ClusterShape {
  uint32_t m = 1, n = 1;

  SK_HOST_DEVICE constexpr uint32_t size() const { return m * n; }
  SK_HOST_DEVICE constexpr uint32_t rank_m(uint32_t rank) const { return rank % m; }
  SK_HOST_DEVICE constexpr uint32_t rank_n(uint32_t rank) const { return rank / m; }
  // Ranks with the same A tile (this row of the cluster) and the same B tile.
  SK_HOST_DEVICE constexpr uint16_t a_peers(uint32_t rank) const {
    uint32_t mask = 0;
    for (uint32_t j = 0; j < n; ++j) mask |= 1u << (rank_m(rank) + m * j);
    return static_cast<uint16_t>(mask);
  }
  SK_HOST_DEVICE constexpr uint16_t b_peers(uint32_t rank) const {
    uint32_t mask = 0;
    for (uint32_t i = 0; i < m; ++i) mask |= 1u << (i + m * rank_n(rank));
    return static_cast<uint16_t>(mask);
  }
  SK_HOST_DEVICE constexpr uint16_t release_peers(uint32_t rank) const {
    return static_cast<uint16_t>(a_peers(rank) | b_peers(rank));
  }
  // CTAs whose consumers release each of a CTA's stages.
  SK_HOST_DEVICE constexpr uint32_t releasers() const { return m + n - 1; }
};

// The tile of rank `rank` in block `t` of the cluster grid (invalid past the
// last block; m_tile / n_tile may lie past the matrix at the edge, above).
SK_HOST_DEVICE WorkInfo cluster_tile_work(uint64_t t, uint32_t tiles_m, uint32_t tiles_n,
                                          uint32_t batches, uint32_t group, ClusterShape c,
                                          uint32_t rank) {
  const uint32_t bm = (tiles_m + c.m - 1) / c.m, bn = (tiles_n + c.n - 1) / c.n;
  WorkInfo w = tile_work(t, bm, bn, batches, group);
  w.m_tile = w.m_tile * static_cast<int32_t>(c.m) + static_cast<int32_t>(c.rank_m(rank));
  w.n_tile = w.n_tile * static_cast<int32_t>(c.n) + static_cast<int32_t>(c.rank_n(rank));
  return w;
}

// Blocks of the cluster grid (what the persistent clusters walk).
SK_HOST_DEVICE constexpr uint64_t cluster_blocks(uint32_t tiles_m, uint32_t tiles_n,
                                                 uint32_t batches, ClusterShape c) {
  return static_cast<uint64_t>((tiles_m + c.m - 1) / c.m) * ((tiles_n + c.n - 1) / c.n) * batches;
}

}  // namespace sk
