#include "models/sm100/tensor_map.h"

#include <fmt/format.h>

namespace sk::models::sm100 {

std::string encode_tiled_2d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                            uint64_t dim0, uint64_t dim1, uint64_t stride1_bytes, uint32_t box0,
                            uint32_t box1, Swizzle swizzle) {
  if (global_address % 16 != 0)
    return fmt::format("tensor map: global address 0x{:x} is not 16-byte aligned", global_address);
  if (dim0 == 0 || dim1 == 0 || dim0 > (1ull << 32) || dim1 > (1ull << 32))
    return fmt::format("tensor map: global dims {}x{} must be in [1, 2^32]", dim0, dim1);
  if (stride1_bytes % 16 != 0 || stride1_bytes >= (1ull << 40))
    return fmt::format("tensor map: global stride {} B must be a multiple of 16 and < 2^40",
                       stride1_bytes);
  if (stride1_bytes < dim0 * elem_bytes)
    return fmt::format("tensor map: stride {} B is smaller than a row of {} B", stride1_bytes,
                       dim0 * elem_bytes);
  if (box0 == 0 || box1 == 0 || box0 > 256 || box1 > 256)
    return fmt::format("tensor map: box {}x{} must be in [1, 256] per dim", box0, box1);
  if ((box0 * elem_bytes) % 16 != 0)
    return fmt::format("tensor map: inner box of {} B is not a multiple of 16 B", box0 * elem_bytes);
  uint32_t sw = static_cast<uint32_t>(swizzle);
  if (sw != 0 && box0 * elem_bytes > sw)
    return fmt::format("tensor map: inner box of {} B exceeds the {}B swizzle span",
                       box0 * elem_bytes, sw);
  map = TensorMapModel{};
  map.global_address = global_address;
  map.elem_bytes = elem_bytes;
  map.rank = 2;
  map.dims[0] = dim0;
  map.dims[1] = dim1;
  map.stride1_bytes = stride1_bytes;
  map.box[0] = box0;
  map.box[1] = box1;
  map.swizzle = swizzle;
  map.magic = TensorMapModel::kMagic;
  return "";
}

uint32_t swizzled_offset(uint32_t offset, Swizzle swizzle) {
  // The 16-byte chunk index (address bits 4..) is XORed with the row index
  // within the repeat (address bits 7..); the number of bits is log2(span/16).
  uint32_t bits = 0;
  switch (swizzle) {
    case Swizzle::kNone: return offset;
    case Swizzle::k32B: bits = 1; break;
    case Swizzle::k64B: bits = 2; break;
    case Swizzle::k128B: bits = 3; break;
  }
  uint32_t mask = (1u << bits) - 1;
  uint32_t row = (offset >> 7) & mask;
  return offset ^ (row << 4);
}

}  // namespace sk::models::sm100
