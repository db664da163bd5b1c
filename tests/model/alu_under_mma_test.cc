// alu_under_mma_test.cc: the per-lane math that kernels account for
// (arch::account_alu) runs slower while the SM's tensor core has wgmma
// queued (Params::alu_under_mma, measured on an H100: docs/hardware.md), at
// the idle rate after the queue drains, and not at all slower where the
// factors are 1 (the SM100 files).
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "models/sm100/api_common.h"
#include "models/sm90/api.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
namespace arch = sk::arch;
namespace api = sk::models::sm100::api;

uint64_t now_here() { return api::local_now(api::gpu().warp()); }

// One warpgroup: with `ops` wgmma m64n256k16 queued first (ops x 129
// cycles of the tensor core), each warp accounts `ex2` SFU instructions
// (8 cycles each when idle) and notes the cycles the account took and the
// cycles from its start to the end of the queue.
void account_beside_queue(int ops, uint32_t ex2) {
  uint8_t* smem = arch::dynamic_smem();
  const uint64_t d = arch::make_smem_desc_sw128(arch::smem_addr(smem));
  sk::LaneArray<float, 128> acc;
  arch::wgmma_fence();
  for (int i = 0; i < ops; ++i) arch::wgmma_m64n256k16_bf16_ss(acc, d, d, i > 0);
  arch::wgmma_commit_group();
  const uint64_t t0 = now_here();
  const uint64_t queue_end = api::gpu().cta_of_current().tc_free;
  arch::account_alu(0, ex2, 0, 0);
  const uint64_t t1 = now_here();
  arch::wgmma_wait_group<0>();
  if (arch::warp_idx() == 0)
    note(std::to_string(t1 - t0) + " " + std::to_string(queue_end > t0 ? queue_end - t0 : 0));
}

// Cycles the account took and the queue left at its start, from warp 0.
std::pair<double, double> run(int ops, uint32_t ex2, double sfu_factor) {
  ScenarioOptions o;
  o.warps = 4;
  o.functional = false;
  o.alu_under_mma.sfu = sfu_factor;
  o.setup = [] { sk::models::sm90::api::reset(); };
  auto r = run_scenario(o, [&] { account_beside_queue(ops, ex2); });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.status == "completed");
  REQUIRE(r.notes.size() == 1);
  double took = 0, queue = 0;
  REQUIRE(std::sscanf(r.notes[0].c_str(), "%lf %lf", &took, &queue) == 2);
  return {took, queue};
}
}  // namespace

TEST_CASE("the SFU runs alu_under_mma times slower while wgmma are queued, then at its own rate") {
  // Idle tensor core: 16 ex2 at 8 cycles, whatever the factor.
  const auto idle = run(0, 16, 1.33);
  CHECK(idle.second == 0);
  CHECK(idle.first == doctest::Approx(128).epsilon(0.02));
  // Inside a long queue (16 ops, about 2,000 cycles): the whole account at 1.33x.
  const auto inside = run(16, 16, 1.33);
  REQUIRE(inside.second > 1.33 * 128);
  CHECK(inside.first == doctest::Approx(1.33 * 128).epsilon(0.02));
  // The same with factor 1: the queue changes nothing.
  CHECK(run(16, 16, 1.0).first == doctest::Approx(idle.first).epsilon(0.01));
  // Past the queue's end (2 ops, about 260 cycles, against 1,024 idle cycles of
  // ex2): the queued part runs at 1/1.33 of the rate, the rest at full rate.
  const auto past = run(2, 128, 1.33);
  REQUIRE(past.second > 0);
  REQUIRE(past.second < 1024);
  const double want = past.second + (1024 - past.second / 1.33);
  CHECK(past.first == doctest::Approx(want).epsilon(0.01));
  CHECK(past.first > 1024);
  CHECK(past.first < 1.33 * 1024);
}
