// conv2d_cases.cc: conv2d's seeded bugs, each paired with the correct kernel
// ("corpus.conv2d_fixed"). The bugs live only where conv2d differs from the
// matmul, in the im2col tile loader and in the host's im2col map; the kernel
// is the shared matmul with the loader swapped (Cfg::ALoader), as in
// kernels/conv2d/.
//
// Config keys: n, h, w, c, k, r, s, stride, pad, dil (default a 2x9x11x37
// input, 70 3x3 filters, stride 1, pad 1, dilation 1) and ctas (default: one
// CTA per output tile, at most 2).
#include <algorithm>

#include "kernels/conv2d/config.h"
#include "runner/kernels/conv2d_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

enum class ConvBug {
  kNone,
  kIgnoresPadding,     // the start pixel misses the -pad of the bounding box
  kTapNotDilated,      // filter-tap offsets not multiplied by the dilation
  kShortColumn,        // the host's im2col map delivers 64 pixels per load, the stage expects 128
  kResidualFixed,      // correct, with the fused residual (8th warp)
  kResidualShortBox,   // the host's residual map has a 64-row box; the ring expects 128 rows
};

constexpr bool has_residual(ConvBug b) {
  return b == ConvBug::kResidualFixed || b == ConvBug::kResidualShortBox;
}

template <ConvBug B>
class MutantIm2colLoader {
 public:
  using Source = Im2colSource;
  SK_DEVICE explicit MutantIm2colLoader(const Im2colSource* src) : src_(src) {}
  SK_DEVICE void prefetch() const { arch::prefetch_tensormap(&src_->map); }
  SK_DEVICE void load(void* smem_dst, uint64_t* full_barrier, int32_t k, int32_t row,
                      int32_t /*batch*/ = 0) const {
    ConvGeometry g = src_->g;
    if constexpr (B == ConvBug::kIgnoresPadding) g.pad_h = g.pad_w = 0;
    if constexpr (B == ConvBug::kTapNotDilated) g.dil_h = g.dil_w = 1;
    const Im2colCoords x = im2col_coords(g, k, row);
    arch::tma_load_im2col_4d(smem_dst, &src_->map, full_barrier, x.c, x.w, x.h, x.n, x.off_w,
                             x.off_h);
  }

 private:
  const Im2colSource* src_;
};

template <ConvBug B>
class ConvCase : public verify::Sm100Case {
  using Cfg = Sm100MatmulConfig<128, 64, 64, 3, bf16_t, StaticPersistentScheduler,
                                MutantIm2colLoader<B>, has_residual(B)>;
  using K = Sm100Matmul<Cfg>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    s_.n = cfg.get_in("n", 2, 1, 64);
    s_.h = cfg.get_in("h", 9, 1, 256);
    s_.w = cfg.get_in("w", 11, 1, 256);
    s_.c = cfg.get_in("c", 37, 1, 512);
    s_.k = cfg.get_in("k", 70, 1, 512);
    s_.r = cfg.get_in("r", 3, 1, 7);
    s_.s = cfg.get_in("s", 3, 1, 7);
    s_.stride_h = s_.stride_w = cfg.get_in("stride", 1, 1, 8);
    s_.pad_h = s_.pad_w = cfg.get_in("pad", 1, 0, 8);
    s_.dil_h = s_.dil_w = cfg.get_in("dil", 1, 1, 8);
    sim::Conv2dRequest req;
    req.shape = s_;
    req.residual = has_residual(B);
    req.run.tile_n = 64;
    req.run.stages = 3;
    if (std::string err = sim::validate_conv2d(req); !err.empty()) throw std::invalid_argument(err);
    buf_ = sim::allocate_conv<bf16_t>(gpu, s_, rng(), has_residual(B));
    sim::encode_conv<Cfg>(p_, s_, buf_, B == ConvBug::kShortColumn ? 64 : Cfg::BM, kBeta);
    if constexpr (B == ConvBug::kResidualShortBox) {
      const std::string err = models::sm100::encode_tiled_2d(
          p_.residual, buf_.c, 2, p_.n, p_.m, uint64_t{buf_.ldy} * 2, Cfg::BN, 64,
          models::sm100::Swizzle::kNone);
      if (!err.empty()) throw std::invalid_argument(err);
    }
    const uint32_t tiles = K::tiles_m(p_.m) * K::tiles_n(p_.n);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", std::min<uint32_t>(tiles, 2)));
    l.warps = static_cast<int>(Cfg::kWarps);
    l.smem_bytes = Cfg::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  std::string check(verify::Gpu& gpu) override {
    const sim::CheckResult r =
        sim::check_conv<bf16_t>(gpu, s_, buf_, sim::RunStatus::kCompleted, kBeta);
    return r.passed ? "" : r.detail;
  }

 private:
  static constexpr float kBeta = 0.5f;
  typename K::Params p_{};
  sim::Conv2dShape s_;
  sim::ConvBuffers buf_;
};

SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kNone>, "corpus.conv2d_fixed",
                     "conv2d fprop: the matmul with the im2col loader (correct)");
SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kIgnoresPadding>, "corpus.conv2d_im2col_ignores_padding",
                     "conv2d: the im2col start pixel misses the padding offset");
SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kTapNotDilated>, "corpus.conv2d_tap_not_dilated",
                     "conv2d: filter-tap offsets not scaled by the dilation");
SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kResidualFixed>, "corpus.conv2d_residual_fixed",
                     "conv2d with the fused residual (8th warp), correct");
SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kResidualShortBox>, "corpus.conv2d_residual_short_box",
                     "conv2d residual: the C map's box has 64 rows; the ring expects 128");
SK_VERIFY_SM100_CASE(ConvCase<ConvBug::kShortColumn>, "corpus.conv2d_short_im2col_column",
                     "conv2d: the im2col map delivers 64 pixels per load; the stage expects 128");

}  // namespace
}  // namespace sk::corpus
