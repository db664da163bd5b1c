// Initialisation order from happens-before (mbarrier.init_not_ordered): a use
// of an mbarrier by a warp that is not ordered after the barrier's init is a
// finding whatever the order in time; the init of a TMEM address handed over
// through shared memory is the race detector's (a race on the SMEM word).
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "models/sm100/gpu.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;
namespace arch = sk::arch;

uint64_t* bar0() { return reinterpret_cast<uint64_t*>(arch::dynamic_smem()); }

// Keeps the calling warp busy for about `n` issue slots, synchronising with
// nobody.
void busy(int n) {
  for (int i = 0; i < n; ++i) arch::sync_warp();
}

ScenarioOptions two_warps() {
  ScenarioOptions o;
  o.warps = 2;
  o.race_detector = true;
  return o;
}


// Warp 0 initialises the barrier (count 1) and waits for phase 0; warp 1
// arrives on it once. `order` decides what orders the init before warp 1's
// arrive: 0 nothing (warp 1 only runs later in time), 1 a CTA barrier,
// 2 a named barrier between the two warps.
ScenarioResult init_then_arrive(int order) {
  return run_scenario(two_warps(), [order] {
    const uint32_t warp = arch::warp_idx();
    if (warp == 0) {
      if (auto l = sk::elect_one()) {
        arch::mbarrier_init(bar0(), 1);
        arch::annotate_barrier(bar0(), "ready", -1);
        arch::fence_mbarrier_init();
      }
    } else {
      busy(200);  // the init runs first in time in every case
    }
    if (order == 1) arch::cta_sync();
    if (order == 2) {
      if (warp == 0)
        arch::named_barrier_arrive(1, 64);
      else
        arch::named_barrier_sync(1, 64);
    }
    if (warp == 1) {
      if (auto l = sk::elect_one()) arch::mbarrier_arrive(bar0());
    } else {
      while (!arch::mbarrier_try_wait_parity(bar0(), 0)) {
      }
    }
  });
}
}  // namespace

TEST_CASE("an arrive not ordered after the barrier's init is a finding even when the init ran first") {
  auto r = init_then_arrive(0);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE_MESSAGE(r.findings.size() == 1, r.findings_text());
  const auto& f = r.findings[0];
  CHECK(f.cls == "mbarrier");
  CHECK(f.rule == "mbarrier.init_not_ordered");
  CHECK(f.message.find("mbarrier.arrive on ready by CTA 0 warp 1") != std::string::npos);
  CHECK(f.message.find("mbarrier.init by CTA 0 warp 0") != std::string::npos);
  CHECK(f.message.find("init_order_test.cc:") != std::string::npos);  // the init's line
  CHECK(f.message.find("the init happened to run first") != std::string::npos);
  CHECK(f.message.find("cta_sync") != std::string::npos);  // the fix
}

TEST_CASE("a CTA barrier or a named barrier after the init orders it before the other warp") {
  for (int order : {1, 2}) {
    CAPTURE(order);
    auto r = init_then_arrive(order);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("a wait that runs before an unordered init is reported by both rules") {
  auto r = run_scenario(two_warps(), [] {
    if (arch::warp_idx() == 0) {
      busy(200);
      if (auto l = sk::elect_one()) arch::mbarrier_init(bar0(), 1);
    } else {
      note(arch::mbarrier_test_wait_parity(bar0(), 1) ? "passed" : "blocked");
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("mbarrier.use_before_init") == 1);
  REQUIRE_MESSAGE(r.count_rule("mbarrier.init_not_ordered") == 1, r.findings_text());
  for (const auto& f : r.findings)
    if (f.rule == "mbarrier.init_not_ordered")
      CHECK(f.message.find("the use ran before the init") != std::string::npos);
}

TEST_CASE("a use ordered before the init is only use_before_init") {
  auto r = run_scenario(two_warps(), [] {
    if (arch::warp_idx() == 1) {
      if (auto l = sk::elect_one()) (void)arch::mbarrier_test_wait_parity(bar0(), 1);
    }
    arch::cta_sync();
    if (arch::warp_idx() == 0) {
      if (auto l = sk::elect_one()) arch::mbarrier_init(bar0(), 1);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("mbarrier.use_before_init") == 1);
  CHECK_MESSAGE(r.count_rule("mbarrier.init_not_ordered") == 0, r.findings_text());
}

namespace {
sk::arch::TensorMap g_map;

void setup_map() {
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t addr = gpu.gmem().allocate(64, "src");
  std::string err = sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 16, 2, 32, 16, 1,
                                                       sk::models::sm100::Swizzle::kNone);
  REQUIRE(err.empty());
}
}  // namespace

TEST_CASE("a TMA load issued by a warp not ordered after the init is a finding at its issue") {
  auto o = two_warps();
  o.setup = setup_map;
  auto r = run_scenario(o, [] {
    uint8_t* dst = arch::dynamic_smem() + 1024;
    if (arch::warp_idx() == 0) {
      if (auto l = sk::elect_one()) {
        arch::mbarrier_init(bar0(), 1);
        arch::fence_mbarrier_init();
        arch::mbarrier_arrive_expect_tx(bar0(), 32);
      }
      while (!arch::mbarrier_try_wait_parity(bar0(), 0)) {
      }
    } else {
      busy(200);
      if (auto l = sk::elect_one()) arch::tma_load_2d(dst, &g_map, bar0(), 0, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE_MESSAGE(r.findings.size() == 1, r.findings_text());
  CHECK(r.findings[0].rule == "mbarrier.init_not_ordered");
  CHECK(r.findings[0].message.find("cp.async.bulk.tensor complete_tx") != std::string::npos);
}

// The TMEM address that tcgen05.alloc writes to shared memory is a plain
// SMEM word to the race detector: a warp reading it without a barrier that
// orders the alloc's write before the read races on it.
namespace {
ScenarioResult tmem_address_handoff(bool ordered) {
  return run_scenario(two_warps(), [ordered] {
    auto* slot = reinterpret_cast<uint32_t*>(arch::dynamic_smem() + 64);
    if (arch::warp_idx() == 0) {
      arch::tcgen05_alloc(slot, 32);
      arch::tcgen05_fence_before_thread_sync();
    } else {
      busy(200);
    }
    if (ordered) arch::cta_sync();
    if (arch::warp_idx() == 1) note(std::to_string(arch::ld_shared(slot)));
    arch::cta_sync();
    if (arch::warp_idx() == 0) {
      arch::tcgen05_fence_after_thread_sync();
      arch::tcgen05_dealloc(arch::ld_shared(slot), 32);
    }
  });
}
}  // namespace

TEST_CASE("a TMEM address read from shared memory before the alloc is ordered races") {
  auto r = tmem_address_handoff(false);
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE_MESSAGE(r.has_rule("race.read_after_write"), r.findings_text());
  CHECK(r.findings[0].message.find("tcgen05.alloc (address write)") != std::string::npos);
  r = tmem_address_handoff(true);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

// The explorer's "interleavings covered" counts distinct order digests: equal
// for runs that synchronize in the same order, different when some object
// sees its events in another order (here: which of two warps arrives first).
ScenarioResult two_arrivals(int first, int early = 10) {
  ScenarioOptions o = two_warps();
  o.warps = 3;
  return run_scenario(o, [first, early] {
    const uint32_t warp = arch::warp_idx();
    if (warp == 0) {
      if (auto l = sk::elect_one()) {
        arch::mbarrier_init(bar0(), 2);
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    if (warp == 0) {
      while (!arch::mbarrier_try_wait_parity(bar0(), 0)) {
      }
      return;
    }
    busy(static_cast<int>(warp) == first ? early : 300);
    if (auto l = sk::elect_one()) arch::mbarrier_arrive(bar0());
  });
}

TEST_CASE("the order digest tells synchronization orders apart, and only those") {
  // a2: the same order with other timing.
  const auto a = two_arrivals(1), a2 = two_arrivals(1, 120), b = two_arrivals(2);
  REQUIRE_MESSAGE(a.ok, a.error);
  REQUIRE_MESSAGE(b.ok, b.error);
  CHECK_MESSAGE(a.findings.empty(), a.findings_text());
  CHECK(a.sync_digest != 0);
  CHECK(a.sync_digest == a2.sync_digest);
  CHECK(a.sync_digest != b.sync_digest);
}
