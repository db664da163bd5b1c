// The SM90 matmul's K split over a cluster (kernels/matmul/split_k_reduce.h,
// Params::split_k and split_tail) in the model: against the FP64 host
// reference on odd shapes, clean under the race detector, with its DSMEM
// bytes, waves and times counted, and the splits the kernel cannot run
// refused. Each run is a separate simulation process.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "kernels/matmul/sm90_matmul.h"
#include "runner/kernels/matmul_dispatch.h"
#include "runner/kernels/sm90_matmul_run.h"
#include "tests/model/sm90_param_file.h"
#include "tests/model/sm90_run.h"

namespace {
using sk::test::findings_text;
using sk::test::run_request;
}  // namespace

namespace {
// The 128-column tile with `stages` stages on M x N x K, split over `split`
// CTAs (1: none), as the K split's tests run it.
sk::sim::MatmulRequest split_request(uint32_t m, uint32_t n, uint32_t k, uint32_t split,
                                     uint32_t stages = 4) {
  sk::sim::MatmulRequest q;
  q.m = m;
  q.n = n;
  q.k = k;
  q.tile_n = 128;
  q.stages = stages;
  q.split_k = split;
  return q;
}
}  // namespace

TEST_CASE("sm90 K split over a cluster matches the reference on odd shapes") {
  // Splits of 2, 3, 4 and 8 with k-blocks not a multiple of the split, edge
  // tiles, clusters walking several tiles (the slots reused: 40 tiles on 16
  // clusters of 8), three ranks owning 3, 3 and 2 warps' rows, an MN-major
  // operand and the TMA-store epilogue; clean
  // under the race detector, whose clock domain is the cluster.
  struct Case {
    uint32_t m, n, k, stages, split;
    bool a_mn_major, tma_epilogue;
  };
  const Case cases[] = {{257, 199, 1000, 3, 2, false, false}, {300, 260, 456, 4, 4, false, false},
                        {1000, 520, 1000, 5, 8, false, false}, {130, 1030, 4096, 2, 8, false, false},
                        {200, 136, 520, 3, 2, true, false},    {333, 517, 904, 4, 4, false, true},
                        {389, 645, 1096, 3, 3, false, false},  {250, 300, 200, 4, 3, false, true}};
  uint64_t seed = 31;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q = split_request(c.m, c.n, c.k, c.split, c.stages);
    q.a_mn_major = c.a_mn_major;
    q.tma_epilogue = c.tma_epilogue;
    q.functional = true;
    q.seed = seed++;
    const auto r = run_request(q);
    INFO(c.m << "x" << c.n << "x" << c.k << " split " << c.split << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
    CHECK(r.ctas % c.split == 0);
  }
}

TEST_CASE("sm90 K split: a few-tile long-K launch spreads over the split's CTAs") {
  // 384 x 384 x 10048: nine 128 x 128 tiles, 157 k-blocks each.
  sk::sim::MatmulRequest q = split_request(384, 384, 10048, 1);
  const auto one = run_request(q);
  q.split_k = 8;
  const auto eight = run_request(q);
  CHECK(one.ctas == 9);
  CHECK(eight.ctas == 72);
  CHECK(eight.status == "completed");
  // Every tile, each of its 8 consumer warps' 16 x 128 FP32 accumulators
  // (8 KiB) from each of the 7 ranks that do not own its rows.
  CHECK(one.dsmem_bytes == 0);
  CHECK(eight.dsmem_bytes == 9ull * 8 * 7 * 8192);
  // Occupancy counts tiles over clusters: nine clusters of 8 on 72 SMs, one
  // wave.
  CHECK(eight.tile_ctas == 8);
  CHECK(eight.sms == 72);
  CHECK(eight.waves == doctest::Approx(1.0));
  CHECK(one.tile_ctas == 1);
  CHECK(one.waves == doctest::Approx(9.0 / 132));
  // 33 tiles: clusters of 8 fit 15 at a time on the GPCs (gpc_sms: 120 SMs),
  // so the persistent clusters walk 2.2 waves of tiles.
  q.n = 1344;
  q.k = 1088;
  const auto waves = run_request(q);
  CHECK(waves.sms == 120);
  CHECK(waves.waves == doctest::Approx(33.0 / 15));
  // Each CTA runs an eighth of the k-blocks; the reduction costs a fraction
  // of what that saves.
  CHECK(eight.predicted_time_us < one.predicted_time_us / 2.5);
  CHECK(eight.predicted_time_us > one.predicted_time_us / 8);
}

TEST_CASE("sm90 K split: the reduction's DSMEM stores pass the SM-to-SM network") {
  // 384 x 384 x 2048 in clusters of 8 at a pinned clock: each rank sends 7
  // warps' 8 KiB and each owner warp receives 7, through ports of R bytes a
  // cycle, before its release at cluster scope; R = 0 is the posted store.
  sk::sim::MatmulRequest q = split_request(384, 384, 2048, 8);
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  auto cycles = [&](double rate) {
    const auto r = run_request(q, sk::test::sm90_params_with({{"dsmem_store_bytes_per_cycle", rate}}));
    REQUIRE(r.status == "completed");
    return r.predicted_time_us * 1980;
  };
  const double posted = cycles(0), r16 = cycles(16), r32 = cycles(32);
  // A CTA's seven 8 KiB stores leave through its one port: at least
  // 7 x 8192 / R cycles before its last release; received the same way.
  CHECK(r16 - posted >= 0.9 * 7 * 8192 / 16);
  CHECK(r32 - posted >= 0.9 * 7 * 8192 / 32);
  // Twice the rate, about half the added time.
  CHECK((r16 - posted) / (r32 - posted) == doctest::Approx(2.0).epsilon(0.25));
}

TEST_CASE("sm90 K split of the last wave only (--split-tail) matches the reference on odd shapes") {
  // On 8 SMs: 27 tiles (9 x 3, edge tiles on both sides) take 3 waves of 8
  // whole, one CTA each, and the last 3 split (S = 2: 4 clusters, one round;
  // S = 3: 2 clusters of 6 CTAs, two rounds; S = 8: one cluster, three); a
  // wave's worth of whole tiles per CTA odd and even; an MN-major operand,
  // the TMA-store epilogue and the tile order; clean under the race detector.
  struct Case {
    uint32_t m, n, k, stages, split, tile_group;
    bool a_mn_major, tma_epilogue;
    uint64_t split_tiles;
  };
  const Case cases[] = {{1100, 300, 520, 4, 2, 1, false, false, 3},
                        {1100, 300, 904, 3, 3, 2, false, true, 3},
                        {1100, 300, 600, 2, 8, 1, true, false, 3},
                        {1500, 300, 456, 4, 2, 1, false, false, 4},    // 36 tiles: 4 whole a CTA
                        {500, 260, 1000, 4, 4, 1, false, false, 4},   // 12 tiles: 8 whole, 4 on 2 clusters
                        {300, 100, 1000, 4, 2, 1, false, false, 3}};  // 3 tiles, under a wave: all split
  uint64_t seed = 71;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q = split_request(c.m, c.n, c.k, c.split, c.stages);
    q.split_tail = true;
    q.tile_group = c.tile_group;
    q.a_mn_major = c.a_mn_major;
    q.tma_epilogue = c.tma_epilogue;
    q.functional = true;
    q.seed = seed++;
    const auto r = run_request(q, sk::test::sm90_params_with_sms(8));
    INFO(c.m << "x" << c.n << "x" << c.k << " split " << c.split << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
    CHECK(r.split_tiles == c.split_tiles);
    // Each split tile's 8 consumer warps' 16 x 128 FP32 accumulators (8 KiB)
    // from each of the S - 1 ranks that do not own their rows.
    CHECK(r.dsmem_bytes == c.split_tiles * 8 * (c.split - 1) * 8192);
  }
}

TEST_CASE("sm90 K split over two CTAs: four slots, a stage more, and the 192-column tile") {
  // S = 2 launches the configuration of 4 slots (sm90_split_slots): six
  // stages of the 128-column tile fit beside them, and the 192-column tile
  // splits too (48 KiB of slots); other splits keep 7 and tile N 128.
  CHECK(sk::sm90_split_slots(2) == 4);
  CHECK(sk::sm90_split_slots(3) == 7);
  CHECK(sk::split_k_fits(2, 4));
  CHECK_FALSE(sk::split_k_fits(3, 4));
  sk::sim::MatmulRequest q = split_request(300, 260, 1000, 2, 6);
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.split_k = 3;
  CHECK(sk::sim::validate_sm90_matmul(q).find("56 KiB") != std::string::npos);
  q.tile_n = 192;
  CHECK(sk::sim::validate_sm90_matmul(q).find("192 with --split-k 2") != std::string::npos);
  q.split_k = 2;
  CHECK(sk::sim::validate_sm90_matmul(q).find("48 KiB") != std::string::npos);  // 6 x 40 KiB
  // Functional on odd shapes, every tile split and the last wave only (on 8
  // SMs: 18 tiles of 128 x 192, 16 whole and 2 split over 4 clusters).
  uint64_t seed = 91;
  for (const bool tail : {false, true})
    for (const bool tma : {false, true}) {
      sk::sim::MatmulRequest f = split_request(650, 500, 712, 2, tma ? 3 : 4);
      f.tile_n = 192;
      f.split_tail = tail;
      f.tma_epilogue = tma;
      f.functional = true;
      f.seed = seed++;
      const auto r = run_request(f, sk::test::sm90_params_with_sms(8));
      INFO("tail " << tail << " tma " << tma << ": " << r.check.detail);
      CHECK(r.status == "completed");
      CHECK_MESSAGE(r.findings.empty(), findings_text(r));
      CHECK(r.check.passed);
      CHECK(r.tile_n == 192);
      CHECK(r.split_tiles == (tail ? 2u : 0u));
      // Each split tile's 8 warps' 16 x 192 FP32 accumulators (12 KiB) from the other rank.
      CHECK(r.dsmem_bytes == (tail ? 2u : 18u) * 8 * 12288);
    }
}

TEST_CASE("sm90 K split of the last wave only: a nearly empty last wave takes half a tile's time") {
  // 9 tiles on 8 SMs with long K: one CTA's second tile alone makes two
  // waves; split over a cluster of 2 the last wave takes about half a tile.
  sk::sim::MatmulRequest q = split_request(3 * 128, 3 * 128, 64 * 64, 1);
  q.sm_clock_ghz = q.rest_clock_ghz = 1.7;
  const std::string eight = sk::test::sm90_params_with_sms(8);
  const auto whole = run_request(q, eight);
  q.split_k = 2;
  q.split_tail = true;
  const auto tail = run_request(q, eight);
  q.split_tail = false;
  const auto every = run_request(q, eight);  // every tile split: 9 tiles on 4 clusters, 3 rounds
  REQUIRE(whole.status == "completed");
  REQUIRE(tail.status == "completed");
  CHECK(whole.ctas == 8);
  CHECK(tail.ctas == 8);
  CHECK(tail.split_tiles == 1);
  CHECK(whole.waves == doctest::Approx(9.0 / 8));
  CHECK(tail.waves == doctest::Approx(1 + 1.0 / 4 / 2));
  CHECK(tail.tail_wave_pct == doctest::Approx(25.0));
  const double t1 = whole.predicted_time_us, t2 = tail.predicted_time_us, t3 = every.predicted_time_us;
  CHECK(t2 < 0.85 * t1);
  CHECK(t2 > 0.6 * t1);
  CHECK(t2 < t3);
  // The summary says what ran whole and what split.
  CHECK(tail.config_name.find("_splitk2tail") != std::string::npos);
}

TEST_CASE("sm90 K splits the kernel cannot run are refused") {
  sk::sim::MatmulRequest q = split_request(256, 256, 1024, 5);
  CHECK(sk::sim::validate_sm90_matmul(q).find("2, 3, 4 or 8") != std::string::npos);
  q.split_k = 6;
  CHECK(sk::sim::validate_sm90_matmul(q).find("2, 3, 4 or 8") != std::string::npos);
  q.split_k = 3;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.split_k = 2;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.cluster_m = 2;
  CHECK(sk::sim::validate_sm90_matmul(q).find("--cluster") != std::string::npos);
  q.cluster_m = 1;
  q.tile_n = 256;
  CHECK(sk::sim::validate_sm90_matmul(q).find("tile N 128") != std::string::npos);
  q.tile_n = 128;
  q.k = 192;  // three k-blocks for four CTAs
  q.split_k = 4;
  CHECK(sk::sim::validate_sm90_matmul(q).find("k-block") != std::string::npos);
  q.k = 1024;
  q.stages = 6;  // six stages and the slots exceed 227 KB
  CHECK(sk::sim::validate_sm90_matmul(q).find("K split") != std::string::npos);
  // A tail split with no split.
  q.arch = "sm90";
  q.stages = 4;
  q.split_k = 1;
  q.split_tail = true;
  CHECK(sk::sim::validate_matmul(q).find("--split-tail") != std::string::npos);
  q.split_k = 2;
  CHECK(sk::sim::validate_matmul(q).empty());
}
