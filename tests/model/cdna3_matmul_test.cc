// The CDNA3 matmuls (8-wave ping-pong and wave-specialized, counter rings,
// LDS DMA, MFMA into VGPRs) in the MI300X model against the FP64 host
// reference, on odd shapes (partial tiles in M, N and K, a single element,
// several tiles per workgroup), both stage counts, with random inputs; each
// run is a separate simulation process and must be clean under the race
// detector. Timing mode must complete a full grid, and the swizzled LDS
// layout must leave no bank conflicts. MN-major operands (K rows of M or N
// elements, their MFMA operands gathered by 16-bit LDS reads) match too, with
// odd M, N and K and NaN row padding.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <string>
#include <utility>

#include "engine/isolate.h"
#include "runner/kernels/mi300x_matmul_run.h"

namespace {
sk::sim::RunResult run(uint32_t m, uint32_t n, uint32_t k, uint32_t stages, const char* kernel,
                       bool functional, uint64_t seed, bool a_mn_major = false,
                       bool b_mn_major = false) {
  sk::sim::MatmulRequest q;
  q.a_mn_major = a_mn_major;
  q.b_mn_major = b_mn_major;
  q.arch = "mi300x";
  q.amd_kernel = kernel;
  q.m = m;
  q.n = n;
  q.k = k;
  q.tile_n = 128;
  q.stages = stages;
  q.functional = functional;
  q.seed = seed;
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_mi300x_matmul(q))); },
      300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("cdna3 matmuls match the reference on odd shapes") {
  struct Case {
    uint32_t m, n, k, stages;
  };
  // 257 x 192 x 128 is the check; 1 x 1 x 2 a single element; 300 x 260
  // x 98 partial tiles in every dimension (K not a multiple of 32); 640 x 384
  // x 64 with a grid of 15 tiles on 15 CUs.
  const Case cases[] = {{257, 192, 128, 3}, {1, 1, 2, 2}, {300, 260, 98, 3}, {640, 384, 64, 2}};
  uint64_t seed = 11;
  for (const char* kernel : {"pingpong", "wave_specialized"})
    for (const Case& c : cases) {
      auto r = run(c.m, c.n, c.k, c.stages, kernel, true, seed++);
      INFO(kernel << " " << c.m << "x" << c.n << "x" << c.k << " stages " << c.stages << ": "
                  << r.check.detail);
      CHECK(r.arch == "mi300x");
      CHECK(r.status == "completed");
      std::string found;
      for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
      CHECK_MESSAGE(r.findings.empty(), found);
      CHECK(r.check.ran);
      CHECK(r.check.passed);
      CHECK(r.lds_bank_conflict_cycles == 0);
    }
}

TEST_CASE("cdna3 matmuls with MN-major operands match the reference") {
  // Default pitches: the row length rounded up to 8 elements, the rest NaN.
  // 301 x 259: an odd M and N, whose last DMA dword of each K row takes one
  // padding element into a tile row past the matrix; K = 97 is odd, which
  // only two MN-major operands allow.
  uint64_t seed = 41;
  for (const char* kernel : {"pingpong", "wave_specialized"})
    for (const auto& [a, b] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
      const uint32_t k = a && b ? 97 : 98;
      auto r = run(301, 259, k, 3, kernel, true, seed++, a, b);
      INFO(kernel << " layout-a " << (a ? "col" : "row") << " layout-b " << (b ? "row" : "col")
                  << ": " << r.check.detail);
      CHECK(r.status == "completed");
      std::string found;
      for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
      CHECK_MESSAGE(r.findings.empty(), found);
      CHECK(r.check.ran);
      CHECK(r.check.passed);
      CHECK(r.lds_bank_conflict_cycles == 0);
    }
}

TEST_CASE("cdna3 timing mode runs a full grid") {
  auto r = run(2048, 2048, 1024, 3, "wave_specialized", false, 0);
  CHECK(r.status == "completed");
  CHECK(r.ctas == 256);
  CHECK(r.tflops > 50);
  CHECK(r.peak_fraction < 1.0);
  CHECK(r.lds_instructions > 0);
  CHECK(r.lds_bank_conflict_cycles == 0);
}

TEST_CASE("cdna3 configurations the kernels do not have are refused") {
  sk::sim::MatmulRequest q;
  q.arch = "mi300x";
  q.m = q.n = 64;
  q.k = 64;
  q.tile_n = 128;
  q.stages = 3;
  CHECK(sk::sim::validate_mi300x_matmul(q).empty());
  q.stages = 4;
  CHECK(sk::sim::validate_mi300x_matmul(q).find("2-3") != std::string::npos);
  q.stages = 3;
  q.k = 63;
  CHECK(sk::sim::validate_mi300x_matmul(q).find("even") != std::string::npos);
  q.a_mn_major = q.b_mn_major = true;  // no K-major operand: any K
  CHECK(sk::sim::validate_mi300x_matmul(q).empty());
  q.a_mn_major = q.b_mn_major = false;
  q.k = 64;
  q.amd_kernel = "interleave";
  CHECK(!sk::sim::validate_mi300x_matmul(q).empty());
}
