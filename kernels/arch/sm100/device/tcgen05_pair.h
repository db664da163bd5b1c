// tcgen05_pair.h (SM100 device build): the 2-SM forms of the tensor-core
// instructions (.cta_group::2) and the TMA load that feeds them.
//
// A CTA pair is ranks 2i and 2i + 1 of a cluster (the even rank leads). With
// cta_group::2 one MMA of M = 256 runs on both SMs: the leader issues it, A's
// rows [0, 128) come from the leader's SMEM and [128, 256) from the peer's,
// B's rows [0, N/2) from the leader's and [N/2, N) from the peer's, all at
// the descriptors' offsets (the same in both CTAs), and D's rows land in each
// CTA's own TMEM (128 lanes x N columns at the same column). Its completion
// is seen only through tcgen05_commit_pair_multicast, which arrives on the
// barrier at the same offset in every CTA of the mask.
//
// Invariants: a kernel that uses these uses no cta_group::1 tcgen05 op
// (PTX ISA 9.0 9.7.16.7.1: all tcgen05 ops of a kernel use one cta_group);
// alloc, dealloc and relinquish are executed by one whole warp in EACH CTA of
// the pair with the same arguments (the allocated address is written to each
// CTA's own dst), and the peer must still be running when its partner
// allocates or deallocates (the cluster barrier after init and before exit
// ensures it); only the leader issues the MMA and the commits.
// tma_load_{2d,3d}_pair writes the box into the executing CTA's SMEM and
// performs complete_tx on the barrier at bar's offset in CTA `bar_rank` of
// the cluster (the pair's leader), whose expect_tx covers both CTAs' bytes.
#pragma once

#include "kernels/arch/sm100/device/cluster.h"
#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/arch/sm100/device/tma.h"
#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE void tcgen05_alloc_pair(uint32_t* smem_dst, uint32_t num_cols) {
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;"
               :
               : "r"(detail::smem_addr(smem_dst)), "r"(num_cols)
               : "memory");
}

SK_DEVICE void tcgen05_dealloc_pair(uint32_t taddr, uint32_t num_cols) {
  asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;"
               :
               : "r"(taddr), "r"(num_cols)
               : "memory");
}

SK_DEVICE void tcgen05_relinquish_alloc_permit_pair() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" : : : "memory");
}

SK_DEVICE void tcgen05_mma_f16_ss_pair(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                       uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t"
      "}"
      :
      : "r"(d_taddr), "l"(a_desc), "l"(b_desc), "r"(idesc),
        "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// One arrive, once every tcgen05 op this thread issued has completed, on the
// barrier at bar's offset in each CTA of cta_mask (bit r: rank r).
SK_DEVICE void tcgen05_commit_pair_multicast(uint64_t* bar, uint16_t cta_mask) {
  asm volatile(
      "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"
      " [%0], %1;"
      :
      : "r"(detail::smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

// The same on this CTA's barrier only.
SK_DEVICE void tcgen05_commit_pair(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];"
               :
               : "r"(detail::smem_addr(bar))
               : "memory");
}

SK_DEVICE void tma_load_2d_pair(void* smem_dst, const TensorMap* map, uint64_t* bar,
                                uint32_t bar_rank, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::mapa(bar, bar_rank)), "r"(c0), "r"(c1)
      : "memory");
}

SK_DEVICE void tma_load_3d_pair(void* smem_dst, const TensorMap* map, uint64_t* bar,
                                uint32_t bar_rank, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::mapa(bar, bar_rank)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

}  // namespace sk::arch
