// scale_tiles_case.cc: the example kernel's verify cases, one per variant
// ("scale_tiles" is the correct one). Config keys: rows, cols (default
// 100 x 200, so edge tiles are partial in both dimensions) and ctas (2).
#include <cmath>
#include <stdexcept>

#include "examples/scale_tiles/scale_tiles.h"
#include "models/sm100/tensor_map.h"
#include "verify/harness/sm100_case.h"

namespace sk::examples {
namespace {
using models::sm100::Swizzle;

template <Variant V>
class ScaleTilesCase : public verify::Sm100Case {
  using K = ScaleTiles<V>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    p_.rows = static_cast<uint32_t>(cfg.get("rows", 100));
    p_.cols = static_cast<uint32_t>(cfg.get("cols", 200));
    if (p_.rows < 1 || p_.rows > 8192 || p_.cols < 1 || p_.cols > 8192)
      throw std::invalid_argument("rows and cols must be in [1, 8192]");
    p_.alpha = -1.5f;
    ld_ = (p_.cols + 7) / 8 * 8;  // 16-byte row pitch, as TMA requires
    auto& mem = gpu.gmem();
    a_ = mem.allocate(uint64_t{p_.rows} * ld_ * 2, "A");
    d_ = mem.allocate(uint64_t{p_.rows} * ld_ * 2, "D");
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    auto* a = reinterpret_cast<bf16_t*>(mem.host(a_));
    for (uint64_t i = 0; i < uint64_t{p_.rows} * ld_; ++i) a[i] = to_bf16(dist(rng));
    encode(p_.a, a_);
    encode(p_.d, d_);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", 2));
    l.warps = K::kWarps;
    l.smem_bytes = K::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  // Independent reference: the product in double, rounded once to BF16.
  std::string check(verify::Gpu& gpu) override {
    auto& mem = gpu.gmem();
    const auto* a = reinterpret_cast<const bf16_t*>(mem.host(a_));
    const auto* d = reinterpret_cast<const bf16_t*>(mem.host(d_));
    for (uint32_t r = 0; r < p_.rows; ++r)
      for (uint32_t c = 0; c < p_.cols; ++c) {
        const size_t i = size_t{r} * ld_ + c;
        const double want = double{p_.alpha} * to_float(a[i]);
        if (to_float(d[i]) != static_cast<float>(want) &&
            d[i].bits != to_bf16(static_cast<float>(want)).bits)
          return "D[" + std::to_string(r) + "," + std::to_string(c) + "] = " +
                 std::to_string(to_float(d[i])) + ", expected " + std::to_string(want);
      }
    return "";
  }

 private:
  void encode(arch::TensorMap& map, uint64_t addr) {
    const std::string err = models::sm100::encode_tiled_2d(
        map, addr, 2, p_.cols, p_.rows, uint64_t{ld_} * 2, K::kCols, K::kRows, Swizzle::kNone);
    if (!err.empty()) throw std::invalid_argument(err);
  }
  typename K::Params p_{};
  uint32_t ld_ = 0;
  uint64_t a_ = 0, d_ = 0;
};

SK_VERIFY_SM100_CASE(ScaleTilesCase<Variant::kCorrect>, "scale_tiles",
                     "example: D = alpha * A by TMA tiles through a 3-stage ring");
SK_VERIFY_SM100_CASE(ScaleTilesCase<Variant::kEarlyRelease>, "scale_tiles.early_release",
                     "seeded bug: the stage is released before the compute warp reads it");
SK_VERIFY_SM100_CASE(ScaleTilesCase<Variant::kNoProxyFence>, "scale_tiles.no_proxy_fence",
                     "seeded bug: no fence.proxy.async before the TMA store");
SK_VERIFY_SM100_CASE(ScaleTilesCase<Variant::kStagingNotWaited>, "scale_tiles.staging_not_waited",
                     "seeded bug: staging rewritten before the previous store read it");
SK_VERIFY_SM100_CASE(ScaleTilesCase<Variant::kWrongArrivals>, "scale_tiles.wrong_arrivals",
                     "seeded bug: the ring's full barriers expect two producer arrivals, not one");

}  // namespace
}  // namespace sk::examples
