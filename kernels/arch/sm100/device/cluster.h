// cluster.h (NVIDIA device build, SM90 and SM100): thread-block clusters.
//
// A kernel launched with a cluster dimension C (1-D grid, clusterDim.x = C)
// runs its CTAs in groups of C on SMs of one GPC: CTA blockIdx.x is rank
// blockIdx.x % C of cluster blockIdx.x / C. The CTAs of a cluster can reach
// each other's shared memory (DSMEM) and barriers:
//   * cluster_arrive / cluster_wait (barrier.cluster, release / acquire at
//     cluster scope): a barrier over every non-exited thread of the cluster;
//     every thread of a warp executes it (.aligned);
//   * mbarrier_arrive_cluster(bar, rank): one arrive on the mbarrier at bar's
//     offset in CTA `rank` of the cluster (mapa, then mbarrier.arrive
//     .shared::cluster); rank may be the caller's own. Its semantics are the
//     default release at CTA scope, as CUTLASS's ClusterBarrier::arrive: it
//     tells a peer that this thread is done with something (a consumer's
//     release of a stage whose reads have completed), not that data this
//     thread stored is visible to the peer (that needs cluster scope).
//     .release.cluster costs a GPU-wide memory barrier before every arrive
//     (MEMBAR.ALL.GPU in the SASS): one-way 878 cycles against 252 on an
//     H100 (docs/results/h100_cluster_calibration_2026-11-27.csv), and the
//     clustered matmul 3x slower (h100_cluster_arrive_ab_2026-11-27.csv);
//   * tma_load_{2d,3d}_multicast: one TMA box that lands at the same SMEM
//     offset in every CTA of `cta_mask` (bit r: rank r) and performs
//     complete_tx of the box bytes on the mbarrier at bar's offset in each.
// Invariants: a barrier a peer arrives on or loads into is initialised and
// made visible with fence_mbarrier_init() (release at cluster scope) and a
// cluster barrier before any peer uses it; a CTA does not exit while a peer
// may still write its SMEM or arrive on its barriers (a cluster barrier
// before exit). A launch without a cluster dimension is a cluster of one.
#pragma once

#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/arch/sm100/device/tma.h"
#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

SK_DEVICE uint32_t cluster_num_ctas() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

SK_DEVICE void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" : : : "memory");
}

SK_DEVICE void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" : : : "memory");
}

SK_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

SK_DEVICE void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(detail::smem_addr(bar)), "r"(cta_rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" : : "r"(remote) : "memory");
}

SK_DEVICE void tma_load_2d_multicast(void* smem_dst, const TensorMap* map, uint64_t* bar,
                                     int32_t c0, int32_t c1, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::smem_addr(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

SK_DEVICE void tma_load_3d_multicast(void* smem_dst, const TensorMap* map, uint64_t* bar,
                                     int32_t c0, int32_t c1, int32_t c2, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
      : "memory");
}

}  // namespace sk::arch
