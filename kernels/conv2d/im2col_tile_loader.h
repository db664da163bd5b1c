// im2col_tile_loader.h: TileIO for conv2d fprop as an implicit GEMM.
//
//   D[N*P*Q, K] = A[N*P*Q, R*S*Cp] * B[K, R*S*Cp]^T
//
// A is never built: each [BM pixels x BK channels] tile comes straight from
// the NHWC activations by a TMA im2col load. GEMM row m is output pixel
// (n, p, q) in NPQ order; GEMM column k is filter tap (r, s) = divmod(k / Cp,
// S) and channel k % Cp, where Cp is C rounded up to BK, so that a k-block
// never straddles two taps. Channels past C fall outside the tensor and are
// zero-filled by TMA; the packed filters (B) hold zeros there too.
//
// The im2col map (made on the host) has the bounding box lower corner
// -pad and upper corner pad - (filter - 1) * dilation, traversal strides equal
// to the convolution strides, BK channels and BM pixels per load; a load for
// tile row m starts at the input position of output pixel m's tap (0, 0) and
// shifts every pixel by the tap's offset (s * dil_w, r * dil_h).
//
// Same interface as TmaTileLoader: load(dst, bar, k, row, batch) with GEMM
// coordinates, so the matmul kernel runs it unchanged (Cfg::ALoader). A
// convolution is one GEMM (its images are rows of it): batch is always 0.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/core/platform.h"

namespace sk {

struct ConvGeometry {
  uint32_t p = 0, q = 0;                // output height and width
  uint32_t stride_h = 1, stride_w = 1;
  int32_t pad_h = 0, pad_w = 0;
  uint32_t dil_h = 1, dil_w = 1;
  uint32_t s = 1;                       // filter width
  uint32_t c_padded = 0;                // channels rounded up to BK
};

struct Im2colSource {
  arch::TensorMap map;  // im2col map of the NHWC activations
  ConvGeometry g;
};

// The im2col load of GEMM coordinates (k, row): start pixel, channel and the
// filter tap's offsets.
struct Im2colCoords {
  int32_t c, w, h, n;
  uint16_t off_w, off_h;
};

SK_HOST_DEVICE Im2colCoords im2col_coords(const ConvGeometry& g, int32_t k, int32_t row) {
  const uint32_t tap = static_cast<uint32_t>(k) / g.c_padded;
  const uint32_t r = tap / g.s, s = tap % g.s;
  const uint32_t pixels = g.p * g.q;
  const uint32_t pq = static_cast<uint32_t>(row) % pixels;
  Im2colCoords x;
  x.c = static_cast<int32_t>(static_cast<uint32_t>(k) % g.c_padded);
  x.w = static_cast<int32_t>((pq % g.q) * g.stride_w) - g.pad_w;
  x.h = static_cast<int32_t>((pq / g.q) * g.stride_h) - g.pad_h;
  x.n = static_cast<int32_t>(static_cast<uint32_t>(row) / pixels);
  x.off_w = static_cast<uint16_t>(s * g.dil_w);
  x.off_h = static_cast<uint16_t>(r * g.dil_h);
  return x;
}

class Im2colTileLoader {
 public:
  using Source = Im2colSource;
  SK_DEVICE explicit Im2colTileLoader(const Im2colSource* src) : src_(src) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::prefetch_tensormap(&src_->map);
  }
  SK_DEVICE void load(void* smem_dst, uint64_t* full_barrier, int32_t k, int32_t row,
                      int32_t /*batch*/ = 0, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const Im2colCoords x = im2col_coords(src_->g, k, row);
    arch::tma_load_im2col_4d(smem_dst, &src_->map, full_barrier, x.c, x.w, x.h, x.n, x.off_w,
                             x.off_h);
  }

 private:
  const Im2colSource* src_;
};

}  // namespace sk
