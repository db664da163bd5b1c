#include "models/sm100/umma_decode.h"

#include <fmt/format.h>

namespace sk::models::sm100 {

SmemDesc decode_smem_desc(uint64_t d) {
  SmemDesc s;
  s.start = static_cast<uint32_t>(d & 0x3FFF) << 4;
  s.lbo = static_cast<uint32_t>((d >> 16) & 0x3FFF) << 4;
  s.sbo = static_cast<uint32_t>((d >> 32) & 0x3FFF) << 4;
  s.version = static_cast<uint32_t>((d >> 46) & 0x3);
  s.base_offset = static_cast<uint32_t>((d >> 49) & 0x7);
  s.lbo_mode = ((d >> 52) & 1) != 0;
  s.layout = static_cast<uint32_t>((d >> 61) & 0x7);
  switch (s.layout) {
    case 2: s.swizzle = Swizzle::k128B; break;
    case 4: s.swizzle = Swizzle::k64B; break;
    case 6: s.swizzle = Swizzle::k32B; break;
    default: s.swizzle = Swizzle::kNone; break;
  }
  return s;
}

InstrDesc decode_instr_desc(uint32_t d) {
  InstrDesc i;
  i.d_format = (d >> 4) & 0x3;
  i.a_format = (d >> 7) & 0x7;
  i.b_format = (d >> 10) & 0x7;
  i.negate_a = (d >> 13) & 1;
  i.negate_b = (d >> 14) & 1;
  i.a_mn_major = (d >> 15) & 1;
  i.b_mn_major = (d >> 16) & 1;
  i.n = ((d >> 17) & 0x3F) << 3;
  i.m = ((d >> 24) & 0x1F) << 4;
  return i;
}

std::string check_smem_desc(const SmemDesc& d) {
  if (d.version != 1)
    return fmt::format("matrix descriptor version field is {}, SM100 requires 1", d.version);
  if (d.layout == 1 || d.layout == 3 || d.layout == 5 || d.layout == 7)
    return fmt::format("matrix descriptor layout type {} is not modelled", d.layout);
  if (d.base_offset != 0) return "matrix descriptor base offset must be 0 (swizzle-aligned operands)";
  if (d.sbo == 0) return "matrix descriptor stride byte offset is 0";
  return "";
}

std::string check_instr_desc(const InstrDesc& i) {
  if (i.d_format != 1) return fmt::format("D format {} is not F32 (the model accumulates in F32)", i.d_format);
  if (i.a_format > 1 || i.b_format > 1)
    return fmt::format("A/B formats {}/{} are not F16 (0) or BF16 (1) for kind::f16", i.a_format,
                       i.b_format);
  if (i.a_format != i.b_format) return "A and B formats differ";
  if (i.m != 128) return fmt::format("M = {}: the model supports M = 128 with cta_group::1", i.m);
  if (i.n < 16 || i.n > 256 || i.n % 16 != 0)
    return fmt::format("N = {} is invalid for M = 128 (multiple of 16 in [16, 256])", i.n);
  if (i.a_mn_major || i.b_mn_major) return "MN-major operands are not modelled (use K-major)";
  if (i.negate_a || i.negate_b) return "operand negation is not modelled";
  return "";
}

uint32_t kmajor_offset(const SmemDesc& d, uint32_t row, uint32_t k) {
  const uint32_t kbyte = k * 2;
  if (d.swizzle == Swizzle::kNone) {
    // Core matrices of 8 rows x 16 B; LBO steps along K, SBO along rows.
    return d.start + (row / 8) * d.sbo + (kbyte / 16) * d.lbo + (row % 8) * 16 + kbyte % 16;
  }
  // Swizzled K-major: 8-row atoms whose rows are one swizzle span apart; SBO
  // steps between atoms. The K extent of one MMA stays inside the span.
  const uint32_t span = static_cast<uint32_t>(d.swizzle);
  return d.start + (row / 8) * d.sbo + (row % 8) * span + kbyte;
}

}  // namespace sk::models::sm100
