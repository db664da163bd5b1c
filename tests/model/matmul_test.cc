// The SM100 structured matmul in the model against an FP64 host reference, on
// odd shapes, every tile width, stages 2 to 8 and both output types, with
// random inputs. Each run is a separate simulation process.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "engine/isolate.h"
#include "runner/kernels/sm100_matmul_run.h"

namespace {
struct Case {
  uint32_t m, n, k, tile_n, stages;
  bool f32;
};

sk::sim::RunResult run(const Case& c, uint64_t seed) {
  sk::sim::MatmulRequest q;
  q.m = c.m;
  q.n = c.n;
  q.k = c.k;
  q.tile_n = c.tile_n;
  q.stages = c.stages;
  q.out_f32 = c.f32;
  q.functional = true;
  q.seed = seed;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_sm100_matmul(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("matmul matches the reference on odd shapes") {
  const Case cases[] = {
      {257, 129, 65, 256, 4, false}, {200, 136, 72, 128, 2, false}, {1, 1, 1, 256, 3, true},
      {1, 1, 1, 64, 8, false},       {384, 256, 512, 256, 3, false}, {513, 300, 200, 64, 7, false},
      {129, 513, 1000, 128, 6, true}, {77, 1000, 130, 128, 5, true},  {640, 70, 9, 64, 2, true},
      {300, 257, 333, 256, 2, false},
  };
  uint64_t seed = 11;
  for (const Case& c : cases) {
    auto r = run(c, seed++);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages
             << (c.f32 ? " f32" : " bf16") << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK(r.findings.empty());
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

TEST_CASE("configurations that exceed shared memory are refused, not run") {
  sk::sim::MatmulRequest q;
  q.m = q.n = q.k = 128;
  q.tile_n = 256;
  q.stages = 5;
  CHECK(sk::sim::validate_sm100_matmul(q).find("shared memory") != std::string::npos);
  q.stages = 4;
  CHECK(sk::sim::validate_sm100_matmul(q).empty());
}
