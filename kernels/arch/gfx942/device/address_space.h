// address_space.h (gfx942 device build): views of generic pointers in the LDS
// and global address spaces, and the fixed-size words that move values
// through them. Internal to the device layer (namespace detail).
//
// Kernel code holds generic (flat) pointers only; the intrinsics narrow them
// so that clang emits ds_* (LDS, address space 3) or global_* (address space
// 1) instructions instead of flat_* ones, which would wait on both counters.
//
// Invariants: to_lds(p) is meaningful only when p points into this
// workgroup's LDS (the cast keeps the low 32 bits, the LDS byte offset);
// to_global(p) only when p points into global memory (the 64 bits are kept).
// Word<N> exists for N = 1, 2, 4, 8, 16, the sizes of one ds_read/ds_write or
// global load/store, and values moved through it are trivially copyable with
// their address aligned to N.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/platform.h"

// clang's AMDGPU address-space qualifiers (3: LDS, 1: global). Macros, not
// alias templates, because the qualifier has to apply to dependent types
// (Word<sizeof(T)>) at their point of use.
#define SK_AMD_LDS __attribute__((address_space(3)))
#define SK_AMD_GLOBAL __attribute__((address_space(1)))

namespace sk::arch::detail {

using u32x2 = uint32_t __attribute__((ext_vector_type(2)));
using u32x4 = uint32_t __attribute__((ext_vector_type(4)));

template <int N>
struct Word;
template <>
struct Word<1> { using type = uint8_t; };
template <>
struct Word<2> { using type = uint16_t; };
template <>
struct Word<4> { using type = uint32_t; };
template <>
struct Word<8> { using type = u32x2; };
template <>
struct Word<16> { using type = u32x4; };

template <class T>
using WordOf = typename Word<sizeof(T)>::type;

template <class T>
inline constexpr bool kMovable = std::is_trivially_copyable_v<T> &&
    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

SK_DEVICE SK_AMD_LDS void* to_lds(const void* p) { return (SK_AMD_LDS void*)p; }
SK_DEVICE SK_AMD_GLOBAL void* to_global(const void* p) { return (SK_AMD_GLOBAL void*)p; }

// Orders memory accesses for the compiler only (no instruction): keeps loads
// and stores on their side of an s_waitcnt or s_barrier, which clang models as
// touching no memory.
SK_DEVICE void compiler_barrier() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

}  // namespace sk::arch::detail
