// math.h: small integer helpers usable in both builds and in constant expressions.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

template <class T>
SK_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

template <class T>
SK_HOST_DEVICE constexpr T round_up(T a, T b) {
  return ceil_div(a, b) * b;
}

template <class T>
SK_HOST_DEVICE constexpr T min_of(T a, T b) {
  return a < b ? a : b;
}

SK_HOST_DEVICE constexpr uint32_t next_pow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace sk
