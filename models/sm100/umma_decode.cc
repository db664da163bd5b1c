#include "models/sm100/umma_decode.h"

#include <fmt/format.h>

namespace sk::models::sm100 {

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

uint32_t mnmajor_offset(const SmemDesc& d, uint32_t row, uint32_t k, uint32_t elem_bytes) {
  if (d.swizzle == Swizzle::kNone) {
    const uint32_t per_core = 16 / elem_bytes;
    return d.start + (row / per_core) * d.sbo + (k / 8) * d.lbo + (k % 8) * 16 +
           (row % per_core) * elem_bytes;
  }
  const uint32_t span = static_cast<uint32_t>(d.swizzle), per_row = span / elem_bytes;
  return d.start + (row / per_row) * d.lbo + (k / 8) * d.sbo + (k % 8) * span +
         (row % per_row) * elem_bytes;
}

}  // namespace sk::models::sm100
