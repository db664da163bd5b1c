// corpus_cases.cc: registers every variant of the corpus kernel as a verify
// case, "corpus.<bug>" (and "corpus.fixed", "corpus.pre_arrive" for the two
// correct protocols). Config keys: m, n, k (default 256 x 128 x 256) and ctas
// (default: one CTA per tile, at most 2).
#include <algorithm>

#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "verify/corpus/mutant_matmul.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {
using models::sm100::Swizzle;
using verify::CaseConfig;
using verify::Gpu;
using verify::Rng;

void encode(models::sm100::TensorMapModel& map, uint64_t addr, uint32_t elem, uint64_t d0,
            uint64_t d1, uint64_t stride, uint32_t b0, uint32_t b1, Swizzle sw) {
  const std::string err = models::sm100::encode_tiled_2d(map, addr, elem, d0, d1, stride, b0, b1, sw);
  if (!err.empty()) throw std::invalid_argument(err);
}

template <Bug B>
class MutantCase : public verify::Sm100Case {
  using K = MutantMatmul<B>;

 public:
  verify::Sm100Launch setup(Gpu& gpu, const CaseConfig& cfg, Rng& rng) override {
    auto dim = [&](const char* key, int64_t def) {
      const int64_t v = cfg.get(key, def);
      if (v < 1 || v > 4096) throw std::invalid_argument(std::string(key) + " must be in [1, 4096]");
      return static_cast<uint32_t>(v);
    };
    p_.m = dim("m", 256);
    p_.n = dim("n", 128);
    p_.k = dim("k", 256);
    const sim::MatmulBuffers buf = sim::allocate_matmul<bf16_t>(gpu, p_.m, p_.n, p_.k, rng);
    lda_ = buf.lda;
    ldc_ = buf.ldc;
    a_ = buf.a;
    b_ = buf.b;
    c_ = buf.d;
    encode(p_.a, a_, 2, p_.k, p_.m, uint64_t{lda_} * 2, K::BK, K::BM, Swizzle::k128B);
    encode(p_.b, b_, 2, p_.k, p_.n, uint64_t{lda_} * 2, K::BK, K::BN, Swizzle::k128B);
    encode(p_.c, c_, 2, p_.n, p_.m, uint64_t{ldc_} * 2, 32, 32, Swizzle::k64B);
    const uint32_t tiles = ceil_div<uint32_t>(p_.m, K::BM) * ceil_div<uint32_t>(p_.n, K::BN);
    verify::Sm100Launch l;
    l.grid = static_cast<int>(cfg.get("ctas", std::min<uint32_t>(tiles, 2)));
    l.warps = static_cast<int>(kSm100MatmulWarps);
    l.smem_bytes = B == Bug::kSmemOverCapacity ? K::kSmemBytes + 200 * 1024 : K::kSmemBytes;
    if (K::kRetarget) {
      // Per-CTA copies of A's map in global memory, as the host would upload them.
      using Map = models::sm100::TensorMapModel;
      auto& mem = gpu.gmem();
      const uint64_t ws = mem.allocate(sizeof(Map) * static_cast<uint64_t>(l.grid), "A.maps");
      p_.a_workspace = reinterpret_cast<Map*>(mem.host(ws));
      for (int i = 0; i < l.grid; ++i) p_.a_workspace[i] = p_.a;
      p_.a_base = a_;
      p_.a_row_bytes = uint64_t{lda_} * 2;
    }
    return l;
  }
  void kernel() override { K::run(p_); }
  std::string check(Gpu& gpu) override {
    auto& mem = gpu.gmem();
    const auto r = sim::check_matmul<bf16_t>(
        p_.m, p_.n, p_.k, reinterpret_cast<uint16_t*>(mem.host(a_)), lda_,
        reinterpret_cast<uint16_t*>(mem.host(b_)), lda_, mem.host(c_), ldc_);
    return r.passed ? "" : r.detail;
  }

 private:
  typename K::Params p_{};
  uint32_t lda_ = 0, ldc_ = 0;
  uint64_t a_ = 0, b_ = 0, c_ = 0;
};

#define SK_CORPUS_CASE(Value, name, what) \
  SK_VERIFY_SM100_CASE(MutantCase<Bug::Value>, "corpus." name, what)

SK_CORPUS_CASE(kNone, "fixed", "the correct corpus kernel: twin of every seeded bug");
SK_CORPUS_CASE(kPreArrive, "pre_arrive", "correct pre-arrive protocol: twin of missing_pre_arrive");
SK_CORPUS_CASE(kStageOverwrite, "stage_overwrite", "MMA releases a stage before reading it");
SK_CORPUS_CASE(kReadUnloadedStage, "read_unloaded_stage", "MMA reads a stage without waiting on full");
SK_CORPUS_CASE(kExpectTxLow, "expect_tx_low", "expect_tx announces only the A tile");
SK_CORPUS_CASE(kExpectTxHigh, "expect_tx_high", "expect_tx announces 1 KiB more than is loaded");
SK_CORPUS_CASE(kArrivalCountHigh, "arrival_count_high", "full barriers expect 2 arrivals, 1 comes");
SK_CORPUS_CASE(kArrivalCountLow, "arrival_count_low", "acc.empty expects 1 arrival, 4 warps arrive");
SK_CORPUS_CASE(kParityFromLoopIndex, "parity_from_loop_index", "MMA waits parity kb & 1, not lap & 1");
SK_CORPUS_CASE(kParityFixed, "parity_fixed", "MMA always waits parity 0");
SK_CORPUS_CASE(kBadParity, "bad_parity", "MMA waits parity 2");
SK_CORPUS_CASE(kMissingPreArrive, "missing_pre_arrive", "pre-arrive protocol without the pre-arrive");
SK_CORPUS_CASE(kLoopBoundsMismatch, "loop_bounds_mismatch", "MMA consumes one k-block less than loaded");
SK_CORPUS_CASE(kEpilogueBeforeCommit, "epilogue_before_commit", "acc.full released by a plain arrive");
SK_CORPUS_CASE(kAccumulatorReuse, "accumulator_reuse", "MMA reuses an accumulator without acc.empty");
SK_CORPUS_CASE(kTmemLeak, "tmem_leak", "TMEM never deallocated");
SK_CORPUS_CASE(kDeallocEarly, "dealloc_early", "dealloc without waiting for the epilogue");
SK_CORPUS_CASE(kDoubleDealloc, "double_dealloc", "TMEM deallocated twice");
SK_CORPUS_CASE(kBadNcols, "bad_ncols", "tcgen05.alloc of 96 columns");
SK_CORPUS_CASE(kAllocAfterRelinquish, "alloc_after_relinquish", "alloc after relinquish_alloc_permit");
SK_CORPUS_CASE(kMissingProxyFence, "missing_proxy_fence", "staging written, TMA store without fence");
SK_CORPUS_CASE(kUseBeforeInit, "use_before_init", "tmem_dealloc barrier never initialised");
SK_CORPUS_CASE(kReinitWithoutInval, "reinit_without_inval", "input barriers initialised twice");
SK_CORPUS_CASE(kSmemOverCapacity, "smem_over_capacity", "launch asks for more than 227 KB of SMEM");
SK_CORPUS_CASE(kMisalignedTmaDst, "misaligned_tma_dst", "TMA destination off the 1024-B boundary");
SK_CORPUS_CASE(kStageNeverReleased, "stage_never_released", "epilogue drops its stage handle");
SK_CORPUS_CASE(kStageDoubleRelease, "stage_double_release", "epilogue releases a stage twice");
SK_CORPUS_CASE(kTileToTwoCtas, "tile_to_two_ctas", "scheduler gives every tile to every CTA");
SK_CORPUS_CASE(kAllocOneLane, "alloc_one_lane", "tcgen05.alloc issued by one lane");
SK_CORPUS_CASE(kLaneQuarter, "lane_quarter", "epilogue warp reads another warp's TMEM lanes");
SK_CORPUS_CASE(kMissingWaitLd, "missing_wait_ld", "tcgen05.ld without tcgen05.wait::ld");
SK_CORPUS_CASE(kStagingReuse, "staging_reuse", "staging rewritten before the store read it");
SK_CORPUS_CASE(kMmaPlainRelease, "mma_plain_release", "input stage released by arrive, not commit");
SK_CORPUS_CASE(kNamedBarrierPartial, "named_barrier_partial", "named barrier reached by one lane");
SK_CORPUS_CASE(kRetargetA, "retarget_a", "A's map retargeted per tile: twin of the tensormap bugs");
SK_CORPUS_CASE(kTensormapNoFence, "tensormap_no_fence", "retargeted map used without acquire");
SK_CORPUS_CASE(kTensormapInUse, "tensormap_in_use", "map retargeted while its loads are in flight");
SK_CORPUS_CASE(kStoreAliveAtExit, "store_alive_at_exit", "epilogue exits without waiting for its last TMA stores");
SK_CORPUS_CASE(kLoadAliveAtExit, "load_alive_at_exit", "producer prefetches a stage no warp waits for, then exits");
SK_CORPUS_CASE(kInitNotOrdered, "init_not_ordered", "load warp inits the input ring after the CTA barrier");

}  // namespace
}  // namespace sk::corpus
