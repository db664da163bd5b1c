// The SM90 structured matmul (wgmma, register accumulators) in the model
// against an FP64 host reference, on odd shapes, every tile width and stages
// 2 to 6, with random inputs; each run is a separate simulation process and
// must be clean under the race detector. Timing mode must complete too.
#include <doctest/doctest.h>

#include <stdexcept>

#include <boost/json.hpp>

#include "kernels/matmul/sm90_matmul.h"
#include "models/sm90/params.h"
#include "tests/model/sm90_param_file.h"
#include "tests/model/sm90_run.h"
#include "runner/kernels/matmul_dispatch.h"
#include "runner/kernels/sm90_matmul_run.h"
#include "runner/report/kblock_trip.h"

namespace {
using sk::test::findings_text;
using sk::test::run_request;

sk::sim::RunResult run(uint32_t m, uint32_t n, uint32_t k, uint32_t tile_n, uint32_t stages,
                       bool functional, uint64_t seed, uint32_t cluster_m = 1,
                       uint32_t cluster_n = 1, uint32_t batch = 1, uint32_t tile_group = 1,
                       bool tma_epilogue = false) {
  sk::sim::MatmulRequest q;
  q.tma_epilogue = tma_epilogue;
  q.cluster_m = cluster_m;
  q.cluster_n = cluster_n;
  q.batch = batch;
  q.tile_group = tile_group;
  q.m = m;
  q.n = n;
  q.k = k;
  q.tile_n = tile_n;
  q.stages = stages;
  q.functional = functional;
  q.seed = seed;
  return run_request(q);
}
}  // namespace

TEST_CASE("sm90 matmul matches the reference on odd shapes") {
  struct Case {
    uint32_t m, n, k, tile_n, stages;
  };
  const Case cases[] = {{257, 199, 72, 128, 2}, {129, 300, 130, 256, 3}, {1, 1, 1, 128, 6},
                        {300, 257, 200, 256, 4}, {200, 136, 64, 128, 5},
                        {333, 517, 200, 192, 5}, {129, 385, 72, 192, 2}};  // 192: N not a multiple of it
  uint64_t seed = 5;
  for (const Case& c : cases) {
    auto r = run(c.m, c.n, c.k, c.tile_n, c.stages, true, seed++);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages << ": "
             << r.check.detail);
    CHECK(r.arch == "sm90");
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

TEST_CASE("sm90 timing mode runs a full grid") {
  auto r = run(4096, 4096, 4096, 256, 4, false, 0);
  CHECK(r.status == "completed");
  CHECK(r.ctas == 132);
  CHECK(r.tflops > 100);
  CHECK(r.peak_fraction < 1.0);
}

TEST_CASE("sm90 tile group auto: bands of 4 where a wave along M spans under three columns and K >= 768") {
  // 132 SMs: 44 tile rows (M > 5504) make a wave span three columns at most.
  CHECK(sk::sm90_auto_tile_group(8192, 8192, 132) == 4);
  CHECK(sk::sm90_auto_tile_group(44 * 128, 768, 132) == 4);
  CHECK(sk::sm90_auto_tile_group(43 * 128, 8192, 132) == 1);
  CHECK(sk::sm90_auto_tile_group(8192, 704, 132) == 1);
  CHECK(sk::sm90_auto_tile_group(4096, 8192, 132) == 1);
  CHECK(sk::sm90_auto_tile_group(1, 8192, 132) == 1);
  // The run resolves 0 (--tile-group auto) on the model's SMs: the same
  // launch as the group it names, functional and exact on an odd shape.
  const auto f = run(5700, 136, 770, 128, 3, true, 3, 1, 1, 1, 0);
  CHECK(f.config_name.find("_g4") != std::string::npos);
  CHECK(f.check.ran);
  CHECK_MESSAGE(f.check.passed, f.check.detail);
  const auto a = run(5700, 300, 770, 128, 3, false, 0, 1, 1, 1, 0);
  const auto g4 = run(5700, 300, 770, 128, 3, false, 0, 1, 1, 1, 4);
  CHECK(a.config_name == g4.config_name);
  CHECK(a.predicted_time_us == doctest::Approx(g4.predicted_time_us));
  CHECK(run(5700, 300, 700, 128, 3, false, 0, 1, 1, 1, 0).config_name.find("_g") == std::string::npos);
}

TEST_CASE("sm90 ping-pong schedule matches the reference on odd shapes, both epilogues") {
  // CTAs walking odd and even numbers of tiles, one k-block and several laps
  // of the ring, a grid of one CTA (one warpgroup idle) and rows past M.
  struct Case {
    uint32_t m, n, k, stages;
    bool tma;
  };
  const Case cases[] = {{520, 390, 72, 2, false}, {129, 1000, 696, 3, true}, {1, 1, 8, 6, false},
                        {700, 300, 1000, 4, true}, {2050, 2200, 72, 5, false}};
  uint64_t seed = 11;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q;
    q.m = c.m;
    q.n = c.n;
    q.k = c.k;
    q.tile_n = 128;
    q.stages = c.stages;
    q.tma_epilogue = c.tma;
    q.pingpong = true;
    q.functional = true;
    q.seed = seed++;
    const auto r = run_request(q);
    INFO(c.m << "x" << c.n << "x" << c.k << " stages " << c.stages << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK(r.config_name.find("_pingpong") != std::string::npos);
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
  // Timing mode runs the main loop in lockstep (one warp for four): the turn's
  // named barrier lies outside the converged region, so nothing is reported.
  sk::sim::MatmulRequest q;
  q.m = 2050;
  q.n = 2200;
  q.k = 320;
  q.tile_n = 128;
  q.stages = 4;
  q.pingpong = true;
  const auto r = run_request(q);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), findings_text(r));
}

TEST_CASE("sm90 consumers split along N (tile M 192, 256) match the reference on odd shapes") {
  // Rows past M in the last tile row, N past the last column, one k-block,
  // A shorter than one tile (its own box, the rest zeroed), MN-major
  // operands (A's 64-row blocks and B's column half 8 KiB apart either way),
  // F16 inputs and batches.
  struct Case {
    uint32_t m, n, k, tile_m, stages;
    bool a_col, b_row, f16;
    uint32_t batch;
  };
  const Case cases[] = {{577, 384, 1000, 256, 4, false, false, false, 1},
                        {391, 264, 520, 192, 3, false, false, false, 1},
                        {70, 72, 64, 192, 2, false, false, false, 1},
                        {100, 264, 520, 256, 4, false, false, false, 1},
                        {392, 264, 520, 192, 5, true, true, false, 1},
                        {520, 136, 200, 256, 2, true, false, true, 1},
                        {300, 200, 136, 192, 3, false, true, false, 3}};
  uint64_t seed = 31;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q;
    q.m = c.m;
    q.n = c.n;
    q.k = c.k;
    q.tile_m = c.tile_m;
    q.tile_n = 128;
    q.stages = c.stages;
    q.a_mn_major = c.a_col;
    q.b_mn_major = c.b_row;
    q.in_f16 = c.f16;
    q.batch = c.batch;
    q.functional = true;
    q.seed = seed++;
    const auto r = run_request(q);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_m " << c.tile_m << " stages " << c.stages << ": "
             << r.check.detail);
    CHECK(r.status == "completed");
    CHECK(r.tile_m == c.tile_m);
    CHECK(r.config_name.find(std::to_string(c.tile_m) + "x128x64") != std::string::npos);
    CHECK(r.ctas == std::min<uint64_t>((c.m + c.tile_m - 1) / c.tile_m * ((c.n + 127) / 128) * c.batch,
                                       132));
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
  // Timing mode (the main loop in lockstep) completes, with half the tiles of
  // the 128-row tile on 2048 x 1024 and the same FLOPs.
  sk::sim::MatmulRequest q;
  q.m = 2048;
  q.n = 1024;
  q.k = 512;
  q.tile_n = 128;
  q.stages = 4;
  const auto r128 = run_request(q);
  q.tile_m = 256;
  const auto r256 = run_request(q);
  CHECK(r256.status == "completed");
  CHECK_MESSAGE(r256.findings.empty(), findings_text(r256));
  CHECK(r128.ctas == 128);
  CHECK(r256.ctas == 64);
}

TEST_CASE("sm90 tile M: what the split along N cannot run is refused") {
  sk::sim::MatmulRequest q;
  q.m = q.n = q.k = 512;
  q.tile_n = 128;
  q.tile_m = 256;
  q.stages = 4;  // 48 KiB a stage
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.stages = 5;
  CHECK(sk::sim::validate_sm90_matmul(q).find("do not fit") != std::string::npos);
  q.tile_m = 192;  // 40 KiB a stage: five fit
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.tile_m = 320;
  CHECK(sk::sim::validate_sm90_matmul(q).find("128, 192 or 256") != std::string::npos);
  q.tile_m = 256;
  q.stages = 4;
  q.tile_n = 256;
  CHECK(sk::sim::validate_sm90_matmul(q).find("--tile-n 128") != std::string::npos);
  q.tile_n = 128;
  for (int i = 0; i < 4; ++i) {
    sk::sim::MatmulRequest x = q;
    if (i == 0) x.pingpong = true;
    if (i == 1) x.split_k = 2;
    if (i == 2) x.cluster_m = 2;
    if (i == 3) x.tma_epilogue = true;
    INFO("case " << i);
    CHECK(sk::sim::validate_sm90_matmul(x).find("runs without") != std::string::npos);
  }
}

TEST_CASE("sm90 configurations that do not fit are refused") {
  sk::sim::MatmulRequest q;
  q.m = q.n = q.k = 128;
  q.tile_n = 256;
  q.stages = 5;
  CHECK(sk::sim::validate_sm90_matmul(q).find("do not fit") != std::string::npos);
  q.stages = 4;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.tile_n = 192;  // 40 KiB a stage: five fit
  q.stages = 5;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
  q.stages = 6;
  CHECK(sk::sim::validate_sm90_matmul(q).find("do not fit") != std::string::npos);
  q.tile_n = 64;
  CHECK(!sk::sim::validate_sm90_matmul(q).empty());
}

TEST_CASE("sm90 clustered matmul matches the reference on odd shapes") {
  // Every cluster shape, blocks past the matrix edge (M or N tiles not a
  // multiple of the cluster's), clusters walking several blocks, batches and
  // the banded tile order; clean under the race detector (one clock domain
  // per cluster).
  struct Case {
    uint32_t m, n, k, tile_n, stages, cm, cn, batch, group;
  };
  const Case cases[] = {{300, 260, 192, 128, 3, 2, 1, 1, 1}, {300, 260, 136, 128, 4, 1, 2, 1, 1},
                        {520, 700, 200, 256, 2, 2, 2, 1, 1}, {700, 300, 72, 128, 5, 4, 1, 2, 1},
                        {129, 900, 64, 128, 3, 1, 4, 1, 1},  {1100, 1000, 128, 128, 3, 2, 2, 1, 3},
                        {1, 1, 1, 256, 4, 2, 1, 1, 1},       {300, 700, 136, 192, 4, 2, 1, 1, 1},
                        {520, 500, 64, 192, 3, 1, 2, 1, 1}};
  uint64_t seed = 11;
  for (const Case& c : cases) {
    auto r = run(c.m, c.n, c.k, c.tile_n, c.stages, true, seed++, c.cm, c.cn, c.batch, c.group);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages
             << " cluster " << c.cm << "x" << c.cn << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
    CHECK(r.ctas % (c.cm * c.cn) == 0);
  }
}

TEST_CASE("sm90 clusters: the grid holds whole clusters that fit the GPCs, multicast reads L2 once") {
  // 4096^2 with 128x256 tiles: 32 x 16 tiles. The H200's GPC groups hold 66
  // clusters of 2 and 30 of 4 (models/sm90/params.json, measured).
  const auto one = run(4096, 4096, 512, 256, 4, false, 0);
  const auto pair = run(4096, 4096, 512, 256, 4, false, 0, 2, 1);
  const auto quad = run(4096, 4096, 512, 256, 4, false, 0, 2, 2);
  CHECK(one.ctas == 132);
  CHECK(pair.ctas == 132);
  CHECK(quad.ctas == 120);
  CHECK(quad.sms == 120);  // the summary's waves are over the SMs the clusters fit on
  CHECK(one.sms == 132);
  for (const auto* r : {&one, &pair, &quad}) CHECK(r->status == "completed");
  // Without a cluster every byte in shared memory was read out of L2 for it.
  CHECK(one.tma_l2_read_bytes == one.smem_fill_bytes);
  // 2 x 1: B (256 of each k-block's 384 rows) is read once for two CTAs.
  const double saved2 = 1.0 - static_cast<double>(pair.tma_l2_read_bytes) / pair.smem_fill_bytes;
  CHECK(saved2 == doctest::Approx(256.0 / 384 / 2).epsilon(0.01));
  // 2 x 2: A and B each read once for two CTAs.
  const double saved4 = 1.0 - static_cast<double>(quad.tma_l2_read_bytes) / quad.smem_fill_bytes;
  CHECK(saved4 == doctest::Approx(0.5).epsilon(0.01));
}

TEST_CASE("sm90 cluster shapes the kernel cannot run are refused") {
  sk::sim::MatmulRequest q;
  q.m = q.n = q.k = 256;
  q.tile_n = 128;
  q.stages = 3;
  q.cluster_m = 4;
  q.cluster_n = 4;
  CHECK(sk::sim::validate_sm90_matmul(q).find("at most 8") != std::string::npos);
  q.cluster_m = 3;
  q.cluster_n = 1;
  CHECK(sk::sim::validate_sm90_matmul(q).find("1, 2, 4 or 8") != std::string::npos);
  q.cluster_m = 2;
  q.a_mn_major = true;
  CHECK(sk::sim::validate_sm90_matmul(q).find("K-major") != std::string::npos);
  q.a_mn_major = false;
  CHECK(sk::sim::validate_sm90_matmul(q).empty());
}

TEST_CASE("sm90 matmul with the TMA-store epilogue matches the reference on odd shapes") {
  // D staged in shared memory (two 16 x 64 boxes per warp) and stored by TMA:
  // partial column chunks, rows past M, a batch, clusters; clean under the
  // race detector (the staging writes are fenced before each store, and a
  // buffer is rewritten only after its store has read it).
  struct Case {
    uint32_t m, n, k, tile_n, stages, cm, cn, batch;
  };
  const Case cases[] = {{257, 199, 72, 128, 2, 1, 1, 1}, {300, 260, 136, 256, 4, 2, 1, 1},
                        {129, 330, 64, 128, 6, 1, 2, 3}, {1, 1, 1, 256, 3, 1, 1, 1}};
  uint64_t seed = 21;
  for (const Case& c : cases) {
    auto r = run(c.m, c.n, c.k, c.tile_n, c.stages, true, seed++, c.cm, c.cn, c.batch, 1, true);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << " stages " << c.stages
             << " cluster " << c.cm << "x" << c.cn << " batch " << c.batch << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), findings_text(r));
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}

// --stamp-tiles reads the consumer's probe points (the phases gemm_bench
// --stamp-tiles reads on a GPU) without moving the prediction; only tiles
// with a next one count, and a tile's main loop of K / 64 k-blocks takes at
// least their tensor-core time.
TEST_CASE("sm90 matmul: --stamp-tiles reads the kernel's probe points without moving the prediction") {
  // A 1.98 GHz run (one simulation, no clock search) of m x n x 320 with
  // 128 x 256 tiles and 4 stages.
  auto stamped_run = [](uint32_t m, uint32_t n, bool stamp, bool tma) {
    sk::sim::MatmulRequest q;
    q.m = m, q.n = n, q.k = 320, q.tile_n = 256, q.stages = 4;
    q.tma_epilogue = tma;
    q.stamp_tiles = stamp;
    q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
    return run_request(q);
  };
  for (bool tma : {false, true}) {
    INFO("tma epilogue " << tma);
    const auto plain = stamped_run(1024, 1024, false, tma), stamped = stamped_run(1024, 1024, true, tma);
    CHECK(plain.stamps.empty());
    CHECK(stamped.cycles == plain.cycles);
    REQUIRE(stamped.stamps.contains("tile_medians"));
    const auto& m = stamped.stamps.at("tile_medians").as_object();
    // 32 tiles of 128 x 256 on 32 CTAs: one tile each, none with a next one.
    CHECK(m.at("tiles").to_number<double>() == 0);
    // ... but all_tiles has each of them, for both warpgroups, and the span
    // from the first tile's start to the last one's stores covers a tile.
    const auto& w = stamped.stamps.at("all_tiles").as_object();
    auto ph = [&w](const char* k) { return w.at(k).to_number<double>(); };
    CHECK(ph("tiles") == 64);
    // at least the warpgroup's own 64 rows of the 5 k-blocks (the other
    // warpgroup's may have started before this one's first stage stamp)
    CHECK(ph("mainloop") >= 5.0 * 64 * 256 * 64 / 2048);
    CHECK(ph("epilogue") > 0);
    CHECK(ph("span_cycles") >= ph("first_wait") + ph("mainloop") + ph("epilogue"));
    CHECK(ph("span_cycles") < stamped.cycles);
  }
  // 33 x 8 tiles of 128 x 256 on 132 CTAs: two tiles each, the first with a
  // next one, for each of the two consumer warpgroups.
  for (bool tma : {false, true}) {
    INFO("tma epilogue " << tma);
    const auto r = stamped_run(33 * 128, 8 * 256, true, tma);
    const auto& m = r.stamps.at("tile_medians").as_object();
    auto ph = [&m](const char* k) { return m.at(k).to_number<double>(); };
    CHECK(ph("tiles") == 264);
    // 5 k-blocks of 128 x 256 x 64 MACs at 4,096 FLOP (2,048 MACs) per SM
    // cycle, less the other warpgroup's first k-block (64 rows), which may
    // run before this one's first stage stamp
    CHECK(ph("mainloop") >= 5.0 * 128 * 256 * 64 / 2048 - 64.0 * 256 * 64 / 2048);
    CHECK(ph("epilogue") > 0);
    CHECK(r.stamps.at("cta0_tiles").as_array().size() == 2);  // tile 0 of each warpgroup
  }
  // In 2x1 clusters a CTA's tiles are the cluster's blocks, which step by the
  // 66 clusters, not the 132 CTAs: 66 x 4 tiles of 128 x 256 are 132 blocks
  // of two, two tiles per CTA again, the first with a next one.
  sk::sim::MatmulRequest q;
  q.m = 66 * 128, q.n = 4 * 256, q.k = 320, q.tile_n = 256, q.stages = 4;
  q.cluster_m = 2, q.cluster_n = 1;
  q.stamp_tiles = true;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  const auto r = run_request(q);
  const auto& m = r.stamps.at("tile_medians").as_object();
  CHECK(m.at("tiles").to_number<double>() == 264);
  CHECK(m.at("period").to_number<double>() >= 5.0 * 128 * 256 * 64 / 2048);
  CHECK(r.stamps.at("cta0_tiles").as_array().size() == 2);
}

// --hold-kblock H: each consumer warp spins H cycles after every k-block's
// wgmma wait, before the release. One tile per CTA (1024 x 1024, 128 x 256
// tiles, 32 CTAs) with 5 k-blocks: the last hold of the tile is on its path
// to the stores, and no more than the 5 holds are, so the launch takes
// between H and 5 H (plus the ring's effect on the next stage's refill)
// more cycles; hold 0 installs nothing. The SM100 and CDNA3 matmuls refuse it.
TEST_CASE("sm90 matmul: --hold-kblock holds each stage longer") {
  auto held_run = [](uint32_t hold) {
    sk::sim::MatmulRequest q;
    q.m = 1024, q.n = 1024, q.k = 320, q.tile_n = 256, q.stages = 4;
    q.hold_kblock = hold;
    q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
    return run_request(q);
  };
  const auto plain = held_run(0), held = held_run(1000);
  CHECK(held.check.passed == plain.check.passed);
  // The hold's spin lies inside the consumers' converged loop: a lockstep
  // leader spins for its followers too.
  CHECK(held.findings.empty());
  CHECK(plain.stamps.empty());
  CHECK(held.stamps.empty());
  CHECK(held.cycles >= plain.cycles + 1000);
  CHECK(held.cycles <= plain.cycles + 5 * 1000 + 500);
  sk::sim::MatmulRequest q;
  q.m = q.n = 256, q.k = 128, q.hold_kblock = 10;
  q.arch = "sm100";
  CHECK(sk::sim::validate_matmul(q).find("--hold-kblock") != std::string::npos);
}

// The k-blocks' stamps give the stage round trip of the first CTAs' third
// and fourth tiles (runner/report/kblock_trip.h): on 8 SMs with 4 tiles of
// 128 x 256 each and 16 k-blocks a tile, a k-block takes the tensor core's
// 8 ops of 129.6 cycles, the round trip (issue to full, the hold,
// the release back to the producer) is the ring's 4 k-blocks, and no part of
// it is negative but the release, which may stamp after the producer wakes.
TEST_CASE("sm90 matmul: --stamp-tiles gives the stage round trip from the k-blocks' stamps") {
  // 8 SMs (the L2's side table and GPC list of the 132-SM file dropped).
  const std::string text = sk::test::sm90_params_with_sms(8);
  sk::sim::MatmulRequest q;
  q.m = 8 * 128, q.n = 4 * 256, q.k = 16 * 64, q.tile_n = 256, q.stages = 4;
  q.stamp_tiles = true;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  const auto r = run_request(q, text);
  REQUIRE(r.stamps.contains("kblocks"));
  const auto& kb = r.stamps.at("kblocks").as_object();
  auto v = [&kb](const char* k) { return kb.at(k).to_number<double>(); };
  // 8 CTAs x 2 tiles x k-blocks 8-11 (k-block 8 on, and k-block + 4 in the tile).
  CHECK(v("samples") == 64);
  // (a median of one warpgroup's gaps: the tensor core's pace within a few cycles)
  CHECK(v("kblock") >= 0.97 * 8 * 129.6);
  const double trip = v("issue_to_full") + v("hold") + v("release_to_issue");
  CHECK(trip == doctest::Approx(4 * v("kblock")).epsilon(0.1));
  CHECK(v("issue_to_full") > 0);
  CHECK(v("hold") >= 8 * 129.6 - 1);
  CHECK(v("consumer_wait") >= 0);
}

// A launch of one tile a CTA (few CTAs on a long K) is stamped from its
// first tile (report::kblock_first_tile): 8 CTAs x 1 tile x k-blocks 8-27,
// each at the tensor core's pace; before, such a launch gave no samples.
TEST_CASE("sm90 matmul: --stamp-tiles gives the round trip of one-tile CTAs from their first tile") {
  const std::string text = sk::test::sm90_params_with_sms(8);
  sk::sim::MatmulRequest q;
  q.m = 8 * 128, q.n = 256, q.k = 32 * 64, q.tile_n = 256, q.stages = 4;
  q.stamp_tiles = true;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  const auto r = run_request(q, text);
  REQUIRE(r.stamps.contains("kblocks"));
  const auto& kb = r.stamps.at("kblocks").as_object();
  CHECK(kb.at("samples").to_number<double>() == 8 * 20);
  CHECK(kb.at("kblock").to_number<double>() >= 0.97 * 8 * 129.6);
  static_assert(sk::report::kblock_first_tile(1) == 0 && sk::report::kblock_first_tile(2) == 0 &&
                sk::report::kblock_first_tile(3) == 2);
}

namespace {
// The H200 file with wgmma_tensor_cores and wgmma_interleave set, each
// warp's quarter of an op its own (wgmma_warpgroup_op 0), no rest after a
// wait, and the tensor core's slowing beside the SM's stores
// (wgmma_store_bytes) off, so that the tensor cores' count is judged alone.
std::string params_with_tensor_cores(int cores, int interleave) {
  return sk::test::sm90_params_with({{"wgmma_tensor_cores", cores},
                                     {"wgmma_interleave", interleave},
                                     {"wgmma_warpgroup_op", 0},
                                     {"wgmma_rest_ns", 0.0},
                                     {"wgmma_store_bytes", 0.0}});
}
}  // namespace

// With a tensor core per sub-partition (wgmma_tensor_cores 4) a warp's
// quarter of an op takes the whole op's interval on its own sub-partition:
// a warp that runs ahead of the other three of its warpgroup gains nothing
// from their idle tensor cores, so a warpgroup's main loop of 4 k-blocks of
// 4 m64n128k16 ops takes at least 16 x 65 cycles; with one tensor core per
// SM (the default) a warp running ahead gets the whole SM's rate and its main
// loop can take less (unless the other warps' stores slow it, which is off
// here; tests/model:sm90_write_path_test has that). Both keep the compute-bound k-block at the tensor
// core's 518.5 cycles (8 ops of 64.8) with one tile per CTA.
TEST_CASE("sm90 matmul: wgmma_tensor_cores 4 runs each warp's quarters on its own sub-partition") {
  auto phases = [](int cores, int interleave, uint32_t m, uint32_t n, uint32_t k, int sms) {
    sk::sim::MatmulRequest q;
    q.m = m, q.n = n, q.k = k, q.tile_n = 128, q.stages = 5;
    q.num_sms = sms;
    q.stamp_tiles = true;
    q.sm_clock_ghz = q.rest_clock_ghz = 1.7;
    q.per_warp = true;  // warps apart (in lockstep a warpgroup issues as one)
    const auto r = run_request(q, params_with_tensor_cores(cores, interleave));
    return r.stamps.at("all_tiles").as_object();
  };
  auto ph = [](const boost::json::object& o, const char* k) { return o.at(k).to_number<double>(); };
  // Short K with deep stages on the whole GPU (8192x4864x256: 64 x 38 tiles
  // of 128 x 128 on 132 SMs, 4 k-blocks a tile), where the warps drift.
  const auto quarters = phases(4, 0, 64 * 128, 38 * 128, 256, 0);
  CHECK(ph(quarters, "mainloop") >= 16 * 65);
  const auto one = phases(1, 1, 64 * 128, 38 * 128, 256, 0);
  CHECK(ph(one, "mainloop") < 16 * 65);
  // Compute-bound, one tile per CTA (16 CTAs): 64 k-blocks at the tensor core's rate.
  for (const auto& [cores, interleave] : {std::pair{4, 0}, std::pair{1, 1}}) {
    INFO("wgmma_tensor_cores " << cores);
    const double per_k_block = ph(phases(cores, interleave, 4 * 128, 4 * 128, 4096, 16), "mainloop") / 64;
    CHECK(per_k_block >= 518);
    CHECK(per_k_block <= 530);
  }
  // Only 1 and 4 are tensor-core counts.
  CHECK_THROWS_AS(sk::models::sm90::use_params(params_with_tensor_cores(2, 0)), std::runtime_error);
}

namespace {
// The cycles of a 1024 x 1024 x k launch of 128 x tile_n tiles pinned at
// 1.98 GHz with a rest of `rest` cycles (wgmma_rest_ns at that clock) and,
// with `slow_loads`, the L2 and HBM at 100 bytes a cycle.
uint64_t rest_launch(uint32_t k, uint32_t tile_n, uint32_t stages, double rest, bool slow_loads = false) {
  sk::sim::MatmulRequest q;
  q.m = 1024, q.n = 1024, q.k = k, q.tile_n = tile_n, q.stages = stages;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  const double ns = rest / 1.98;
  return run_request(q, slow_loads ? sk::test::sm90_params_with({{"wgmma_rest_ns", ns},
                                                                 {"l2_bytes_per_cycle", 100.0},
                                                                 {"hbm_bytes_per_cycle", 100.0}})
                                   : sk::test::sm90_params_with({{"wgmma_rest_ns", ns}}))
      .cycles;
}
}  // namespace

// wgmma_rest_ns: a consumer warp's next wgmma.fence after a wait that
// waited for a group issues no earlier than that long after the wait
// returned (X cycles: 1,515.15 ns at the pinned 1.98 GHz). One tile per CTA
// (1024 x 1024, 128 x 256 tiles, 32 CTAs) with 5 k-blocks: the 4 rests
// before the tile's later k-blocks are on its path (the last one's is not:
// no fence follows it). A k-block that takes ~1,040 cycles without the rest
// (the two warpgroups' 8 ops of 129 on the tensor core) takes the rest and
// at most both groups and the tail (~1,140) with it, so the launch takes at
// least 4 (X - 1,100) and at most 4 (X + 100) + 1,000 cycles more than with 0.
TEST_CASE("sm90 matmul: wgmma_rest_ns keeps each consumer warp from its next group") {
  const uint64_t plain = rest_launch(320, 256, 4, 0), rested = rest_launch(320, 256, 4, 3000);
  CHECK(rested >= plain + 4 * (3000 - 1100));
  CHECK(rested <= plain + 4 * (3000 + 100) + 1000);
}

// The rest runs from the wait's return: time the warp spends after it (its
// release, the next stage's acquire blocked on a load) covers it. With the
// loads slowed until each k-block waits ~20,000 cycles for its stage
// (l2_bytes_per_cycle 100: 64 CTAs x 32 KiB a k-block), a rest of 3,000
// cycles is hidden whole: the launch moves by under 1 %, where charging it
// after the acquire would add 3,000 to each of the 31 k-blocks after a
// tile's first (+14 %). Compute-bound (the loads at their rates), the same
// rest lands on every one of them.
TEST_CASE("sm90 matmul: wgmma_rest_ns runs from the wait, hidden behind a blocked acquire") {
  const uint64_t plain = rest_launch(2048, 128, 2, 0, true), rested = rest_launch(2048, 128, 2, 3000, true);
  INFO("cycles " << plain << " -> " << rested);
  CHECK(plain > 32 * 15000);  // loads bind: ~20,000 cycles a k-block
  CHECK(static_cast<double>(rested) <= 1.01 * static_cast<double>(plain));
  const uint64_t free_plain = rest_launch(2048, 128, 2, 0), free_rested = rest_launch(2048, 128, 2, 3000);
  INFO("compute-bound cycles " << free_plain << " -> " << free_rested);
  CHECK(free_rested >= free_plain + 31 * 2000);
}

namespace {
// Cycles of a launch whose A boxes reach past A (M = 129: the second row of
// tiles has 127 rows of every A box outside A; 132 CTAs of 128x128, 32
// k-blocks; a decode launch, M = 1, boxes A's one row and zero-fills
// nothing) at pinned clocks, with the parameter file as given or with its
// zero-fill surface removed (the one rate then).
uint64_t oob_launch(uint32_t stages, bool surface) {
  sk::sim::MatmulRequest q;
  q.m = 129, q.n = 8448, q.k = 2048, q.tile_n = 128, q.stages = stages;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  if (surface) return run_request(q).cycles;
  const boost::json::array none;
  return run_request(q, sk::test::sm90_params_with({{"tma_oob_surface_outside", none},
                                                    {"tma_oob_surface_sms", none},
                                                    {"tma_oob_surface_depths", none},
                                                    {"tma_oob_surface_rows_tenths", none}}))
      .cycles;
}
}  // namespace

// The zero-fill path by its load (models/sm100/oob_path.h, measured on the
// H200: 132 SMs keeping more boxes with rows outside in flight pass more of
// those rows a cycle): with the file's surface a launch zero-filling on
// half its SMs runs well ahead with six stages of three, as the decode
// launches with 128-row A boxes did on the board (1x57344x8192 128x128:
// 553 -> 384 us; 42,198 -> 36,406 cycles here); with one rate for the path
// it does not.
TEST_CASE("sm90 matmul: deeper pipelines pass a launch's zero-filled rows faster") {
  const uint64_t s3 = oob_launch(3, true), s6 = oob_launch(6, true);
  const uint64_t flat3 = oob_launch(3, false), flat6 = oob_launch(6, false);
  INFO("surface: " << s3 << " -> " << s6 << " cycles; one rate: " << flat3 << " -> " << flat6);
  CHECK(static_cast<double>(s6) <= 0.9 * static_cast<double>(s3));
  CHECK(static_cast<double>(flat6) >= 0.98 * static_cast<double>(flat3));
  CHECK(static_cast<double>(flat6) <= 1.02 * static_cast<double>(flat3));
}

namespace {
// The cycles of an M x N x 4096 launch of 128 x 128 tiles with 2 stages,
// pinned at 1.98 GHz, with hbm_queue_latency `queue`.
uint64_t queued_launch(uint32_t m, uint32_t n, int64_t queue) {
  sk::sim::MatmulRequest q;
  q.m = m, q.n = n, q.k = 4096, q.tile_n = 128, q.stages = 2;
  q.sm_clock_ghz = q.rest_clock_ghz = 1.98;
  return run_request(q, sk::test::sm90_params_with({{"hbm_queue_latency", queue}})).cycles;
}
}  // namespace

// hbm_queue_latency (an experiment, 0 in both files): a box that misses in L2
// waits queue x u / (1 - u) more, u the HBM's recent load. A decode-like
// launch (M = 128, 64 CTAs of 128 x 128 streaming B from HBM with two stages,
// so each k-block waits for its load) takes longer with it; one CTA's launch
// (its 32 KiB a k-block are under 2 % of the H200's HBM rate) moves by less
// than 1 %, and the busier launch is slowed by a larger share.
TEST_CASE("sm90 matmul: hbm_queue_latency lengthens a miss with HBM's load") {
  const uint64_t busy = queued_launch(128, 64 * 128, 0), busy_q = queued_launch(128, 64 * 128, 400);
  const uint64_t lone = queued_launch(128, 128, 0), lone_q = queued_launch(128, 128, 400);
  CHECK(busy_q > busy * 1.03);
  CHECK(lone_q < lone * 1.01);
  CHECK(static_cast<double>(busy_q) / busy > static_cast<double>(lone_q) / lone + 0.02);
}

TEST_CASE("sm90 B's narrow last tile column loads its own rows only") {
  // 256 x 260 x 320 with 128 x 128 tiles: two tile rows, three tile columns,
  // the last 4 columns of B wide; five k-blocks. That column's B box is its
  // 4 rows (sm90_b_edge_rows), so TMA fills 4 x 128 bytes of B a k-block
  // there, not the full box's 128 rows of which 124 lie outside B.
  sk::sim::MatmulRequest q;
  q.m = 256, q.n = 260, q.k = 320, q.tile_n = 128, q.stages = 3;
  const auto k_major = run_request(q);
  REQUIRE(k_major.status == "completed");
  const uint64_t a = 2 * 3 * 5 * 16384ull, b_full = 2 * 2 * 5 * 16384ull, b_edge = 2 * 5 * 512ull;
  CHECK(k_major.smem_fill_bytes == a + b_full + b_edge);
  // MN-major B keeps one map (the full box, zero-filled past N): 124 rows more a k-block.
  q.b_mn_major = true;
  const auto mn_major = run_request(q);
  REQUIRE(mn_major.status == "completed");
  CHECK(mn_major.smem_fill_bytes == a + b_full + 2 * 5 * 16384ull);
  // Exact against the reference with either schedule and epilogue, the edge
  // one row wide and a stage's first use on the edge column.
  q.b_mn_major = false;
  q.functional = true;
  for (const bool pingpong : {false, true})
    for (const bool tma : {false, true}) {
      q.m = 200;
      q.n = 257;
      q.k = 448;
      q.pingpong = pingpong;
      q.tma_epilogue = tma;
      q.seed = 5 + 2 * pingpong + tma;
      const auto r = run_request(q);
      INFO("pingpong " << pingpong << " tma " << tma << ": " << r.check.detail);
      CHECK(r.status == "completed");
      CHECK_MESSAGE(r.findings.empty(), findings_text(r));
      CHECK(r.check.passed);
    }
}
