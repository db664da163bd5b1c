// trace_estimate_test.cc: estimated_trace_bytes, which refuses traces over
// kMaxTraceBytes before anything runs, must bound the real file from above
// without refusing traces far below the limit: for each configuration here,
// actual <= estimate <= 2 x actual.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/isolate.h"
#include "runner/kernels/matmul_dispatch.h"

namespace {

uint64_t traced_bytes(const sk::sim::MatmulRequest& q) {
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_matmul(q))); }, 120);
  REQUIRE_MESSAGE(res.ok, res.error);
  return std::filesystem::file_size(q.trace_path);
}

}  // namespace

TEST_CASE("the trace-size estimate bounds real traces within a factor of 2") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  struct Config {
    const char* arch;
    uint32_t m, n, k, tile_n, stages;
    bool clc;
    std::vector<int> sms;
    const char* amd_kernel = "pingpong";
    bool a_mn_major = false, b_mn_major = false;
  };
  const Config configs[] = {
      {"sm100", 1024, 1024, 1024, 256, 4, false, {}},
      {"sm100", 1000, 700, 900, 64, 3, false, {}},
      {"sm100", 2048, 1024, 512, 128, 6, false, {0, 1, 2}},
      {"sm100", 1024, 2048, 256, 64, 4, true, {}},
      {"sm90", 1024, 1024, 1024, 128, 4, false, {}},
      {"sm90", 777, 1500, 640, 256, 3, false, {}},
      {"mi300x", 1000, 700, 900, 128, 3, false, {}},
      {"mi300x", 1024, 1024, 512, 128, 2, false, {}, "wave_specialized"},
      // MN-major operands: four ds_read_u16 per MFMA operand, more LDS slices.
      {"mi300x", 1000, 700, 900, 128, 3, false, {}, "pingpong", false, true},
      {"mi300x", 1024, 1024, 512, 128, 2, false, {}, "wave_specialized", true, true},
  };
  for (const Config& c : configs) {
    sk::sim::MatmulRequest q;
    q.arch = c.arch;
    q.m = c.m, q.n = c.n, q.k = c.k, q.tile_n = c.tile_n, q.stages = c.stages;
    q.clc = c.clc;
    q.amd_kernel = c.amd_kernel;
    q.a_mn_major = c.a_mn_major, q.b_mn_major = c.b_mn_major;
    q.trace_path = dir + "/estimate.pftrace";
    q.trace_sms = c.sms;
    REQUIRE_MESSAGE(sk::sim::validate_matmul(q).empty(), sk::sim::validate_matmul(q));
    const uint64_t actual = traced_bytes(q);
    const uint64_t estimate = sk::sim::estimated_trace_bytes(q);
    INFO(c.arch, " ", c.amd_kernel, " ", c.m, "x", c.n, "x", c.k, " tile n ", c.tile_n,
         ": actual ", actual, " bytes, estimate ", estimate);
    CHECK(actual <= estimate);
    CHECK(estimate <= 2 * actual);
  }
}

TEST_CASE("functional runs and full-grid traces beyond the bounds are refused") {
  sk::sim::MatmulRequest q;
  q.arch = "sm100";
  q.m = 1u << 20, q.n = 8192, q.k = 1;
  q.functional = true;
  CHECK(sk::sim::validate_matmul(q).find("host memory") != std::string::npos);
  q.functional = false;
  q.m = q.n = q.k = 16384;
  q.trace_path = "/tmp/never-written.pftrace";
  CHECK(sk::sim::validate_matmul(q).find("--trace-sms") != std::string::npos);
  q.trace_sms = {0, 1, 2, 3};
  CHECK(sk::sim::validate_matmul(q).empty());
}

// libsystemc (linked through //engine) provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
