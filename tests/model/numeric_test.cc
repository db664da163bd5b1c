// numeric_test.cc: the kernels' 16-bit element conversions (kernels/core/
// numeric.h) against independent references: FP16 decoding against the
// models' own decoder (models/common/element_types.h), FP16 encoding against
// the host compiler's _Float16 conversion (round to nearest even, overflow to
// infinity, subnormals), and the model's pack_f16x2 (cvt.rn.f16x2.f32: the
// first operand in the low half).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/arch/sm90.h"
#include "kernels/core/numeric.h"
#include "models/common/element_types.h"

namespace {
uint16_t compiler_f16(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
}  // namespace

TEST_CASE("every FP16 value decodes as the model decodes it and encodes back to its bits") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = sk::to_float(sk::f16_t{static_cast<uint16_t>(h)});
    const float g = sk::models::fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(g)) {
      REQUIRE(std::isnan(f));
      REQUIRE(std::isnan(sk::to_float(sk::to_f16(f))));
      continue;
    }
    REQUIRE(f == g);
    REQUIRE(std::signbit(f) == std::signbit(g));
    REQUIRE(sk::to_f16(f).bits == h);
  }
}

TEST_CASE("FP16 encoding rounds to nearest even like the compiler's _Float16") {
  std::mt19937 rng(7);
  // Any float bits, then floats around FP16's range (subnormals to overflow).
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f)) continue;
    REQUIRE(sk::to_f16(f).bits == compiler_f16(f));
  }
  std::uniform_real_distribution<float> mant(0.5f, 1.0f);
  for (int i = 0; i < 2000000; ++i) {
    const float f = std::ldexp(mant(rng), static_cast<int>(rng() % 48) - 30) * (rng() & 1 ? 1 : -1);
    REQUIRE(sk::to_f16(f).bits == compiler_f16(f));
  }
  // Ties: halfway between 1 and the next half goes to the even 1; the
  // largest half's upper halfway point overflows.
  CHECK(sk::to_f16(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);
  CHECK(sk::to_f16(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02);
  CHECK(sk::to_f16(65504.0f).bits == 0x7bff);
  CHECK(sk::to_f16(65520.0f).bits == 0x7c00);
  CHECK(sk::to_f16(std::ldexp(1.0f, -25)).bits == 0x0000);
  CHECK(sk::to_f16(std::ldexp(1.5f, -25)).bits == 0x0001);
}

TEST_CASE("pack_f16x2 puts its first operand in the low half") {
  const uint32_t p = sk::arch::pack_f16x2(1.0f, -2.0f);
  CHECK((p & 0xffffu) == 0x3c00u);
  CHECK((p >> 16) == 0xc000u);
}
