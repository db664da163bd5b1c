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

namespace {
// hw/h200/wgmma_group.cu's wgmma_alu rows in the model: warpgroup 1 runs
// `groups` groups of 8 m64n128k16 (one queued behind the one running) while
// warpgroup 0 accounts FMA steps (8 FMAs an account, or none) until warpgroup
// 1 is done. Warpgroup 1's first warp notes its cycles per op.
double op_cycles_beside_fma(bool fma, double a) {
  ScenarioOptions o;
  o.warps = 8;
  o.functional = false;
  o.alu_under_mma = {1.48, 1.97, 1.33, 1.17};  // the SM90 files' factors
  o.tensor_under_fp32 = {a, 1.25};
  o.setup = [] { sk::models::sm90::api::reset(); };
  constexpr int kGroups = 64;
  auto r = run_scenario(o, [&] {
    static bool running;
    if (arch::warp_idx() == 4) running = true;
    if (arch::warp_idx() < 4) {
      arch::named_barrier_sync(1, 256);
      // Each account at the engine's time (as the kernel's softmax follows a
      // wait that synced), so that it sees the queue as it is.
      while (fma && running) {
        api::gpu().warp().sync();
        arch::account_alu(8, 0, 0, 0);
      }
      return;
    }
    arch::named_barrier_sync(1, 256);
    uint8_t* smem = arch::dynamic_smem();
    const uint64_t d = arch::make_smem_desc_sw128(arch::smem_addr(smem));
    sk::LaneArray<float, 64> acc;
    const uint64_t t0 = now_here();
    arch::wgmma_fence();
    for (int g = 0; g < kGroups; ++g) {
      for (int i = 0; i < 8; ++i) arch::wgmma_m64n128k16_bf16_ss(acc, d, d, true);
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<1>();
    }
    arch::wgmma_wait_group<0>();
    if (arch::warp_idx() == 4) {
      note(std::to_string(static_cast<double>(now_here() - t0) / (kGroups * 8)));
      running = false;
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.status == "completed");
  REQUIRE(r.notes.size() == 1);
  return std::stod(r.notes[0]);
}
}  // namespace

// tensor_under_fp32: the FP32 pipe's work on the SM's other warps slows the
// tensor core (H200: a full FMA stream beside m64n128k16 takes each op from
// 64 to 194 cycles, 3.03x; docs/hardware.md, "Math beside the tensor core
// slows it"). With the law's a at the measured 1.06 (p 1.25) the model's ops
// beside an FMA stream take 2-4x their time; with a = 0, or with no FMAs
// beside them, their own.
TEST_CASE("the FP32 pipe's work on other warps slows the tensor core by tensor_under_fp32") {
  const double idle = op_cycles_beside_fma(false, 1.06);
  const double off = op_cycles_beside_fma(true, 0.0);
  const double on = op_cycles_beside_fma(true, 1.06);
  INFO("cycles per op: idle " << idle << ", FMA stream with a = 0 " << off << ", with a = 1.06 " << on);
  CHECK(idle == doctest::Approx(64).epsilon(0.1));
  CHECK(off == doctest::Approx(idle).epsilon(0.02));
  CHECK(on > 2 * idle);
  CHECK(on < 4 * idle);
}
