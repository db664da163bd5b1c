// tensor_map.h: the model's tensor map (what CUtensorMap encodes on hardware).
//
// Kernel code treats sk::arch::TensorMap as opaque and only passes its address
// to TMA intrinsics, exactly as with CUtensorMap on the device. Host code makes
// one with encode_tiled_2d(), which applies the cuTensorMapEncodeTiled rules
// (research/verify.md 4.2) and returns an error message instead of a map when
// a rule is broken.
//
// Layout convention (as in CUDA): dim 0 is the contiguous (innermost) one.
#pragma once

#include <cstdint>
#include <string>

namespace sk::models::sm100 {

enum class Swizzle : uint32_t { kNone = 0, k32B = 32, k64B = 64, k128B = 128 };

struct alignas(64) TensorMapModel {
  uint64_t global_address = 0;
  uint32_t elem_bytes = 0;
  uint32_t rank = 0;
  uint64_t dims[2] = {0, 0};      // elements
  uint64_t stride1_bytes = 0;     // byte stride of dim 1 (dim 0 is dense)
  uint32_t box[2] = {0, 0};       // elements per box along each dim
  Swizzle swizzle = Swizzle::kNone;
  uint32_t magic = 0;             // kMagic once encoded; detects uninitialised maps
  static constexpr uint32_t kMagic = 0x7e45'03a9;

  uint32_t box_bytes() const { return box[0] * box[1] * elem_bytes; }
};

// Fills `map`, or returns a one-line description of the first rule broken.
std::string encode_tiled_2d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                            uint64_t dim0, uint64_t dim1, uint64_t stride1_bytes, uint32_t box0,
                            uint32_t box1, Swizzle swizzle);

// Byte offset, within a swizzle-aligned SMEM region, at which the hardware
// places logical byte `offset` of a box written with `swizzle`. The pattern is
// a function of the shared-memory address bits, so `offset` must be measured
// from an address aligned to the swizzle repeat (1024 B for 128B swizzle).
uint32_t swizzled_offset(uint32_t offset, Swizzle swizzle);

}  // namespace sk::models::sm100
