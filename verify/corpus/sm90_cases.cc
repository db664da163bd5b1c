// sm90_cases.cc: the SM90 corpus kernel as verify cases, "corpus_sm90.<bug>"
// ("corpus_sm90.fixed" for the correct one), on the H200 parameters. Config
// keys: m, n, k (default 300 x 260 x 192: partial tiles in M and N) and ctas
// (default 2). D is allocated exactly, so a store past row m leaves it.
#include <algorithm>
#include <stdexcept>

#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "verify/corpus/sm90_mutant_matmul.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {
using models::sm100::Swizzle;

template <Sm90Bug B>
class Sm90MutantCase : public verify::Sm90Case {
  using K = Sm90Mutant<B>;

 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& rng) override {
    auto dim = [&](const char* key, int64_t def) {
      const int64_t v = cfg.get(key, def);
      if (v < 1 || v > 4096) throw std::invalid_argument(std::string(key) + " must be in [1, 4096]");
      return static_cast<uint32_t>(v);
    };
    p_.m = dim("m", 300);
    p_.n = dim("n", 260);
    p_.k = dim("k", 192);
    const sim::MatmulBuffers buf = sim::allocate_matmul<bf16_t>(gpu, p_.m, p_.n, p_.k, rng);
    lda_ = buf.lda;
    p_.ldd = buf.ldc;
    a_ = buf.a;
    b_ = buf.b;
    d_ = buf.d;
    encode(p_.a, a_, p_.m);
    encode(p_.b, b_, p_.n);
    p_.d = reinterpret_cast<bf16_t*>(d_);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", 2));
    l.warps = static_cast<int>(K::kThreads / 32);
    l.smem_bytes = K::kSmemBytes;
    return l;
  }
  void kernel() override { K::run(p_); }
  std::string check(verify::Gpu& gpu) override {
    auto& mem = gpu.gmem();
    const auto r = sim::check_matmul<bf16_t>(p_.m, p_.n, p_.k, reinterpret_cast<uint16_t*>(mem.host(a_)),
                                             lda_, reinterpret_cast<uint16_t*>(mem.host(b_)), lda_,
                                             mem.host(d_), p_.ldd);
    return r.passed ? "" : r.detail;
  }

 private:
  void encode(arch::TensorMap& map, uint64_t addr, uint32_t rows) {
    const std::string err = models::sm100::encode_tiled_2d(map, addr, 2, p_.k, rows,
                                                           uint64_t{lda_} * 2, 64, 128, Swizzle::k128B);
    if (!err.empty()) throw std::invalid_argument(err);
  }
  typename K::Params p_{};
  uint32_t lda_ = 0;
  uint64_t a_ = 0, b_ = 0, d_ = 0;
};

#define SK_SM90_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(Sm90MutantCase<Sm90Bug::Value>, "corpus_sm90." name, what)

SK_SM90_CASE(kNone, "fixed", "the correct SM90 corpus kernel: twin of every SM90 seeded bug");
SK_SM90_CASE(kEarlyRelease, "early_release", "stage released before its wgmma completed");
SK_SM90_CASE(kNoFullWait, "no_full_wait", "consumer reads a stage without waiting on full");
SK_SM90_CASE(kExpectTxLow, "expect_tx_low", "expect_tx announces only the A tile");
SK_SM90_CASE(kExpectTxHigh, "expect_tx_high", "expect_tx announces 1 KiB more than is loaded");
SK_SM90_CASE(kNoLastWgmmaWait, "no_last_wgmma_wait", "consumer exits with its last wgmma group not waited for");
SK_SM90_CASE(kNoWgmmaFence, "no_wgmma_fence",
             "consumer fences only its first k-block's wgmmas, not those after each wait_group");
SK_SM90_CASE(kParityFixed, "parity_fixed", "consumer always waits parity 0");
SK_SM90_CASE(kEmptyCountLow, "empty_count_low", "empty barriers expect 4 arrivals, 8 come");
SK_SM90_CASE(kStoreUnbounded, "store_unbounded", "epilogue stores rows past M");
SK_SM90_CASE(kEmptyNotInitialised, "empty_not_initialised", "empty barriers never initialised");

}  // namespace
}  // namespace sk::corpus
