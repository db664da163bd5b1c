// numeric.h: the element types kernels move, with bit-exact conversions.
//
// bf16_t and f16_t (IEEE binary16) are storage types (the 16 raw bits);
// arithmetic happens in float. The conversions round to nearest even, as
// cvt.rn.bf16.f32 and cvt.rn.f16.f32 do, keep NaN a NaN, and f16_t's
// overflows to infinity and underflows through its subnormals. Implemented with __builtin_memcpy so it is the same code in every build
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

struct f16_t {
  uint16_t bits;
};

SK_HOST_DEVICE f16_t to_f16(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return f16_t{static_cast<uint16_t>(sign | 0x7e00u)};  // NaN
  if (a >= 0x477ff000u) return f16_t{static_cast<uint16_t>(sign | 0x7c00u)};  // rounds past 65504
  if (a < 0x38800000u) {
    // Below 2^-14: a subnormal half, the float's significand shifted right and
    // rounded to nearest even (2^-25 and less round to 0).
    if (a < 0x33000000u) return f16_t{sign};
    const uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24: the bits that fall off
    const uint32_t keep = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    const uint32_t r = keep + (rest > half || (rest == half && (keep & 1u)) ? 1u : 0u);
    return f16_t{static_cast<uint16_t>(sign | r)};
  }
  // Normal: rebias the exponent (127 -> 15) and round 13 significand bits away.
  const uint32_t r = a - 0x38000000u + 0xfffu + ((a >> 13) & 1u);
  return f16_t{static_cast<uint16_t>(sign | (r >> 13))};
}

SK_HOST_DEVICE float to_float(f16_t v) {
  const uint32_t sign = static_cast<uint32_t>(v.bits & 0x8000u) << 16;
  const uint32_t e = (v.bits >> 10) & 0x1fu, m = v.bits & 0x3ffu;
  if (e == 31) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e != 0) return bits_float(sign | ((e + 112) << 23) | (m << 13));
  const float sub = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
  return sign != 0 ? -sub : sub;
}

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
template <>
SK_HOST_DEVICE f16_t from_accumulator<f16_t>(uint32_t acc_bits) {
  return to_f16(bits_float(acc_bits));
}

}  // namespace sk
