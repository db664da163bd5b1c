// tcgen05.h (SM100 device build): tensor memory (TMEM) allocation, UMMA issue
// (kind::f16 and the block-scaled kinds), SMEM -> TMEM copies, completion and
// TMEM loads, all with cta_group::1.
//
// Block-scaled MMAs (MXFP8, NVFP4) read their scale factors from TMEM, where
// tcgen05.cp puts them; see tcgen05_mma_mxf8f6f4_block_scale below.
//
// Invariants: a kernel uses one cta_group for every tcgen05 op (mixing is
// undefined), so these are fixed to cta_group::1. alloc/dealloc/relinquish and
// ld/wait::ld and st/wait::st are warp-collective (.sync.aligned): all 32
// lanes call them with identical arguments. num_cols is a power of two in [32, 512]; every allocated
// column is deallocated before the CTA exits. The MMA is issued by a single
// thread; its completion is observed only through tcgen05_commit's mbarrier
// arrive. A warp reads TMEM lanes [32 * (warp_idx % 4), +32) with 32x32b loads,
// and registers written by tcgen05.ld are valid only after tcgen05_wait_ld();
// TMEM written by tcgen05.st is visible to later tcgen05 ops of other threads
// only after tcgen05_wait_st() and a fence::before_thread_sync / barrier /
// fence::after_thread_sync chain.
#pragma once

#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE void tcgen05_alloc(uint32_t* smem_dst, uint32_t num_cols) {
  // The allocated TMEM address is written to shared memory, not a register,
  // because the allocating warp is usually not the one that uses it.
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
               :
               : "r"(detail::smem_addr(smem_dst)), "r"(num_cols)
               : "memory");
}

SK_DEVICE void tcgen05_dealloc(uint32_t taddr, uint32_t num_cols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;"
               :
               : "r"(taddr), "r"(num_cols)
               : "memory");
}

SK_DEVICE void tcgen05_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" : : : "memory");
}

SK_DEVICE void tcgen05_mma_f16_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                  uint32_t idesc, bool accumulate) {
  // enable-input-d must be a predicate; false overwrites D, which is how the
  // first k-block clears the accumulator without a separate TMEM store.
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t"
      "}"
      :
      : "r"(d_taddr), "l"(a_desc), "l"(b_desc), "r"(idesc),
        "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// kind::f16 with A from TMEM (the "TS" form): A is M = 128 lanes x 16
// 16-bit elements at a_taddr, two elements per 32-bit column (8 columns per
// instruction, the lower K index in the low half); B from SMEM by descriptor.
// Attention's O += P V reads P this way after the softmax wrote it over S.
SK_DEVICE void tcgen05_mma_f16_ts(uint32_t d_taddr, uint32_t a_taddr, uint64_t b_desc,
                                  uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n\t"
      "}"
      :
      : "r"(d_taddr), "r"(a_taddr), "l"(b_desc), "r"(idesc),
        "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// kind::f8f6f4 without scales: K = 32 per instruction (FP8 elements, one byte
// each), F32 D; the types are the instruction descriptor's
// (umma::f8f6f4_instr_desc).
SK_DEVICE void tcgen05_mma_f8f6f4_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                     uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n\t"
      "}"
      :
      : "r"(d_taddr), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// Block-scaled MMAs (PTX ISA 9.0 9.7.16.10.7): D (+)= (A * scale_A) x (B * scale_B),
// M = 128, F32 accumulator in TMEM, A and B K-major in SMEM. sfa_taddr and
// sfb_taddr name the first TMEM column of the scale-factor matrices (lane 0);
// which byte of each 32-bit column holds the scales is the instruction
// descriptor's scale-factor ID (umma::mxf8f6f4_instr_desc / mxf4nvf4_instr_desc).
// The scales must already be in TMEM, duplicated to all four lane quarters,
// which is what tcgen05_cp_32x128b_warpx4 writes.
//
// kind::mxf8f6f4 with scale_vec::1X: K = 32 per instruction, one UE8M0 scale
// per row of A and per column of B (a block of 32 K elements).
SK_DEVICE void tcgen05_mma_mxf8f6f4_block_scale(uint32_t d_taddr, uint64_t a_desc,
                                                uint64_t b_desc, uint32_t idesc,
                                                uint32_t sfa_taddr, uint32_t sfb_taddr,
                                                bool accumulate) {
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
      " [%0], %1, %2, %3, [%4], [%5], p;\n\t"
      "}"
      :
      : "r"(d_taddr), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(sfa_taddr), "r"(sfb_taddr),
        "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// kind::mxf4nvf4 with scale_vec::4X (NVFP4): E2M1 elements packed two per
// byte, K = 64 per instruction, four scales per row of A and per column of B
// (blocks of 16 K elements), UE4M3 or UE8M0 as the descriptor says. 4X is the
// spelling sm_100a accepts; .block16 is its alias from PTX ISA 8.8 on, for
// the family targets (sm_100f).
SK_DEVICE void tcgen05_mma_mxf4nvf4_block_scale(uint32_t d_taddr, uint64_t a_desc,
                                                uint64_t b_desc, uint32_t idesc,
                                                uint32_t sfa_taddr, uint32_t sfb_taddr,
                                                bool accumulate) {
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "setp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"
      " [%0], %1, %2, %3, [%4], [%5], p;\n\t"
      "}"
      :
      : "r"(d_taddr), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(sfa_taddr), "r"(sfb_taddr),
        "r"(static_cast<uint32_t>(accumulate))
      : "memory");
}

// Scale factors SMEM -> TMEM (PTX ISA 9.0 9.7.16.9.2): 32 rows of 128 bits
// (16 bytes each, described by a no-swizzle K-major descriptor, see
// umma::sf_copy_desc), multicast to the same 32 lanes of all four warps' lane
// quarters (.warpx4), columns [taddr, taddr + 4). One such copy places the
// scales of 128 rows: row r's word is in column r / 32 of lane r % 32 of every
// quarter, which is the duplicated layout the block-scaled MMA reads. Issued
// by one thread; ordered before a later tcgen05.mma of the same thread
// (cp -> mma is a pipelined pair) and tracked by tcgen05_commit.
SK_DEVICE void tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t smem_desc) {
  asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"
               :
               : "r"(taddr), "l"(smem_desc)
               : "memory");
}

SK_DEVICE void tcgen05_commit(uint64_t* bar) {
  // Arrives once on `bar` when all tcgen05 async ops previously issued by this
  // thread complete. A .shared::cta address names the executing CTA's own
  // location in the .shared::cluster window.
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
      :
      : "r"(detail::smem_addr(bar))
      : "memory");
}

SK_DEVICE void tcgen05_ld_32x32b_x32(uint32_t taddr, sk::LaneArray<uint32_t, 32>& dst) {
  // On the device each thread holds only its own lane's registers (row 0).
  uint32_t* r = dst.lane(0);
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32"
      " {%0, %1, %2, %3, %4, %5, %6, %7,"
      " %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23,"
      " %24, %25, %26, %27, %28, %29, %30, %31},"
      " [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]),
        "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
        "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]),
        "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
        "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]),
        "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
        "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr)
      : "memory");
}

SK_DEVICE void tcgen05_wait_ld() {
  // "memory" orders the wait against memory accesses; it cannot pin pure
  // register arithmetic on the loaded values, so callers consume them only in
  // code that follows the wait (the same contract CUDA's own wrappers have).
  asm volatile("tcgen05.wait::ld.sync.aligned;" : : : "memory");
}

// The inverse of tcgen05_ld_32x32b_x32: lane l writes its 32 registers to
// TMEM lane (taddr's lane + l), columns [col, col + 32).
SK_DEVICE void tcgen05_st_32x32b_x32(uint32_t taddr, const sk::LaneArray<uint32_t, 32>& src) {
  const uint32_t* r = src.lane(0);
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0],"
      " {%1, %2, %3, %4, %5, %6, %7, %8,"
      " %9, %10, %11, %12, %13, %14, %15, %16,"
      " %17, %18, %19, %20, %21, %22, %23, %24,"
      " %25, %26, %27, %28, %29, %30, %31, %32};"
      :
      : "r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]),
        "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]),
        "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
        "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]),
        "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]),
        "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]),
        "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
      : "memory");
}

SK_DEVICE void tcgen05_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" : : : "memory"); }

SK_DEVICE void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" : : : "memory");
}

SK_DEVICE void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" : : : "memory");
}

}  // namespace sk::arch
