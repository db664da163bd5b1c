// Thread-block clusters in the model: remote mbarrier arrives land on the
// peer's barrier after the SM-to-SM latency, a multicast TMA box lands in
// every CTA of its mask and completes each one's barrier, the cluster barrier
// waits for every live warp of the cluster, and the cluster rules are
// findings. With the race detector, the cluster is one clock domain: a
// remote arrive orders a peer's accesses; without it they race.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/swizzle.h"
#include "models/sm100/gpu.h"
#include "tests/model/cluster_scenario.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

using sk::test::bar_at;
using sk::test::init_cluster_barriers;


// A 256 x 64 BF16 matrix whose element (r, c) is r * 64 + c.
sk::arch::TensorMap g_map;
void setup_matrix() {
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t addr = gpu.gmem().allocate(256 * 64 * 2, "M");
  auto* p = reinterpret_cast<uint16_t*>(gpu.gmem().host(addr));
  for (int r = 0; r < 256; ++r)
    for (int c = 0; c < 64; ++c) p[r * 64 + c] = static_cast<uint16_t>(r * 64 + c);
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 64, 256, 128, 64, 32,
                                             sk::models::sm100::Swizzle::k128B)
              .empty());
}
}  // namespace

TEST_CASE("identity: ranks and cluster size") {
  ScenarioOptions o{.ctas = 8, .warps = 1, .cluster_size = 4};
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one())
      note(std::to_string(sk::arch::cta_idx()) + ":" + std::to_string(sk::arch::cluster_ctarank()) +
           "/" + std::to_string(sk::arch::cluster_num_ctas()));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE(r.notes.size() == 8);
  for (const auto& n : r.notes) {
    const int cta = std::stoi(n.substr(0, n.find(':')));
    CHECK(n == std::to_string(cta) + ":" + std::to_string(cta % 4) + "/4");
  }
}

TEST_CASE("a remote arrive completes the peer's barrier after the SM-to-SM latency") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    init_cluster_barriers(1, 1);
    const uint32_t rank = sk::arch::cluster_ctarank();
    auto& gpu = sk::models::sm100::Gpu::current();
    if (rank == 0) {
      gpu.warp().sync();  // pay the cluster barrier's latency first: now() is the warp's time
      const auto t0 = gpu.engine().now();
      if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive_cluster(bar_at(0), 1);
      note("sent " + std::to_string(t0));
    } else {
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
      }
      note("flip " + std::to_string(gpu.engine().now()));
    }
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.status == "completed");
  uint64_t sent = 0, flip = 0;
  for (const auto& n : r.notes) {
    if (n.rfind("sent ", 0) == 0) sent = std::stoull(n.substr(5));
    if (n.rfind("flip ", 0) == 0) flip = std::stoull(n.substr(5));
  }
  const uint32_t latency = sk::models::sm100::Params::builtin().dsmem_latency;
  REQUIRE(latency > 0);
  const uint64_t earliest = sent + latency;
  CHECK(flip >= earliest);
  CHECK(flip < earliest + 200);
}

TEST_CASE("a multicast box lands in every CTA of the mask and completes each barrier") {
  ScenarioOptions o{.ctas = 4, .warps = 1, .cluster_size = 4, .race_detector = true};
  o.setup = setup_matrix;
  auto r = run_scenario(o, [] {
    init_cluster_barriers(1, 1);
    const uint32_t rank = sk::arch::cluster_ctarank();
    uint8_t* tile = sk::arch::dynamic_smem() + 1024;  // 64 rows x 128 B
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive_expect_tx(bar_at(0), 64 * 128);
      // Ranks 0 and 1 each load half of the rows and send them to 0, 1, 2;
      // rank 2 receives both halves; rank 3 loads its own tile alone.
      if (rank < 2)
        sk::arch::tma_load_2d_multicast(tile + rank * 32 * 128, &g_map, bar_at(0), 0, 32 * rank,
                                        0b0111);
      else if (rank == 3) {
        sk::arch::tma_load_2d(tile, &g_map, bar_at(0), 0, 0);
        sk::arch::tma_load_2d(tile + 32 * 128, &g_map, bar_at(0), 0, 32);
      }
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
    }
    int wrong = 0;
    if (auto l = sk::elect_one()) {
      for (int row = 0; row < 64; ++row)
        for (int c = 0; c < 64; ++c) {
          uint16_t got;
          std::memcpy(&got, tile + sk::swizzle_offset<128>(row * 128 + c * 2), 2);
          wrong += got != static_cast<uint16_t>(row * 64 + c);
        }
      note(std::to_string(rank) + " wrong " + std::to_string(wrong));
    }
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.status == "completed");
  REQUIRE(r.notes.size() == 4);
  for (const auto& n : r.notes) CHECK(n.substr(1) == std::string(" wrong 0"));
}

namespace {
// A cluster of two streams the matrix's eight 32-row boxes (4 KiB each)
// into both CTAs under an L2 of 4 bytes per cycle (its rate binds, not the
// SMs' ports): multicast from rank 0, or each CTA loading its own copies.
// Returns the cycle both CTAs had every box, or 0 if the run failed.
uint64_t stream_to_pair(bool multicast, double l2_share) {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  o.l2_bytes_per_cycle = 4;
  o.tma_multicast_l2_share = l2_share;
  o.setup = setup_matrix;
  auto r = run_scenario(o, [multicast] {
    init_cluster_barriers(1, 1);
    const uint32_t rank = sk::arch::cluster_ctarank();
    uint8_t* tile = sk::arch::dynamic_smem() + 1024;
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive_expect_tx(bar_at(0), 8 * 32 * 128);
      for (int b = 0; b < 8; ++b) {
        uint8_t* dst = tile + b * 32 * 128;
        if (!multicast)
          sk::arch::tma_load_2d(dst, &g_map, bar_at(0), 0, 32 * b);
        else if (rank == 0)
          sk::arch::tma_load_2d_multicast(dst, &g_map, bar_at(0), 0, 32 * b, 0b11);
      }
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
    }
    note(std::to_string(sk::models::sm100::Gpu::current().engine().now()));
    sk::arch::cluster_sync();
  });
  if (!r.ok || r.status != "completed" || !r.findings.empty() || r.notes.size() != 2) return 0;
  return std::max(std::stoull(r.notes[0]), std::stoull(r.notes[1]));
}
}  // namespace

TEST_CASE("a multicast destination spends tma_multicast_l2_share of the box's bytes of the L2's rate") {
  // 64 KiB land in all (8 boxes in each of two CTAs): 16 k cycles at 4 B per
  // cycle when every copy passes the L2, half when a multicast box passes once.
  const uint64_t own = stream_to_pair(false, 0);
  const uint64_t once = stream_to_pair(true, 0);
  const uint64_t every = stream_to_pair(true, 1);
  const uint64_t half = stream_to_pair(true, 0.5);
  REQUIRE(own > 0);
  REQUIRE(once > 0);
  REQUIRE(every > 0);
  REQUIRE(half > 0);
  CHECK(own >= 16384);
  CHECK(own < 16384 + 3000);
  CHECK(once >= 8192);
  CHECK(once < 8192 + 3000);
  // With the whole share a multicast is no faster than the CTAs' own loads.
  CHECK(every >= 16384);
  CHECK(every < own + 500);
  CHECK(half >= 12288);
  CHECK(half < every);
  CHECK(half > once);
}

TEST_CASE("a multicast to a CTA that never expected the bytes is reported when the phase completes") {
  // Rank 1 is in the mask but posts no expect_tx: its barrier's tx-count goes
  // negative with no arrival pending, the byte count's underflow.
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  o.setup = setup_matrix;
  auto r = run_scenario(o, [] {
    init_cluster_barriers(1, 1);
    uint8_t* tile = sk::arch::dynamic_smem() + 1024;
    if (sk::arch::cluster_ctarank() == 0) {
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_arrive_expect_tx(bar_at(0), 32 * 128);
        sk::arch::tma_load_2d_multicast(tile, &g_map, bar_at(0), 0, 0, 0b11);
      }
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
      }
    } else {
      if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive(bar_at(0));
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
      }
    }
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  const bool reported = r.has_rule("expect_tx.too_low") || r.has_rule("mbarrier.tx_underflow");
  CHECK_MESSAGE(reported, r.findings_text());
}

TEST_CASE("the cluster barrier waits for every live warp of the cluster") {
  ScenarioOptions o{.ctas = 2, .warps = 2, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    auto& gpu = sk::models::sm100::Gpu::current();
    // Warp 1 of rank 1 arrives late; warp 0 of rank 0 exits without taking
    // part (exited warps do not count).
    const uint32_t rank = sk::arch::cluster_ctarank(), warp = sk::arch::warp_idx();
    if (rank == 0 && warp == 0) return;
    if (rank == 1 && warp == 1) gpu.warp().stall(5000, "late");
    sk::arch::cluster_sync();
    if (auto l = sk::elect_one()) note(std::to_string(gpu.engine().now()));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.status == "completed");
  REQUIRE(r.notes.size() == 3);
  for (const auto& n : r.notes) CHECK(std::stoull(n) >= 5000);
}

TEST_CASE("a warp that never reaches the cluster barrier deadlocks the cluster") {
  ScenarioOptions o{.ctas = 2, .warps = 2, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    init_cluster_barriers(1, 1);
    // Warp 1 of rank 1 waits on a barrier nobody arrives on instead.
    if (sk::arch::cluster_ctarank() == 1 && sk::arch::warp_idx() == 1) {
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
      }
    }
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  CHECK_MESSAGE(r.has_rule("deadlock.cluster_barrier"), r.findings_text());
}

TEST_CASE("cluster rules: bad rank, bad mask, wait without arrive, exited peer") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  o.setup = setup_matrix;
  auto r = run_scenario(o, [] {
    init_cluster_barriers(1, 4);
    if (sk::arch::cluster_ctarank() == 1) return;  // exits at once
    auto& gpu = sk::models::sm100::Gpu::current();
    gpu.warp().stall(2000, "let the peer exit");
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive_cluster(bar_at(0), 2);
      sk::arch::mbarrier_arrive_cluster(bar_at(0), 1);
      sk::arch::tma_load_2d_multicast(sk::arch::dynamic_smem() + 1024, &g_map, bar_at(0), 0, 0,
                                      0b100);
    }
    sk::arch::cluster_wait();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.has_rule("cluster.bad_rank"), r.findings_text());
  CHECK_MESSAGE(r.has_rule("cluster.peer_exited"), r.findings_text());
  CHECK_MESSAGE(r.has_rule("tma.multicast_mask"), r.findings_text());
  CHECK_MESSAGE(r.has_rule("cluster_barrier.wait_without_arrive"), r.findings_text());
}

namespace {
// Rank 0 fills a stage with its own TMA load, reads it, and hands it to
// rank 1, whose multicast refills it (a ring's next lap across the cluster).
// With the hand-off (a remote arrive that rank 1 waits for) before the
// multicast, the race detector orders rank 0's read before rank 1's write;
// with it after, nothing does.
void stage_reuse(bool release_first) {
  init_cluster_barriers(3, 1);  // 0: the refill's full barrier, 1: the hand-off, 2: the first fill
  uint8_t* tile = sk::arch::dynamic_smem() + 1024;
  if (sk::arch::cluster_ctarank() == 0) {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive_expect_tx(bar_at(2), 32 * 128);
      sk::arch::tma_load_2d(tile, &g_map, bar_at(2), 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar_at(2), 0)) {
    }
    uint32_t v[4];
    sk::arch::ld_shared_b128(tile, v);
    if (auto l = sk::elect_one()) {
      if (release_first) sk::arch::mbarrier_arrive_cluster(bar_at(1), 1);
      sk::arch::mbarrier_arrive_expect_tx(bar_at(0), 32 * 128);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
    }
    if (!release_first)
      if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive_cluster(bar_at(1), 1);
  } else {
    if (release_first)
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(1), 0)) {
      }
    if (auto l = sk::elect_one())
      sk::arch::tma_load_2d_multicast(tile, &g_map, bar_at(0), 0, 32, 0b01);
    if (!release_first)
      while (!sk::arch::mbarrier_try_wait_parity(bar_at(1), 0)) {
      }
  }
  sk::arch::cluster_sync();
}
}  // namespace

TEST_CASE("the race detector orders a peer's multicast after a remote release, and only then") {
  for (const bool release_first : {true, false}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    o.setup = setup_matrix;
    auto r = run_scenario(o, [release_first] { stage_reuse(release_first); });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("release first: " << release_first);
    CHECK(r.status == "completed");
    if (release_first) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK_MESSAGE(r.has_rule("race.stage_overwritten"), r.findings_text());
      bool names_both = false;
      for (const auto& f : r.findings)
        names_both |= f.message.find("CTA 0") != std::string::npos &&
                      f.message.find("CTA 1") != std::string::npos;
      CHECK_MESSAGE(names_both, r.findings_text());
    }
  }
}

TEST_CASE("a peer's remote arrive not ordered before the CTA's exit is reported, a drained one is not") {
  for (const bool drain : {false, true}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    auto r = run_scenario(o, [drain] {
      init_cluster_barriers(1, 1);
      if (sk::arch::cluster_ctarank() == 1) {
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive_cluster(bar_at(0), 0);
      } else if (drain) {
        while (!sk::arch::mbarrier_try_wait_parity(bar_at(0), 0)) {
        }
      } else {
        // Alive when the arrive lands, but nothing orders it before the exit.
        sk::models::sm100::Gpu::current().warp().stall(2000, "outlive the arrive");
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("drain: " << drain);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.has_rule("cluster.exit_not_ordered") == !drain, r.findings_text());
  }
}

TEST_CASE("barrier.cluster by part of a warp is reported") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one()) sk::arch::cluster_arrive();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.has_rule("cluster_barrier.partial_warp"), r.findings_text());
}
