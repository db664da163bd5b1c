// umma_decode.h: the model's reading of tcgen05.mma descriptors.
//
// The shared-memory matrix descriptor (64 bit) and the instruction descriptor
// (32 bit, kind::f16) are decoded here from their bit fields, independently of
// the kernel-side encoders in kernels/arch/sm100/umma_desc.h. A kernel that
// encodes a descriptor wrongly therefore reads the wrong operands in the model
// too, instead of the model silently agreeing with it.
//
// Matrix descriptor: [0,14) start address >> 4, [16,30) leading byte offset
// >> 4, [32,46) stride byte offset >> 4, [46,48) version (1 on SM100),
// [49,52) base offset, [52] LBO mode, [61,64) layout (0 none, 1 128B with 32B
// atoms, 2 128B, 4 64B, 6 32B).
// Instruction descriptor (kind::f16): [4,6) D format (1 = F32), [7,10) A
// format, [10,13) B format (0 = F16, 1 = BF16), [13] negate A, [14] negate B,
// [15] A major (0 = K), [16] B major, [17,23) N >> 3, [24,29) M >> 4.
#pragma once

#include <cstdint>
#include <string>

#include "models/sm100/tensor_map.h"

namespace sk::models::sm100 {

struct SmemDesc {
  uint32_t start = 0, lbo = 0, sbo = 0, version = 0, base_offset = 0, layout = 0;
  bool lbo_mode = false;
  Swizzle swizzle = Swizzle::kNone;
};

struct InstrDesc {
  uint32_t d_format = 0, a_format = 0, b_format = 0;
  bool negate_a = false, negate_b = false, a_mn_major = false, b_mn_major = false;
  uint32_t m = 0, n = 0;
};

// Inline: the model decodes the descriptors of every MMA it issues.
inline SmemDesc decode_smem_desc(uint64_t d) {
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

inline InstrDesc decode_instr_desc(uint32_t d) {
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

// Empty when the descriptor is usable by the model, else the reason.
std::string check_smem_desc(const SmemDesc& d);
std::string check_instr_desc(const InstrDesc& d);

// Byte offset in SMEM (before swizzling) of element (row, k) of a K-major
// 16-bit operand described by `d`.
uint32_t kmajor_offset(const SmemDesc& d, uint32_t row, uint32_t k);

// The same for an MN-major operand of elem_bytes-byte elements (2: 16-bit,
// 1: 8-bit; row: its M or N index), in the PTX ISA's canonical MN-major
// layouts: with a swizzle of S bytes, S / elem_bytes MN elements contiguous
// per K row, K rows S bytes apart, 8-row K groups SBO apart and
// S / elem_bytes-element MN blocks LBO apart; without swizzle, 16 bytes of MN
// elements per core-matrix row, those MN groups SBO apart and 8-row K groups
// LBO apart.
uint32_t mnmajor_offset(const SmemDesc& d, uint32_t row, uint32_t k, uint32_t elem_bytes = 2);
inline uint32_t operand_offset(const SmemDesc& d, bool mn_major, uint32_t row, uint32_t k) {
  return mn_major ? mnmajor_offset(d, row, k) : kmajor_offset(d, row, k);
}

}  // namespace sk::models::sm100
