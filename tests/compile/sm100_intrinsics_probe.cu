// Compile-only probe: one kernel that reaches every SM100 device intrinsic, so
// the generated PTX can be checked for each instruction and ptxas gets to
// validate every operand type. It is never launched; the control flow only has
// to be plausible enough that no call is dead code.
#include "kernels/arch/sm100/device/all.h"
#include "kernels/arch/sm100/umma_desc.h"

namespace {

constexpr uint32_t kTmemCols = 64;  // D (32 columns), then scale factors
constexpr uint32_t kTileBytes = 128 * 64 * 2;
// Ids 1.. because id 0 is the barrier behind cta_sync().
constexpr uint32_t kEpilogueBarrier = 1;

struct alignas(1024) ProbeSmem {
  uint8_t a_tile[kTileBytes];
  uint8_t b_tile[kTileBytes];
  uint8_t x_tile[kTileBytes];  // an im2col column: 128 pixels x 64 channels
  uint8_t sf_tile[2][512];     // scale factors of A and B: 128 rows x 4 bytes each
  uint64_t full_bar;
  uint64_t mma_done_bar;
  uint64_t epilogue_bar;
  uint64_t clc_bar;
  alignas(16) uint8_t clc_response[16];
  uint32_t tmem_base;
};

}  // namespace

__global__ void __launch_bounds__(128, 1)
    sm100_intrinsics_probe(const __grid_constant__ sk::arch::TensorMap a_map,
                           const __grid_constant__ sk::arch::TensorMap b_map,
                           const __grid_constant__ sk::arch::TensorMap c_map,
                           const __grid_constant__ sk::arch::TensorMap x_map,
                           sk::arch::TensorMap* b_workspace_map, uint32_t idesc,
                           uint32_t* out) {
  using namespace sk::arch;
  auto& smem = *reinterpret_cast<ProbeSmem*>(dynamic_smem());
  const uint32_t warp = warp_idx();

  if (warp == 0) {
    annotate_role("producer+mma");
    if (elect_one_begin()) {
      prefetch_tensormap(&a_map);
      prefetch_tensormap(&b_map);
      prefetch_tensormap(&c_map);
      mbarrier_init(&smem.full_bar, 1);
      mbarrier_init(&smem.mma_done_bar, 1);
      mbarrier_init(&smem.epilogue_bar, 96);
      mbarrier_init(&smem.clc_bar, 1);
      fence_mbarrier_init();
    }
    lane_scope_end();
    tcgen05_alloc(&smem.tmem_base, kTmemCols);
    tcgen05_relinquish_alloc_permit();
  }
  tcgen05_fence_before_thread_sync();
  cta_sync();
  tcgen05_fence_after_thread_sync();
  const uint32_t tmem = smem.tmem_base;

  if (warp == 0) {
    if (elect_one_begin()) {
      // Both announcement forms: one arrival carrying half the bytes, the rest
      // announced without arriving.
      mbarrier_expect_tx(&smem.full_bar, kTileBytes);
      mbarrier_arrive_expect_tx(&smem.full_bar, kTileBytes);
      tma_load_2d(smem.a_tile, &a_map, &smem.full_bar, 0, static_cast<int32_t>(cta_idx()));
      // B through a map retargeted in the kernel, as grouped GEMMs do per group.
      tensormap_replace_global_address(b_workspace_map, reinterpret_cast<uint64_t>(out));
      tensormap_replace_global_dim<1>(b_workspace_map, num_ctas());
      fence_proxy_tensormap_release();
      fence_proxy_tensormap_acquire(b_workspace_map);
      tma_load_2d(smem.b_tile, b_workspace_map, &smem.full_bar, 0,
                  static_cast<int32_t>(num_ctas()));
      // An activation column through an im2col map, as conv2d fprop loads it:
      // output pixels from (n, h, w) = (cta, -1, -1), filter tap (1, 2).
      mbarrier_expect_tx(&smem.full_bar, kTileBytes);
      tma_load_im2col_4d(smem.x_tile, &x_map, &smem.full_bar, 0, -1, -1,
                         static_cast<int32_t>(cta_idx()), static_cast<uint16_t>(2),
                         static_cast<uint16_t>(1 + (idesc & 1)));
      while (!mbarrier_try_wait_parity(&smem.full_bar, 0)) {
      }
      tcgen05_fence_after_thread_sync();
      const uint64_t a_desc = static_cast<uint64_t>(__cvta_generic_to_shared(smem.a_tile)) >> 4;
      const uint64_t b_desc = static_cast<uint64_t>(__cvta_generic_to_shared(smem.b_tile)) >> 4;
      for (uint32_t k = 0; k < 4; ++k) {
        tcgen05_mma_f16_ss(tmem, a_desc + 2 * k, b_desc + 2 * k, idesc, k != 0);
      }
      // Block-scaled MMAs over the same tiles read as FP8 (MXFP8) and as
      // packed FP4 (NVFP4), with scales copied to columns 32.. and 36.. first.
      const uint32_t sfa = tmem + 32, sfb = tmem + 36;
      tcgen05_cp_32x128b_warpx4(sfa, sk::umma::sf_copy_desc(smem_addr(smem.sf_tile[0])));
      tcgen05_cp_32x128b_warpx4(sfb, sk::umma::sf_copy_desc(smem_addr(smem.sf_tile[1])));
      for (uint32_t k = 0; k < 4; ++k) {
        const uint32_t id = sk::umma::mxf8f6f4_instr_desc(
            128, 32, sk::umma::Mxf8f6f4Type::kE4M3, sk::umma::Mxf8f6f4Type::kE5M2, k, k);
        tcgen05_mma_mxf8f6f4_block_scale(tmem, a_desc + 2 * k, b_desc + 2 * k, id, sfa, sfb, true);
      }
      tcgen05_mma_mxf4nvf4_block_scale(
          tmem, a_desc, b_desc, sk::umma::mxf4nvf4_instr_desc(128, 32, sk::umma::ScaleType::kUE4M3),
          sfa, sfb, true);
      tcgen05_commit(&smem.mma_done_bar);
    }
    lane_scope_end();
    sync_warp();
  } else {
    annotate_role("epilogue");
    if (warp == 2) {
      // Cluster launch control: take over a pending CTA's work, if any.
      if (elect_one_begin()) {
        mbarrier_arrive_expect_tx(&smem.clc_bar, 16);
        clc_try_cancel(smem.clc_response, &smem.clc_bar);
      }
      lane_scope_end();
      while (!mbarrier_try_wait_parity(&smem.clc_bar, 0)) {
      }
      if (clc_is_canceled(smem.clc_response)) out[lane_id()] = clc_first_ctaid_x(smem.clc_response);
      fence_proxy_async_shared();
    }
    while (!mbarrier_try_wait_parity(&smem.mma_done_bar, 0)) {
    }
    tcgen05_fence_after_thread_sync();
    sk::LaneArray<uint32_t, 32> acc;
    tcgen05_ld_32x32b_x32(tmem + ((warp * 32u) << 16), acc);
    tcgen05_wait_ld();
    uint32_t sum = lane_id();
    for (int i = 0; i < acc.kRegs; ++i) sum += acc.lane(lane_id())[i];
    out[cta_idx() * blockDim.x + threadIdx.x] = sum;
    reinterpret_cast<uint32_t*>(smem.a_tile)[threadIdx.x] = sum;
    fence_proxy_async_shared();
    mbarrier_arrive(&smem.epilogue_bar);
    named_barrier_sync(kEpilogueBarrier, 96);
    if (warp == 1) {
      if (elect_one_begin()) {
        tma_store_2d(&c_map, smem.a_tile, 0, static_cast<int32_t>(cta_idx()));
        bulk_commit_group();
        bulk_wait_group_read<0>();
        bulk_wait_group<0>();
      }
      lane_scope_end();
    }
    tcgen05_fence_before_thread_sync();
  }

  if (warp == 3) named_barrier_arrive(kEpilogueBarrier + 1, 64);
  if (warp == 0) named_barrier_sync(kEpilogueBarrier + 1, 64);
  cta_sync();
  if (warp == 0) {
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc(tmem, kTmemCols);
    report_unreleased("none");
    if (elect_one_begin()) {
      mbarrier_inval(&smem.full_bar);
      mbarrier_inval(&smem.mma_done_bar);
      mbarrier_inval(&smem.epilogue_bar);
      mbarrier_inval(&smem.clc_bar);
    }
    lane_scope_end();
  }
}
