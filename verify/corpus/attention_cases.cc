// attention_cases.cc: the SM90 attention forward (kernels/attention/) as
// verify cases, "corpus_attention.<bug>" for each seeded bug of
// sk::AttentionBug and "corpus_attention.fixed" for the kernel itself, on the
// H200 parameters. Config keys: batch (1), heads (4), kv_heads (2), seqlen_q
// (200), seqlen_k (300), d (64 or 128; 128), causal (0), ctas (2): ragged
// sequence lengths and grouped heads by default.
#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "kernels/attention/sm90_attention.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/kernels/attention_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

template <AttentionBug B>
class AttentionCase : public verify::Sm90Case {
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
    s_.seqlen_q = get("seqlen_q", 200, 1, 4096);
    s_.seqlen_k = get("seqlen_k", 300, 1, 4096);
    s_.head_dim = get("d", 128, 64, 128);
    s_.causal = get("causal", 0, 0, 1) != 0;
    if (s_.heads % s_.kv_heads != 0 || (s_.head_dim != 64 && s_.head_dim != 128))
      throw std::invalid_argument("heads must be a multiple of kv_heads, and d 64 or 128");
    b_ = sim::allocate_attention(gpu, s_, rng);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(get("ctas", 2, 1, 132));
    l.warps = 12;
    if (s_.head_dim == 128) {
      p128_ = sim::attention_params<typename K128::Params>(s_, b_, 0, K128Cfg::BN);
      l.smem_bytes = K128Cfg::kSmemBytes;
    } else {
      p64_ = sim::attention_params<typename K64::Params>(s_, b_, 0, K64Cfg::BN);
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
  using K128Cfg = Sm90AttentionConfig<128, 2>;
  using K64Cfg = Sm90AttentionConfig<64, 2>;
  using K128 = Sm90Attention<K128Cfg, B>;
  using K64 = Sm90Attention<K64Cfg, B>;
  sim::AttentionShape s_;
  sim::AttentionBuffers b_;
  typename K128::Params p128_{};
  typename K64::Params p64_{};
};

#define SK_ATTENTION_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(AttentionCase<AttentionBug::Value>, "corpus_attention." name, what)

SK_ATTENTION_CASE(kNone, "fixed", "the SM90 attention kernel: twin of every attention seeded bug");
SK_ATTENTION_CASE(kSchedCount, "sched_count", "the ping-pong bar.sync counts 128 threads, the arrive 256");
SK_ATTENTION_CASE(kNoInitialArrive, "no_initial_arrive",
                  "warpgroup 1 never lets warpgroup 0 issue first");
SK_ATTENTION_CASE(kEarlyKRelease, "early_k_release", "K released before the wait covering Q K^T");
SK_ATTENTION_CASE(kEarlyVRelease, "early_v_release", "V released before the wait covering P V");
SK_ATTENTION_CASE(kShortExpectTx, "short_expect_tx", "expect_tx announces 8 KiB less than K's loads");
SK_ATTENTION_CASE(kCausalOneWarpgroup, "causal_one_warpgroup",
                  "the causal mask applied by warpgroup 0 only");
SK_ATTENTION_CASE(kNoWgmmaFence, "no_wgmma_fence",
                  "no wgmma.fence before Q K^T after P and O were written");
SK_ATTENTION_CASE(kEarlyQRelease, "early_q_release",
                  "Q released after the tile's first S GEMM instead of its last");
SK_ATTENTION_CASE(kWrongKvHead, "wrong_kv_head", "grouped heads: kv head h % kv_heads");

}  // namespace
}  // namespace sk::corpus
