// lockstep_test.cc: a warpgroup's converged region run once for its four
// warps (models/sm90/lockstep.h). A consumer warpgroup waits for stages that
// a producer warp fills, runs a wgmma group on each and releases it; with
// lockstep its leader makes the calls for all four and the followers leave
// the region at the leader's time, without switching once per call; a
// region that the four warps do not run alike, or that holds an operation
// the leader cannot make for them, is reported; a warp that never reaches
// the region leaves its leader in a reported deadlock; a functional run
// keeps the timing run's times. (That every warp's data is computed is
// tests/model:sm90_matmul_test's and the CLI's functional checks: they run
// in lockstep.)
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "models/sm100/api_common.h"
#include "models/sm90/api.h"
#include "models/sm90/lockstep.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;
namespace arch = sk::arch;
namespace api = sk::models::sm100::api;

constexpr int kBlocks = 12;

// What the consumer warpgroup's region holds besides the ring's calls.
enum class Extra { kNone, kWarp2SyncsTwice, kExpectTx, kWarp3Skips };

// Warps 0-3: the consumer warpgroup; warp 4: the producer (warps 5-7 idle).
// The producer "loads" each stage by arriving on its full barrier 300
// cycles after the stage is free; the consumers run one m64n128k16 group of
// 4 ops per stage inside a converged region and note when they leave it,
// with the engine's events so far.
void ring(Extra extra) {
  uint8_t* smem = arch::dynamic_smem();
  auto* full = reinterpret_cast<uint64_t*>(smem + 32768);
  uint64_t* empty = full + 2;
  const uint32_t w = arch::warp_idx();
  if (w == 4) {
    if (auto lane = sk::elect_one()) {
      arch::mbarrier_init(&full[0], 1);
      arch::mbarrier_init(&full[1], 1);
      arch::mbarrier_init(&empty[0], 4);
      arch::mbarrier_init(&empty[1], 4);
    }
  }
  arch::cta_sync();
  if (w == 4) {
    for (int k = 0; k < kBlocks; ++k) {
      const uint32_t s = static_cast<uint32_t>(k % 2), lap = static_cast<uint32_t>(k / 2);
      while (!arch::mbarrier_try_wait_parity(&empty[s], (lap & 1) ^ 1)) {
      }
      api::gpu().warp().stall(300, "load");
      if (auto lane = sk::elect_one()) arch::mbarrier_arrive(&full[s]);
    }
    return;
  }
  if (w > 4) return;
  const uint64_t d = arch::make_smem_desc_sw128(arch::smem_addr(smem));
  sk::LaneArray<float, 64> acc;
  if (extra == Extra::kWarp3Skips && w == 3) return;
  arch::warpgroup_converged_begin();
  for (int k = 0; k < kBlocks; ++k) {
    const uint32_t s = static_cast<uint32_t>(k % 2), lap = static_cast<uint32_t>(k / 2);
    while (!arch::mbarrier_try_wait_parity(&full[s], lap & 1)) {
    }
    arch::wgmma_fence();
    for (int i = 0; i < 4; ++i) arch::wgmma_m64n128k16_bf16_ss(acc, d, d, i > 0 || k > 0);
    arch::wgmma_commit_group();
    arch::wgmma_wait_group<0>();
    if (extra == Extra::kWarp2SyncsTwice && w == 2 && k == 3) arch::sync_warp();
    if (extra == Extra::kExpectTx && k == 5) arch::mbarrier_expect_tx(&full[s], 0);
    arch::sync_warp();
    if (auto lane = sk::elect_one()) arch::mbarrier_arrive(&empty[s]);
  }
  arch::warpgroup_converged_end();
  std::ostringstream line;
  line << w << ' ' << api::local_now(api::gpu().warp()) << ' ' << api::gpu().engine().events();
  note(line.str());
}

struct Left {
  std::vector<double> at;  // each consumer warp's time at the region's end
  double events = 0;       // the engine's events when the last one left
};

ScenarioResult run(bool lockstep, Extra extra = Extra::kNone, bool functional = false) {
  ScenarioOptions o;
  o.warps = 8;
  o.functional = functional;
  o.setup = [lockstep] {
    sk::models::sm90::api::set_lockstep(lockstep);
    sk::models::sm90::api::reset();
  };
  return run_scenario(o, [extra] { ring(extra); });
}

Left left(const ScenarioResult& r) {
  REQUIRE_MESSAGE(r.ok, r.error);
  INFO(r.findings_text());
  REQUIRE(r.status == "completed");
  REQUIRE(r.findings.empty());
  REQUIRE(r.notes.size() == 4);
  Left l;
  l.at.resize(4);
  for (const std::string& n : r.notes) {
    std::istringstream in(n);
    int w = 0;
    double at = 0, events = 0;
    in >> w >> at >> events;
    l.at[static_cast<size_t>(w)] = at;
    l.events = std::max(l.events, events);
  }
  return l;
}
}  // namespace

TEST_CASE("lockstep runs a converged region once for the warpgroup, near the per-warp times") {
  const Left each = left(run(false));
  const Left once = left(run(true));
  INFO("per warp: " << each.at[0] << " " << each.at[1] << " " << each.at[2] << " " << each.at[3] << ", "
                    << each.events << " events; lockstep: " << once.at[0] << ", " << once.events << " events");
  // The followers leave with the leader.
  CHECK(once.at[1] == once.at[0]);
  CHECK(once.at[2] == once.at[0]);
  CHECK(once.at[3] == once.at[0]);
  // The ring's time is the producer's loads and the groups either way: the
  // leader leaves among the four warps simulated one by one (they leave a
  // quarter of an op apart), within 3 %.
  const double first = *std::min_element(each.at.begin(), each.at.end());
  const double last = *std::max_element(each.at.begin(), each.at.end());
  CHECK(once.at[0] >= 0.97 * first);
  CHECK(once.at[0] <= 1.03 * last);
  // One warp's calls instead of four.
  CHECK(once.events < 0.6 * each.events);
}

TEST_CASE("a region that the four warps do not run alike is reported") {
  const ScenarioResult r = run(true, Extra::kWarp2SyncsTwice);
  REQUIRE_MESSAGE(r.ok, r.error);
  INFO(r.findings_text());
  CHECK(r.count_rule("model.lockstep_diverged") == 1);
  // Without lockstep the extra __syncwarp is just a call.
  CHECK(left(run(false, Extra::kWarp2SyncsTwice)).at.size() == 4);
}

TEST_CASE("an operation in a region that the leader cannot make for its followers is reported") {
  const ScenarioResult r = run(true, Extra::kExpectTx);
  REQUIRE_MESSAGE(r.ok, r.error);
  INFO(r.findings_text());
  CHECK(r.has_rule("model.lockstep_unreplayed"));
}

TEST_CASE("a warp that never reaches the region leaves its leader in a reported deadlock") {
  const ScenarioResult r = run(true, Extra::kWarp3Skips);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  std::string details;
  for (const std::string& d : r.deadlock_details) details += d + "\n";
  INFO(details);
  CHECK(details.find("warp(s) 3 of its warpgroup to reach the converged region") != std::string::npos);
}

TEST_CASE("functional runs keep lockstep's times and compute every warp's rows") {
  // The same times as the timing run's: the followers wait for the stages
  // and compute their data without timing of their own.
  const Left timing = left(run(true));
  const Left functional = left(run(true, Extra::kNone, true));
  CHECK(functional.at == timing.at);
}
