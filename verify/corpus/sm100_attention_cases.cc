// sm100_attention_cases.cc: the SM100 (FlashAttention-4 style) attention
// forward (kernels/attention/sm100_attention.h) as verify cases,
// "corpus_attention_sm100.<bug>" for each seeded bug of
// sk::Sm100AttentionBug and "corpus_attention_sm100.fixed" for the kernel
// itself, on the B200 parameters. Config keys as the SM90 cases'
// (attention_cases.cc): batch (1), heads (4), kv_heads (2), seqlen_q (300),
// seqlen_k (300), d (64 or 128; 64), causal (0), ctas (2), ramp (0: K's rows
// scaled up along the keys, so that the correction warpgroup rescales O);
// the default is two work units of two Q tiles each, ragged sequences and
// grouped heads.
#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "kernels/attention/sm100_attention.h"
#include "runner/kernels/attention_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

template <Sm100AttentionBug B>
class Sm100AttentionCase : public verify::Sm100Case {
 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    auto get = [&](const char* key, int64_t def, int64_t lo, int64_t hi) {
      const int64_t v = cfg.get(key, def);
      if (v < lo || v > hi)
        throw std::invalid_argument(fmt::format("{} must be in [{}, {}]", key, lo, hi));
      return static_cast<uint32_t>(v);
    };
    s_.batch = get("batch", 1, 1, 16);
    s_.heads = get("heads", 4, 1, 64);
    s_.kv_heads = get("kv_heads", 2, 1, 64);
    s_.seqlen_q = get("seqlen_q", 300, 1, 4096);
    s_.seqlen_k = get("seqlen_k", 300, 1, 4096);
    s_.head_dim = get("d", 64, 64, 128);
    s_.causal = get("causal", 0, 0, 1) != 0;
    s_.ramp = get("ramp", 0, 0, 1) != 0;
    if (s_.heads % s_.kv_heads != 0 || (s_.head_dim != 64 && s_.head_dim != 128))
      throw std::invalid_argument("heads must be a multiple of kv_heads, and d 64 or 128");
    b_ = sim::allocate_attention(gpu, s_, rng);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(get("ctas", 2, 1, 148));
    l.warps = K64Cfg::kThreads / 32;
    if (s_.head_dim == 128) {
      p128_ = sim::sm100_attention_params<typename K128::Params>(s_, b_, 0);
      l.smem_bytes = K128Cfg::kSmemBytes;
    } else {
      p64_ = sim::sm100_attention_params<typename K64::Params>(s_, b_, 0);
      l.smem_bytes = K64Cfg::kSmemBytes;
    }
    return l;
  }
  void kernel() override {
    if (s_.head_dim == 128)
      K128::run(p128_);
    else
      K64::run(p64_);
  }
  std::string check(verify::Gpu& gpu) override {
    const sim::CheckResult c = sim::check_attention(
        gpu, s_, b_, s_.head_dim == 128 ? p128_.softmax_scale : p64_.softmax_scale);
    return c.passed ? "" : c.detail;
  }

 private:
  using K128Cfg = Sm100AttentionConfig<128, 2>;
  using K64Cfg = Sm100AttentionConfig<64, 2>;
  using K128 = Sm100Attention<K128Cfg, B>;
  using K64 = Sm100Attention<K64Cfg, B>;
  sim::AttentionShape s_;
  sim::AttentionBuffers b_;
  typename K128::Params p128_{};
  typename K64::Params p64_{};
};

#define SK_SM100_ATTENTION_CASE(Value, name, what)                 \
  SK_VERIFY_SM100_CASE(Sm100AttentionCase<Sm100AttentionBug::Value>, \
                       "corpus_attention_sm100." name, what)

SK_SM100_ATTENTION_CASE(kNone, "fixed",
                        "the SM100 attention kernel: twin of every SM100 attention seeded bug");
SK_SM100_ATTENTION_CASE(kNoSWait, "no_s_wait",
                        "the softmax reads S from TMEM before waiting for the MMA's commit");
SK_SM100_ATTENTION_CASE(kPOverOtherS, "p_over_other_s",
                        "P written at the other Q tile's S columns, where its Q K^T may be in flight");
SK_SM100_ATTENTION_CASE(kNoCorrectionWait, "no_correction_wait",
                        "the correction rescales O before the PV MMA's commit");
SK_SM100_ATTENTION_CASE(kEarlyKvRelease, "early_kv_release",
                        "K released by a plain arrive right after issuing S, not by a commit");
SK_SM100_ATTENTION_CASE(kNoStWait, "no_st_wait", "P signalled to the MMA before tcgen05.wait::st");
SK_SM100_ATTENTION_CASE(kVoteLaneZero, "vote_lane_zero",
                        "the correction asks lane 0 instead of voting: rows left unscaled");

}  // namespace
}  // namespace sk::corpus
