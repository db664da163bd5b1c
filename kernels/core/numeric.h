// numeric.h: the element types kernels move, with bit-exact conversions.
//
// bf16_t is a storage type (the 16 raw bits); arithmetic happens in float. The
// conversion rounds to nearest even, as cvt.rn.bf16.f32 does, and keeps NaN a
// NaN. Implemented with __builtin_memcpy so it is the same code in every build
// (nvcc, clang HIP without the runtime headers, and the host compiler).
#pragma once

#include <cstring>

#include "kernels/core/platform.h"

namespace sk {

struct bf16_t {
  uint16_t bits;
};

SK_HOST_DEVICE uint32_t float_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}

SK_HOST_DEVICE float bits_float(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

SK_HOST_DEVICE bf16_t to_bf16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16_t{static_cast<uint16_t>((u >> 16) | 0x40)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16_t{static_cast<uint16_t>(u >> 16)};
}

SK_HOST_DEVICE float to_float(bf16_t v) { return bits_float(static_cast<uint32_t>(v.bits) << 16); }

// Converts an accumulator register (FP32 bits) to the output type.
template <class OutT>
SK_HOST_DEVICE OutT from_accumulator(uint32_t acc_bits);
template <>
SK_HOST_DEVICE float from_accumulator<float>(uint32_t acc_bits) {
  return bits_float(acc_bits);
}
template <>
SK_HOST_DEVICE bf16_t from_accumulator<bf16_t>(uint32_t acc_bits) {
  return to_bf16(bits_float(acc_bits));
}

}  // namespace sk
