// The SM100 2-SM matmul (--cluster 2x1: CTA pairs, tcgen05 cta_group::2) in
// the model: exact against the FP64 host reference on odd shapes (a pair
// whose second CTA's rows lie past M, partial N tiles, every tile width,
// both input and output types, a batch), each CTA loading half of B (the
// bytes it moves into shared memory against the 1-SM kernel's), the
// requests the CLI refuses, and the model's 2-SM rules on small kernels.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <map>

#include "engine/isolate.h"
#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/lanes.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "tests/model/cluster_scenario.h"
#include "tests/model/scenario.h"

namespace {
struct Case {
  uint32_t m, n, k, tile_n, stages;
  bool f32 = false, f16 = false;
  uint32_t batch = 1;
};

sk::sim::MatmulRequest request(const Case& c, bool pair) {
  sk::sim::MatmulRequest q;
  q.m = c.m, q.n = c.n, q.k = c.k;
  q.tile_n = c.tile_n;
  q.stages = c.stages;
  q.out_f32 = c.f32;
  q.in_f16 = c.f16;
  q.batch = c.batch;
  q.cluster_m = pair ? 2 : 1;
  return q;
}

sk::sim::RunResult run(const sk::sim::MatmulRequest& q) {
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_sm100_matmul(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("the 2-SM matmul matches the reference on odd shapes") {
  const Case cases[] = {
      {300, 200, 136, 64, 4},  {513, 384, 200, 128, 3, true}, {130, 96, 520, 64, 6, false, true},
      {257, 300, 64, 256, 3},  {100, 1000, 72, 128, 5, true, true}, {384, 130, 129, 64, 2, false, false, 3},
  };
  uint64_t seed = 5;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q = request(c, true);
    q.functional = true;
    q.seed = seed++;
    const auto r = run(q);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages
             << " batch " << c.batch << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK(r.config_name.find("_2sm") != std::string::npos);
    CHECK(r.findings.empty());
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

TEST_CASE("2-SM pairs on the CLC scheduler take over cancelled pairs' blocks") {
  // Six SMs hold three pairs; 513 x 640 in 256 x 64 blocks is 3 x 10 = 30
  // blocks, one pair launched per block: the running pairs cancel the rest.
  Case c{513, 640, 136, 64, 4};
  sk::sim::MatmulRequest q = request(c, true);
  q.clc = true;
  q.num_sms = 6;
  q.functional = true;
  q.seed = 21;
  const auto r = run(q);
  INFO(r.check.detail);
  CHECK(r.status == "completed");
  CHECK(r.config_name.find("_clc") != std::string::npos);
  CHECK(r.ctas == 60);
  CHECK(r.findings.empty());
  CHECK(r.check.passed);
  // The same with every pair resident (no cancellation succeeds).
  q.num_sms = 0;
  const auto all = run(q);
  CHECK(all.status == "completed");
  CHECK(all.findings.empty());
  CHECK(all.check.passed);
}

TEST_CASE("each CTA of a pair loads its A rows and half of B") {
  // Per CTA and k-block: 1-SM 128 x 64 of A and 128 x 64 of B; a pair's CTA
  // the same A and 64 x 64 of B, for a 128 x 128 output of its own.
  const Case c{1024, 1024, 1024, 128, 4};
  const auto one = run(request(c, false)), pair = run(request(c, true));
  REQUIRE(one.status == "completed");
  REQUIRE(pair.status == "completed");
  REQUIRE(one.smem_fill_bytes > 0);
  const double ratio = static_cast<double>(pair.smem_fill_bytes) / one.smem_fill_bytes;
  CHECK(ratio == doctest::Approx(0.75).epsilon(0.001));
}

TEST_CASE("2-SM requests the kernel does not take are refused") {
  sk::sim::MatmulRequest q = request({512, 512, 512, 128, 4}, true);
  CHECK(sk::sim::validate_sm100_matmul(q).empty());
  q.cluster_m = 1, q.cluster_n = 2;
  CHECK(sk::sim::validate_sm100_matmul(q).find("2x1 only") != std::string::npos);
  q.cluster_m = 2, q.cluster_n = 1;
  q.b_mn_major = true;
  CHECK(sk::sim::validate_sm100_matmul(q).find("K-major") != std::string::npos);
}

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

uint32_t* slot() { return reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 64); }
}  // namespace

TEST_CASE("a 2-SM allocation outside a cluster is a finding") {
  ScenarioOptions o{.ctas = 1, .warps = 1};
  auto r = run_scenario(o, [] { sk::arch::tcgen05_alloc_pair(slot(), 64); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tcgen05.pair_no_peer"));
}

TEST_CASE("the pair allocates the same columns in both CTAs and both must call") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    sk::arch::tcgen05_alloc_pair(slot(), 128);
    sk::test::note(std::to_string(sk::arch::ld_shared(slot())));
    sk::arch::tcgen05_relinquish_alloc_permit_pair();
    sk::arch::tcgen05_dealloc_pair(sk::arch::ld_shared(slot()), 128);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK(r.findings.empty());
  REQUIRE(r.notes.size() == 2);
  CHECK(r.notes[0] == r.notes[1]);

  auto skip = run_scenario(o, [] {
    if (sk::arch::cluster_ctarank() == 0) sk::arch::tcgen05_alloc_pair(slot(), 128);
  });
  REQUIRE_MESSAGE(skip.ok, skip.error);
  CHECK(skip.status == "deadlock");
  CHECK(skip.has_rule("deadlock.pair_alloc"));

  auto sizes = run_scenario(o, [] {
    sk::arch::tcgen05_alloc_pair(slot(), sk::arch::cluster_ctarank() == 0 ? 128 : 64);
  });
  REQUIRE_MESSAGE(sizes.ok, sizes.error);
  CHECK(sizes.has_rule("tmem.pair_mismatch"));
}

TEST_CASE("a multicast commit names ranks of the cluster and tracks something") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto commit = [](uint16_t mask) {
    uint64_t* bar = sk::test::bar_at(0);
    sk::test::init_cluster_barriers(1, 1);
    if (sk::arch::cluster_ctarank() == 0)
      if (auto l = sk::elect_one()) sk::arch::tcgen05_commit_pair_multicast(bar, mask);
    // Each CTA waits for the arrival on its own barrier.
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
    sk::arch::cluster_sync();
  };
  // Nothing issued before it: the empty group arrives on the issuer only.
  auto empty = run_scenario(o, [&] { commit(3); });
  REQUIRE_MESSAGE(empty.ok, empty.error);
  CHECK(empty.has_rule("tcgen05.empty_commit_multicast"));
  CHECK(empty.status == "deadlock");
  auto outside = run_scenario(o, [&] { commit(4); });
  REQUIRE_MESSAGE(outside.ok, outside.error);
  CHECK(outside.has_rule("tcgen05.commit_mask"));
  auto leader_only = run_scenario(o, [&] { commit(1); });
  REQUIRE_MESSAGE(leader_only.ok, leader_only.error);
  CHECK(leader_only.status == "deadlock");
  CHECK(leader_only.has_rule("cluster.signal_one_cta"));
}

TEST_CASE("the 2-SM MMA: the even CTA issues it, M is 256, one cta_group per kernel") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto issue = [](uint32_t m, bool from_odd, bool mix) {
    sk::arch::tcgen05_alloc_pair(slot(), 128);
    const uint32_t rank = sk::arch::cluster_ctarank();
    if (rank == (from_odd ? 1u : 0u))
      if (auto l = sk::elect_one()) {
        const uint64_t d = sk::umma::kmajor_desc(sk::arch::smem_addr(sk::arch::dynamic_smem()) +
                                                     1024,
                                                 128, 1024);
        const uint32_t idesc = sk::umma::f16_instr_desc(m, 64, sk::umma::InputType::kBF16);
        if (mix)
          sk::arch::tcgen05_mma_f16_ss(0, d, d, sk::umma::f16_instr_desc(128, 64,
                                                                         sk::umma::InputType::kBF16),
                                       false);
        else
          sk::arch::tcgen05_mma_f16_ss_pair(0, d, d, idesc, false);
      }
  };
  auto ok = run_scenario(o, [&] { issue(256, false, false); });
  REQUIRE_MESSAGE(ok.ok, ok.error);
  CHECK_FALSE(ok.has_rule("tcgen05.pair_not_leader"));
  CHECK_FALSE(ok.has_rule("tcgen05.pair_shape"));
  auto odd = run_scenario(o, [&] { issue(256, true, false); });
  REQUIRE_MESSAGE(odd.ok, odd.error);
  CHECK(odd.has_rule("tcgen05.pair_not_leader"));
  auto m128 = run_scenario(o, [&] { issue(128, false, false); });
  REQUIRE_MESSAGE(m128.ok, m128.error);
  CHECK(m128.has_rule("tcgen05.pair_shape"));
  auto mixed = run_scenario(o, [&] { issue(256, false, true); });
  REQUIRE_MESSAGE(mixed.ok, mixed.error);
  CHECK(mixed.has_rule("tcgen05.mixed_cta_group"));
}

namespace {
// A 128 x 64 BF16 matrix; boxes of 64 x 64 (8 KiB).
sk::arch::TensorMap g_map;
void setup_matrix() {
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t addr = gpu.gmem().allocate(128 * 64 * 2, "M");
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 64, 128, 128, 64, 64,
                                             sk::models::sm100::Swizzle::k128B)
              .empty());
}

// Rank 0 loads a box into its own SMEM completing on rank `bar_rank`'s
// barrier, which that rank expects and waits for.
void load_onto(uint32_t bar_rank) {
  uint64_t* bar = sk::test::bar_at(0);
  sk::test::init_cluster_barriers(1, 1);
  const uint32_t rank = sk::arch::cluster_ctarank();
  if (rank == 0)
    if (auto l = sk::elect_one())
      sk::arch::tma_load_2d_pair(sk::arch::dynamic_smem() + 1024, &g_map, bar, bar_rank, 0, 0);
  if (rank == 1) {
    if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive_expect_tx(bar, 64 * 64 * 2);
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
  }
  sk::arch::cluster_sync();
}
}  // namespace

TEST_CASE("a 2-SM load completes on its own CTA's or its pair peer's barrier only") {
  ScenarioOptions o{.ctas = 4, .warps = 1, .cluster_size = 4};
  o.setup = setup_matrix;
  auto peer = run_scenario(o, [] { load_onto(1); });
  REQUIRE_MESSAGE(peer.ok, peer.error);
  CHECK(peer.status == "completed");
  CHECK(peer.findings.empty());
  auto other = run_scenario(o, [] { load_onto(2); });
  REQUIRE_MESSAGE(other.ok, other.error);
  CHECK(other.has_rule("tma.pair_barrier"));
}

TEST_CASE("a multicast try_cancel in a cluster launch cancels a whole cluster for every CTA") {
  // Four clusters of two on four SMs: clusters 0 and 1 run, 2 and 3 pend.
  // Each running cluster's rank 0 cancels one pending cluster; both CTAs
  // read the same response, naming that cluster's first CTA.
  ScenarioOptions o{.ctas = 8, .warps = 1, .num_sms = 4, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    uint64_t* bar = sk::test::bar_at(0);
    void* response = sk::arch::dynamic_smem() + 16;
    sk::test::init_cluster_barriers(1, 1);
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_arrive_expect_tx(bar, 16);
      if (sk::arch::cluster_ctarank() == 0) sk::arch::clc_try_cancel_multicast(response, bar);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
    const bool canceled = sk::arch::clc_is_canceled(response);
    const uint32_t first = canceled ? sk::arch::clc_first_ctaid_x(response) : 999;
    if (auto l = sk::elect_one())
      sk::test::note(std::to_string(sk::arch::cta_idx()) + ":" + std::to_string(first));
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK(r.findings.empty());
  std::map<int, int> got;
  for (const auto& n : r.notes) got[std::stoi(n.substr(0, n.find(':')))] = std::stoi(n.substr(n.find(':') + 1));
  REQUIRE(got.size() == 4);  // the cancelled clusters never ran
  for (int c : {0, 1, 2, 3}) REQUIRE(got.count(c) == 1);
  CHECK(got[0] == got[1]);
  CHECK(got[2] == got[3]);
  CHECK(((got[0] == 4 && got[2] == 6) || (got[0] == 6 && got[2] == 4)));
}
