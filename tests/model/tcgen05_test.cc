// tcgen05_test.cc: kind::f16 tcgen05.mma, commit and tcgen05.ld rules in the
// SM100 model (PTX ISA 9.0 9.7.16): work alive at CTA exit
// (tcgen05.alive_at_exit), descriptor and TMEM-address validity, and the
// tcgen05.ld wait and initialisation rules. Each bad use comes with the fixed
// twin, which must be clean.
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/lanes.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;

// A: 128 rows x 16 BF16 (K-major, 128-byte swizzle) at 0; B: 64 rows at 16 KiB.
constexpr uint32_t kA = 0, kB = 16384, kBars = 32768, kSlot = 32800;
constexpr uint32_t kN = 64;
constexpr uint32_t kIdesc = sk::umma::f16_instr_desc(128, kN, sk::umma::InputType::kBF16);

uint8_t* smem() { return sk::arch::dynamic_smem(); }
uint64_t* bar(int i) { return reinterpret_cast<uint64_t*>(smem() + kBars + 8 * i); }
uint32_t* slot() { return reinterpret_cast<uint32_t*>(smem() + kSlot); }
uint64_t desc(uint32_t off) {
  return sk::umma::kmajor_desc(sk::arch::smem_addr(smem() + off), 128, 1024);
}
void mma(uint32_t tmem, uint64_t a = 0) {
  sk::arch::tcgen05_mma_f16_ss(tmem, a != 0 ? a : desc(kA), desc(kB), kIdesc, false);
}
void wait(uint64_t* b, uint32_t parity) {
  while (!sk::arch::mbarrier_try_wait_parity(b, parity)) {
  }
}

// Warp 0 writes the operands (generic proxy, then fence.proxy.async),
// initialises `bars` barriers and allocates kN columns; everyone syncs.
uint32_t prologue(int bars, bool fill = false) {
  if (sk::arch::warp_idx() == 0) {
    if (auto l = sk::elect_one()) {
      if (fill) {
        const uint32_t v[4] = {0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u};  // BF16 1.0
        for (uint32_t off = 0; off < kB + 64 * 128; off += 16) sk::arch::st_shared_b128(smem() + off, v);
        sk::arch::fence_proxy_async_shared();
      }
      for (int i = 0; i < bars; ++i) sk::arch::mbarrier_init(bar(i), 1);
      sk::arch::fence_mbarrier_init();
    }
    sk::arch::tcgen05_alloc(slot(), kN);
  }
  sk::arch::tcgen05_fence_before_thread_sync();
  sk::arch::cta_sync();
  sk::arch::tcgen05_fence_after_thread_sync();
  return sk::arch::ld_shared(slot());
}

std::string message(const ScenarioResult& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return f.message;
  return "";
}
}  // namespace

TEST_CASE("tcgen05.alive_at_exit: an MMA never committed") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) mma(tmem);
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tcgen05.alive_at_exit") == 1, r.findings_text());
  CHECK(message(r, "tcgen05.alive_at_exit").find("never committed") != std::string::npos);
  CHECK(message(r, "tcgen05.alive_at_exit").find("tcgen05.mma") != std::string::npos);
  // Without the race detector the dealloc is judged against the tensor core's timing.
  CHECK(r.has_rule("tmem.dealloc_in_flight"));
}

TEST_CASE("tcgen05.alive_at_exit: an MMA committed to a barrier no wait observes") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) {
      mma(tmem);
      sk::arch::tcgen05_commit(bar(0));
    }
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tcgen05.alive_at_exit") == 1, r.findings_text());
  CHECK(message(r, "tcgen05.alive_at_exit").find("its tcgen05.commit on") != std::string::npos);
}

TEST_CASE("tcgen05.alive_at_exit twin: commit, wait on its phase, then dealloc is clean") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) {
      mma(tmem);
      sk::arch::tcgen05_commit(bar(0));
    }
    wait(bar(0), 0);
    sk::arch::tcgen05_fence_after_thread_sync();
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("a later commit that another warp waits for covers an earlier unwaited one") {
  // The stage-release commits of a ring are often never waited at the end of
  // a kernel; the accumulator commit after them covers the same MMAs.
  auto r = run_scenario(ScenarioOptions{.warps = 2}, [] {
    const uint32_t tmem = prologue(2);
    if (sk::arch::warp_idx() == 0) {
      if (auto l = sk::elect_one()) {
        mma(tmem);
        sk::arch::tcgen05_commit(bar(0));  // never waited
        mma(tmem);
        sk::arch::tcgen05_commit(bar(1));
      }
    } else {
      wait(bar(1), 0);
      sk::arch::tcgen05_fence_before_thread_sync();
    }
    sk::arch::cta_sync();
    sk::arch::tcgen05_fence_after_thread_sync();
    if (sk::arch::warp_idx() == 0) sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("tcgen05.alive_at_exit: an MMA issued after the last waited commit") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) {
      mma(tmem);
      sk::arch::tcgen05_commit(bar(0));
    }
    wait(bar(0), 0);
    if (auto l = sk::elect_one()) mma(tmem);  // a second MMA nobody commits
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tcgen05.alive_at_exit") == 1, r.findings_text());
  CHECK(message(r, "tcgen05.alive_at_exit").find("1 such op") != std::string::npos);
}

TEST_CASE("tcgen05.alive_at_exit with the race detector: also tmem.dealloc_in_use") {
  auto r = run_scenario(ScenarioOptions{.warps = 1, .race_detector = true}, [] {
    const uint32_t tmem = prologue(1, true);
    if (auto l = sk::elect_one()) mma(tmem);
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.has_rule("tcgen05.alive_at_exit"), r.findings_text());
  CHECK(r.has_rule("tmem.dealloc_in_use"));
  CHECK(!r.has_rule("tmem.dealloc_in_flight"));
}

TEST_CASE("tcgen05.bad_descriptor: a matrix descriptor without the SM100 version bit") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) {
      mma(tmem, desc(kA) & ~(uint64_t{1} << 46));
      sk::arch::tcgen05_commit(bar(0));
    }
    wait(bar(0), 0);
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tcgen05.bad_descriptor") == 1, r.findings_text());
  CHECK(r.findings.size() == 1);  // the MMA is dropped: nothing alive at exit
}

TEST_CASE("tmem.unallocated_access: an MMA and a tcgen05.ld outside the allocation") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    const uint32_t tmem = prologue(1);
    if (auto l = sk::elect_one()) {
      mma(tmem + 256);  // columns [256, 320): only [0, 64) are allocated
      sk::arch::tcgen05_commit(bar(0));
    }
    wait(bar(0), 0);
    sk::LaneArray<uint32_t, 32> regs;
    sk::arch::tcgen05_ld_32x32b_x32(tmem + 128, regs);
    sk::arch::tcgen05_wait_ld();
    sk::arch::tcgen05_dealloc(tmem, kN);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tmem.unallocated_access") == 2, r.findings_text());
  CHECK(r.findings.size() == 2);
}

TEST_CASE("tmem.bad_dst: tcgen05.alloc writes its address to a misaligned SMEM location") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    auto* odd = reinterpret_cast<uint32_t*>(smem() + kSlot + 2);
    sk::arch::tcgen05_alloc(odd, 32);
    sk::arch::tcgen05_alloc(slot(), 32);  // the twin: aligned
    sk::arch::tcgen05_dealloc(*slot(), 32);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tmem.bad_dst") == 1, r.findings_text());
  CHECK(r.findings.size() == 1);
}

TEST_CASE("uninitialized.tmem_read: tcgen05.ld of columns nothing wrote; after a waited MMA it is clean") {
  for (bool written : {false, true}) {
    CAPTURE(written);
    auto r = run_scenario(ScenarioOptions{.warps = 1, .race_detector = true}, [written] {
      const uint32_t tmem = prologue(1, true);
      if (written) {
        if (auto l = sk::elect_one()) {
          mma(tmem);
          sk::arch::tcgen05_commit(bar(0));
        }
        wait(bar(0), 0);
        sk::arch::tcgen05_fence_after_thread_sync();
      }
      sk::LaneArray<uint32_t, 32> regs;
      sk::arch::tcgen05_ld_32x32b_x32(tmem, regs);
      sk::arch::tcgen05_wait_ld();
      sk::arch::tcgen05_fence_before_thread_sync();
      sk::arch::tcgen05_dealloc(tmem, kN);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (written) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK_MESSAGE(r.count_rule("uninitialized.tmem_read") == 1, r.findings_text());
      CHECK(r.findings.size() == 1);
    }
  }
}

TEST_CASE("tcgen05.ld_not_waited: an MMA overwrites cells a tcgen05.ld may still read") {
  for (bool waited : {false, true}) {
    CAPTURE(waited);
    auto r = run_scenario(ScenarioOptions{.warps = 1, .race_detector = true}, [waited] {
      const uint32_t tmem = prologue(2, true);
      if (auto l = sk::elect_one()) {
        mma(tmem);
        sk::arch::tcgen05_commit(bar(0));
      }
      wait(bar(0), 0);
      sk::arch::tcgen05_fence_after_thread_sync();
      sk::LaneArray<uint32_t, 32> regs;
      sk::arch::tcgen05_ld_32x32b_x32(tmem, regs);
      if (waited) sk::arch::tcgen05_wait_ld();
      if (auto l = sk::elect_one()) {
        mma(tmem);
        sk::arch::tcgen05_commit(bar(1));
      }
      if (!waited) sk::arch::tcgen05_wait_ld();
      wait(bar(1), 0);
      sk::arch::tcgen05_fence_after_thread_sync();
      sk::arch::tcgen05_dealloc(tmem, kN);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (waited) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK_MESSAGE(r.has_rule("tcgen05.ld_not_waited"), r.findings_text());
    }
  }
}

TEST_CASE("tcgen05.bad_taddr: tcgen05.cp.32x128b.warpx4 to an address that names a lane") {
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [bad] {
      const uint32_t tmem = prologue(1);
      if (auto l = sk::elect_one()) {
        const uint64_t d = sk::umma::sf_copy_desc(sk::arch::smem_addr(smem() + kA));
        sk::arch::tcgen05_cp_32x128b_warpx4(tmem + (bad ? (32u << 16) : 0u), d);
        sk::arch::tcgen05_commit(bar(0));
      }
      wait(bar(0), 0);
      sk::arch::tcgen05_fence_after_thread_sync();
      sk::arch::tcgen05_dealloc(tmem, kN);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad)
      CHECK_MESSAGE(r.count_rule("tcgen05.bad_taddr") == 1, r.findings_text());
    CHECK_MESSAGE(r.findings.size() == (bad ? 1u : 0u), r.findings_text());
  }
}
