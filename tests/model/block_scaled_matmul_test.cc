// block_scaled_matmul_test.cc: the block-scaled matmul (the structured matmul
// with the block-scaled mainloop: A, B and their scale factors per stage,
// tcgen05.cp of the scales, block-scaled UMMA) in functional mode against the
// FP64 references of runner/ref/block_formats.h, on odd shapes: M, N and K that
// are not multiples of the tiles, of the 128-row scale atoms or of the scale
// block (a partial last block along K), both tile widths, MXFP8 with E4M3 and
// with E5M2 elements, and NVFP4. Each run must complete, match the reference
// and report no findings (the race detector is on).
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <functional>
#include <string>
#include <tuple>

#include "engine/isolate.h"
#include "runner/kernels/block_scaled_run.h"
#include "verify/explore/explorer.h"

namespace {
using sk::sim::BlockFormat;
using sk::sim::BlockScaledRequest;

template <class Fn>
sk::sim::RunResult run(Fn&& fn) {
  auto res = sk::sim::run_isolated(
      [&fn] { return boost::json::serialize(sk::sim::to_json(fn())); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}

void require_clean(const sk::sim::RunResult& r) {
  INFO(r.config_name);
  CHECK(r.status == "completed");
  CHECK(r.check.ran);
  CHECK_MESSAGE(r.check.passed, r.check.detail);
  std::string fs;
  for (const auto& f : r.findings) fs += f.rule + ": " + f.message + "\n";
  CHECK_MESSAGE(r.findings.empty(), fs);
}

void explore_clean(const std::function<sk::sim::RunResult(uint64_t)>& fn) {
  sk::verify::ExploreOptions eo;
  const uint64_t schedules = sk::verify::clean_schedules(200);  // capped under sanitizers
  for (uint64_t seed = 0; seed < schedules; ++seed) eo.seeds.push_back(seed);
  eo.jobs = 2;
  const auto rep = sk::verify::explore(fn, eo);
  CHECK(rep.explored == schedules);
  CHECK(rep.errors.empty());
  std::string fs;
  for (const auto& f : rep.findings)
    fs += f.finding.rule + " (seed " + std::to_string(f.seed) + "): " + f.finding.message + "\n";
  CHECK_MESSAGE(rep.findings.empty(), fs);
}

BlockScaledRequest request(BlockFormat f, uint32_t m, uint32_t n, uint32_t k, uint32_t tile_n,
                           uint32_t stages, uint64_t seed) {
  BlockScaledRequest q;
  q.format = f;
  q.run.m = m, q.run.n = n, q.run.k = k;
  q.run.tile_n = tile_n;
  q.run.stages = stages;
  q.run.seed = seed;
  q.run.functional = true;
  q.run.num_sms = 4;  // a few CTAs, some with several tiles
  return q;
}

void check_clean(const BlockScaledRequest& q) {
  REQUIRE_MESSAGE(sk::sim::validate_block_scaled(q).empty(), sk::sim::validate_block_scaled(q));
  require_clean(run([&q] { return sk::sim::run_block_scaled(q); }));
}

void check_blockwise(const sk::sim::MatmulRequest& q) {
  REQUIRE_MESSAGE(sk::sim::validate_blockwise_fp8(q).empty(), sk::sim::validate_blockwise_fp8(q));
  require_clean(run([&q] { return sk::sim::run_blockwise_fp8(q); }));
}

}  // namespace

TEST_CASE("MXFP8 E4M3: odd M, N and K (a partial last scale block), 128-wide tiles") {
  check_clean(request(BlockFormat::kMxfp8E4m3, 257, 200, 300, 128, 3, 1));
}

TEST_CASE("MXFP8 E5M2: 256-wide tiles whose second scale row block is past N") {
  check_clean(request(BlockFormat::kMxfp8E5m2, 130, 300, 77, 256, 2, 2));
}

TEST_CASE("NVFP4: odd K (a half-filled last byte), 128-wide tiles, several K stages") {
  check_clean(request(BlockFormat::kNvfp4, 190, 136, 601, 128, 4, 3));
}

TEST_CASE("NVFP4: 256-wide tiles, K below one stage") {
  check_clean(request(BlockFormat::kNvfp4, 129, 257, 40, 256, 2, 4));
}

TEST_CASE("configurations that do not fit, and bad shapes, are refused") {
  CHECK(!sk::sim::validate_block_scaled(request(BlockFormat::kNvfp4, 64, 64, 64, 64, 2, 0)).empty());
  CHECK(!sk::sim::validate_block_scaled(request(BlockFormat::kNvfp4, 64, 64, 64, 256, 6, 0)).empty());
  CHECK(!sk::sim::validate_block_scaled(request(BlockFormat::kMxfp8E4m3, 0, 64, 64, 128, 2, 0)).empty());
  auto sm90 = request(BlockFormat::kMxfp8E4m3, 64, 64, 64, 128, 2, 0);
  sm90.run.arch = "sm90";
  CHECK(!sk::sim::validate_block_scaled(sm90).empty());
}

TEST_CASE("200 explored schedules of MXFP8 and NVFP4: no findings, every check passes") {
  for (const auto& base : {request(BlockFormat::kMxfp8E4m3, 200, 140, 260, 128, 2, 0),
                           request(BlockFormat::kNvfp4, 150, 260, 300, 256, 2, 0)})
    explore_clean([&base](uint64_t seed) {
      BlockScaledRequest q = base;
      q.run.seed = seed;
      return sk::sim::run_block_scaled(q);
    });
}

TEST_CASE("blockwise FP8: odd M, N and K (a partial last k-block), several tiles per CTA") {
  check_blockwise(request(BlockFormat::kMxfp8E4m3, 259, 300, 333, 128, 3, 5).run);
  check_blockwise(request(BlockFormat::kMxfp8E4m3, 70, 129, 100, 128, 2, 6).run);
}

TEST_CASE("blockwise FP8: refused configurations") {
  CHECK(!sk::sim::validate_blockwise_fp8(request(BlockFormat::kMxfp8E4m3, 64, 64, 64, 256, 2, 0).run).empty());
  CHECK(!sk::sim::validate_blockwise_fp8(request(BlockFormat::kMxfp8E4m3, 64, 64, 64, 128, 7, 0).run).empty());
}

TEST_CASE("200 explored schedules of blockwise FP8: no findings, every check passes") {
  const sk::sim::MatmulRequest base = request(BlockFormat::kMxfp8E4m3, 200, 260, 300, 128, 2, 0).run;
  explore_clean([&base](uint64_t seed) {
    sk::sim::MatmulRequest q = base;
    q.seed = seed;
    return sk::sim::run_blockwise_fp8(q);
  });
}
