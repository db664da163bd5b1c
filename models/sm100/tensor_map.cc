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

std::string encode_tiled_3d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                            const uint64_t dims[3], const uint64_t strides_bytes[2],
                            uint32_t box0, uint32_t box1, Swizzle swizzle) {
  if (dims[2] == 0 || dims[2] > (1ull << 32))
    return fmt::format("tensor map: global dim 2 of {} must be in [1, 2^32]", dims[2]);
  if (strides_bytes[1] % 16 != 0 || strides_bytes[1] >= (1ull << 40))
    return fmt::format("tensor map: global stride {} B of dim 2 must be a multiple of 16 and < 2^40",
                       strides_bytes[1]);
  TensorMapModel m;
  std::string err = encode_tiled_2d(m, global_address, elem_bytes, dims[0], dims[1],
                                    strides_bytes[0], box0, box1, swizzle);
  if (!err.empty()) return err;
  m.rank = 3;
  m.dims[2] = dims[2];
  m.stride2_bytes = strides_bytes[1];
  map = m;
  return "";
}

// Im2col encoding (cuTensorMapEncodeIm2col for rank 4). Checks run in the
// order the parameters appear, and the first broken rule is reported; a map is
// written only when every rule holds.
std::string encode_im2col_4d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                             const uint64_t dims[4], const uint64_t strides_bytes[3],
                             const int32_t lower[2], const int32_t upper[2],
                             uint32_t channels_per_pixel, uint32_t pixels_per_column,
                             const uint32_t element_strides[4], Swizzle swizzle) {
  static constexpr const char* kDim[4] = {"C", "W", "H", "N"};
  if (global_address % 16 != 0)
    return fmt::format("im2col tensor map: global address 0x{:x} is not 16-byte aligned",
                       global_address);
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
    return fmt::format("im2col tensor map: element size {} B must be 1, 2, 4 or 8", elem_bytes);
  for (int d = 0; d < 4; ++d)
    if (dims[d] == 0 || dims[d] > (1ull << 32))
      return fmt::format("im2col tensor map: global dim {} = {} must be in [1, 2^32]", kDim[d],
                         dims[d]);
  // Each stride must at least cover the dimension below it, so that distinct
  // elements never share bytes.
  uint64_t below = dims[0] * elem_bytes;
  for (int d = 0; d < 3; ++d) {
    const uint64_t s = strides_bytes[d];
    if (s % 16 != 0 || s >= (1ull << 40))
      return fmt::format("im2col tensor map: global stride of {} ({} B) must be a multiple of 16 "
                         "and < 2^40",
                         kDim[d + 1], s);
    if (s < below)
      return fmt::format("im2col tensor map: global stride of {} ({} B) is smaller than the {} B "
                         "it must span",
                         kDim[d + 1], s, below);
    below = dims[d + 1] > UINT64_MAX / s ? UINT64_MAX : s * dims[d + 1];  // saturates
  }
  for (int d = 0; d < 2; ++d) {
    // Rank 4 leaves 8 bits per spatial dim for each corner.
    if (lower[d] < -128 || lower[d] > 127 || upper[d] < -128 || upper[d] > 127)
      return fmt::format("im2col tensor map: pixel box corners along {} ({}, {}) must be in "
                         "[-128, 127] for a rank-4 map",
                         kDim[d + 1], lower[d], upper[d]);
    const int64_t first = lower[d];
    const int64_t last = static_cast<int64_t>(dims[d + 1]) - 1 + upper[d];
    if (last < first)
      return fmt::format("im2col tensor map: the pixel bounding box along {} is empty ([{}, {}])",
                         kDim[d + 1], first, last);
  }
  if (channels_per_pixel == 0 || channels_per_pixel > 256)
    return fmt::format("im2col tensor map: channelsPerPixel {} must be in [1, 256]",
                       channels_per_pixel);
  if (pixels_per_column == 0 || pixels_per_column > 1024)
    return fmt::format("im2col tensor map: pixelsPerColumn {} must be in [1, 1024]",
                       pixels_per_column);
  for (int d = 0; d < 4; ++d)
    if (element_strides[d] == 0 || element_strides[d] > 8)
      return fmt::format("im2col tensor map: element stride of {} ({}) must be in [1, 8]",
                         kDim[d], element_strides[d]);
  if (element_strides[0] != 1 || element_strides[3] != 1)
    return fmt::format("im2col tensor map: element strides of C ({}) and N ({}) must be 1 (the "
                       "model walks pixels with strides along W and H only)",
                       element_strides[0], element_strides[3]);
  const uint32_t row_bytes = channels_per_pixel * elem_bytes;
  if (row_bytes % 16 != 0)
    return fmt::format("im2col tensor map: a pixel of {} channels is {} B, not a multiple of 16 B",
                       channels_per_pixel, row_bytes);
  const uint32_t sw = static_cast<uint32_t>(swizzle);
  if (sw != 0 && row_bytes > sw)
    return fmt::format("im2col tensor map: a pixel of {} B exceeds the {}B swizzle span",
                       row_bytes, sw);
  map = TensorMapModel{};
  map.mode = TensorMapMode::kIm2col;
  map.global_address = global_address;
  map.elem_bytes = elem_bytes;
  map.rank = 4;
  for (int d = 0; d < 4; ++d) map.dims[d] = dims[d];
  map.stride1_bytes = strides_bytes[0];
  map.stride2_bytes = strides_bytes[1];
  map.stride3_bytes = strides_bytes[2];
  for (int d = 0; d < 2; ++d) {
    map.lower[d] = static_cast<int16_t>(lower[d]);
    map.upper[d] = static_cast<int16_t>(upper[d]);
  }
  map.channels_per_pixel = static_cast<uint16_t>(channels_per_pixel);
  map.pixels_per_column = static_cast<uint16_t>(pixels_per_column);
  for (int d = 0; d < 4; ++d) map.element_strides[d] = static_cast<uint8_t>(element_strides[d]);
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
