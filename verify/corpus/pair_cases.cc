// pair_cases.cc: the SM100 2-SM matmul (kernels/matmul/sm100_matmul.h with
// Bf16PairMainloop: clusters of two CTAs, tcgen05 cta_group::2) as verify
// cases, "corpus_pair.<bug>" for each seeded bug of sk::PairBug and
// "corpus_pair.fixed" for the kernel itself, on the B200 parameters.
// Config keys: m, n, k (default 300 x 200 x 192: a pair whose second CTA's
// rows lie past M, partial N tiles, three k-blocks), ctas (default 4: two
// pairs, each walking several blocks). corpus_pair.fixed_clc runs the kernel
// on the CLC scheduler: one pair per block launched on four SMs, the two
// resident pairs cancelling the rest (ctas unused).
#include <stdexcept>

#include "kernels/matmul/sm100_matmul.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

template <PairBug B, bool Clc = false>
class PairCase : public verify::Sm100Case {
  using Sched = std::conditional_t<Clc, ClcScheduler, StaticPersistentScheduler>;
  using Cfg =
      Sm100MatmulConfig<128, 64, 64, 3, bf16_t, Sched, TmaTileLoader, false, Bf16PairMainloop, true>;
  using K = Sm100Matmul<Cfg, B>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    m_ = static_cast<uint32_t>(cfg.get_in("m", 300, 1, 4096));
    n_ = static_cast<uint32_t>(cfg.get_in("n", 200, 1, 4096));
    k_ = static_cast<uint32_t>(cfg.get_in("k", 192, 1, 4096));
    buf_ = sim::allocate_matmul<bf16_t>(gpu, m_, n_, k_, rng);
    encode(p_.a, buf_.a, m_, Cfg::BM);
    encode(p_.b, buf_.b, n_, Cfg::BN / 2);
    const std::string err = sim::encode_output_map<Cfg>(p_.c, buf_.d, n_, m_, buf_.ldc, 0, 1);
    if (!err.empty()) throw std::runtime_error(err);
    p_.m = m_, p_.n = n_, p_.k = k_;
    p_.batches = 1;
    verify::Sm100Launch l;
    l.cluster = 2;
    l.grid = static_cast<int>(cfg.get_in("ctas", 4, 2, 148));
    if (l.grid % 2 != 0) throw std::invalid_argument("ctas must be even (pairs of CTAs)");
    // CLC: one pair per 2 x 1 block of tiles, on four SMs (params()), so
    // that the two resident pairs cancel the others.
    if constexpr (Clc) l.grid = static_cast<int>(2 * K::blocks(m_, n_, 1));
    l.warps = static_cast<int>(Cfg::kWarps);
    l.smem_bytes = Cfg::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  const models::sm100::Params& params() const override { return params_; }
  std::string check(verify::Gpu& gpu) override {
    auto& mem = gpu.gmem();
    const auto r = sim::check_matmul<bf16_t>(
        m_, n_, k_, reinterpret_cast<uint16_t*>(mem.host(buf_.a)), buf_.lda,
        reinterpret_cast<uint16_t*>(mem.host(buf_.b)), buf_.ldb, mem.host(buf_.d), buf_.ldc);
    return r.passed ? "" : r.detail;
  }

 private:
  // Rank-3 maps of one matrix (the kernel's loaders are batched).
  void encode(arch::TensorMap& map, uint64_t addr, uint32_t rows, uint32_t box_rows) {
    const std::string err = sim::encode_operand_map(map, addr, k_, rows, buf_.lda,
                                                    uint64_t{rows} * buf_.lda, 1, 64, box_rows);
    if (!err.empty()) throw std::runtime_error(err);
  }
  static models::sm100::Params make_params() {
    models::sm100::Params p = models::sm100::Params::builtin();
    if (Clc) p.num_sms = 4;
    return p;
  }
  models::sm100::Params params_ = make_params();
  typename K::Params p_{};
  uint32_t m_ = 0, n_ = 0, k_ = 0;
  sim::MatmulBuffers buf_;
};

#define SK_PAIR_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(PairCase<PairBug::Value>, "corpus_pair." name, what)

SK_PAIR_CASE(kNone, "fixed", "the SM100 2-SM matmul: twin of every 2-SM seeded bug");
using PairClcCase = PairCase<PairBug::kNone, true>;
SK_VERIFY_SM100_CASE(PairClcCase, "corpus_pair.fixed_clc",
                     "the SM100 2-SM matmul on the CLC scheduler, two pairs resident cancelling "
                     "the others");
SK_PAIR_CASE(kPeerIssuesMma, "peer_issues_mma",
             "the odd CTA of the pair leads: it issues the 2-SM MMAs");
SK_PAIR_CASE(kCommitLocal, "commit_local",
             "the accumulator's commit arrives on the leader's barrier only, not multicast");
SK_PAIR_CASE(kPeerSkipsAlloc, "peer_skips_alloc",
             "the peer's MMA warp leaves before the pair's TMEM allocation");
SK_PAIR_CASE(kExpectOwnBytes, "expect_own_bytes",
             "the leader's expect_tx counts its own bytes, not the peer's");
SK_PAIR_CASE(kReleaseLocal, "release_local",
             "each epilogue releases the accumulator to its own CTA, not to the leader");
SK_PAIR_CASE(kNoExitSync, "no_exit_sync", "no cluster barrier before exit");
SK_PAIR_CASE(kSameBHalf, "same_b_half", "both CTAs load the first half of B's tile");
SK_PAIR_CASE(kMixedCommit, "mixed_commit",
             "the input stage is released with a cta_group::1 commit in a cta_group::2 kernel");
SK_PAIR_CASE(kPeerFreesEarly, "peer_frees_early",
             "the peer frees the pair's TMEM without waiting for its dealloc barrier");

}  // namespace
}  // namespace sk::corpus
