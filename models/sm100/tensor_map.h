// tensor_map.h: the model's tensor map (what CUtensorMap encodes on hardware).
//
// Kernel code treats sk::arch::TensorMap as opaque and only passes its address
// to TMA intrinsics, exactly as with CUtensorMap on the device. Host code makes
// one with encode_tiled_2d(), encode_tiled_3d() or encode_im2col_4d(), which
// apply the driver's
// encode rules (cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col, see
// research/verify.md 4.2) and return an error message instead of a map when a
// rule is broken.
//
// Layout convention (as in CUDA): dim 0 is the contiguous (innermost) one.
//
// Invariants of an encoded map (magic == kMagic):
//   * mode says which loads may use it: a tiled map only tiled TMA, an im2col
//     map only the im2col load; the other fields of the other mode stay zero;
//   * box_bytes() is the number of bytes one load writes to shared memory and
//     counts as complete_tx, in either mode;
//   * a tiled map has rank 2 or 3 and is used only by the TMA instruction of
//     its rank (cp.async.bulk.tensor.2d or .3d); a rank-3 box is one plane
//     deep (box[2] == 1), as batched GEMMs load it; rank-2 maps keep box[2]
//     at 1 too, so box_bytes() needs no case;
//   * the object fits in the 128 bytes of a CUtensorMap.
#pragma once

#include <cstdint>
#include <string>

namespace sk::models::sm100 {

enum class Swizzle : uint32_t { kNone = 0, k32B = 32, k64B = 64, k128B = 128 };

// How a load walks the tensor: boxes of a fixed shape (tiled), or columns of
// pixels of an NHWC activation tensor, as convolutions read them (im2col).
enum class TensorMapMode : uint32_t { kTiled = 0, kIm2col = 1 };

struct alignas(64) TensorMapModel {
  uint64_t global_address = 0;
  uint32_t elem_bytes = 0;
  uint32_t rank = 0;
  uint64_t dims[4] = {0, 0, 0, 0};  // elements; tiled maps use dims 0..rank-1
  uint64_t stride1_bytes = 0;       // byte stride of dim 1 (dim 0 is dense)
  uint64_t stride2_bytes = 0;       // byte strides of dims 2 (rank >= 3) and 3 (rank 4)
  uint64_t stride3_bytes = 0;
  uint32_t box[3] = {0, 0, 1};      // tiled: elements per box along each dim
  Swizzle swizzle = Swizzle::kNone;
  TensorMapMode mode = TensorMapMode::kTiled;
  // im2col (rank 4, dims {C, W, H, N}): the pixel bounding box corners along
  // W and H ([lower, extent - 1 + upper] is the range a column's start pixels
  // walk), the channels of each pixel and the pixels of each load, and the
  // traversal (convolution) strides per dim.
  int16_t lower[2] = {0, 0};
  int16_t upper[2] = {0, 0};
  uint16_t channels_per_pixel = 0;
  uint16_t pixels_per_column = 0;
  uint8_t element_strides[4] = {1, 1, 1, 1};
  uint32_t magic = 0;               // kMagic once encoded; detects uninitialised maps
  static constexpr uint32_t kMagic = 0x7e45'03a9;

  uint32_t box_bytes() const {
    if (mode == TensorMapMode::kIm2col)
      return uint32_t{channels_per_pixel} * pixels_per_column * elem_bytes;
    return box[0] * box[1] * box[2] * elem_bytes;
  }
  // Byte stride of dimension d (d < rank).
  uint64_t stride_bytes(uint32_t d) const {
    switch (d) {
      case 0: return elem_bytes;
      case 1: return stride1_bytes;
      case 2: return stride2_bytes;
      default: return stride3_bytes;
    }
  }
};
static_assert(sizeof(TensorMapModel) <= 128, "a tensor map is a 128-byte object, as CUtensorMap");

// Fills `map`, or returns a one-line description of the first rule broken.
std::string encode_tiled_2d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                            uint64_t dim0, uint64_t dim1, uint64_t stride1_bytes, uint32_t box0,
                            uint32_t box1, Swizzle swizzle);

// A rank-3 tiled map: dims {dim0, dim1, dim2}, byte strides of dims 1 and 2,
// boxes {box0, box1, 1} (one plane, e.g. one matrix of a batch). The same
// rules as encode_tiled_2d, and stride2_bytes a multiple of 16 below 2^40.
std::string encode_tiled_3d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                            const uint64_t dims[3], const uint64_t strides_bytes[2],
                            uint32_t box0, uint32_t box1, Swizzle swizzle);

// An im2col map over a 4-D NHWC tensor: dims {C, W, H, N} (innermost first),
// strides_bytes the byte strides of W, H and N, lower/upper the pixel box
// corners {W, H}, element_strides {1, stride_w, stride_h, 1}. For a conv2d
// fprop with padding p, dilation d and an S-wide filter: lower = -p,
// upper = p - (S - 1) * d, and filter tap (r, s) loads with offsets
// {s * d, r * d}. Fills `map`, or returns a one-line description of the first
// rule broken (the driver's rules, plus the traversal the model implements:
// element strides of C and N must be 1, and the bounding box must be
// non-empty).
std::string encode_im2col_4d(TensorMapModel& map, uint64_t global_address, uint32_t elem_bytes,
                             const uint64_t dims[4], const uint64_t strides_bytes[3],
                             const int32_t lower[2], const int32_t upper[2],
                             uint32_t channels_per_pixel, uint32_t pixels_per_column,
                             const uint32_t element_strides[4], Swizzle swizzle);

// Byte offset, within a swizzle-aligned SMEM region, at which the hardware
// places logical byte `offset` of a box written with `swizzle`. The pattern is
// a function of the shared-memory address bits, so `offset` must be measured
// from an address aligned to the swizzle repeat (1024 B for 128B swizzle).
uint32_t swizzled_offset(uint32_t offset, Swizzle swizzle);

}  // namespace sk::models::sm100
