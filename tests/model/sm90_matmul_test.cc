// The SM90 structured matmul (wgmma, register accumulators) in the model
// against an FP64 host reference, on odd shapes, both tile widths and stages
// 2 to 6, with random inputs; each run is a separate simulation process and
// must be clean under the race detector. Timing mode must complete too.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "engine/isolate.h"
#include "runner/kernels/sm90_matmul_run.h"

namespace {
sk::sim::RunResult run(uint32_t m, uint32_t n, uint32_t k, uint32_t tile_n, uint32_t stages,
                       bool functional, uint64_t seed) {
  sk::sim::MatmulRequest q;
  q.m = m;
  q.n = n;
  q.k = k;
  q.tile_n = tile_n;
  q.stages = stages;
  q.functional = functional;
  q.seed = seed;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_sm90_matmul(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("sm90 matmul matches the reference on odd shapes") {
  struct Case {
    uint32_t m, n, k, tile_n, stages;
  };
  const Case cases[] = {{257, 199, 72, 128, 2}, {129, 300, 130, 256, 3}, {1, 1, 1, 128, 6},
                        {300, 257, 200, 256, 4}, {200, 136, 64, 128, 5}};
  uint64_t seed = 5;
  for (const Case& c : cases) {
    auto r = run(c.m, c.n, c.k, c.tile_n, c.stages, true, seed++);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages << ": "
             << r.check.detail);
    CHECK(r.arch == "sm90");
    CHECK(r.status == "completed");
    std::string found;
    for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
    CHECK_MESSAGE(r.findings.empty(), found);
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

TEST_CASE("sm90 timing mode runs a full grid") {
  auto r = run(4096, 4096, 4096, 256, 4, false, 0);
  CHECK(r.status == "completed");
  CHECK(r.ctas == 132);
  CHECK(r.tflops > 100);
  CHECK(r.peak_fraction < 1.0);
}

TEST_CASE("sm90 configurations that do not fit are refused") {
  sk::sim::MatmulRequest q;
  q.m = q.n = q.k = 128;
  q.tile_n = 256;
  q.stages = 5;
  CHECK(sk::sim::validate_sm90_matmul(q).find("do not fit") != std::string::npos);
  q.stages = 4;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.tile_n = 64;
  CHECK(!sk::sim::validate_sm90_matmul(q).empty());
}
