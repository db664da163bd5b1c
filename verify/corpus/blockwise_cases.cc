// blockwise_cases.cc: the blockwise-scaled FP8 matmul's seeded bugs, each
// paired with the correct kernel ("corpus.blockwise_fixed"). The bugs live
// where the family differs from the BF16 matmul: the stage's transaction
// bytes, the epilogue's promotion of each k-block's partial, and the host's
// scale maps. The kernel is the shared matmul with a mutant of the
// blockwise mainloop (Cfg::Mainloop).
//
// Config keys: m, n, k (default 200 x 260 x 300: odd, a partial last
// k-block) and ctas (default 2).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/blockscaled/blockwise_fp8.h"
#include "runner/kernels/blockwise_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

enum class BlockwiseBug {
  kNone,
  kExpectTxWithoutBScale,  // expect_tx leaves out the 16 bytes of B's scale
  kBScaleIgnored,          // the promotion multiplies by A's scale only
  kScalesOfNextStage,      // the promotion reads the scales of the stage after its own
  kShortAScaleBox,         // the host's A scale map delivers 64 scales; the stage expects 128
};

template <BlockwiseBug B>
struct MutantBlockwise {
  template <int BM, int BN, int BK, int Stages>
  struct At : BlockwiseFp8Mainloop::At<BM, BN, BK, Stages> {
    using Base = BlockwiseFp8Mainloop::At<BM, BN, BK, Stages>;
    using Accumulator = typename Base::Accumulator;
    static constexpr uint32_t kBytesPerStage =
        Base::kBytesPerStage - (B == BlockwiseBug::kExpectTxWithoutBScale ? 16 : 0);

    // Base::promote with the bug switched in.
    template <class Tiles>
    SK_DEVICE static void promote(Accumulator& acc, uint32_t tmem_base, uint32_t col,
                                  uint32_t quarter, const Tiles& t) {
      int32_t step = 0;
      if constexpr (B == BlockwiseBug::kScalesOfNextStage)
        step = t.index + 1 < Stages ? 1 : -(Stages - 1);
      const float* sa = reinterpret_cast<const float*>(t.sfa + step * 512) + 32 * quarter;
      const float* sb = reinterpret_cast<const float*>(t.sfb + step * 128);
      LaneArray<float, 1> scale;
      for_each_lane([&](uint32_t l) {
        scale.lane(l)[0] =
            arch::ld_shared(sa + l) * (B == BlockwiseBug::kBScaleIgnored ? 1.0f : arch::ld_shared(sb));
      });
      Base::add_scaled(acc, tmem_base, col, quarter, scale);
    }
  };
};

template <BlockwiseBug B>
class BlockwiseCase : public verify::Sm100Case {
  using Cfg = Sm100MatmulConfig<128, 128, 128, 2, bf16_t, StaticPersistentScheduler, TmaTileLoader,
                                false, MutantBlockwise<B>::template At, true>;
  using K = Sm100Matmul<Cfg>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    const uint32_t m = cfg.get_in("m", 200, 1, 4096), n = cfg.get_in("n", 260, 1, 4096), k = cfg.get_in("k", 300, 1, 8192);
    buf_ = sim::allocate_blockwise<bf16_t>(gpu, m, n, k, rng());
    sim::encode_blockwise<Cfg>(p_, buf_, B == BlockwiseBug::kShortAScaleBox ? 64 : 128);
    const uint32_t tiles = K::tiles_m(m) * K::tiles_n(n);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", std::min<uint32_t>(tiles, 2)));
    l.warps = static_cast<int>(Cfg::kWarps);
    l.smem_bytes = Cfg::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  std::string check(verify::Gpu& gpu) override {
    const sim::CheckResult r = sim::check_blockwise<bf16_t>(gpu, buf_, sim::RunStatus::kCompleted);
    return r.passed ? "" : r.detail;
  }

 private:
  typename K::Params p_{};
  sim::BlockwiseBuffers buf_;
};

SK_VERIFY_SM100_CASE(BlockwiseCase<BlockwiseBug::kNone>, "corpus.blockwise_fixed",
                     "blockwise FP8 matmul (promotion in the epilogue), correct");
SK_VERIFY_SM100_CASE(BlockwiseCase<BlockwiseBug::kExpectTxWithoutBScale>,
                     "corpus.blockwise_expect_tx_without_b_scale",
                     "blockwise FP8: expect_tx leaves out the 16 bytes of B's scale");
SK_VERIFY_SM100_CASE(BlockwiseCase<BlockwiseBug::kBScaleIgnored>, "corpus.blockwise_b_scale_ignored",
                     "blockwise FP8: the epilogue promotes with A's scale only");
SK_VERIFY_SM100_CASE(BlockwiseCase<BlockwiseBug::kScalesOfNextStage>,
                     "corpus.blockwise_scales_of_next_stage",
                     "blockwise FP8: the promotion reads the scales of the next input stage");
SK_VERIFY_SM100_CASE(BlockwiseCase<BlockwiseBug::kShortAScaleBox>,
                     "corpus.blockwise_short_a_scale_box",
                     "blockwise FP8: the host's A scale map delivers 64 scales; the stage expects 128");

}  // namespace
}  // namespace sk::corpus
