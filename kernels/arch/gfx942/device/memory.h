// memory.h (gfx942 device build): plain per-lane loads and stores to LDS and
// global memory, and the LDS byte address of a pointer.
//
// Invariants: T is trivially copyable and 1, 2, 4, 8 or 16 bytes, and the
// pointer is aligned to sizeof(T); each call is one ds_read/ds_write (LDS) or
// one global_load/global_store (global) of that width. ld_lds/st_lds pointers
// point into this workgroup's LDS, ld_global/st_global pointers into global
// memory. These are non-atomic accesses with no ordering of their own: an
// LDS result is ready after lgkmcnt drains, a global one after vmcnt drains
// (the compiler inserts those waits before the value is used; other waves see
// the data only through atomics.h or sched.h synchronisation). The model
// records each access for race detection.
#pragma once

#include "kernels/arch/gfx942/device/address_space.h"
#include "kernels/core/platform.h"

namespace sk::arch {

template <class T>
SK_DEVICE T ld_lds(const T* p) {
  static_assert(detail::kMovable<T>, "ld_lds moves 1, 2, 4, 8 or 16 trivially copyable bytes");
  using W = detail::WordOf<T>;
  return __builtin_bit_cast(T, *static_cast<const SK_AMD_LDS W*>(detail::to_lds(p)));
}

template <class T>
SK_DEVICE void st_lds(T* p, T v) {
  static_assert(detail::kMovable<T>, "st_lds moves 1, 2, 4, 8 or 16 trivially copyable bytes");
  using W = detail::WordOf<T>;
  *static_cast<SK_AMD_LDS W*>(detail::to_lds(p)) = __builtin_bit_cast(W, v);
}

// Two 16-bit LDS elements packed into one 32-bit register, lo in bits 0-15
// and hi in bits 16-31: two ds_read_u16 (and a v_perm_b32 / v_lshl_or_b32 to
// pack them). This is how a lane gathers an MFMA operand whose K elements are
// not contiguous in LDS (an MN-major tile: one element per K row); gfx942 has
// no transposing LDS read (ds_read_b64_tr_b16 is gfx950's). The packing is
// not ds_read_u16_d16_hi, which loads into the high half of a register in
// place: clang uses the d16 loads only where SRAMECC is off
// (--offload-arch=gfx942:sramecc-), because with SRAMECC on, as on MI300X, a
// d16 load need not preserve the other half. Plain loads, not inline asm, so
// the compiler's lgkmcnt waits cover the results.
// Invariants: lo and hi point into this workgroup's LDS, 2-byte aligned.
SK_DEVICE uint32_t ld_lds_u16x2(const uint16_t* lo, const uint16_t* hi) {
  const uint32_t l = *static_cast<const SK_AMD_LDS uint16_t*>(detail::to_lds(lo));
  const uint32_t h = *static_cast<const SK_AMD_LDS uint16_t*>(detail::to_lds(hi));
  return l | h << 16;
}

// The byte offset of p in this workgroup's LDS (what M0 and ds_* addresses
// hold). p must point into LDS.
SK_DEVICE uint32_t lds_addr(const void* p) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(detail::to_lds(p)));
}

template <class T>
SK_DEVICE T ld_global(const T* p) {
  static_assert(detail::kMovable<T>, "ld_global moves 1, 2, 4, 8 or 16 trivially copyable bytes");
  using W = detail::WordOf<T>;
  return __builtin_bit_cast(T, *static_cast<const SK_AMD_GLOBAL W*>(detail::to_global(p)));
}

template <class T>
SK_DEVICE void st_global(T* p, T v) {
  static_assert(detail::kMovable<T>, "st_global moves 1, 2, 4, 8 or 16 trivially copyable bytes");
  using W = detail::WordOf<T>;
  *static_cast<SK_AMD_GLOBAL W*>(detail::to_global(p)) = __builtin_bit_cast(W, v);
}

}  // namespace sk::arch
