// mbarrier semantics in the model: phases complete on arrivals *and* tx bytes,
// parity waits, per-lane arrival counting, and the lifecycle rules.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kernels/arch/sm100.h"
#include "models/sm100/gpu.h"
#include "kernels/core/lanes.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

uint64_t* bar0() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()); }
std::string yn(bool b) { return b ? "1" : "0"; }

// A 32-byte TMA box: 16 BF16 elements of row 0.
sk::arch::TensorMap g_map;
uint16_t* g_src = nullptr;

void setup_map() {
  auto& gpu = sk::models::sm100::Gpu::current();
  uint64_t addr = gpu.gmem().allocate(64, "src");
  g_src = reinterpret_cast<uint16_t*>(gpu.gmem().host(addr));
  for (int i = 0; i < 32; ++i) g_src[i] = static_cast<uint16_t>(0x3f80 + i);
  std::string err = sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 16, 2, 32, 16, 1,
                                                       sk::models::sm100::Swizzle::kNone);
  REQUIRE(err.empty());
}
}  // namespace

TEST_CASE("a phase completes only when pending arrivals and tx-count both reach zero") {
  ScenarioOptions o;
  o.warps = 1;
  o.setup = setup_map;
  auto r = run_scenario(o, [] {
    uint64_t* bar = bar0();
    uint8_t* dst = sk::arch::dynamic_smem() + 1024;
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 2);
      note("init " + yn(sk::arch::mbarrier_test_wait_parity(bar, 0)));
      sk::arch::mbarrier_arrive(bar);
      note("one arrival " + yn(sk::arch::mbarrier_test_wait_parity(bar, 0)));
      sk::arch::mbarrier_arrive_expect_tx(bar, 32);
      note("all arrivals, 32 tx pending " + yn(sk::arch::mbarrier_test_wait_parity(bar, 0)));
      sk::arch::tma_load_2d(dst, &g_map, bar, 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
    note("after complete_tx " + yn(sk::arch::mbarrier_test_wait_parity(bar, 0)) +
         yn(sk::arch::mbarrier_test_wait_parity(bar, 1)));
    uint16_t v[16];
    memcpy(v, dst, 32);
    bool same = true;
    for (int i = 0; i < 16; ++i) same = same && v[i] == 0x3f80 + i;
    note("bytes landed " + yn(same));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  REQUIRE(r.notes.size() == 5);
  CHECK(r.notes[0] == "init 0");
  CHECK(r.notes[1] == "one arrival 0");
  CHECK(r.notes[2] == "all arrivals, 32 tx pending 0");
  CHECK(r.notes[3] == "after complete_tx 10");  // phase 0 done, phase 1 not
  CHECK(r.notes[4] == "bytes landed 1");
}

TEST_CASE("a fresh barrier reports the preceding phase (parity 1) as complete") {
  auto r = run_scenario(ScenarioOptions{}, [] {
    if (sk::arch::warp_idx() != 0) return;
    if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar0(), 1);
    note(yn(sk::arch::mbarrier_try_wait_parity(bar0(), 1)));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.notes == std::vector<std::string>{"1"});
  CHECK(r.findings.empty());
}

TEST_CASE("every active lane arrives: a whole-warp arrive counts 32") {
  auto r = run_scenario(ScenarioOptions{}, [] {
    uint64_t* bar = bar0();
    if (sk::arch::warp_idx() == 0) {
      if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar, 32);
    }
    sk::arch::cta_sync();
    if (sk::arch::warp_idx() == 0) sk::arch::mbarrier_arrive(bar);  // 32 lanes
    if (sk::arch::warp_idx() == 1) {
      while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
      }
      note("released");
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK(r.notes == std::vector<std::string>{"released"});
  CHECK(r.findings.empty());
}

TEST_CASE("a waiter resumes only after the releasing arrive, and parity tracks phases") {
  auto r = run_scenario(ScenarioOptions{}, [] {
    uint64_t* bar = bar0();
    if (sk::arch::warp_idx() == 0) {
      if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar, 1);
    }
    sk::arch::cta_sync();
    if (sk::arch::warp_idx() == 0) {
      for (int phase = 0; phase < 4; ++phase) {
        for (int i = 0; i < 50; ++i) sk::arch::sync_warp();  // burn time
        note("arrive " + std::to_string(phase) + " at " +
             std::to_string(sk::models::sm100::Gpu::current().engine().now()));
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar);
        while (!sk::arch::mbarrier_try_wait_parity(bar, phase & 1)) {
        }
      }
    } else {
      for (uint32_t phase = 0; phase < 4; ++phase) {
        while (!sk::arch::mbarrier_try_wait_parity(bar, phase & 1)) {
        }
        note("woke " + std::to_string(phase) + " at " +
             std::to_string(sk::models::sm100::Gpu::current().engine().now()));
      }
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  // For each phase the waiter wakes after the arrive that completes it.
  std::map<std::string, uint64_t> at;
  for (const auto& n : r.notes) {
    auto p = n.find(" at ");
    at[n.substr(0, p)] = std::stoull(n.substr(p + 4));
  }
  for (int phase = 0; phase < 4; ++phase) {
    std::string ph = std::to_string(phase);
    REQUIRE(at.count("woke " + ph));
    CHECK(at["woke " + ph] > at["arrive " + ph]);
    if (phase < 3) CHECK(at["woke " + ph] < at["arrive " + std::to_string(phase + 1)] + 1000);
  }
}

TEST_CASE("lifecycle rules: use before init, re-init, arrival into an unobserved phase, bad parity") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    uint64_t* bar = bar0();
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive(bar);           // not initialised
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::mbarrier_init(bar, 1);          // re-init without inval
      sk::arch::mbarrier_inval(bar);
      sk::arch::mbarrier_init(bar, 1);          // fine after inval
      sk::arch::mbarrier_arrive(bar);           // completes phase 0
      sk::arch::mbarrier_try_wait_parity(bar, 2);  // parity must be 0 or 1
    }
    sk::arch::mbarrier_arrive(bar);             // 32 lanes, 1 expected
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("mbarrier.use_before_init"));
  CHECK(r.has_rule("mbarrier.reinit_without_inval"));
  CHECK(r.has_rule("mbarrier.bad_parity"));
  CHECK(r.has_rule("mbarrier.arrive_before_wait"));
  CHECK(r.findings.size() == 4);
}

TEST_CASE("expect_tx lower than the delivered bytes is a tx underflow") {
  ScenarioOptions o;
  o.warps = 1;
  o.setup = setup_map;
  auto r = run_scenario(o, [] {
    uint64_t* bar = bar0();
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::mbarrier_arrive_expect_tx(bar, 16);
      sk::arch::tma_load_2d(sk::arch::dynamic_smem() + 1024, &g_map, bar, 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("mbarrier.tx_underflow"));
}

TEST_CASE("expect_tx higher than the delivered bytes deadlocks with a ledger of the barrier") {
  ScenarioOptions o;
  o.warps = 1;
  o.setup = setup_map;
  auto r = run_scenario(o, [] {
    uint64_t* bar = bar0();
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::annotate_barrier(bar, "full", 0);
      sk::arch::mbarrier_arrive_expect_tx(bar, 64);
      sk::arch::tma_load_2d(sk::arch::dynamic_smem() + 1024, &g_map, bar, 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  // The deadlock is classified by its cause: bytes announced but never delivered.
  CHECK(r.has_rule("expect_tx.too_high"));
  REQUIRE(r.deadlock_details.size() == 1);
  CHECK(r.deadlock_details[0].find("full[0]") != std::string::npos);
  CHECK(r.deadlock_details[0].find("tx 32") != std::string::npos);
  CHECK(r.deadlock_details[0].find("likely cause: expect_tx") != std::string::npos);
}

// PTX ISA 9.7.13.15.10: only mbarrier.init may follow mbarrier.inval. The
// model reports any other use as a use of a barrier that is not initialised.
TEST_CASE("a use after mbarrier.inval is mbarrier.use_before_init; re-init after inval is clean") {
  for (const bool reinit : {false, true}) {
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [reinit] {
      uint64_t* bar = bar0();
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar, 1);
        sk::arch::mbarrier_arrive(bar);  // phase 0 completes
        while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
        }
        sk::arch::mbarrier_inval(bar);
        if (reinit) sk::arch::mbarrier_init(bar, 1);  // the fix: a fresh barrier
        sk::arch::mbarrier_arrive(bar);
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (reinit) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK(r.has_rule("mbarrier.use_before_init"));
      CHECK_MESSAGE(r.findings.size() == 1, r.findings_text());
    }
  }
}

// A warp whose own clock runs ahead (unpaid issue cost) arrives at its own
// time. Without an observer the model takes such an arrival without a context
// switch when it leaves the phase incomplete (mbar::arrive_ahead); the phase
// must still complete no earlier than that warp's time, even when the last
// arrival comes from a warp that is behind it. With the race detector every
// arrival is made at the engine's time; both must agree.
TEST_CASE("an arrival made ahead of the engine's time holds the phase until the warp's own time") {
  constexpr uint64_t kAhead = 1000;
  std::vector<uint64_t> seen_by_mode;
  for (bool observed : {false, true}) {
    CAPTURE(observed);
    ScenarioOptions o;
    o.warps = 3;
    o.functional = false;
    o.race_detector = observed;
    auto r = run_scenario(o, [] {
      auto& gpu = sk::models::sm100::Gpu::current();
      uint64_t* bar = bar0();
      const uint32_t w = sk::arch::warp_idx();
      if (w == 0)
        if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar, 2);
      sk::arch::fence_mbarrier_init();
      sk::arch::cta_sync();
      const uint64_t t0 = gpu.engine().now();
      if (w == 1) {
        gpu.warp().spend(kAhead);  // its clock runs kAhead ahead, unpaid
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar);
      } else if (w == 2) {
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar);  // the last arrival
      } else {
        while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
        }
        gpu.warp().sync();
        note(std::to_string(gpu.engine().now() - t0));
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    REQUIRE(r.notes.size() == 1);
    // Warp 0 sees the phase at warp 1's arrival (kAhead after the barrier,
    // plus a few issue cycles and the barrier's latency), not at warp 2's.
    const uint64_t seen = std::stoull(r.notes[0]);
    CHECK(seen >= kAhead);
    CHECK(seen < kAhead + 200);
    seen_by_mode.push_back(seen);
  }
  CHECK(seen_by_mode.front() == seen_by_mode.back());
}
