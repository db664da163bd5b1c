// swizzle.h: where the hardware's swizzled layouts put a byte.
//
// TMA and UMMA swizzle modes permute 16-byte chunks inside each repeat of
// 8 x span bytes (span = 32, 64 or 128): the chunk index (address bits 4..)
// is XORed with the row index (address bits 7..). Offsets are measured from a
// shared-memory address aligned to the repeat. Kernel code uses this when it
// writes a tile by hand that a TMA store or an MMA will read with that mode.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

template <uint32_t SpanBytes>
SK_HOST_DEVICE constexpr uint32_t swizzle_offset(uint32_t offset) {
  static_assert(SpanBytes == 0 || SpanBytes == 32 || SpanBytes == 64 || SpanBytes == 128,
                "swizzle span must be 0 (none), 32, 64 or 128 bytes");
  if constexpr (SpanBytes == 0) {
    return offset;
  } else {
    constexpr uint32_t kMask = SpanBytes / 16 - 1;
    return offset ^ (((offset >> 7) & kMask) << 4);
  }
}

}  // namespace sk
