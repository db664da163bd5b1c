// TMEM allocation rules in the model (PTX ISA 9.7.16.7.1) and tcgen05.ld's
// lane-quarter rule.
#include <doctest/doctest.h>

#include <cstring>
#include <map>

#include "kernels/arch/sm100.h"
#include "models/sm100/gpu.h"
#include "kernels/core/lanes.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

uint32_t* slot() { return reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 64); }
}  // namespace

TEST_CASE("alloc writes the address to SMEM; alloc, relinquish, dealloc is clean") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    sk::arch::tcgen05_alloc(slot(), 256);
    sk::arch::tcgen05_alloc(slot() + 1, 128);
    note(std::to_string(*slot()) + " " + std::to_string(*(slot() + 1)));
    sk::arch::tcgen05_relinquish_alloc_permit();
    sk::arch::tcgen05_dealloc(*slot(), 256);
    sk::arch::tcgen05_dealloc(*(slot() + 1), 128);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0 256"});
}

// PTX 9.7.16.1.2: the number of columns must not increase between two
// allocations of a CTA (in execution order, freed or not). The twin
// allocates the larger block first.
TEST_CASE("tmem.alloc_grows: 64 columns, then 128; the twin takes 128 first") {
  for (bool grows : {true, false}) {
    CAPTURE(grows);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [grows] {
      const uint32_t first = grows ? 64 : 128, second = grows ? 128 : 64;
      sk::arch::tcgen05_alloc(slot(), first);
      sk::arch::tcgen05_dealloc(*slot(), first);
      sk::arch::tcgen05_alloc(slot(), second);
      sk::arch::tcgen05_relinquish_alloc_permit();
      sk::arch::tcgen05_dealloc(*slot(), second);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (grows)
      CHECK_MESSAGE(r.count_rule("tmem.alloc_grows") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("bad column counts, alloc after relinquish, double free and leaks are findings") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    sk::arch::tcgen05_alloc(slot(), 48);    // not a power of two
    sk::arch::tcgen05_alloc(slot(), 1024);  // more than 512
    sk::arch::tcgen05_alloc(slot(), 64);
    uint32_t a = *slot();
    sk::arch::tcgen05_dealloc(a, 64);
    sk::arch::tcgen05_dealloc(a, 64);       // double free
    sk::arch::tcgen05_alloc(slot(), 32);    // leaked at exit
    sk::arch::tcgen05_relinquish_alloc_permit();
    sk::arch::tcgen05_alloc(slot(), 32);    // after relinquish
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  int bad_ncols = 0;
  for (const auto& f : r.findings) bad_ncols += f.rule == "tmem.bad_ncols";
  CHECK(bad_ncols == 2);
  CHECK(r.has_rule("tmem.bad_dealloc"));
  CHECK(r.has_rule("tmem.alloc_after_relinquish"));
  CHECK(r.has_rule("tmem.leak"));
  CHECK(r.findings.size() == 5);
}

TEST_CASE("tcgen05.alloc by one elected lane is a partial-warp collective") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    if (auto l = sk::elect_one()) sk::arch::tcgen05_alloc(slot(), 32);
    sk::arch::tcgen05_dealloc(*slot(), 32);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tcgen05.partial_warp"));
}

TEST_CASE("an allocation that can never be satisfied blocks and is reported as a deadlock") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    sk::arch::tcgen05_alloc(slot(), 512);
    sk::arch::tcgen05_alloc(slot() + 1, 32);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  // No barrier to blame: the engine's own rule, naming what the warp waits for.
  CHECK_MESSAGE(r.count_rule("deadlock.all_blocked") == 1, r.findings_text());
  REQUIRE(r.deadlock_details.size() == 1);
  CHECK(r.deadlock_details[0].find("TMEM is full") != std::string::npos);
}

TEST_CASE("warp w may only read TMEM lanes of quarter w % 4") {
  auto r = run_scenario(ScenarioOptions{.warps = 2}, [] {
    if (sk::arch::warp_idx() == 0) sk::arch::tcgen05_alloc(slot(), 32);
    sk::arch::cta_sync();
    sk::LaneArray<uint32_t, 32> regs;
    // Warp 1 owns lanes 32-63; reading lanes 0-31 breaks the rule.
    if (sk::arch::warp_idx() == 1) {
      sk::arch::tcgen05_ld_32x32b_x32(*slot() + (32u << 16), regs);
      sk::arch::tcgen05_ld_32x32b_x32(*slot(), regs);
      sk::arch::tcgen05_wait_ld();
    }
    sk::arch::cta_sync();
    if (sk::arch::warp_idx() == 0) sk::arch::tcgen05_dealloc(*slot(), 32);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tmem.lane_quarter"));
  CHECK(r.findings.size() == 1);
}
