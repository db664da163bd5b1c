// sync_rules_test.cc: validity and protocol rules of mbarriers, named
// barriers, shared-memory accesses and the TMA descriptor in the SM100 model
// that no corpus case reaches (PTX ISA 9.0 9.7.13.15 mbarrier, 9.7.13.1
// bar/barrier, 9.7.9.25 cp.async.bulk.tensor). Each bad use comes with its
// fixed twin, which must be clean.
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;

uint8_t* smem() { return sk::arch::dynamic_smem(); }
uint64_t* bar(uint32_t off) { return reinterpret_cast<uint64_t*>(smem() + off); }
void wait(uint64_t* b, uint32_t parity) {
  while (!sk::arch::mbarrier_try_wait_parity(b, parity)) {
  }
}
}  // namespace

TEST_CASE("mbarrier.bad_address: init on a location that is not 8-byte aligned") {
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [bad] {
      if (auto l = sk::elect_one()) {
        uint64_t* b = bad ? reinterpret_cast<uint64_t*>(smem() + 12) : bar(16);
        sk::arch::mbarrier_init(b, 1);
        if (!bad) {
          sk::arch::mbarrier_arrive(b);
          wait(b, 0);
        }
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad)
      CHECK_MESSAGE(r.count_rule("mbarrier.bad_address") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("mbarrier.bad_count: an arrival count of 0 (outside [1, 2^20-1])") {
  for (uint32_t n : {0u, 1u}) {
    CAPTURE(n);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [n] {
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar(0), n);
        sk::arch::mbarrier_arrive(bar(0));
        wait(bar(0), 0);
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (n == 0)
      CHECK_MESSAGE(r.count_rule("mbarrier.bad_count") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("mbarrier.over_arrival: more arrivals than pending in one phase") {
  // A phase with tx outstanding stays incomplete after its last arrival, so
  // a second arrival finds no pending arrival left.
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [bad] {
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar(0), 1);
        sk::arch::mbarrier_expect_tx(bar(0), 16);  // the phase waits for 16 bytes
        sk::arch::mbarrier_arrive(bar(0));         // pending 0, tx 16: not complete
        if (bad) sk::arch::mbarrier_arrive(bar(0));  // no pending arrival left
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad)
      CHECK_MESSAGE(r.count_rule("mbarrier.over_arrival") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("mbarrier.tx_overflow: expect_tx beyond the tx-count range 2^20-1") {
  for (uint32_t tx : {1u << 20, 1u << 19}) {
    CAPTURE(tx);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [tx] {
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar(0), 1);
        sk::arch::mbarrier_expect_tx(bar(0), tx);
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK_MESSAGE(r.count_rule("mbarrier.tx_overflow") == (tx > (1u << 20) - 1 ? 1 : 0),
                  r.findings_text());
    CHECK(r.findings.size() == (tx > (1u << 20) - 1 ? 1u : 0u));
  }
}

TEST_CASE("barrier.bad_id and barrier.bad_count: named barrier 16, and 48 threads") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    sk::arch::named_barrier_sync(16, 32);  // ids are 0..15
    sk::arch::named_barrier_sync(1, 48);   // not a multiple of 32
    sk::arch::named_barrier_sync(1, 32);   // the twin
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("barrier.bad_id") == 1, r.findings_text());
  CHECK(r.count_rule("barrier.bad_count") == 1);
  CHECK(r.findings.size() == 2);
}

TEST_CASE("barrier.count_mismatch: two warps use one named barrier with different counts") {
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 2}, [bad] {
      const uint32_t n = sk::arch::warp_idx() == 1 && bad ? 96 : 64;
      sk::arch::named_barrier_sync(2, n);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad)
      CHECK_MESSAGE(r.has_rule("barrier.count_mismatch"), r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("deadlock.named_barrier: a named barrier that expects a warp that never comes") {
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 2}, [bad] {
      if (sk::arch::warp_idx() == 0 || !bad) sk::arch::named_barrier_sync(3, 64);
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad) {
      CHECK(r.status == "deadlock");
      CHECK_MESSAGE(r.count_rule("deadlock.named_barrier") == 1, r.findings_text());
    } else {
      CHECK(r.status == "completed");
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    }
  }
}

TEST_CASE("smem.bad_access and smem.address_out_of_range: outside the CTA's shared memory") {
  auto r = run_scenario(ScenarioOptions{.warps = 1, .smem_bytes = 4096}, [] {
    uint32_t v = 0;
    sk::arch::st_shared(reinterpret_cast<uint32_t*>(smem() + 4096), v);   // one past the end
    const uint32_t q[4] = {0, 0, 0, 0};
    sk::arch::st_shared_b128(smem() + 8, q);                              // st.shared.v4 off 16 B
    (void)sk::arch::smem_addr(smem() + 8192);                             // outside
    sk::arch::st_shared(reinterpret_cast<uint32_t*>(smem() + 4092), v);   // the twins
    (void)sk::arch::smem_addr(smem() + 4092);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("smem.bad_access") == 2, r.findings_text());
  CHECK(r.count_rule("smem.address_out_of_range") == 1);
  CHECK(r.findings.size() == 3);
}

TEST_CASE("race.write_after_read: a store not ordered after another warp's load") {
  for (bool bad : {true, false}) {
    CAPTURE(bad);
    auto r = run_scenario(ScenarioOptions{.warps = 2, .race_detector = true}, [bad] {
      auto* word = reinterpret_cast<uint32_t*>(smem() + 256);
      if (sk::arch::warp_idx() == 0)
        if (auto l = sk::elect_one()) sk::arch::st_shared(word, 1u);
      sk::arch::cta_sync();
      if (sk::arch::warp_idx() == 1)
        if (auto l = sk::elect_one()) (void)sk::arch::ld_shared(word);
      if (!bad) sk::arch::cta_sync();
      if (sk::arch::warp_idx() == 0)
        if (auto l = sk::elect_one()) {
          // Later in time than warp 1's load (on the nominal schedule), so the
          // unordered pair is write-after-read.
          auto* own = reinterpret_cast<uint32_t*>(smem() + 512);
          sk::arch::st_shared(own, 0u);
          for (int i = 0; i < 200; ++i) (void)sk::arch::ld_shared(own);
          sk::arch::st_shared(word, 2u);
        }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (bad)
      CHECK_MESSAGE(r.has_rule("race.write_after_read"), r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("syncwarp.missing_before_release: an elected lane publishes the other lanes' stores") {
  // Warp 0's lanes store a word each; an mbarrier then tells warp 1, which
  // reads them. The release is an elected lane's arrive after __syncwarp
  // (clean), the same without it (a finding naming the lane), every lane's
  // own arrive (clean), or an elected arrive after only that lane stored.
  enum Kind { kSynced, kUnsynced, kEveryLane, kOwnLaneOnly };
  for (const Kind kind : {kSynced, kUnsynced, kEveryLane, kOwnLaneOnly}) {
    CAPTURE(kind);
    auto r = run_scenario(ScenarioOptions{.warps = 2, .race_detector = true}, [kind] {
      auto* words = reinterpret_cast<uint32_t*>(smem() + 256);
      if (sk::arch::warp_idx() == 0)
        if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar(0), kind == kEveryLane ? 32 : 1);
      sk::arch::cta_sync();
      if (sk::arch::warp_idx() == 0) {
        if (kind == kOwnLaneOnly) {
          if (auto l = sk::elect_one()) sk::for_each_lane([&](uint32_t i) { sk::arch::st_shared(words + 4 * i, i); });
        } else {
          sk::for_each_lane([&](uint32_t i) { sk::arch::st_shared(words + 4 * i, i); });
        }
        if (kind == kSynced) sk::arch::sync_warp();
        if (kind == kEveryLane) {
          sk::arch::mbarrier_arrive(bar(0));  // each of the 32 lanes arrives
        } else if (auto l = sk::elect_one()) {
          sk::arch::mbarrier_arrive(bar(0));
        }
      } else {
        wait(bar(0), 0);
        const uint32_t n = kind == kOwnLaneOnly ? 1 : 32;
        if (auto l = sk::elect_one())
          for (uint32_t i = 0; i < n; ++i) (void)sk::arch::ld_shared(words + 4 * i);
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (kind == kUnsynced) {
      CHECK_MESSAGE(r.count_rule("syncwarp.missing_before_release") == 1, r.findings_text());
      CHECK_MESSAGE(r.findings_text().find("lane 1 of the earlier warp wrote") != std::string::npos,
                    r.findings_text());
    } else {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    }
  }
}

TEST_CASE("syncwarp.missing_after_acquire: an elected lane's wait orders the other lanes' reads") {
  // Warp 1 stores a word per lane and arrives; warp 0 waits with one
  // elected lane (then __syncwarp, or not) or with every lane, and its lanes
  // read the words.
  enum Kind { kSynced, kUnsynced, kEveryLane };
  for (const Kind kind : {kSynced, kUnsynced, kEveryLane}) {
    CAPTURE(kind);
    auto r = run_scenario(ScenarioOptions{.warps = 2, .race_detector = true}, [kind] {
      auto* words = reinterpret_cast<uint32_t*>(smem() + 256);
      if (sk::arch::warp_idx() == 0)
        if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar(0), 1);
      sk::arch::cta_sync();
      if (sk::arch::warp_idx() == 1) {
        sk::for_each_lane([&](uint32_t i) { sk::arch::st_shared(words + 4 * i, i); });
        sk::arch::sync_warp();
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar(0));
      } else {
        if (kind == kEveryLane) {
          wait(bar(0), 0);
        } else if (auto l = sk::elect_one()) {
          wait(bar(0), 0);
        }
        if (kind == kSynced) sk::arch::sync_warp();
        sk::for_each_lane([&](uint32_t i) { (void)sk::arch::ld_shared(words + 4 * i); });
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (kind == kUnsynced) {
      CHECK_MESSAGE(r.count_rule("syncwarp.missing_after_acquire") == 1, r.findings_text());
      CHECK_MESSAGE(r.findings_text().find("lane 1 of CTA 0 warp 0") != std::string::npos,
                    r.findings_text());
    } else {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    }
  }
}

TEST_CASE("syncwarp.missing_within_warp: a lane reads or overwrites another lane's store") {
  // One warp's lanes each store a word, then each reads (or overwrites) the
  // word of lane (i + 1) % 32: with __syncwarp between (clean), without
  // (a finding naming both lanes), each its own word (clean), or the
  // neighbour's word of the same 16-byte granule that no lane wrote (clean:
  // the bytes do not meet).
  enum Kind { kSynced, kUnsynced, kUnsyncedWrite, kOwnWord, kOtherBytes };
  for (const Kind kind : {kSynced, kUnsynced, kUnsyncedWrite, kOwnWord, kOtherBytes}) {
    CAPTURE(kind);
    auto r = run_scenario(ScenarioOptions{.warps = 1, .race_detector = true}, [kind] {
      auto* words = reinterpret_cast<uint32_t*>(smem() + 256);
      // Lane i's word: 4 words a lane apart (one per granule), or, for
      // kOtherBytes, word 4 i with the next read at 4 i + 1 (same granule).
      sk::for_each_lane([&](uint32_t i) { sk::arch::st_shared(words + 4 * i, i); });
      if (kind == kSynced) sk::arch::sync_warp();
      sk::for_each_lane([&](uint32_t i) {
        const uint32_t j = kind == kOwnWord ? 4 * i : kind == kOtherBytes ? 4 * i + 1 : 4 * ((i + 1) % 32);
        if (kind == kUnsyncedWrite)
          sk::arch::st_shared(words + j, i);
        else
          (void)sk::arch::ld_shared(words + j);
      });
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (kind == kUnsynced || kind == kUnsyncedWrite) {
      // Each lane's access of lane i + 1's word (the first loop's stores all
      // come first in the model), reported once per granule pair.
      CHECK_MESSAGE(r.count_rule("syncwarp.missing_within_warp") >= 1, r.findings_text());
      CHECK_MESSAGE(r.findings_text().find(kind == kUnsynced ? "reads what lane" : "overwrites what lane") !=
                        std::string::npos,
                    r.findings_text());
    } else {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    }
  }
}

TEST_CASE("tma.bad_descriptor: a TMA load through a tensor map that was never encoded") {
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    alignas(64) static uint8_t raw[sizeof(sk::arch::TensorMap)] = {};
    const auto* map = reinterpret_cast<const sk::arch::TensorMap*>(raw);
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(0), 1);
      sk::arch::tma_load_2d(smem() + 1024, map, bar(0), 0, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.count_rule("tma.bad_descriptor") == 1, r.findings_text());
  // The load is dropped: nothing in flight at exit (tests/model/tma_test.cc
  // has the encoded twin).
  CHECK(r.findings.size() == 1);
}

// PTX 9.7.13.15.3: the memory of a valid mbarrier must not be repurposed
// before mbarrier.inval. A store over the barrier (a layout whose staging
// buffer overlaps it) is a finding; the twin invalidates it first, and a
// store beside it is clean.
TEST_CASE("mbarrier.overwritten_while_live: a store over a valid barrier; inval first is clean") {
  for (int variant : {0, 1, 2}) {  // 0: over the live barrier, 1: after inval, 2: beside it
    CAPTURE(variant);
    auto r = run_scenario(ScenarioOptions{.warps = 1}, [variant] {
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar(64), 1);
        sk::arch::mbarrier_arrive(bar(64));
        wait(bar(64), 0);
        if (variant == 1) sk::arch::mbarrier_inval(bar(64));
        const uint32_t words[4] = {1, 2, 3, 4};
        sk::arch::st_shared_b128(smem() + (variant == 2 ? 80 : 64), words);
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (variant == 0)
      CHECK_MESSAGE(r.count_rule("mbarrier.overwritten_while_live") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}
