// api.h: the SM100 intrinsic semantics, as the model implements them.
//
// kernels/arch/sm100.h maps every sk::arch intrinsic onto one of these calls in
// the model build (kernels/arch/sm100/model/intrinsics.h). Each call acts for every
// *active lane* of the calling warp: an mbarrier arrive issued by a whole warp
// arrives 32 times, exactly as the PTX does. Rule violations become findings
// (research/verify.md section 4) and the call then does the least surprising
// defined thing, so a buggy kernel is reported, never crashes the simulator.
#pragma once

#include <cstdint>
#include <source_location>

#include "models/sm100/tensor_map.h"

namespace sk::models::sm100::api {

using Loc = std::source_location;

// Identity and lanes.
uint32_t warp_idx();
uint32_t cta_idx();
uint32_t num_ctas();
uint8_t* dynamic_smem();
uint32_t smem_addr(const void* p, const Loc& loc);
uint32_t lane_id();
void sync_warp(const Loc& loc);
void cta_sync(const Loc& loc);
void named_barrier_sync(uint32_t id, uint32_t num_threads, const Loc& loc);
void named_barrier_arrive(uint32_t id, uint32_t num_threads, const Loc& loc);
void st_shared_b128(void* dst, const uint32_t* v, const Loc& loc);
void ld_shared_b128(const void* src, uint32_t* v, const Loc& loc);
void ld_shared(const void* src, void* out, uint32_t bytes, const Loc& loc);
void st_shared(void* dst, const void* v, uint32_t bytes, const Loc& loc);

// mbarrier.
void mbarrier_init(uint64_t* bar, uint32_t count, const Loc& loc);
void mbarrier_inval(uint64_t* bar, const Loc& loc);
void fence_mbarrier_init(const Loc& loc);
void mbarrier_arrive(uint64_t* bar, const Loc& loc);
void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t tx_bytes, const Loc& loc);
void mbarrier_expect_tx(uint64_t* bar, uint32_t tx_bytes, const Loc& loc);
bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity, const Loc& loc);
bool mbarrier_test_wait_parity(uint64_t* bar, uint32_t parity, const Loc& loc);
void annotate_barrier(uint64_t* bar, const char* name, int index);
// The calling warp's next try_wait.parity on `bar` is for phase `phase`.
void annotate_wait_phase(uint64_t* bar, int64_t phase);

// TMA and bulk async-groups.
void prefetch_tensormap(const TensorMapModel* map, const Loc& loc);
void tma_load_2d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0, int32_t c1,
                 const Loc& loc);
void tma_store_2d(const TensorMapModel* map, const void* smem_src, int32_t c0, int32_t c1,
                  const Loc& loc);
// The same on a rank-3 tiled map: c2 names the plane (a batch's matrix).
void tma_load_3d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0, int32_t c1,
                 int32_t c2, const Loc& loc);
void tma_store_3d(const TensorMapModel* map, const void* smem_src, int32_t c0, int32_t c1,
                  int32_t c2, const Loc& loc);
// im2col load (api_tma_im2col.cc): a column of map->pixels_per_column pixels
// from an NHWC tensor, starting at pixel (n, h, w), channels [c, c + cpp),
// shifted by the filter offsets (off_w, off_h); complete_tx of the full
// column bytes on `bar`.
void tma_load_im2col_4d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c,
                        int32_t w, int32_t h, int32_t n, uint16_t off_w, uint16_t off_h,
                        const Loc& loc);
// .multicast::cluster forms: the box lands at smem_dst's offset in every CTA
// of cta_mask (bit r: rank r of the cluster) and completes on the barrier at
// bar's offset in each.
void tma_load_2d_multicast(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0,
                           int32_t c1, uint16_t cta_mask, const Loc& loc);
void tma_load_3d_multicast(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0,
                           int32_t c1, int32_t c2, uint16_t cta_mask, const Loc& loc);
void bulk_commit_group(const Loc& loc);
void bulk_wait_group_read(int n, const Loc& loc);
void bulk_wait_group(int n, const Loc& loc);
void fence_proxy_async_shared(const Loc& loc);
void fence_proxy_async_global(const Loc& loc);
void fence_proxy_async(const Loc& loc);  // every state space

// Thread-block clusters (api_cluster.cc).
uint32_t cluster_ctarank();
uint32_t cluster_num_ctas();
void cluster_arrive(const Loc& loc);
void cluster_wait(const Loc& loc);
// One arrive on the barrier at bar's offset in CTA `cta_rank` of the
// cluster: mbarrier_arrive_cluster releases at CTA scope (the default
// mbarrier.arrive.shared::cluster: into a peer it publishes the caller's
// reads, not its writes), mbarrier_arrive_cluster_release at cluster scope
// (.release.cluster: the writes too, after a memory barrier).
void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank, const Loc& loc);
void mbarrier_arrive_cluster_release(uint64_t* bar, uint32_t cta_rank, const Loc& loc);
// mbarrier.try_wait.parity.acquire.cluster: the model's waits acquire
// whatever the releases published, so this is try_wait_parity.
bool mbarrier_try_wait_parity_cluster(uint64_t* bar, uint32_t parity, const Loc& loc);
// fence.acq_rel.cluster: a later CTA-scope arrive into a peer publishes the
// caller's writes up to the fence.
void fence_acq_rel_cluster(const Loc& loc);

// Distributed shared memory (api_dsmem.cc): `bytes` (4 or 8) at local_ptr's
// offset in the shared memory of CTA `cta_rank` of the cluster (mapa, then
// ld/st.shared::cluster). A load stalls its warp dsmem_load_latency; a
// store is posted. Inside a per-lane loop each call is one lane's access.
void ld_shared_cluster(const void* local_ptr, uint32_t cta_rank, void* out, uint32_t bytes,
                       const Loc& loc);
void st_shared_cluster(void* local_ptr, uint32_t cta_rank, const void* v, uint32_t bytes,
                       const Loc& loc);
// atom.shared::cluster.add.u32 (returns the value before this call's adds,
// and stalls like a load) and red.shared::cluster.add.u32 (posted). Each
// acting lane adds v: every active lane, or the loop's lane inside a
// per-lane loop.
uint32_t atom_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v,
                                 const Loc& loc);
void red_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v, const Loc& loc);
// A warp's per-lane DSMEM stores (`instructions` of them, `bytes` in all),
// which timing mode does not run lane by lane: each an issue slot (posted
// stores; the SM-to-SM network's rate is not modelled) and the bytes counted
// (Gpu::dsmem_bytes), in timing mode only (functional mode's lanes charge and
// count them). Its per-lane ld.shared.v4, free in both modes: an issue slot
// each.
void account_dsmem_stores(uint32_t cta_rank, uint32_t bytes, uint32_t instructions, const Loc& loc);
void account_smem_loads(uint32_t instructions, const Loc& loc);

// Cluster launch control (api_clc.cc): cancel a pending CTA and take its work.
void clc_try_cancel(void* response, uint64_t* bar, const Loc& loc);
// .multicast::cluster::all: the response goes to every CTA of the issuer's
// cluster (same offsets), and a cluster launch's whole pending cluster is
// cancelled.
void clc_try_cancel_multicast(void* response, uint64_t* bar, const Loc& loc);
bool clc_is_canceled(const void* response, const Loc& loc);
uint32_t clc_first_ctaid_x(const void* response, const Loc& loc);

// In-kernel tensor-map updates and the tensormap proxy fences.
void tensormap_replace_global_address(TensorMapModel* map, uint64_t address, const Loc& loc);
void tensormap_replace_global_dim(TensorMapModel* map, int dim, uint32_t size, const Loc& loc);
void fence_proxy_tensormap_release(const Loc& loc);
void fence_proxy_tensormap_acquire(const TensorMapModel* map, const Loc& loc);

// tcgen05 (cta_group::1).
void tcgen05_alloc(uint32_t* smem_dst, uint32_t num_cols, const Loc& loc);
void tcgen05_dealloc(uint32_t taddr, uint32_t num_cols, const Loc& loc);
void tcgen05_relinquish_alloc_permit(const Loc& loc);
void tcgen05_mma_f16_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                        bool accumulate, const Loc& loc);
// Block-scaled MMAs and the scale-factor copy (api_tcgen05_block_scale.cc):
// kind::mxf8f6f4.block_scale.scale_vec::1X, kind::mxf4nvf4.block_scale.scale_vec::4X
// and tcgen05.cp.cta_group::1.32x128b.warpx4.
void tcgen05_mma_mxf8f6f4_block_scale(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                      uint32_t idesc, uint32_t sfa_taddr, uint32_t sfb_taddr,
                                      bool accumulate, const Loc& loc);
void tcgen05_mma_mxf4nvf4_block_scale(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                      uint32_t idesc, uint32_t sfa_taddr, uint32_t sfb_taddr,
                                      bool accumulate, const Loc& loc);
// kind::f8f6f4 (FP8/FP6/FP4 elements, no scales), F32 D, M = 128.
void tcgen05_mma_f8f6f4_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                           bool accumulate, const Loc& loc);
void tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t smem_desc, const Loc& loc);
// kind::f16 with A from TMEM (128 lanes x 8 columns of packed 16-bit pairs at
// a_taddr) and B from SMEM: attention's P V.
void tcgen05_mma_f16_ts(uint32_t d_taddr, uint32_t a_taddr, uint64_t b_desc, uint32_t idesc,
                        bool accumulate, const Loc& loc);
void tcgen05_commit(uint64_t* bar, const Loc& loc);
// dst[lane][register]: the 32 lanes' registers (the model build's LaneArray rows).
void tcgen05_ld_32x32b_x32(uint32_t taddr, uint32_t (&dst)[32][32], const Loc& loc);
void tcgen05_wait_ld(const Loc& loc);
// src[lane][register]; the TMEM write is an async op until tcgen05.wait::st.
void tcgen05_st_32x32b_x32(uint32_t taddr, const uint32_t (&src)[32][32], const Loc& loc);
void tcgen05_wait_st(const Loc& loc);
void tcgen05_fence_before_thread_sync(const Loc& loc);
void tcgen05_fence_after_thread_sync(const Loc& loc);

// Per-lane math of the calling warp (api_alu.cc): `fma` full-rate and `half`
// half-rate FP32-pipe warp-instructions (max.f32 and the 16-bit packing
// conversions run at half the FMA rate), `sfu` SFU (ex2) warp-instructions,
// and the longest dependent chain among them, `chain` steps. The SFU (a warp
// instruction every sfu_cycles) and the FP32 pipe (one per cycle,
// half_rate_cycles for a half-rate one) run side by side, and a chain takes
// alu_chain_step cycles a step however wide the pipes: the warp spends the
// longest of the three. Shared by the SM90 and SM100 models (the rates are
// each parameter file's).
void account_alu(uint32_t fma, uint32_t sfu, uint32_t half, uint32_t chain, const Loc& loc);
// A quad reduction's two butterfly steps (shfl.sync.bfly and the operation),
// dependent, quad_reduce_step cycles each.
void account_quad_reduce(const Loc& loc);
// The calling warp spins `cycles` SM cycles (a clock64 loop on the GPU): a
// probe's deliberate delay (runner/kernels/matmul_stamps.h, --hold-kblock).
void spin_cycles(uint32_t cycles, const Loc& loc);

// The 2-SM forms, .cta_group::2 (api_tcgen05_pair.cc; the pair is ranks 2i
// and 2i + 1 of a cluster, the even rank leads), and the TMA loads that
// complete on a barrier of the pair (api_tma.cc).
void tcgen05_alloc_pair(uint32_t* smem_dst, uint32_t num_cols, const Loc& loc);
void tcgen05_dealloc_pair(uint32_t taddr, uint32_t num_cols, const Loc& loc);
void tcgen05_relinquish_alloc_permit_pair(const Loc& loc);
void tcgen05_mma_f16_ss_pair(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                             bool accumulate, const Loc& loc);
void tcgen05_commit_pair_multicast(uint64_t* bar, uint16_t cta_mask, const Loc& loc);
void tcgen05_commit_pair(uint64_t* bar, const Loc& loc);
void tma_load_2d_pair(void* smem_dst, const TensorMapModel* map, uint64_t* bar, uint32_t bar_rank,
                      int32_t c0, int32_t c1, const Loc& loc);
void tma_load_3d_pair(void* smem_dst, const TensorMapModel* map, uint64_t* bar, uint32_t bar_rank,
                      int32_t c0, int32_t c1, int32_t c2, const Loc& loc);

}  // namespace sk::models::sm100::api
