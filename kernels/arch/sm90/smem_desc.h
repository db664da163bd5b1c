// smem_desc.h: the wgmma shared-memory matrix descriptor (PTX ISA 9.0,
// 9.7.15.5.1), the same bits in the device and the model build. The model
// decodes them on its own (models/sm90/api_wgmma.cc).
//
// Invariants: make_smem_desc_sw128 describes a K-major tile whose rows are 128 bytes (64 BF16),
// written by TMA with SWIZZLE_128B, 8 rows forming one 1024-byte swizzle atom
// (stride byte offset 1024); the tile starts on a 1024-byte boundary, so the
// base-offset field is 0. `smem_byte_addr` is the .shared address of the
// (sub)tile start; advancing K by 16 elements inside the atom adds 32 bytes.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

SK_HOST_DEVICE uint64_t make_smem_desc_sw128(uint32_t smem_byte_addr) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_byte_addr & 0x3FFFF) >> 4);  // start address
  desc |= static_cast<uint64_t>(1) << 16;                          // leading byte offset (unused)
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;                  // stride: 8 rows x 128 B
  desc |= static_cast<uint64_t>(1) << 62;                          // swizzle: 128B
  return desc;
}

// An MN-major operand with the 128-byte swizzle (PTX ISA canonical layout
// ((8,n),(8,k)) : ((1,LBO),(8,SBO)) in 16-byte units): 64 M (or N) elements
// per 128-byte K row, 8-row K groups `sbo_bytes` apart, 64-element MN blocks
// `lbo_bytes` apart. A K step of 16 advances the start by 2 * sbo_bytes.
SK_HOST_DEVICE uint64_t make_smem_desc_sw128_mn(uint32_t smem_byte_addr, uint32_t lbo_bytes,
                                               uint32_t sbo_bytes) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_byte_addr & 0x3FFFF) >> 4);  // start address
  desc |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16;  // leading: MN blocks
  desc |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;  // stride: 8 K rows
  desc |= static_cast<uint64_t>(1) << 62;                          // swizzle: 128B
  return desc;
}

}  // namespace sk::arch
