// conv2d_test.cc: conv2d fprop (the structured matmul with the im2col TileIO)
// in functional mode against the FP64 direct convolution, on odd shapes:
// channel counts that are not multiples of the 64-channel k-block, output
// pixel tiles that wrap across rows and images, stride, padding and
// dilation, both output types and both tile widths. Each run must complete,
// match the reference and report no findings (the race detector is on).
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <string>
#include <tuple>

#include "engine/isolate.h"
#include "runner/kernels/conv2d_run.h"
#include "verify/explore/explorer.h"

namespace {

sk::sim::RunResult run(const sk::sim::Conv2dRequest& q) {
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_conv2d(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}

sk::sim::Conv2dRequest request(sk::sim::Conv2dShape s, uint32_t tile_n, uint32_t stages,
                               bool f32, uint64_t seed) {
  sk::sim::Conv2dRequest q;
  q.shape = s;
  q.run.tile_n = tile_n;
  q.run.stages = stages;
  q.run.out_f32 = f32;
  q.run.seed = seed;
  q.run.functional = true;
  q.run.num_sms = 8;  // a few CTAs, each with several tiles
  return q;
}

void check_clean(const sk::sim::Conv2dRequest& q) {
  REQUIRE_MESSAGE(sk::sim::validate_conv2d(q).empty(), sk::sim::validate_conv2d(q));
  const sk::sim::RunResult r = run(q);
  INFO(r.config_name);
  CHECK(r.status == "completed");
  CHECK(r.check.ran);
  CHECK_MESSAGE(r.check.passed, r.check.detail);
  std::string fs;
  for (const auto& f : r.findings) fs += f.rule + ": " + f.message + "\n";
  CHECK_MESSAGE(r.findings.empty(), fs);
}

}  // namespace

TEST_CASE("3x3, stride 1, pad 1, 37 channels: odd everything") {
  sk::sim::Conv2dShape s;
  s.n = 2, s.h = 9, s.w = 11, s.c = 37, s.k = 70, s.r = 3, s.s = 3;
  s.pad_h = s.pad_w = 1;
  check_clean(request(s, 64, 3, false, 1));
}

TEST_CASE("3x2 filter, stride 2, no padding, 100 channels (two k-blocks per tap), f32 out") {
  sk::sim::Conv2dShape s;
  s.n = 3, s.h = 14, s.w = 13, s.c = 100, s.k = 96, s.r = 3, s.s = 2;
  s.stride_h = s.stride_w = 2;
  check_clean(request(s, 128, 4, true, 2));
}

TEST_CASE("dilation 2 with padding 2, and unequal strides") {
  sk::sim::Conv2dShape s;
  s.n = 1, s.h = 12, s.w = 10, s.c = 20, s.k = 33, s.r = 2, s.s = 3;
  s.pad_h = 2, s.pad_w = 1;
  s.dil_h = 2, s.dil_w = 2;
  s.stride_h = 1, s.stride_w = 2;
  check_clean(request(s, 64, 2, false, 3));
}

TEST_CASE("1x1 convolution is a GEMM over pixels") {
  sk::sim::Conv2dShape s;
  s.n = 2, s.h = 7, s.w = 9, s.c = 64, s.k = 130, s.r = 1, s.s = 1;
  check_clean(request(s, 128, 3, false, 4));
}

TEST_CASE("shapes the im2col map cannot express are refused") {
  sk::sim::Conv2dShape s;
  s.n = 1, s.h = 4, s.w = 4, s.c = 8, s.k = 8, s.r = 7, s.s = 7;
  CHECK(!sk::sim::validate_conv2d(request(s, 64, 2, false, 0)).empty());  // filter > input
  s.r = s.s = 3;
  s.stride_h = 9;
  CHECK(!sk::sim::validate_conv2d(request(s, 64, 2, false, 0)).empty());  // stride > 8
  s.stride_h = 1;
  CHECK(sk::sim::validate_conv2d(request(s, 64, 2, false, 0)).empty());
  CHECK(!sk::sim::validate_conv2d(request(s, 256, 2, false, 0)).empty());  // tile N
}

TEST_CASE("200 explored schedules of two convolutions: no findings, every check passes") {
  sk::sim::Conv2dShape a;
  a.n = 2, a.h = 9, a.w = 11, a.c = 37, a.k = 70, a.r = 3, a.s = 3;
  a.pad_h = a.pad_w = 1;
  a.stride_h = a.stride_w = 2;
  sk::sim::Conv2dShape b;
  b.n = 1, b.h = 10, b.w = 7, b.c = 72, b.k = 40, b.r = 2, b.s = 2;
  b.dil_h = b.dil_w = 2;
  b.pad_h = b.pad_w = 1;
  for (const auto& [shape, tile_n, stages] : {std::tuple{a, 64u, 3u}, std::tuple{b, 128u, 2u}}) {
    const sk::sim::Conv2dRequest base = request(shape, tile_n, stages, false, 0);
    sk::verify::ExploreOptions eo;
    const uint64_t schedules = sk::verify::clean_schedules(200);  // capped under sanitizers
    for (uint64_t seed = 0; seed < schedules; ++seed) eo.seeds.push_back(seed);
    eo.jobs = 2;
    const auto rep = sk::verify::explore(
        [&base](uint64_t seed) {
          sk::sim::Conv2dRequest q = base;
          q.run.seed = seed;
          return sk::sim::run_conv2d(q);
        },
        eo);
    CHECK(rep.explored == schedules);
    CHECK(rep.errors.empty());
    std::string fs;
    for (const auto& f : rep.findings) fs += f.finding.rule + " (seed " + std::to_string(f.seed) + ")\n";
    CHECK_MESSAGE(rep.findings.empty(), fs);
  }
}

TEST_CASE("fused residual (8th warp): Y = conv + beta * C on odd shapes, both output types") {
  sk::sim::Conv2dShape s;
  s.n = 2, s.h = 9, s.w = 11, s.c = 37, s.k = 70, s.r = 3, s.s = 3;
  s.pad_h = s.pad_w = 1;
  auto q = request(s, 64, 3, false, 5);
  q.residual = true;
  q.beta = 0.75f;
  check_clean(q);
  sk::sim::Conv2dShape t;
  t.n = 3, t.h = 14, t.w = 13, t.c = 100, t.k = 96, t.r = 3, t.s = 2;
  t.stride_h = t.stride_w = 2;
  auto f = request(t, 128, 2, true, 6);
  f.residual = true;
  f.beta = -1.5f;
  check_clean(f);
}
