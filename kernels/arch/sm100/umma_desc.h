// umma_desc.h: encoders for tcgen05.mma descriptors (kernel side).
//
// The bit layouts are documented in models/sm100/umma_decode.h, which decodes
// them independently. Only the layouts this project's kernels use are encoded:
// K-major operands with a 32/64/128-byte swizzle, BF16 or F16 inputs and an
// F32 accumulator (kind::f16).
#pragma once

#include "kernels/core/platform.h"

namespace sk::umma {

// Shared-memory matrix descriptor for a K-major operand whose rows are
// `span_bytes` long (the swizzle span) and whose 8-row groups are
// `sbo_bytes` apart. smem_address is the operand's shared-window address.
SK_HOST_DEVICE constexpr uint64_t kmajor_desc(uint32_t smem_address, uint32_t span_bytes,
                                              uint32_t sbo_bytes) {
  uint64_t layout = span_bytes == 128 ? 2 : span_bytes == 64 ? 4 : span_bytes == 32 ? 6 : 0;
  uint64_t d = 0;
  d |= static_cast<uint64_t>((smem_address >> 4) & 0x3FFF);
  d |= static_cast<uint64_t>(1) << 16;  // LBO: unused for swizzled K-major, encoded as 1
  d |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;
  d |= static_cast<uint64_t>(1) << 46;  // SM100 descriptor version
  d |= layout << 61;
  return d;
}

enum class InputType : uint32_t { kF16 = 0, kBF16 = 1 };

// Instruction descriptor for kind::f16 with an F32 accumulator, K-major A and B.
SK_HOST_DEVICE constexpr uint32_t f16_instr_desc(uint32_t m, uint32_t n, InputType t) {
  uint32_t d = 0;
  d |= 1u << 4;                               // D format: F32
  d |= static_cast<uint32_t>(t) << 7;         // A format
  d |= static_cast<uint32_t>(t) << 10;        // B format
  d |= ((n >> 3) & 0x3F) << 17;               // N >> 3
  d |= ((m >> 4) & 0x1F) << 24;               // M >> 4
  return d;
}

}  // namespace sk::umma
