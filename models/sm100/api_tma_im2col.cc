// api_tma_im2col.cc: the TMA im2col load (PTX ISA 9.0 9.7.9.25.5.2,
// cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes)
// on an im2col tensor map (cuTensorMapEncodeIm2col, rank 4, NHWC).
//
// A load with coordinates {c, w, h, n} and offsets {ow, oh} fetches a column of
// map.pixels_per_column pixels. The first pixel is (n, h, w); each next one
// advances w by the W traversal stride; past the bounding box's last W
// position (W - 1 + upper_w) w wraps to lower_w and h advances by the H
// stride; past the last H position (H - 1 + upper_h) h wraps to lower_h and n
// advances by one. Pixel i reads input[n_i][h_i + oh][w_i + ow][c, c + cpp)
// and lands in SMEM row i (cpp elements wide) with the map's swizzle, as the
// rows of a tiled box do. Elements outside the tensor (any coordinate out of
// range, n_i >= N included) are zero-filled.
//
// Invariants: the load always delivers and counts the full column
// (pixels * cpp * elem_bytes bytes) on its barrier; it reads global memory
// only inside the tensor (one range per pixel that has an element inside it,
// which is what the race detector sees); its timing, checks and completion are
// those of every TMA load (tma_common.h). Rules: tma.bad_descriptor (map never
// encoded), tma.wrong_mode (a tiled map), tma.smem_out_of_range and
// tma.smem_misaligned (the SMEM column), and the barrier checks of mbarrier.
//
// L2 residency is tracked in chunks of an input row: kChunkBytes of the
// column's channels, a whole number of pixels, aligned to the row's start. A
// column is one L2 part for each chunk its pixels read, with the chunk's
// bytes. The taps of one output tile read shifted copies of the same
// neighbourhood, so the first column to touch a chunk brings it from HBM and
// the others find it in L2; neighbouring tiles share only the chunks both
// read; a filter as large as the input still brings every chunk it reads.
// This is a timing approximation only; it never changes bytes.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"
#include "models/sm100/tma_common.h"

namespace sk::models::sm100::api {
namespace {

// The operands of one load: the first pixel and channel, and the offsets.
struct Column {
  int32_t c, w, h, n;
  uint16_t off_w, off_h;
};

// Walks the start pixels of a column through the bounding box of `map`.
class PixelWalk {
 public:
  PixelWalk(const TensorMapModel& map, const Column& col)
      : lo_w_(map.lower[0]),
        lo_h_(map.lower[1]),
        hi_w_(static_cast<int64_t>(map.dims[1]) - 1 + map.upper[0]),
        hi_h_(static_cast<int64_t>(map.dims[2]) - 1 + map.upper[1]),
        step_w_(map.element_strides[1]),
        step_h_(map.element_strides[2]),
        w_(col.w),
        h_(col.h),
        n_(col.n) {}
  int64_t w() const { return w_; }
  int64_t h() const { return h_; }
  int64_t n() const { return n_; }
  void next() {
    w_ += step_w_;
    if (w_ <= hi_w_) return;
    w_ = lo_w_;
    h_ += step_h_;
    if (h_ <= hi_h_) return;
    h_ = lo_h_;
    n_ += 1;
  }

 private:
  int64_t lo_w_, lo_h_, hi_w_, hi_h_, step_w_, step_h_;
  int64_t w_, h_, n_;
};

// Byte offset of pixel (n, y, x) from the tensor's base, or -1 when the pixel
// lies outside the tensor.
int64_t pixel_offset(const TensorMapModel& m, int64_t n, int64_t y, int64_t x) {
  if (x < 0 || y < 0 || n < 0 || static_cast<uint64_t>(x) >= m.dims[1] ||
      static_cast<uint64_t>(y) >= m.dims[2] || static_cast<uint64_t>(n) >= m.dims[3])
    return -1;
  return static_cast<int64_t>(static_cast<uint64_t>(x) * m.stride1_bytes +
                              static_cast<uint64_t>(y) * m.stride2_bytes +
                              static_cast<uint64_t>(n) * m.stride3_bytes);
}

// The channels [k0, k1) of the column that lie inside the tensor (k0 >= k1
// when none do).
std::pair<int64_t, int64_t> channels_inside(const TensorMapModel& m, int32_t c) {
  const int64_t k0 = std::max<int64_t>(0, -int64_t{c});
  const int64_t k1 = std::min<int64_t>(m.channels_per_pixel, static_cast<int64_t>(m.dims[0]) - c);
  return {k0, k1};
}

// Writes the column into SMEM at `smem_off` (functional mode).
void move_column(uint8_t* smem, const TensorMapModel& m, uint32_t smem_off, const Column& col) {
  const uint32_t eb = m.elem_bytes;
  const uint32_t row_bytes = m.channels_per_pixel * eb;
  const uint8_t* gbase = gpu().gmem().host(m.global_address);
  const auto [k0, k1] = channels_inside(m, col.c);
  PixelWalk p(m, col);
  for (uint32_t i = 0; i < m.pixels_per_column; ++i, p.next()) {
    const int64_t pix = pixel_offset(m, p.n(), p.h() + col.off_h, p.w() + col.off_w);
    for (uint32_t k = 0; k < m.channels_per_pixel; ++k) {
      uint8_t* sp = smem + swizzled_offset(smem_off + i * row_bytes + k * eb, m.swizzle);
      if (pix >= 0 && static_cast<int64_t>(k) >= k0 && static_cast<int64_t>(k) < k1)
        std::memcpy(sp, gbase + pix + (int64_t{col.c} + k) * eb, eb);
      else
        std::memset(sp, 0, eb);
    }
  }
}

// Global byte ranges the column reads: one per pixel inside the tensor.
std::vector<sim::Range> column_rows(const TensorMapModel& m, const Column& col) {
  std::vector<sim::Range> rows;
  const auto [k0, k1] = channels_inside(m, col.c);
  if (k0 >= k1) return rows;
  PixelWalk p(m, col);
  for (uint32_t i = 0; i < m.pixels_per_column; ++i, p.next()) {
    const int64_t pix = pixel_offset(m, p.n(), p.h() + col.off_h, p.w() + col.off_w);
    if (pix < 0) continue;
    const uint64_t base = m.global_address + static_cast<uint64_t>(pix) +
                          static_cast<uint64_t>(int64_t{col.c}) * m.elem_bytes;
    rows.push_back(sim::Range{base + static_cast<uint64_t>(k0) * m.elem_bytes,
                              base + static_cast<uint64_t>(k1) * m.elem_bytes});
  }
  return rows;
}

// L2 parts of a column: one per row chunk inside the tensor that its pixels
// read, keyed by the row, the chunk and the column's first channel, with the
// chunk's bytes of the channels inside the tensor; box1's top bit keeps
// im2col keys apart from tiled boxes of the same tensor. Empty when the column
// reads nothing (all padding).
constexpr uint64_t kChunkBytes = 2048;
std::vector<tma::L2Part> column_parts(const TensorMapModel& m, const Column& col) {
  std::vector<tma::L2Part> parts;
  const auto [k0, k1] = channels_inside(m, col.c);
  if (k0 >= k1) return parts;
  const uint64_t pixel_bytes = static_cast<uint64_t>(k1 - k0) * m.elem_bytes;
  const uint64_t chunk_px = std::max<uint64_t>(1, kChunkBytes / pixel_bytes);
  // (row, chunk) of every pixel read, consecutive repeats dropped.
  std::vector<std::pair<uint64_t, uint64_t>> chunks;
  PixelWalk p(m, col);
  for (uint32_t i = 0; i < m.pixels_per_column; ++i, p.next()) {
    const int64_t y = p.h() + col.off_h;
    const int64_t x = p.w() + col.off_w;
    if (x < 0 || y < 0 || p.n() < 0 || static_cast<uint64_t>(x) >= m.dims[1] ||
        static_cast<uint64_t>(y) >= m.dims[2] || static_cast<uint64_t>(p.n()) >= m.dims[3])
      continue;
    const std::pair<uint64_t, uint64_t> rc{static_cast<uint64_t>(p.n()) * m.dims[2] + static_cast<uint64_t>(y),
                                           static_cast<uint64_t>(x) / chunk_px};
    if (chunks.empty() || chunks.back() != rc) chunks.push_back(rc);
  }
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  parts.reserve(chunks.size());
  for (const auto& [row, chunk] : chunks) {
    const uint64_t px = std::min<uint64_t>(chunk_px, m.dims[1] - chunk * chunk_px);
    parts.push_back(tma::L2Part{
        BoxKey{m.global_address, col.c, static_cast<int32_t>(static_cast<uint32_t>(row)),
               static_cast<uint32_t>(chunk) | static_cast<uint32_t>(row >> 32) << 24,
               m.channels_per_pixel | 0x8000'0000u},
        px * pixel_bytes});
  }
  return parts;
}
}  // namespace

void tma_load_im2col_4d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c,
                        int32_t w, int32_t h, int32_t n, uint16_t off_w, uint16_t off_h,
                        const Loc& loc) {
  // As tma_load_2d: the barrier changes only through the complete_tx scheduled
  // at completion, so the load runs at the warp's local time.
  static constexpr const char* kOp = "cp.async.bulk.tensor.4d.im2col (load)";
  sim::Warp& warp = issue_local(loc);
  if (!tma::valid_map(map, loc) || !tma::check_mode(*map, TensorMapMode::kIm2col, kOp, loc))
    return;
  Cta& cta = gpu().cta_of_current();
  const int64_t off = tma::smem_box(cta, smem_dst, *map, kOp, loc);
  Mbarrier* b = mbar::checked(gpu(), bar, "cp.async.bulk.tensor complete_tx", loc);
  if (off < 0 || b == nullptr) return;
  const TensorMapModel m = *map;  // the engine reads the map at issue
  const Column col{c, w, h, n, off_w, off_h};
  const std::vector<tma::L2Part> parts = column_parts(m, col);
  const tma::LoadDest dest{&cta, b};
  tma::issue_load(
      // Translation is not tracked for im2col columns (a column's pixels lie
      // within one image row block); the zero-fill of padding pixels is not
      // timed apart (0 rows outside).
      warp, cta, {&dest, 1}, map, m, off, parts, tma::PageSpan{}, 0, [&] { return column_rows(m, col); },
      [&] {
        return std::pair{
            fmt::format("im2col ({},{},{},{})+({},{})", c, w, h, n, off_w, off_h),
            std::vector<std::pair<std::string, int64_t>>{
                {"c", c}, {"w", w}, {"h", h}, {"n", n}, {"off_w", off_w}, {"off_h", off_h}}};
      },
      [&] {
        // The map travels with the event only when bytes move (functional mode).
        auto data = gpu().functional() ? std::make_unique<TensorMapModel>(m) : nullptr;
        return [data = std::move(data), off, col](Cta& cta_done) {
          if (data) move_column(cta_done.smem, *data, static_cast<uint32_t>(off), col);
        };
      },
      loc);
}

}  // namespace sk::models::sm100::api
