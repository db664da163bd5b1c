// element_types.h: how every model reads the 16-bit floating-point elements
// that tensor instructions take (BF16 and FP16 bits to float).
//
// The models decode operand bits on their own, never through the kernels'
// conversions (kernels/core/numeric.h), so a kernel that encodes an element
// wrongly computes a wrong result in the model too. Both conversions are
// exact: every BF16 and FP16 value is a float.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sk::models {

inline float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

}  // namespace sk::models
