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
//   * mbarrier_arrive_cluster_release(bar, rank): the same arrive with
//     .release.cluster, which also publishes this thread's earlier writes
//     (and those it has observed) to the peer: what a producer that wrote
//     data into a peer's SMEM, or its own SMEM for a peer to read, uses to
//     signal it (cutlass#3324). fence_acq_rel_cluster() before a
//     mbarrier_arrive_cluster does the same; mbarrier_try_wait_parity_cluster
//     is the waiting side's .acquire.cluster form;
//   * DSMEM data: ld_shared_cluster / st_shared_cluster (32- or 64-bit
//     values), atom_add_shared_cluster (returns the old value) and
//     red_add_shared_cluster (no result) on the location at local_ptr's
//     offset in CTA `rank`'s shared memory (mapa, then .shared::cluster);
//     local_ptr is an address of the caller's own shared memory;
//   * tma_load_{2d,3d}_multicast: one TMA box that lands at the same SMEM
//     offset in every CTA of `cta_mask` (bit r: rank r) and performs
//     complete_tx of the box bytes on the mbarrier at bar's offset in each.
// Invariants: a barrier a peer arrives on or loads into is initialised and
// made visible with fence_mbarrier_init() (release at cluster scope) and a
// cluster barrier before any peer uses it; a CTA does not exit while a peer
// may still access its SMEM or arrive on its barriers (a cluster barrier
// before exit); data written for a peer is published at cluster scope. A
// launch without a cluster dimension is a cluster of one.
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

namespace detail {
// The .shared::cluster address of local_ptr's offset in CTA `cta_rank`.
SK_DEVICE uint32_t mapa(const void* local_ptr, uint32_t cta_rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_addr(local_ptr)), "r"(cta_rank));
  return remote;
}
}  // namespace detail

SK_DEVICE void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  const uint32_t remote = detail::mapa(bar, cta_rank);
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" : : "r"(remote) : "memory");
}

SK_DEVICE void mbarrier_arrive_cluster_release(uint64_t* bar, uint32_t cta_rank) {
  const uint32_t remote = detail::mapa(bar, cta_rank);
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
               :
               : "r"(remote)
               : "memory");
}

// mbarrier_try_wait_parity with acquire at cluster scope.
SK_DEVICE bool mbarrier_try_wait_parity_cluster(uint64_t* bar, uint32_t parity) {
  constexpr uint32_t kSuspendTimeHintNs = 0x989680;
  uint32_t done;
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2, %3;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(done)
      : "r"(detail::smem_addr(bar)), "r"(parity), "r"(kSuspendTimeHintNs)
      : "memory");
  return done != 0;
}

SK_DEVICE void fence_acq_rel_cluster() { asm volatile("fence.acq_rel.cluster;" : : : "memory"); }

template <class T>
SK_DEVICE T ld_shared_cluster(const T* local_ptr, uint32_t cta_rank) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "ld.shared::cluster of 32- or 64-bit values");
  const uint32_t remote = detail::mapa(local_ptr, cta_rank);
  T v;
  if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(bits) : "r"(remote) : "memory");
    __builtin_memcpy(&v, &bits, 4);
  } else {
    uint64_t bits;
    asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(bits) : "r"(remote) : "memory");
    __builtin_memcpy(&v, &bits, 8);
  }
  return v;
}

template <class T>
SK_DEVICE void st_shared_cluster(T* local_ptr, uint32_t cta_rank, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "st.shared::cluster of 32- or 64-bit values");
  const uint32_t remote = detail::mapa(local_ptr, cta_rank);
  if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    __builtin_memcpy(&bits, &v, 4);
    asm volatile("st.shared::cluster.u32 [%0], %1;" : : "r"(remote), "r"(bits) : "memory");
  } else {
    uint64_t bits;
    __builtin_memcpy(&bits, &v, 8);
    asm volatile("st.shared::cluster.u64 [%0], %1;" : : "r"(remote), "l"(bits) : "memory");
  }
}

// 16 bytes (v[0..3]) at local_ptr's offset in CTA cta_rank, 16-byte aligned.
SK_DEVICE void st_shared_cluster_v4(void* local_ptr, uint32_t cta_rank, const uint32_t (&v)[4]) {
  const uint32_t remote = detail::mapa(local_ptr, cta_rank);
  asm volatile("st.shared::cluster.v4.b32 [%0], {%1, %2, %3, %4};"
               :
               : "r"(remote), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
               : "memory");
}

SK_DEVICE uint32_t atom_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v) {
  const uint32_t remote = detail::mapa(local_ptr, cta_rank);
  uint32_t old;
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "r"(remote), "r"(v)
               : "memory");
  return old;
}

SK_DEVICE void red_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v) {
  const uint32_t remote = detail::mapa(local_ptr, cta_rank);
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" : : "r"(remote), "r"(v) : "memory");
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
