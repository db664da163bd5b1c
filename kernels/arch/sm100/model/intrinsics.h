// intrinsics.h: the SM100 intrinsic API, model build.
//
// Same names and signatures as kernels/arch/sm100/device/ (inline PTX), plus a
// defaulted std::source_location so findings name the calling line. Every
// function forwards to models/sm100/api.h; the lane and instrumentation
// intrinsics shared by all models come from kernels/arch/model/lanes.h. Kernel code reaches this header only
// through kernels/arch/sm100.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <source_location>
#include <utility>

#include "kernels/core/lane_array.h"
#include "kernels/core/numeric.h"
#include "kernels/arch/model/lanes.h"
#include "models/sm100/api.h"
#include "models/sm100/tensor_map.h"

namespace sk::arch {

using TensorMap = sk::models::sm100::TensorMapModel;
using Loc = std::source_location;
namespace m = sk::models::sm100::api;

inline uint32_t warp_idx() { return m::warp_idx(); }
inline uint32_t cta_idx() { return m::cta_idx(); }
inline uint32_t num_ctas() { return m::num_ctas(); }
inline uint8_t* dynamic_smem() { return m::dynamic_smem(); }
inline uint32_t smem_addr(const void* p, Loc l = Loc::current()) { return m::smem_addr(p, l); }

inline uint32_t lane_id() { return m::lane_id(); }
inline void sync_warp(Loc l = Loc::current()) { m::sync_warp(l); }
inline void cta_sync(Loc l = Loc::current()) { m::cta_sync(l); }
inline void named_barrier_sync(uint32_t id, uint32_t n, Loc l = Loc::current()) {
  m::named_barrier_sync(id, n, l);
}
inline void named_barrier_arrive(uint32_t id, uint32_t n, Loc l = Loc::current()) {
  m::named_barrier_arrive(id, n, l);
}
inline void st_shared_b128(void* dst, const uint32_t (&v)[4], Loc l = Loc::current()) {
  m::st_shared_b128(dst, v, l);
}
inline void ld_shared_b128(const void* src, uint32_t (&v)[4], Loc l = Loc::current()) {
  m::ld_shared_b128(src, v, l);
}
// Plain shared-memory data (work items, the TMEM address slot).
template <class T>
inline T ld_shared(const T* src, Loc l = Loc::current()) {
  T v;
  m::ld_shared(src, &v, sizeof(T), l);
  return v;
}
template <class T>
inline void st_shared(T* dst, const T& v, Loc l = Loc::current()) {
  m::st_shared(dst, &v, sizeof(T), l);
}

inline void mbarrier_init(uint64_t* bar, uint32_t count, Loc l = Loc::current()) {
  m::mbarrier_init(bar, count, l);
}
inline void mbarrier_inval(uint64_t* bar, Loc l = Loc::current()) { m::mbarrier_inval(bar, l); }
inline void fence_mbarrier_init(Loc l = Loc::current()) { m::fence_mbarrier_init(l); }
inline void mbarrier_arrive(uint64_t* bar, Loc l = Loc::current()) { m::mbarrier_arrive(bar, l); }
inline void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t tx, Loc l = Loc::current()) {
  m::mbarrier_arrive_expect_tx(bar, tx, l);
}
inline void mbarrier_expect_tx(uint64_t* bar, uint32_t tx, Loc l = Loc::current()) {
  m::mbarrier_expect_tx(bar, tx, l);
}
inline bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity, Loc l = Loc::current()) {
  return m::mbarrier_try_wait_parity(bar, parity, l);
}
// Non-blocking probe: has the phase with this parity completed?
inline bool mbarrier_test_wait_parity(uint64_t* bar, uint32_t parity, Loc l = Loc::current()) {
  return m::mbarrier_test_wait_parity(bar, parity, l);
}
inline void annotate_barrier(uint64_t* bar, const char* name, int index) {
  m::annotate_barrier(bar, name, index);
}
// The next parity wait on `bar` by this warp is for phase `phase` (a
// pipeline's lap; -1 before the first completion): the model then checks the
// parity against it exactly (a consumer that passes over other readers'
// phases, as the ping-pong's warpgroups do, is no stale wait).
inline void annotate_wait_phase(uint64_t* bar, int64_t phase) { m::annotate_wait_phase(bar, phase); }

inline void prefetch_tensormap(const TensorMap* map, Loc l = Loc::current()) {
  m::prefetch_tensormap(map, l);
}
inline void tma_load_2d(void* dst, const TensorMap* map, uint64_t* bar, int32_t c0, int32_t c1,
                        Loc l = Loc::current()) {
  m::tma_load_2d(dst, map, bar, c0, c1, l);
}
inline void tma_store_2d(const TensorMap* map, const void* src, int32_t c0, int32_t c1,
                         Loc l = Loc::current()) {
  m::tma_store_2d(map, src, c0, c1, l);
}
// Rank-3 tiled maps (encode_tiled_3d): c2 is the plane, e.g. a batch index.
inline void tma_load_3d(void* dst, const TensorMap* map, uint64_t* bar, int32_t c0, int32_t c1,
                        int32_t c2, Loc l = Loc::current()) {
  m::tma_load_3d(dst, map, bar, c0, c1, c2, l);
}
inline void tma_store_3d(const TensorMap* map, const void* src, int32_t c0, int32_t c1, int32_t c2,
                         Loc l = Loc::current()) {
  m::tma_store_3d(map, src, c0, c1, c2, l);
}
// im2col load: `map` from encode_im2col_4d; a column of pixels starting at
// (n, h, w), channels from c, shifted by the filter tap offsets (off_w, off_h).
inline void tma_load_im2col_4d(void* dst, const TensorMap* map, uint64_t* bar, int32_t c,
                               int32_t w, int32_t h, int32_t n, uint16_t off_w, uint16_t off_h,
                               Loc l = Loc::current()) {
  m::tma_load_im2col_4d(dst, map, bar, c, w, h, n, off_w, off_h, l);
}
// Thread-block clusters (kernels/arch/sm100/device/cluster.h).
inline uint32_t cluster_ctarank() { return m::cluster_ctarank(); }
inline uint32_t cluster_num_ctas() { return m::cluster_num_ctas(); }
inline void cluster_arrive(Loc l = Loc::current()) { m::cluster_arrive(l); }
inline void cluster_wait(Loc l = Loc::current()) { m::cluster_wait(l); }
inline void cluster_sync(Loc l = Loc::current()) {
  m::cluster_arrive(l);
  m::cluster_wait(l);
}
inline void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank, Loc l = Loc::current()) {
  m::mbarrier_arrive_cluster(bar, cta_rank, l);
}
inline void mbarrier_arrive_cluster_release(uint64_t* bar, uint32_t cta_rank,
                                            Loc l = Loc::current()) {
  m::mbarrier_arrive_cluster_release(bar, cta_rank, l);
}
inline bool mbarrier_try_wait_parity_cluster(uint64_t* bar, uint32_t parity,
                                             Loc l = Loc::current()) {
  return m::mbarrier_try_wait_parity_cluster(bar, parity, l);
}
inline void fence_acq_rel_cluster(Loc l = Loc::current()) { m::fence_acq_rel_cluster(l); }
// DSMEM: 32- or 64-bit values at local_ptr's offset in CTA `cta_rank`'s
// shared memory (kernels/arch/sm100/device/cluster.h).
template <class T>
inline T ld_shared_cluster(const T* local_ptr, uint32_t cta_rank, Loc l = Loc::current()) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "ld.shared::cluster of 32- or 64-bit values");
  T v;
  m::ld_shared_cluster(local_ptr, cta_rank, &v, sizeof(T), l);
  return v;
}
template <class T>
inline void st_shared_cluster(T* local_ptr, uint32_t cta_rank, T v, Loc l = Loc::current()) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "st.shared::cluster of 32- or 64-bit values");
  m::st_shared_cluster(local_ptr, cta_rank, &v, sizeof(T), l);
}
// The cost of per-lane shared-memory traffic that timing mode does not run
// lane by lane (kernels/arch/sm100/device/hooks.h).
inline void account_dsmem_stores(uint32_t cta_rank, uint32_t bytes, uint32_t instructions,
                                 Loc l = Loc::current()) {
  m::account_dsmem_stores(cta_rank, bytes, instructions, l);
}
inline void account_smem_loads(uint32_t instructions, Loc l = Loc::current()) {
  m::account_smem_loads(instructions, l);
}
inline void st_shared_cluster_v4(void* local_ptr, uint32_t cta_rank, const uint32_t (&v)[4],
                                 Loc l = Loc::current()) {
  m::st_shared_cluster(local_ptr, cta_rank, v, 16, l);
}
inline uint32_t atom_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v,
                                        Loc l = Loc::current()) {
  return m::atom_add_shared_cluster(local_ptr, cta_rank, v, l);
}
inline void red_add_shared_cluster(uint32_t* local_ptr, uint32_t cta_rank, uint32_t v,
                                   Loc l = Loc::current()) {
  m::red_add_shared_cluster(local_ptr, cta_rank, v, l);
}
inline void tma_load_2d_multicast(void* dst, const TensorMap* map, uint64_t* bar, int32_t c0,
                                  int32_t c1, uint16_t cta_mask, Loc l = Loc::current()) {
  m::tma_load_2d_multicast(dst, map, bar, c0, c1, cta_mask, l);
}
inline void tma_load_3d_multicast(void* dst, const TensorMap* map, uint64_t* bar, int32_t c0,
                                  int32_t c1, int32_t c2, uint16_t cta_mask,
                                  Loc l = Loc::current()) {
  m::tma_load_3d_multicast(dst, map, bar, c0, c1, c2, cta_mask, l);
}
// Cluster launch control: one lane asks to cancel the lowest pending CTA of
// the grid; the 16-byte response lands in SMEM with complete_tx(16) on `bar`
// (arrive.expect_tx(16) on it first). After the wait, every lane may decode it.
inline void clc_try_cancel(void* response, uint64_t* bar, Loc l = Loc::current()) {
  m::clc_try_cancel(response, bar, l);
}
inline void clc_try_cancel_multicast(void* response, uint64_t* bar, Loc l = Loc::current()) {
  m::clc_try_cancel_multicast(response, bar, l);
}
inline bool clc_is_canceled(const void* response, Loc l = Loc::current()) {
  return m::clc_is_canceled(response, l);
}
inline uint32_t clc_first_ctaid_x(const void* response, Loc l = Loc::current()) {
  return m::clc_first_ctaid_x(response, l);
}
// In-kernel tensor-map updates (the map must live in global memory) and the
// fences that make them visible to TMA: the writer releases, the thread that
// issues the TMA acquires on the map.
inline void tensormap_replace_global_address(TensorMap* map, uint64_t address,
                                             Loc l = Loc::current()) {
  m::tensormap_replace_global_address(map, address, l);
}
template <int Dim>
inline void tensormap_replace_global_dim(TensorMap* map, uint32_t size, Loc l = Loc::current()) {
  static_assert(Dim >= 0 && Dim < 5, "tensor maps have at most 5 dimensions");
  m::tensormap_replace_global_dim(map, Dim, size, l);
}
inline void fence_proxy_tensormap_release(Loc l = Loc::current()) {
  m::fence_proxy_tensormap_release(l);
}
inline void fence_proxy_tensormap_acquire(const TensorMap* map, Loc l = Loc::current()) {
  m::fence_proxy_tensormap_acquire(map, l);
}
inline void bulk_commit_group(Loc l = Loc::current()) { m::bulk_commit_group(l); }
template <int N>
inline void bulk_wait_group_read(Loc l = Loc::current()) {
  m::bulk_wait_group_read(N, l);
}
template <int N>
inline void bulk_wait_group(Loc l = Loc::current()) {
  m::bulk_wait_group(N, l);
}
inline void fence_proxy_async_shared(Loc l = Loc::current()) { m::fence_proxy_async_shared(l); }
inline void fence_proxy_async_global(Loc l = Loc::current()) { m::fence_proxy_async_global(l); }
inline void fence_proxy_async(Loc l = Loc::current()) { m::fence_proxy_async(l); }

inline void tcgen05_alloc(uint32_t* dst, uint32_t ncols, Loc l = Loc::current()) {
  m::tcgen05_alloc(dst, ncols, l);
}
inline void tcgen05_dealloc(uint32_t taddr, uint32_t ncols, Loc l = Loc::current()) {
  m::tcgen05_dealloc(taddr, ncols, l);
}
inline void tcgen05_relinquish_alloc_permit(Loc l = Loc::current()) {
  m::tcgen05_relinquish_alloc_permit(l);
}
inline void tcgen05_mma_f16_ss(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, bool acc,
                               Loc l = Loc::current()) {
  m::tcgen05_mma_f16_ss(d, a, b, idesc, acc, l);
}
inline void tcgen05_mma_mxf8f6f4_block_scale(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc,
                                             uint32_t sfa, uint32_t sfb, bool acc,
                                             Loc l = Loc::current()) {
  m::tcgen05_mma_mxf8f6f4_block_scale(d, a, b, idesc, sfa, sfb, acc, l);
}
inline void tcgen05_mma_mxf4nvf4_block_scale(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc,
                                             uint32_t sfa, uint32_t sfb, bool acc,
                                             Loc l = Loc::current()) {
  m::tcgen05_mma_mxf4nvf4_block_scale(d, a, b, idesc, sfa, sfb, acc, l);
}
inline void tcgen05_mma_f8f6f4_ss(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, bool acc,
                                 Loc l = Loc::current()) {
  m::tcgen05_mma_f8f6f4_ss(d, a, b, idesc, acc, l);
}
inline void tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t smem_desc, Loc l = Loc::current()) {
  m::tcgen05_cp_32x128b_warpx4(taddr, smem_desc, l);
}
inline void tcgen05_commit(uint64_t* bar, Loc l = Loc::current()) { m::tcgen05_commit(bar, l); }
inline void tcgen05_ld_32x32b_x32(uint32_t taddr, LaneArray<uint32_t, 32>& dst,
                                  Loc l = Loc::current()) {
  static_assert(LaneArray<uint32_t, 32>::kSlots == 32, "the model build holds every lane");
  m::tcgen05_ld_32x32b_x32(taddr, dst.regs, l);
}
inline void tcgen05_wait_ld(Loc l = Loc::current()) { m::tcgen05_wait_ld(l); }
inline void tcgen05_fence_before_thread_sync(Loc l = Loc::current()) {
  m::tcgen05_fence_before_thread_sync(l);
}
inline void tcgen05_fence_after_thread_sync(Loc l = Loc::current()) {
  m::tcgen05_fence_after_thread_sync(l);
}

// The 2-SM forms (kernels/arch/sm100/device/tcgen05_pair.h).
inline void tcgen05_alloc_pair(uint32_t* dst, uint32_t ncols, Loc l = Loc::current()) {
  m::tcgen05_alloc_pair(dst, ncols, l);
}
inline void tcgen05_dealloc_pair(uint32_t taddr, uint32_t ncols, Loc l = Loc::current()) {
  m::tcgen05_dealloc_pair(taddr, ncols, l);
}
inline void tcgen05_relinquish_alloc_permit_pair(Loc l = Loc::current()) {
  m::tcgen05_relinquish_alloc_permit_pair(l);
}
inline void tcgen05_mma_f16_ss_pair(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc, bool acc,
                                    Loc l = Loc::current()) {
  m::tcgen05_mma_f16_ss_pair(d, a, b, idesc, acc, l);
}
inline void tcgen05_commit_pair_multicast(uint64_t* bar, uint16_t cta_mask,
                                          Loc l = Loc::current()) {
  m::tcgen05_commit_pair_multicast(bar, cta_mask, l);
}
inline void tcgen05_commit_pair(uint64_t* bar, Loc l = Loc::current()) {
  m::tcgen05_commit_pair(bar, l);
}
inline void tma_load_2d_pair(void* dst, const TensorMap* map, uint64_t* bar, uint32_t bar_rank,
                             int32_t c0, int32_t c1, Loc l = Loc::current()) {
  m::tma_load_2d_pair(dst, map, bar, bar_rank, c0, c1, l);
}
inline void tma_load_3d_pair(void* dst, const TensorMap* map, uint64_t* bar, uint32_t bar_rank,
                             int32_t c0, int32_t c1, int32_t c2, Loc l = Loc::current()) {
  m::tma_load_3d_pair(dst, map, bar, bar_rank, c0, c1, c2, l);
}

// tcgen05.st and the TS form of tcgen05.mma (kernels/arch/sm100/device/tcgen05.h).
inline void tcgen05_st_32x32b_x32(uint32_t taddr, const LaneArray<uint32_t, 32>& src,
                                  Loc l = Loc::current()) {
  m::tcgen05_st_32x32b_x32(taddr, src.regs, l);
}
inline void tcgen05_wait_st(Loc l = Loc::current()) { m::tcgen05_wait_st(l); }
inline void tcgen05_mma_f16_ts(uint32_t d, uint32_t a_taddr, uint64_t b, uint32_t idesc, bool acc,
                               Loc l = Loc::current()) {
  m::tcgen05_mma_f16_ts(d, a_taddr, b, idesc, acc, l);
}
// Softmax helpers (kernels/arch/sm100/device/softmax.h). ex2.approx.ftz:
// subnormal inputs and results are 0; the host's exp2 is the model's value
// (the SFU's relative error is about 2^-22).
inline float exp2_approx(float x) {
  if (std::fpclassify(x) == FP_SUBNORMAL) x = 0.0f;
  const float y = std::exp2(x);
  return std::fpclassify(y) == FP_SUBNORMAL ? 0.0f : y;
}
inline uint32_t pack_bf16x2(float lo, float hi) {
  return static_cast<uint32_t>(to_bf16(lo).bits) | static_cast<uint32_t>(to_bf16(hi).bits) << 16;
}
inline uint32_t pack_f16x2(float lo, float hi) {
  return static_cast<uint32_t>(to_f16(lo).bits) | static_cast<uint32_t>(to_f16(hi).bits) << 16;
}
// Each register over the four lanes of a quad, combined in the device's
// butterfly order: op(op(a, b), op(c, d)) for lanes a, b, c, d.
template <int R, class Op>
inline void quad_allreduce(LaneArray<float, R>& v, Op op) {
  for (int q = 0; q < 8; ++q)
    for (int i = 0; i < R; ++i) {
      float(*x)[R] = &v.regs[4 * q];  // the quad's four lanes
      const float r = op(op(x[0][i], x[1][i]), op(x[2][i], x[3][i]));
      for (int j = 0; j < 4; ++j) x[j][i] = r;
    }
}
template <int R>
inline void quad_allreduce_max(LaneArray<float, R>& v, Loc l = Loc::current()) {
  quad_allreduce(v, [](float a, float b) { return std::fmax(a, b); });
  m::account_quad_reduce(l);
}
template <int R>
inline void quad_allreduce_sum(LaneArray<float, R>& v, Loc l = Loc::current()) {
  quad_allreduce(v, [](float a, float b) { return a + b; });
  m::account_quad_reduce(l);
}
// A 4 x 4 transpose over each quad (the device's three shfl.sync.bfly and
// selects): lane q's register s becomes lane s's register q. Charged as 16
// full-rate instructions.
inline void quad_transpose(LaneArray<uint32_t, 4>& v, Loc l = Loc::current()) {
  for (int q = 0; q < 8; ++q) {
    uint32_t(*x)[4] = &v.regs[4 * q];
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) std::swap(x[a][b], x[b][a]);
  }
  m::account_alu(16, 0, 0, 0, l);
}
inline void account_alu(uint32_t fma, uint32_t sfu, uint32_t half = 0, uint32_t chain = 0,
                        Loc l = Loc::current()) {
  m::account_alu(fma, sfu, half, chain, l);
}
// vote.any over the warp's lanes (each lane's register 0).
inline bool any_lane(const LaneArray<uint32_t, 1>& v) {
  for (int l = 0; l < 32; ++l)
    if (v.regs[l][0] != 0) return true;
  return false;
}

}  // namespace sk::arch
