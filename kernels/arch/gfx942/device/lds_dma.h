// lds_dma.h (gfx942 device build): LDS DMA, global memory to LDS without
// passing through VGPRs.
//
// Both forms write one dword per active lane: lane l's 4 bytes land at LDS
// byte address lds_base + 4 * l (the hardware adds 4 * lane to the base that
// the instruction takes in M0), so one call by a full wave fills 256
// contiguous bytes.
//
// Invariants:
//   * lds_base points into this workgroup's LDS, is 4-byte aligned and is the
//     same in every lane (it goes through v_readfirstlane into M0).
//   * Completion is tracked by vmcnt only (not lgkmcnt, although the data
//     lands in LDS): the wave may read the bytes after s_waitcnt_vmcnt<N>()
//     retires the load, and other waves after that wait plus a
//     synchronisation that publishes it (an atomics.h release or sched.h's
//     barrier). LDS DMA can also complete out of order with ds_* accesses of
//     the same wave, so vmcnt, not program order, orders them.
//   * Global addresses are 4-byte aligned.
//   * buffer_load_dword_lds: rsrc is wave-uniform (it lives in SGPRs; a
//     divergent one would make the compiler loop over its values) and was
//     made by make_buffer_rsrc; byte_offset is per lane, a multiple of 4, and
//     a lane whose dword is out of range (byte_offset + 4 > num_bytes) writes
//     0 to its LDS dword without reading memory.
#pragma once

#include "kernels/arch/gfx942/device/address_space.h"
#include "kernels/arch/gfx942/device/buffer_rsrc.h"
#include "kernels/core/platform.h"

namespace sk::arch {

namespace detail {
// The LLVM intrinsic behind buffer_load_dword ... lds (clang 19 has no builtin
// for it). Being an intrinsic, the compiler sets M0, inserts the M0 hazard
// wait and counts the load in vmcnt. Operands: rsrc, LDS base (M0), size in
// bytes, voffset, soffset, immediate offset, aux (cache policy bits).
__device__ void amdgcn_raw_buffer_load_lds(u32x4 rsrc, SK_AMD_LDS void* lds_base, uint32_t size,
                                           uint32_t voffset, uint32_t soffset, uint32_t imm_offset,
                                           uint32_t aux) __asm("llvm.amdgcn.raw.buffer.load.lds");
}  // namespace detail

// global_load_lds_dword: each lane loads the 4 bytes at its own global_src.
//
// Inline asm rather than __builtin_amdgcn_global_load_lds: clang 19's hazard
// recognizer reads a data operand that this instruction does not have
// (FLAT with LDS = 1), and crashes or not depending on the code around it
// (two LDS DMAs in a row are enough). The asm takes the LDS base in M0 through
// the "{m0}" constraint, so the compiler still knows M0's value, and carries
// the one wait state gfx9 needs between an SALU write of M0 and an LDS DMA
// (s_nop 0), which the compiler cannot see inside the asm. The compiler does
// not count the asm in vmcnt: its own waits can only get stricter, and
// s_waitcnt_vmcnt<N>() is, as documented above, how this load is awaited.
SK_DEVICE void global_load_lds_dword(void* lds_base, const void* global_src) {
  const uint32_t m0 = static_cast<uint32_t>(__builtin_amdgcn_readfirstlane(
      static_cast<int>(reinterpret_cast<uintptr_t>(detail::to_lds(lds_base)))));
  asm volatile(
      "s_nop 0\n\t"
      "global_load_lds_dword %0, off"
      :
      : "v"(global_src), "{m0}"(m0)
      : "memory");
}

// buffer_load_dword ... offen lds: each lane loads the 4 bytes at
// base(rsrc) + byte_offset, or 0 where that dword is out of range.
SK_DEVICE void buffer_load_dword_lds(void* lds_base, BufferRsrc rsrc, uint32_t byte_offset) {
  detail::amdgcn_raw_buffer_load_lds(__builtin_bit_cast(detail::u32x4, rsrc),
                                     detail::to_lds(lds_base), /*size=*/4, byte_offset,
                                     /*soffset=*/0, /*imm_offset=*/0, /*aux=*/0);
}

}  // namespace sk::arch
