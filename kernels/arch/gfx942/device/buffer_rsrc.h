// buffer_rsrc.h (gfx942): the 128-bit buffer resource descriptor (V#) that
// MUBUF instructions (buffer_load_dword ... lds) take in four SGPRs.
//
// The struct is in isa/gfx942_types.h, shared with the model. The kernel encodes the descriptor here; the model must decode the
// fields below independently (as it does for UMMA descriptors on SM100), so a
// wrongly encoded descriptor misbehaves in the model too.
//
// gfx9 (CDNA3) layout, raw buffer (stride 0, no swizzle, no index):
//   w[0]  [31:0]   base address bits 31:0
//   w[1]  [15:0]   base address bits 47:32
//         [29:16]  stride = 0 (raw: offsets are bytes)
//         [30]     cache swizzle = 0, [31] swizzle enable = 0
//   w[2]  [31:0]   num_records = num_bytes (with stride 0, the range in bytes)
//   w[3]  0x00020000: DST_SEL_X..W [11:0] = 0, NUM_FORMAT [14:12] = 0,
//         DATA_FORMAT [18:15] = 4 (BUF_DATA_FORMAT_32; 0 would be "invalid"
//         and disable the access), ADD_TID_ENABLE [23] = 0, TYPE [31:30] = 0
//         (buffer). This is the value the gfx9 family, gfx942 included, uses
//         for untyped buffer access.
//
// Invariants: base is a global-memory address below 2^48 (true of every GPU
// virtual address and of host user-space pointers, which the model uses). A
// dword access at byte offset o is in range iff o + 4 <= num_bytes; callers
// keep o and num_bytes multiples of 4, so that rule and the hardware's
// "offset < num_records" check agree. Out-of-range loads return 0 and never
// touch memory, so a descriptor bounded by the tensor's size zero-fills edges.
#pragma once

#include <cstdint>

#include "isa/gfx942_types.h"
#include "kernels/core/platform.h"

namespace sk::arch {

// DATA_FORMAT = 32-bit (4 << 15); everything else in word 3 is zero.
inline constexpr uint32_t kBufferRsrcWord3 = 0x00020000u;

SK_HOST_DEVICE BufferRsrc make_buffer_rsrc(const void* base, uint32_t num_bytes) {
  const uint64_t addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base));
  BufferRsrc r{};
  r.w[0] = static_cast<uint32_t>(addr);
  r.w[1] = static_cast<uint32_t>(addr >> 32) & 0xFFFFu;  // stride 0, no swizzle
  r.w[2] = num_bytes;
  r.w[3] = kBufferRsrcWord3;
  return r;
}

}  // namespace sk::arch
