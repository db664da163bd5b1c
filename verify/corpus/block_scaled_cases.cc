// block_scaled_cases.cc: the block-scaled matmul's seeded bugs, each paired
// with the correct kernel ("corpus.block_scaled_fixed"). The bugs live only
// where the family differs from the BF16 matmul: the stage's transaction
// bytes, the TileOp's scale-factor copies and its instruction descriptors,
// and the host's scale maps. The kernel is the shared matmul with a mutant
// mainloop (Cfg::Mainloop) whose op is BlockScaledUmmaOp's logic with one
// bug switched in.
//
// Config keys: m, n, k (default 200 x 140 x 300, odd in every dimension),
// format (0 MXFP8 E4M3, 1 NVFP4) and ctas (default 2).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/blockscaled/config.h"
#include "runner/kernels/block_scaled_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

enum class ScaledBug {
  kNone,
  kExpectTxWithoutScales,  // expect_tx announces the A and B tiles only
  kSharedScaleColumns,     // every stage copies its scales into stage 0's TMEM columns
  kMmaBeforeScaleCopy,     // the MMAs are issued before the scale copies
  kScaleIdFixed,           // MXFP8: every K step reads scale byte 0 (sf_id not advanced)
  kShortScaleBox,          // the host's A scale map has a 16-row box; the stage expects 32
};

// BlockScaledUmmaOp with one of the TileOp bugs switched in.
template <class Format, ScaledBug B>
class MutantScaledOp : public BlockScaledUmmaOp<128, 128, Format> {
  using Base = BlockScaledUmmaOp<128, 128, Format>;

 public:
  SK_DEVICE MutantScaledOp(uint32_t col, OperandLayouts) : Base(col), col0_(col) {}

  template <class Tiles>
  SK_DEVICE void mma(uint32_t tmem_base, uint32_t d_col, const Tiles& t, bool accumulate) const {
    const uint32_t stage = B == ScaledBug::kSharedScaleColumns ? 0 : t.index;
    const uint32_t sfa = tmem_base + col0_ + stage * Base::kTmemColsPerStage;
    const uint32_t sfb = sfa + Base::kSfaCols;
    if constexpr (B != ScaledBug::kMmaBeforeScaleCopy) copy(t, sfa, sfb);
    const uint32_t a = arch::smem_addr(t.a), b = arch::smem_addr(t.b);
    for (uint32_t s = 0; s < Base::kSteps; ++s) {
      const uint32_t atom = Format::atom_of(s);
      const uint32_t idesc =
          Format::instr_desc(128, 128, B == ScaledBug::kScaleIdFixed ? 0 : s);
      Format::mma(tmem_base + d_col, umma::kmajor_desc(a + 32 * s, 128, 1024),
                  umma::kmajor_desc(b + 32 * s, 128, 1024), idesc, sfa + 4 * atom,
                  sfb + 4 * atom, accumulate || s > 0);
    }
    if constexpr (B == ScaledBug::kMmaBeforeScaleCopy) copy(t, sfa, sfb);
  }

 private:
  template <class Tiles>
  SK_DEVICE void copy(const Tiles& t, uint32_t sfa, uint32_t sfb) const {
    for (uint32_t atom = 0; atom < Format::kAtoms; ++atom) {
      arch::tcgen05_cp_32x128b_warpx4(
          sfa + 4 * atom, umma::sf_copy_desc(arch::smem_addr(t.sfa + atom * kScaleAtomBytes)));
      arch::tcgen05_cp_32x128b_warpx4(
          sfb + 4 * atom, umma::sf_copy_desc(arch::smem_addr(t.sfb + atom * kScaleAtomBytes)));
    }
  }
  uint32_t col0_;
};

template <class Format, ScaledBug B>
struct MutantMainloop {
  template <int BM, int BN, int BK, int Stages>
  struct At : BlockScaledMainloop<Format>::template At<BM, BN, BK, Stages> {
    using Base = typename BlockScaledMainloop<Format>::template At<BM, BN, BK, Stages>;
    using Op = MutantScaledOp<Format, B>;
    static constexpr uint32_t kBytesPerStage =
        B == ScaledBug::kExpectTxWithoutScales ? (BM + BN) * 128 : Base::kBytesPerStage;
  };
};

template <class Format, ScaledBug B>
using MutantCfg = Sm100MatmulConfig<128, 128, Format::kBK, 3, bf16_t, StaticPersistentScheduler,
                                    TmaTileLoader, false, MutantMainloop<Format, B>::template At,
                                    true>;

template <ScaledBug B>
class ScaledCase : public verify::Sm100Case {
  using Mx = MutantCfg<Mxfp8E4m3, B>;
  using Nv = MutantCfg<Nvf4Format, B>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    const uint32_t m = cfg.get_in("m", 200, 1, 4096), n = cfg.get_in("n", 140, 1, 4096), k = cfg.get_in("k", 300, 1, 8192);
    nvfp4_ = cfg.get_in("format", 0, 0, 1) == 1;
    format_ = nvfp4_ ? sim::BlockFormat::kNvfp4 : sim::BlockFormat::kMxfp8E4m3;
    buf_ = sim::allocate_block_scaled<bf16_t>(gpu, format_, m, n, k, rng());
    if (nvfp4_)
      encode<Nv>(nv_);
    else
      encode<Mx>(mx_);
    const uint32_t tiles = ((m + 127) / 128) * ((n + 127) / 128);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", std::min<uint32_t>(tiles, 2)));
    l.warps = static_cast<int>(Mx::kWarps);
    l.smem_bytes = std::max(Mx::kSmemBytes, Nv::kSmemBytes);
    return l;
  }
  void kernel() override {
    if (nvfp4_)
      Sm100Matmul<Nv>::run(nv_);
    else
      Sm100Matmul<Mx>::run(mx_);
  }
  std::string check(verify::Gpu& gpu) override {
    const sim::CheckResult r =
        sim::check_block_scaled<bf16_t>(gpu, buf_, sim::RunStatus::kCompleted);
    return r.passed ? "" : r.detail;
  }

 private:
  template <class C, class Params>
  void encode(Params& p) {
    const uint32_t atoms_rows = 32 * C::Mma::kSfaBytes / kScaleAtomBytes;
    sim::encode_block_scaled<C>(p, buf_, B == ScaledBug::kShortScaleBox ? atoms_rows / 2 : atoms_rows);
  }

  bool nvfp4_ = false;
  sim::BlockFormat format_ = sim::BlockFormat::kMxfp8E4m3;
  sim::BlockScaledBuffers buf_;
  typename Sm100Matmul<Mx>::Params mx_{};
  typename Sm100Matmul<Nv>::Params nv_{};
};

SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kNone>, "corpus.block_scaled_fixed",
                     "block-scaled matmul (MXFP8 or NVFP4), correct");
SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kExpectTxWithoutScales>,
                     "corpus.block_scaled_expect_tx_without_scales",
                     "block-scaled: expect_tx counts the A and B tiles but not the scale factors");
SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kSharedScaleColumns>,
                     "corpus.block_scaled_shared_scale_columns",
                     "block-scaled: every stage copies its scales into the same TMEM columns");
SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kMmaBeforeScaleCopy>,
                     "corpus.block_scaled_mma_before_scale_copy",
                     "block-scaled: the MMAs are issued before the stage's scale copies");
SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kScaleIdFixed>, "corpus.block_scaled_scale_id_fixed",
                     "MXFP8: every K step of a stage reads scale byte 0 (sf_id not advanced)");
SK_VERIFY_SM100_CASE(ScaledCase<ScaledBug::kShortScaleBox>, "corpus.block_scaled_short_scale_box",
                     "block-scaled: the host's A scale map delivers 16 rows; the stage expects 32");

}  // namespace
}  // namespace sk::corpus
