// The SM100 (FlashAttention-4 style) attention forward
// (kernels/attention/sm100_attention.h) in the model against an FP64 host
// softmax(Q K^T) V and its log-sum-exp, on odd shapes: sequence lengths that
// are not multiples of the tiles (a work unit's second Q tile past the end),
// causal and not (rows that see no key), grouped-query heads, head dims 64
// and 128, persistent CTAs with several units each, keys whose scores grow
// (the correction warpgroup rescales O), random normal inputs; each run a
// separate process, clean under the race detector.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "engine/isolate.h"
#include "runner/kernels/attention_run.h"

namespace {
sk::sim::RunResult run(const sk::sim::AttentionShape& s, uint32_t stages, bool functional,
                       uint64_t seed, int num_sms = 0) {
  sk::sim::AttentionRequest q;
  q.shape = s;
  q.run.arch = "sm100";
  q.run.stages = stages;
  q.run.tile_n = 128;
  q.run.functional = functional;
  q.run.seed = seed;
  q.run.num_sms = num_sms;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_attention(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}

void check_clean_and_exact(const sk::sim::RunResult& r) {
  CHECK(r.status == "completed");
  std::string found;
  for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
  CHECK_MESSAGE(r.findings.empty(), found);
  CHECK(r.check.ran);
  CHECK(r.check.passed);
}
}  // namespace

TEST_CASE("sm100 attention matches the FP64 reference on odd shapes") {
  struct Case {
    sk::sim::AttentionShape s;
    uint32_t stages;
    int num_sms;
  };
  const Case cases[] = {
      {{1, 2, 2, 200, 300, 128, false}, 2, 0},   // the unit's second tile past seqlen_q
      {{2, 4, 2, 130, 129, 64, true}, 3, 0},     // grouped heads, causal, one past a tile
      {{1, 2, 1, 300, 100, 128, true}, 2, 0},    // causal, seqlen_q > seqlen_k: rows see nothing
      {{1, 1, 1, 77, 513, 64, false}, 4, 0},     // one key past four blocks
      {{2, 3, 1, 520, 390, 64, true}, 2, 2},     // 2 SMs: persistent CTAs, 3 units each
      {{1, 1, 1, 40, 1000, 128, true}, 3, 0},    // short queries against long keys, causal
  };
  uint64_t seed = 11;
  for (const Case& c : cases) {
    auto r = run(c.s, c.stages, true, seed++, c.num_sms);
    INFO(c.s.batch << "x" << c.s.heads << "/" << c.s.kv_heads << " q " << c.s.seqlen_q << " k "
                   << c.s.seqlen_k << " d " << c.s.head_dim << (c.s.causal ? " causal" : "") << ": "
                   << r.check.detail);
    check_clean_and_exact(r);
  }
}

TEST_CASE("sm100 attention rescales O when row maxima grow, and stays exact") {
  // K's rows grow along the keys (AttentionShape::ramp): each block raises
  // most rows' maxima past the 2^8 threshold, so the softmax takes the new
  // maximum and the correction warpgroup rescales O in TMEM. The corpus's
  // vote_lane_zero bug shows the path runs: skipping it fails this check.
  sk::sim::AttentionShape s{1, 2, 1, 260, 700, 64, false};
  s.ramp = true;
  check_clean_and_exact(run(s, 3, true, 5));
  s = {1, 1, 1, 256, 520, 128, true};
  s.ramp = true;
  check_clean_and_exact(run(s, 2, true, 6));
}

TEST_CASE("sm100 attention in FP16 matches the FP64 reference at FP16's tolerance") {
  sk::sim::AttentionShape s{1, 2, 1, 200, 257, 128, true};
  s.f16 = true;
  auto h = run(s, 2, true, 41);
  check_clean_and_exact(h);
  CHECK(h.out_dtype == "f16");
  s.f16 = false;
  auto b = run(s, 2, true, 41);
  CHECK(b.check.passed);
  CHECK(h.check.max_abs_err * 4 < b.check.max_abs_err);
}

TEST_CASE("sm100 attention: timing mode completes below the tensor cores' peak") {
  auto r = run({1, 16, 16, 2048, 2048, 128, false}, 3, false, 0);
  CHECK(r.status == "completed");
  CHECK(r.arch == "sm100");
  CHECK(r.tflops > 100);
  CHECK(r.peak_fraction < 1.0);
}

TEST_CASE("sm100 attention refuses what it cannot run, with one line") {
  sk::sim::AttentionRequest q;
  q.run.arch = "sm100";
  q.run.stages = 3;
  q.run.tile_n = 128;
  q.shape = {1, 4, 4, 128, 128, 128, false};
  CHECK(sk::sim::validate_attention(q).empty());
  q.run.stages = 5;
  CHECK(sk::sim::validate_attention(q).find("outside 2-4") != std::string::npos);
  q.run.stages = 2;
  q.shape = {1, 4, 4, 128, 128, 256, false};
  CHECK(sk::sim::validate_attention(q).find("head-dim") != std::string::npos);
}
