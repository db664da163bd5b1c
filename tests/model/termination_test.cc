// termination_test.cc: every run ends, and says how (docs/reliability.md).
//
// A deadlock (every warp blocked, nothing in flight) is a finding the moment
// it happens; a livelock (warps that keep running while nothing synchronizes)
// is found when the cycle bound stops it, naming the warps still running; a
// kernel that is still synchronizing when the bound stops it has reached a
// limit, which is not a finding. None may hang the simulator.
#include <doctest/doctest.h>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

uint64_t* bar(int i) { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()) + i; }

void init_bars() {
  if (sk::arch::warp_idx() == 0) {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(0), 1);
      sk::arch::mbarrier_init(bar(1), 1);
      sk::arch::fence_mbarrier_init();
    }
  }
  sk::arch::cta_sync();
}
}  // namespace

TEST_CASE("two warps waiting on each other: a deadlock finding, at once") {
  ScenarioOptions o;
  o.warps = 2;
  o.max_cycles = 1'000'000'000;  // the bound must not be what ends this run
  auto r = run_scenario(o, [] {
    init_bars();
    const uint32_t w = sk::arch::warp_idx();
    // Each waits for the other's arrival before giving its own.
    while (!sk::arch::mbarrier_try_wait_parity(bar(w), 0)) {
    }
    if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar(1 - w));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  CHECK(r.cycles < 100'000);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].message.rfind("deadlock:", 0) == 0);
  CHECK(r.deadlock_details.size() == 2);  // both warps, with what each waits on
}

TEST_CASE("a warp polling a barrier that never completes: a livelock at the cycle bound") {
  ScenarioOptions o;
  o.warps = 2;
  o.max_cycles = 200'000;
  auto r = run_scenario(o, [] {
    init_bars();
    if (sk::arch::warp_idx() == 1) return;
    // test_wait never blocks: the warp is never "blocked", so this is not a
    // deadlock but a livelock, which only the bound can end.
    while (!sk::arch::mbarrier_test_wait_parity(bar(0), 0)) {
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "livelock");
  CHECK(r.cycles >= 200'000);
  REQUIRE(r.has_rule("livelock.no_progress"));
  CHECK_MESSAGE(r.findings_text().find("--max-cycles") != std::string::npos, r.findings_text());
  REQUIRE(r.deadlock_details.size() == 1);  // the polling warp, still running
  CHECK(r.deadlock_details[0].find("warp 0") != std::string::npos);
}

TEST_CASE("a runaway loop of shared-memory traffic is a livelock at the cycle bound too") {
  ScenarioOptions o;
  o.warps = 1;
  o.max_cycles = 50'000;
  auto r = run_scenario(o, [] {
    uint32_t v[4] = {1, 2, 3, 4};
    for (;;) sk::arch::st_shared_b128(sk::arch::dynamic_smem() + 256, v);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "livelock");
  CHECK(r.has_rule("livelock.no_progress"));
}

TEST_CASE("loops of fences or of identity queries are livelocks at the cycle bound") {
  ScenarioOptions o;
  o.warps = 2;
  o.max_cycles = 50'000;
  auto r = run_scenario(o, [] {
    if (sk::arch::warp_idx() == 0) {
      for (;;) sk::arch::fence_proxy_async_shared();  // issue cost, never paid by a sync
    }
    uint32_t sum = 0;
    for (;;) sum += sk::arch::warp_idx() + sk::arch::lane_id();  // no issue cost at all
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "livelock");
  CHECK(r.has_rule("livelock.no_progress"));
  CHECK(r.deadlock_details.size() == 2);
}

TEST_CASE("warps that keep synchronizing when the bound stops them reached a limit, no finding") {
  ScenarioOptions o;
  o.warps = 2;
  o.max_cycles = 300'000;
  auto r = run_scenario(o, [] {
    init_bars();
    const uint32_t w = sk::arch::warp_idx();
    // A producer and a consumer handing a token back and forth forever: every
    // round completes a phase on each barrier, so this is a long run, not a
    // livelock.
    for (uint32_t phase = 0;; phase ^= 1) {
      if (w == 0) {
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar(0));
        while (!sk::arch::mbarrier_try_wait_parity(bar(1), phase)) {
        }
      } else {
        while (!sk::arch::mbarrier_try_wait_parity(bar(0), phase)) {
        }
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar(1));
      }
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "limit");
  CHECK(r.cycles >= 300'000);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("a bound too short to tell a livelock from a long run is a limit") {
  ScenarioOptions o;
  o.warps = 1;
  o.max_cycles = 5'000;  // below the livelock window (20,000 cycles)
  auto r = run_scenario(o, [] {
    uint32_t v[4] = {1, 2, 3, 4};
    for (;;) sk::arch::st_shared_b128(sk::arch::dynamic_smem() + 256, v);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "limit");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}
