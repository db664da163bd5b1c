// sm90_matmul_launch.h: what the hosts and the SM90 matmul (sm90_matmul.h)
// agree on about a launch: the rows of A's and B's boxes that the hosts'
// tensor maps carry and the kernel's expect_tx counts, the tile order of
// "--tile-group auto", and the launch's parameters.
//
// Invariants: every host encodes its maps with these rules (A's box
// sm90_a_box_rows, B's edge map sm90_b_edge_rows) and the kernel loads and
// counts bytes by the same ones, so that the two cannot disagree on a box.
#pragma once

#include <cstdint>

#include "kernels/arch/sm90.h"
#include "kernels/core/numeric.h"
#include "kernels/core/operand_layout.h"
#include "kernels/matmul/split_k_reduce.h"

namespace sk {

// Rows of A's box, for the hosts' tensor maps and the kernel: the tile's `bm`
// rows (128, or 192 / 256 where the consumers split the tile along N) over
// the cluster's N CTAs (each loads its slice and multicasts it), or
// M itself where the whole of A is shorter than one tile (K-major, no cluster
// along N; see the header).
SK_HOST_DEVICE constexpr uint32_t sm90_a_box_rows(uint32_t m, uint32_t cluster_n,
                                                  uint32_t a_mn_major, uint32_t bm = 128) {
  return cluster_n == 1 && a_mn_major == 0 && m < bm ? m : bm / cluster_n;
}

// Rows of A's `bm`-row tile that each stage's loads fill in this CTA (all of
// them, by its own box or its row's multicast slices), or A's own rows where
// its box is shorter than the tile; the rest are zeroed once per stage.
SK_HOST_DEVICE constexpr uint32_t sm90_a_loaded_rows(uint32_t m, uint32_t cluster_n,
                                                     uint32_t a_mn_major, uint32_t bm = 128) {
  return cluster_n == 1 ? sm90_a_box_rows(m, 1, a_mn_major, bm) : bm;
}

// Rows of B's box in its last tile column, for the hosts' second map of B
// (Params::b_edge) and the kernel: N mod BN where that column is narrower
// than the tile, B is K-major and no cluster splits B's tile (cluster_m 1);
// 0 otherwise (the last column loads the full box).
SK_HOST_DEVICE constexpr uint32_t sm90_b_edge_rows(uint32_t n, uint32_t bn, uint32_t cluster_m,
                                                   uint32_t b_mn_major) {
  return cluster_m == 1 && b_mn_major == 0 ? n % bn : 0;
}

// The tile order the hosts choose for "--tile-group auto": bands of 4 tile
// columns where the `sms` tiles of one wave, walked along M, would span fewer
// than three tile columns (so the wave streams A's whole height through L2
// while sharing little of it) and K is at least 768 (shorter K keeps the
// operands resident whatever the order, and the bands only spread D's
// stores); else along M (1). Read off the 22 shapes of the shape set that the
// sixth H100 ran with groups 1, 4 and 8 (docs/hardware.md, "The tile order
// on the losers"), where 4 was within a few per cent of the better of 4 and 8
// wherever grouping helped and lost least where it did not; checked on shapes
// drawn afterwards (hw/h200/tile_order_shapes.py).
SK_HOST_DEVICE constexpr uint32_t sm90_auto_tile_group(uint32_t m, uint32_t k, uint32_t sms) {
  const uint32_t tiles_m = (m + 127) / 128;
  return 3 * tiles_m >= sms && k >= 768 ? 4u : 1u;
}

// The K split's slots of the configuration the hosts launch for S CTAs
// (Sm90MatmulConfig's SplitSlots_): 4 for S = 2, which leaves room for a
// stage more, and 7 for the others.
SK_HOST_DEVICE constexpr uint32_t sm90_split_slots(uint32_t splits) {
  return splits == 2 ? kSplitKSlotsOfTwo : kSplitKSlots;
}

// The first tile (in walk order) whose K is split over a cluster of `splits`
// CTAs, of `tiles` on a grid of `ctas` CTAs: none without a split (tiles),
// every one (0), or with `tail` those of the last wave only: the ctas x
// floor(tiles / ctas) before it are taken whole, one CTA each, and the rest,
// fewer than a wave, split (all of them when the tiles do not fill a wave).
// A tail of at most ctas / splits tiles then takes 1 / splits of a tile's
// time instead of a whole one.
SK_HOST_DEVICE constexpr uint64_t sm90_split_from(uint64_t tiles, uint64_t ctas, uint32_t splits,
                                                  bool tail) {
  if (splits <= 1) return tiles;
  return tail && ctas > 0 ? tiles / ctas * ctas : 0;
}

// The SM90 matmul's launch parameters (one type for every configuration and
// probe, so that a stamped build takes the same Params as the kernel's own).
struct Sm90MatmulParams {
  arch::TensorMap a;  // dims {K, M, batches}, box {64, sm90_a_box_rows, 1}, 128B swizzle
  arch::TensorMap b;  // dims {K, N, batches}, box {64, tile N, 1}, 128B swizzle
  // B's last tile column (b_edge_rows = sm90_b_edge_rows, 0: none, the
  // column loads through b): dims as b's, box {64, b_edge_rows, 1}.
  arch::TensorMap b_edge;
  uint32_t b_edge_rows = 0;
  bf16_t* d;          // row-major, leading dimension ldd elements
  uint32_t m, n, k, ldd;
  uint32_t batches = 1;          // matrices of A, B and D
  uint64_t batch_stride_d = 0;   // elements from one matrix of D to the next
  OperandLayouts layouts;        // MN-major A and B (maps {M or N, K, batches})
  uint32_t tile_group = 1;       // tile order: along M (1) or bands of this many N columns
  // The cluster: CTAs along M and N (1 x 1: no cluster). A's map then has
  // boxes of 128 / cluster_n rows, B's of BN / cluster_m rows.
  uint32_t cluster_m = 1, cluster_n = 1;
  // K split over a cluster of this many CTAs (1, or 2, 3, 4, 8 with
  // Cfg::kSplitK and cluster_m = cluster_n = 1).
  uint32_t split_k = 1;
  // With split_k > 1: 0 splits every tile; 1 splits only the last wave's
  // (sm90_split_from), each CTA taking the waves before it whole.
  uint32_t split_tail = 0;
  // D's map for the TMA-store epilogue (Cfg::kTmaEpilogue; unused
  // otherwise): rank 3, {N, M, batches}, box {64, 16, 1}, 128B swizzle.
  arch::TensorMap d_map;
};

}  // namespace sk
