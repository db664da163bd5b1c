// The SM90 attention forward (kernels/attention/sm90_attention.h) in the
// model against an FP64 host softmax(Q K^T) V and its log-sum-exp, on odd
// shapes: sequence lengths that are not multiples of the 128-row tiles,
// causal and not, grouped-query heads, head dims 64, 128 and 256, random normal
// inputs; each run a separate process, clean under the race detector.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "engine/isolate.h"
#include "runner/kernels/attention_run.h"

namespace {
sk::sim::RunResult run(const sk::sim::AttentionShape& s, uint32_t stages, bool functional,
                       uint64_t seed, bool stamp_tiles = false, bool pinned = false) {
  sk::sim::AttentionRequest q;
  q.shape = s;
  q.stamp_tiles = stamp_tiles;
  if (pinned) q.run.sm_clock_ghz = q.run.rest_clock_ghz = 1.8;  // one simulation, no clock search
  q.run.arch = "sm90";
  q.run.stages = stages;
  q.run.tile_n = 128;
  q.run.functional = functional;
  q.run.seed = seed;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_attention(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("sm90 attention matches the FP64 reference on odd shapes") {
  struct Case {
    sk::sim::AttentionShape s;
    uint32_t stages;
  };
  const Case cases[] = {
      {{1, 2, 2, 200, 300, 128, false}, 2},
      {{2, 4, 2, 130, 129, 64, true}, 2},   // grouped heads, causal, seqlens one past a tile
      {{1, 2, 1, 300, 100, 128, true}, 2},  // causal, seqlen_q > seqlen_k: early rows see nothing
      {{1, 1, 1, 77, 513, 64, false}, 3},
      {{1, 2, 1, 150, 200, 256, true}, 2},  // head dim 256: blocks of 64 keys, grouped, causal
      {{1, 1, 1, 64, 65, 256, false}, 2},   // one key past a 64-key block
  };
  uint64_t seed = 11;
  for (const Case& c : cases) {
    auto r = run(c.s, c.stages, true, seed++);
    INFO(c.s.batch << "x" << c.s.heads << "/" << c.s.kv_heads << " q " << c.s.seqlen_q << " k "
                   << c.s.seqlen_k << " d " << c.s.head_dim << (c.s.causal ? " causal" : "") << ": "
                   << r.check.detail);
    CHECK(r.status == "completed");
    std::string found;
    for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
    CHECK_MESSAGE(r.findings.empty(), found);
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

TEST_CASE("sm90 attention in FP16 matches the FP64 reference at FP16's tolerance") {
  // The check's tolerance is eps = 2^-11 for FP16 against 2^-8 for BF16: a
  // kernel that rounded P or O to BF16 (or read FP16 bits as BF16) fails it.
  struct Case {
    sk::sim::AttentionShape s;
    uint32_t stages;
  };
  Case cases[] = {
      {{1, 2, 1, 200, 257, 128, true}, 2},  // grouped heads, causal, ragged key blocks
      {{2, 2, 2, 129, 100, 64, false}, 3},
      {{1, 1, 1, 100, 130, 256, false}, 2},
  };
  uint64_t seed = 41;
  for (Case& c : cases) {
    c.s.f16 = true;
    auto h = run(c.s, c.stages, true, seed);
    INFO("q " << c.s.seqlen_q << " k " << c.s.seqlen_k << " d " << c.s.head_dim << ": " << h.check.detail);
    CHECK(h.status == "completed");
    CHECK(h.findings.empty());
    CHECK(h.check.ran);
    CHECK(h.check.passed);
    CHECK(h.out_dtype == "f16");
    // The same shape and seed in BF16: FP16's 10-bit significand leaves O
    // several times closer to the reference.
    c.s.f16 = false;
    auto b = run(c.s, c.stages, true, seed++);
    CHECK(b.check.passed);
    CHECK(h.check.max_abs_err * 4 < b.check.max_abs_err);
  }
}

TEST_CASE("sm90 attention: timing mode completes and counts attention's FLOPs") {
  auto r = run({1, 16, 16, 2048, 2048, 128, false}, 2, false, 0);
  CHECK(r.status == "completed");
  CHECK(r.tflops > 50);
  CHECK(r.peak_fraction < 1.0);
}

TEST_CASE("sm90 attention: --stamp-tiles reads the kernel's probe points without moving the prediction") {
  // 35 heads x 512 / 128 = 140 query tiles of 4 blocks on 132 SMs: CTA 0
  // runs tiles 0 and 132.
  const sk::sim::AttentionShape s{1, 35, 35, 512, 512, 128, false};
  const auto plain = run(s, 2, false, 0, false, true);
  const auto stamped = run(s, 2, false, 0, true, true);
  CHECK(plain.stamps.empty());
  CHECK(stamped.cycles == plain.cycles);
  CHECK(stamped.predicted_time_us == plain.predicted_time_us);
  const auto& st = stamped.stamps;
  REQUIRE(st.contains("tiles"));
  const auto& tiles = st.at("tiles").as_array();
  REQUIRE(tiles.size() == 4);  // two tiles of each consumer warpgroup
  for (const auto& v : tiles) {
    const auto& t = v.as_object();
    const double blocks = t.at("blocks").to_number<double>(), store = t.at("store").to_number<double>();
    // Four blocks of 64 x 128 scores and two GEMMs each take at least the
    // tensor core's 4 x 2 x 64 x 128 x 128 MACs at 1024 per SM-cycle.
    CHECK(blocks > 4 * 2 * 64 * 128 * 128 / 1024.0);
    CHECK(store > 1000);  // the epilogue's math alone: 16 cycles per column
    CHECK(t.at("q_wait").to_number<double>() >= 0);
  }
  // Warpgroup 0's first tile runs to its second's start (the period's
  // median is over that one tile); the second has no next.
  const auto& t0 = tiles[0].as_object();
  const auto& m = st.at("tile_median_wg0").as_object();
  CHECK(t0.at("q_wait").to_number<double>() + t0.at("blocks").to_number<double>() +
            t0.at("store").to_number<double>() + t0.at("to_next_tile").to_number<double>() ==
        doctest::Approx(m.at("tile_cycles").to_number<double>()));
  CHECK(tiles[1].as_object().at("to_next_tile").to_number<double>() == 0);
  // The blocks between a tile's first and last (two per tile here).
  CHECK(st.at("block_median_wg1").as_object().at("blocks").to_number<uint64_t>() == 4);
  const auto& e = st.at("epilogues").as_object();
  CHECK(e.at("count").to_number<uint64_t>() == 140);
  CHECK(e.at("ctas_storing_mean").to_number<double>() >= 1.0);
  CHECK(e.at("ctas_storing_mean").to_number<double>() <= 132.0);
}

TEST_CASE("sm90 attention refuses shapes it cannot run, with one line") {
  sk::sim::AttentionRequest q;
  q.run.arch = "sm90";
  q.run.stages = 2;
  q.run.tile_n = 128;
  q.shape = {1, 6, 4, 128, 128, 128, false};
  CHECK(sk::sim::validate_attention(q).find("not a multiple") != std::string::npos);
  q.shape = {1, 4, 4, 128, 128, 96, false};
  CHECK(sk::sim::validate_attention(q).find("head-dim") != std::string::npos);
  q.shape = {1, 4, 4, 0, 128, 128, false};
  CHECK(!sk::sim::validate_attention(q).empty());
  q.shape = {1, 4, 4, 128, 128, 128, false};
  CHECK(sk::sim::validate_attention(q).empty());
  q.shape = {1, 4, 4, 128, 128, 256, false};
  CHECK(sk::sim::validate_attention(q).empty());
  q.run.stages = 3;  // three 64-key stages of K and V next to a 64 KiB Q tile: 256 KB
  CHECK(sk::sim::validate_attention(q).find("do not fit") != std::string::npos);
  q.run.stages = 2;
  q.run.arch = "sm100";  // head dim 256 does not fit TMEM next to the second Q tile
  CHECK(sk::sim::validate_attention(q).find("head-dim") != std::string::npos);
  q.shape.head_dim = 128;
  q.stamp_tiles = true;  // the SM100 kernel has no probe points
  CHECK(sk::sim::validate_attention(q).find("--stamp-tiles") != std::string::npos);
  q.run.arch = "mi300x";
  CHECK(sk::sim::validate_attention(q).find("sm90 or sm100") != std::string::npos);
}
