// umma_desc.h: encoders for tcgen05.mma descriptors (kernel side).
//
// The bit layouts are documented in models/sm100/umma_decode.h, which decodes
// them independently (the block-scaled instruction descriptors in
// models/sm100/api_tcgen05_block_scale.cc). Only the layouts this project's
// kernels use are encoded: K-major operands with a 32/64/128-byte swizzle (or
// none, for scale-factor copies), MN-major operands with the 128-byte swizzle, BF16 or F16 inputs and an F32 accumulator
// (kind::f16), and the block-scaled kinds mxf8f6f4 (scale_vec::1X) and
// mxf4nvf4 (scale_vec::4X) with M = 128.
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

// Shared-memory matrix descriptor for an MN-major 16-bit operand with the
// 128-byte swizzle (the canonical layout ((8,n),(8,k)) : ((1,LBO),(8,SBO)) in
// 16-byte units): 64 MN elements contiguous in each 128-byte row, K rows 128
// bytes apart, 8-row K groups `sbo_bytes` apart, 64-element MN blocks
// `lbo_bytes` apart.
SK_HOST_DEVICE constexpr uint64_t mnmajor_desc(uint32_t smem_address, uint32_t lbo_bytes,
                                               uint32_t sbo_bytes) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((smem_address >> 4) & 0x3FFF);
  d |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16;
  d |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;
  d |= static_cast<uint64_t>(1) << 46;  // SM100 descriptor version
  d |= static_cast<uint64_t>(2) << 61;  // 128-byte swizzle
  return d;
}

enum class InputType : uint32_t { kF16 = 0, kBF16 = 1 };

// The instruction descriptor's major-ness bits: A (bit 15) and B (bit 16)
// MN-major.
SK_HOST_DEVICE constexpr uint32_t mn_major_bits(uint32_t a_mn_major, uint32_t b_mn_major) {
  return (a_mn_major != 0 ? 1u << 15 : 0u) | (b_mn_major != 0 ? 1u << 16 : 0u);
}

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

// ---- Block-scaled kinds (PTX ISA 9.0 9.7.16.4.2, Tables 43 and 44) ----------
//
// Their instruction descriptor differs from kind::f16's: there is no D format
// (D is always F32), bits [4,6) and [29,31) are the B and A scale-factor IDs
// (which byte, or for 4X which word, of each TMEM column holds the scales),
// bit 23 is the scale type (0 UE4M3, 1 UE8M0), and M is encoded as M >> 7 in
// bits [27,29). A and B are K-major (transpose bits 0), not negated, dense.
// Only cta_group::1 shapes are produced: M = 128, N a multiple of 8 in
// [8, 256] (the ISA's N for these kinds with cta_group::1).

// Element types of kind::mxf8f6f4 (3-bit fields at [7,10) and [10,13)). E2M1
// here is the padded SMEM form: 16 elements in 8 bytes followed by 8 bytes of
// padding, so each element takes one byte of the K extent, like FP8.
enum class Mxf8f6f4Type : uint32_t { kE4M3 = 0, kE5M2 = 1, kE2M1 = 5 };

// Instruction descriptor for kind::f8f6f4 (no scales) with an F32 accumulator:
// kind::f16's layout (D format at [4,6), M >> 4 at [24,29)) with these types.
SK_HOST_DEVICE constexpr uint32_t f8f6f4_instr_desc(uint32_t m, uint32_t n, Mxf8f6f4Type a,
                                                    Mxf8f6f4Type b) {
  uint32_t d = 0;
  d |= 1u << 4;                               // D format: F32
  d |= static_cast<uint32_t>(a) << 7;         // A type
  d |= static_cast<uint32_t>(b) << 10;        // B type
  d |= ((n >> 3) & 0x3F) << 17;               // N >> 3
  d |= ((m >> 4) & 0x1F) << 24;               // M >> 4
  return d;
}

// Scale-factor element type (bit 23).
enum class ScaleType : uint32_t { kUE4M3 = 0, kUE8M0 = 1 };

// kind::mxf8f6f4, scale_vec::1X: one UE8M0 scale per 32 K elements, which is
// one per instruction (K = 32). sfa_id / sfb_id (0..3) pick the byte of each
// scale column, so four consecutive K = 32 steps can share one copied column
// set, step i using byte i.
SK_HOST_DEVICE constexpr uint32_t mxf8f6f4_instr_desc(uint32_t m, uint32_t n, Mxf8f6f4Type a,
                                                      Mxf8f6f4Type b, uint32_t sfa_id = 0,
                                                      uint32_t sfb_id = 0) {
  uint32_t d = 0;
  d |= (sfb_id & 0x3) << 4;                   // B scale-factor ID
  d |= static_cast<uint32_t>(a) << 7;         // A type
  d |= static_cast<uint32_t>(b) << 10;        // B type
  d |= ((n >> 3) & 0x3F) << 17;               // N >> 3
  d |= static_cast<uint32_t>(ScaleType::kUE8M0) << 23;
  d |= ((m >> 7) & 0x3) << 27;                // M >> 7
  d |= (sfa_id & 0x3) << 29;                  // A scale-factor ID
  return d;
}

// kind::mxf4nvf4, scale_vec::4X: E2M1 A and B (type code 1, packed two per
// byte), K = 64 per instruction with four scales per row (blocks of 16), so
// each scale column's whole word is used and both scale-factor IDs are 0.
// NVFP4 uses UE4M3 scales; UE8M0 with 4X is valid too.
SK_HOST_DEVICE constexpr uint32_t mxf4nvf4_instr_desc(uint32_t m, uint32_t n, ScaleType sf) {
  uint32_t d = 0;
  d |= 1u << 7;                               // A type: E2M1
  d |= 1u << 10;                              // B type: E2M1
  d |= ((n >> 3) & 0x3F) << 17;               // N >> 3
  d |= static_cast<uint32_t>(sf) << 23;       // scale type
  d |= ((m >> 7) & 0x3) << 27;                // M >> 7
  return d;                                   // bit 31 = 0: dense K = 64
}

// Source descriptor of tcgen05.cp.32x128b for one scale-factor block: 32 rows
// of 16 bytes stored contiguously (row r at smem_address + 16 r), i.e. no
// swizzle, 8-row core matrices 128 bytes apart (SBO). 512 bytes hold the
// scales of 128 rows x 4: byte (r % 32) * 16 + (r / 32) * 4 + j is scale j of
// row r, so that after the copy row r's four scales are the word in column
// r / 32 of lane r % 32.
SK_HOST_DEVICE constexpr uint64_t sf_copy_desc(uint32_t smem_address) {
  return kmajor_desc(smem_address, 0, 128);
}

}  // namespace sk::umma
