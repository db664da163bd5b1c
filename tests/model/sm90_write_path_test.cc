// sm90_write_path_test.cc: the SM90 model's store paths are shared fairly
// (models/sm90/write_path.h), in launches whose warps store known byte counts
// at known cycles through account_global_store.
//
// Expected, from the definition alone (X = store_bytes_per_cycle, the SM's
// rate, and the shared path set to X as well): warps storing on one SM split
// its rate and finish together; SMs storing at once split the shared path
// until one is done, and the rest then speed up; an SM that joins later slows
// the one already storing from then on. Whole-sector (16-byte) stores take
// the SM's own path at store_v4_bytes_per_cycle, with no shared limit. A
// 4-byte store instruction holds the SM's path for its bytes inside D but at
// least store_instruction_cycles.
// While warps of an SM store, each wgmma op of its other warps takes
// wgmma_store_bytes over the SM's current store rate longer
// (hw/h200/mma_beside_stores.cu measures it). With wgmma_warpgroup_op an op
// is the warpgroup's: it starts when the last of its warps issues it and
// completes for all four at once; a warp waiting for an op its siblings
// never issue is a deadlock the run reports, not a hang.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "kernels/arch/sm90/smem_desc.h"
#include "models/sm90/params.h"
#include "tests/model/sm90_param_file.h"

namespace {
namespace sm100 = sk::models::sm100;
namespace sm90 = sk::models::sm90;

// CTAs start at staggered cycles; every store is placed after all have, at
// least kT0 after the launch.
constexpr uint64_t kT0 = 100000;

struct Store {
  int cta, warp;
  uint64_t at;     // cycle the warp stores, from kT0
  uint32_t bytes;  // bytes it stores
  // >= 0: instead, 32 store instructions (account_global_stores) with this
  // many bytes inside D each.
  int instruction_bytes = -1;
};

// Runs the stores (each warp of each CTA at most one) and returns the cycle,
// from t0, at which each returned, in the order given.
// With `v4`, the stores are whole-sector ones (account_global_store_v4).
std::vector<uint64_t> run(const std::vector<Store>& stores, int ctas, int warps, double shared, bool v4 = false) {
  sm100::Params p = sm90::gpu_params();
  p.cta_start_latency = 0;
  p.issue_cycles = 0;
  p.gpu_store_bytes_per_cycle = shared;
  p.fill_order.clear();  // CTA c on SM c, whatever GPCs a test gives the SMs
  sm100::Gpu gpu(p, false);
  sm90::api::reset();
  std::vector<uint64_t> done(stores.size(), 0);
  uint64_t t0 = 0;  // kT0 after the first CTA starts (cycles go on across launches)
  const std::string err = gpu.launch(ctas, warps, 1024, [&] {
    sk::sim::Warp& w = gpu.warp();
    if (t0 == 0) t0 = gpu.engine().now() + kT0;
    for (size_t i = 0; i < stores.size(); ++i) {
      if (stores[i].cta != w.cta() || stores[i].warp != w.index()) continue;
      REQUIRE(gpu.engine().now() < t0);
      w.stall(t0 + stores[i].at - gpu.engine().now(), "wait");
      if (stores[i].instruction_bytes >= 0) {
        const std::vector<uint16_t> in_d(32, static_cast<uint16_t>(stores[i].instruction_bytes));
        sm90::api::account_global_stores(in_d.data(), 32, std::source_location::current());
      } else if (v4)
        sm90::api::account_global_store_v4(stores[i].bytes, std::source_location::current());
      else
        sm90::api::account_global_store(stores[i].bytes, std::source_location::current());
      done[i] = gpu.engine().now() - t0;
    }
  });
  REQUIRE(err.empty());
  REQUIRE(gpu.run(10000000) == sk::sim::RunStatus::kCompleted);
  return done;
}

uint64_t cycles(double bytes, double rate) { return static_cast<uint64_t>(std::ceil(bytes / rate - 1e-9)); }

TEST_CASE("warps storing on one SM share its path and finish together") {
  const double x = sm90::extras().store_bytes_per_cycle;
  REQUIRE(x > 0);
  const auto done = run({{0, 0, 0, 4096}, {0, 1, 0, 4096}}, 1, 2, 0);
  // First come, first served would let warp 0 out at 4096 / x.
  CHECK(done[0] == cycles(8192, x));
  CHECK(done[1] == cycles(8192, x));
}

TEST_CASE("SMs share the write path to L2 until one is done") {
  const double x = sm90::extras().store_bytes_per_cycle;
  const auto done = run({{0, 0, 0, 2048}, {1, 0, 0, 4096}}, 2, 1, x);
  // Both at x / 2 until CTA 0's 2048 bytes are out; CTA 1's last 2048 alone at x.
  CHECK(done[0] == cycles(4096, x));
  CHECK(done[1] == cycles(4096, x) + cycles(2048, x));
}

TEST_CASE("an SM that starts storing later slows the one already storing from then on") {
  const double x = sm90::extras().store_bytes_per_cycle;
  const uint64_t late = cycles(2048, x);  // CTA 0 has 2048 of 4096 bytes out by then
  const auto done = run({{0, 0, 0, 4096}, {1, 0, late, 4096}}, 2, 1, x);
  // From `late` both at x / 2: CTA 0's last 2048 take 4096 / x; CTA 1 then
  // has 2048 left, alone at x.
  CHECK(done[0] == late + cycles(4096, x));
  CHECK(done[1] == late + cycles(4096, x) + cycles(2048, x));
}

// account_global_stores: each of a warp's 4-byte store instructions holds
// the SM's path for its bytes inside D, but at least store_instruction_cycles
// (one predicated off past D's edge still passes the path: on the H200 an
// M = 1 tile's epilogue takes 65 % of a full one's).
TEST_CASE("a store instruction holds the SM's path at least store_instruction_cycles") {
  const double x = sm90::extras().store_bytes_per_cycle;
  for (double least : {10.0, 16.0}) {
    sm90::use_params(sk::test::sm90_params_with({{"store_instruction_cycles", least}}));
    const auto full = run({{0, 0, 0, 0, 128}}, 1, 1, 0);
    const auto empty = run({{0, 0, 0, 0, 0}}, 1, 1, 0);
    const auto one_row = run({{0, 0, 0, 0, 16}}, 1, 1, 0);
    // Two warps, 32 full and 32 empty instructions, share the SM's path
    // until the empty ones are through.
    const auto mixed = run({{0, 0, 0, 0, 128}, {0, 1, 0, 0, 0}}, 1, 2, 0);
    CHECK(full[0] == cycles(32 * 128, x));
    CHECK(empty[0] == cycles(32 * least * x, x));
    CHECK(one_row[0] == cycles(32 * std::max(16.0, least * x), x));
    CHECK(mixed[1] == cycles(2 * std::min(32 * 128.0, 32 * least * x), x));
  }
  sm90::use_params(sk::test::sm90_params_with({}));
}

// The parameter file with store_series_bytes_per_cycle set to `series`.
std::string params_with_series(double series) {
  return sk::test::sm90_params_with({{"store_series_bytes_per_cycle", series}});
}

TEST_CASE("with a series path each SM's rate falls with the SMs storing at once") {
  const double x = sm90::extras().store_bytes_per_cycle;
  sm90::use_params(params_with_series(2 * x));  // one SM alone: x / 1.5, two at once: x / 2 each
  REQUIRE(sm90::extras().store_series_bytes_per_cycle == doctest::Approx(2 * x));
  const auto alone = run({{0, 0, 0, 4096}}, 1, 1, 0);
  const auto both = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}}, 2, 1, 0);
  const auto late = run({{0, 0, 0, 4096}, {1, 0, 0, 2048}}, 2, 1, 0);
  sm90::use_params(params_with_series(0));
  CHECK(alone[0] == cycles(4096, x / 1.5));
  CHECK(both[0] == cycles(4096, x / 2));
  CHECK(both[1] == cycles(4096, x / 2));
  // Both at x / 2 until CTA 1's 2048 bytes are out; CTA 0's last 2048 alone at x / 1.5.
  CHECK(late[1] == cycles(2048, x / 2));
  CHECK(late[0] == cycles(2048, x / 2) + cycles(2048, x / 1.5));
}

TEST_CASE("whole-sector stores run at each SM's own rate, shared only by its warps") {
  const double y = sm90::extras().store_v4_bytes_per_cycle;
  REQUIRE(y > 0);
  const double x = sm90::extras().store_bytes_per_cycle;
  // Two SMs with the shared path at x: the 4-byte stores split it, the
  // 16-byte ones do not see it.
  const auto done = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}}, 2, 1, x, true);
  CHECK(done[0] == cycles(4096, y));
  CHECK(done[1] == cycles(4096, y));
  // Two warps of one SM share its rate.
  const auto one_sm = run({{0, 0, 0, 4096}, {0, 1, 0, 4096}}, 1, 2, 0, true);
  CHECK(one_sm[0] == cycles(8192, y));
  CHECK(one_sm[1] == cycles(8192, y));
}

// The H200 file with a store path per GPC of `gpc` bytes per cycle over
// SMs 0-3 (GPC 1; the rest in none), SM 0 served first.
std::string params_with_gpc_path(double gpc) {
  const int sms = sm90::gpu_params().num_sms;
  boost::json::array groups(sms, 0), first(sms, 0);
  for (int i = 0; i < 4; ++i) groups[i] = 1;
  first[0] = 1;
  return sk::test::sm90_params_with({{"gpc_store_bytes_per_cycle", gpc},
                                     {"sm_gpc", groups},
                                     {"store_first", first},
                                     {"gpc_sms", boost::json::array{}}});
}

TEST_CASE("a launch of fewer CTAs than SMs takes one SM of each TPC, GPC after GPC, first") {
  using sm90::fill_order;
  // SMs 0-1 in no GPC; GPC 2 on SMs 2-7 (TPCs 2-3, 4-5, 6-7), GPC 0 on 8-11.
  const std::vector<uint32_t> placed = {0, 0, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1};
  CHECK(fill_order(placed) == std::vector<uint32_t>{0, 1, 2, 8, 4, 10, 6, 3, 9, 5, 11, 7});
  CHECK(fill_order({}).empty());
}

TEST_CASE("the model places a launch of fewer CTAs than SMs by the fill order") {
  // The H100 file: 132 SMs by the block placement, its GPCs from sm_gpc.
  std::ifstream f("models/sm90/params_h100.json");
  REQUIRE(f.good());
  std::stringstream text;
  text << f.rdbuf();
  const std::string saved = sk::test::sm90_params_with({});
  sm90::use_params(text.str());
  const sk::models::sm100::Params p = sm90::gpu_params();
  const std::vector<uint32_t> gpc = sm90::extras().sm_gpc;
  sm90::use_params(saved);
  REQUIRE(p.fill_order.size() == 132);
  // 84 CTAs (as 320x5248x4928 with 128x192 tiles on GPU-6eeb6be9): the 8 SMs
  // in no GPC, one SM of each of the 62 TPCs, then 14 of their other SMs over
  // the GPCs in turn, which GPC first changing from launch to launch: 9-10 SMs
  // of each GPC of 16, 10-11 of the two of 18 and 5-6 of the one of 8 (the
  // board: 10, 10 and 6).
  std::vector<uint32_t> first(p.fill_order.begin(), p.fill_order.begin() + 84);
  std::map<uint32_t, int> per_gpc, size;
  for (uint32_t g : gpc) ++size[g];
  for (uint32_t sm : first) ++per_gpc[gpc[sm]];
  CHECK(per_gpc[0] == 8);
  for (const auto& [g, n] : per_gpc) {
    if (g == 0) continue;
    const int tpcs = size[g] / 2;
    CHECK(n >= tpcs + 1);
    CHECK(n <= tpcs + 2);
  }
  // A launch of 84 CTAs runs on those SMs, CTA c on the c-th lowest; one of
  // 132 runs CTA c on SM c.
  for (const int grid : {84, 132}) {
    sm100::Gpu gpu(p, false);
    sm90::api::reset();
    REQUIRE(gpu.launch(grid, 1, 1024, [] {}).empty());
    REQUIRE(gpu.run(1000000) == sk::sim::RunStatus::kCompleted);
    std::vector<uint32_t> want(p.fill_order.begin(), p.fill_order.begin() + grid);
    std::sort(want.begin(), want.end());
    for (int c = 0; c < grid; ++c) CHECK(gpu.cta(c).sm == static_cast<int>(want[c]));
  }
  // Every SM once.
  std::vector<uint32_t> all = p.fill_order;
  std::sort(all.begin(), all.end());
  for (uint32_t i = 0; i < all.size(); ++i) CHECK(all[i] == i);
}

TEST_CASE("with a GPC store path the clusters' groups follow the block placement") {
  using sm90::cluster_groups_in_block_order;
  // Blocks 0-3 on SMs in no GPC (two pairs for clusters of 2), then GPC 2's 6
  // SMs, then GPC 0's 4: the groups in that order.
  const std::vector<uint32_t> placed = {0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1};
  CHECK(cluster_groups_in_block_order(placed, {4, 6, 2, 2}) == std::vector<uint32_t>{2, 2, 6, 4});
  // No store path, or no GPC list: the list as it is.
  CHECK(cluster_groups_in_block_order({}, {4, 6, 2, 2}) == std::vector<uint32_t>{4, 6, 2, 2});
  CHECK(cluster_groups_in_block_order(placed, {}).empty());
  // Runs that are not the file's GPCs are refused.
  CHECK_THROWS_AS(cluster_groups_in_block_order(placed, {4, 4, 2, 2, 2}), std::runtime_error);
  CHECK_THROWS_AS(cluster_groups_in_block_order({1, 1, 2, 1}, {3, 1}), std::runtime_error);
  CHECK_THROWS_AS(cluster_groups_in_block_order({0, 0, 0, 1}, {1, 2}), std::runtime_error);
}

TEST_CASE("a GPC's store path serves its first SMs at their own rate and shares the rest") {
  const double x = sm90::extras().store_bytes_per_cycle;
  const std::string saved = params_with_gpc_path(0);
  sm90::use_params(params_with_gpc_path(2.5 * x));
  // Two of the GPC's SMs fit its path: each at its own rate.
  const auto two = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}}, 2, 1, 0);
  // Four do not: SM 0 at x, the other three share 1.5 x until it is done
  // (2,048 bytes each by then), then 2.5 x / 3 each.
  const auto four = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}, {2, 0, 0, 4096}, {3, 0, 0, 4096}}, 4, 1, 0);
  // An SM outside the GPC (SM 4) is not held back by it.
  const auto outside = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}, {2, 0, 0, 4096}, {3, 0, 0, 4096},
                            {4, 0, 0, 4096}}, 5, 1, 0);
  sm90::use_params(saved);
  CHECK(two[0] == cycles(4096, x));
  CHECK(two[1] == cycles(4096, x));
  CHECK(four[0] == cycles(4096, x));
  const double rest = 4096 / x + 2048 / (2.5 * x / 3);
  for (int i = 1; i < 4; ++i) CHECK(static_cast<double>(four[i]) == doctest::Approx(rest).epsilon(0.002));
  CHECK(outside[4] == cycles(4096, x));
}

TEST_CASE("a store path without a shared limit runs each SM at its own rate") {
  const double x = sm90::extras().store_bytes_per_cycle;
  const auto done = run({{0, 0, 0, 4096}, {1, 0, 0, 4096}}, 2, 1, 0);
  CHECK(done[0] == cycles(4096, x));
  CHECK(done[1] == cycles(4096, x));
}

// k-block `kb` of the matmul's main loop from the calling warp: fence, four
// m64n128k16 ops on A (64 x 64 BF16 at 0) and B (128 x 64 at 8192) in shared
// memory, commit, wait_group 0.
void kblock(std::vector<float>& acc, int kb) {
  const auto loc = std::source_location::current();
  sm90::api::wgmma_fence(loc);
  for (uint32_t k = 0; k < 4; ++k)
    sm90::api::wgmma_mma(acc.data(), 64, sk::arch::make_smem_desc_sw128(32 * k),
                         sk::arch::make_smem_desc_sw128(8192 + 32 * k), kb > 0 || k > 0, loc);
  sm90::api::wgmma_commit_group(loc);
  sm90::api::wgmma_wait_group(0, loc);
}

// One CTA of eight warps: warps 4-7 (a warpgroup) run `kblocks` of the
// matmul's k-block (fence, four m64n128k16 ops from shared memory, commit,
// wait_group 0) from kT0; warps 0-3 each store `bytes` at kT0 (none when 0).
// Returns warp 4's cycles per k-block while the stores are in flight (the
// k-blocks that end before the first store returns), or over all k-blocks
// without stores.
double kblock_cycles(uint32_t bytes, int kblocks) {
  sm100::Params p = sm90::gpu_params();
  p.cta_start_latency = 0;
  sm100::Gpu gpu(p, false);
  sm90::api::reset();
  uint64_t t0 = 0, stored = ~uint64_t{0};
  std::vector<uint64_t> ends;
  const std::string err = gpu.launch(1, 8, 65536, [&] {
    sk::sim::Warp& w = gpu.warp();
    if (t0 == 0) t0 = gpu.engine().now() + kT0;
    w.stall(t0 - gpu.engine().now(), "wait");
    if (w.index() < 4) {
      if (bytes == 0) return;
      sm90::api::account_global_store(bytes, std::source_location::current());
      stored = std::min<uint64_t>(stored, gpu.engine().now());
      return;
    }
    std::vector<float> acc(32 * 64, 0.0f);
    for (int kb = 0; kb < kblocks; ++kb) {
      kblock(acc, kb);
      w.sync();
      if (w.index() == 4) ends.push_back(gpu.engine().now());
    }
  });
  REQUIRE(err.empty());
  REQUIRE(gpu.run(10000000) == sk::sim::RunStatus::kCompleted);
  std::vector<uint64_t> in;
  uint64_t prev = t0;
  for (uint64_t e : ends) {
    if (e <= stored) in.push_back(e - prev);
    prev = e;
  }
  REQUIRE(in.size() >= 4);
  // The first k-block starts the tensor core's queue; judge the rest.
  return static_cast<double>(in.back() + in[in.size() - 2] + in[in.size() - 3]) / 3.0;
}

TEST_CASE("a warpgroup's wgmma ops take longer while the SM's other warps store") {
  const double x = sm90::extras().store_bytes_per_cycle, bytes = sm90::extras().wgmma_store_bytes;
  REQUIRE(bytes > 0);
  const double alone = kblock_cycles(0, 16);
  // Four warps storing 16 KiB each: the SM's path at x (one SM storing),
  // 8 * 4096 / x cycles, long past the k-blocks judged.
  const double beside = kblock_cycles(16384, 16);
  // Four ops per k-block, each wgmma_store_bytes / x longer.
  CHECK(beside - alone == doctest::Approx(4 * bytes / x).epsilon(0.05));
  // Without the mechanism the stores do not touch the tensor core.
  const std::string saved = sk::test::sm90_params_with({});
  sm90::use_params(sk::test::sm90_params_with({{"wgmma_store_bytes", 0.0}}));
  const double plain = kblock_cycles(16384, 16);
  sm90::use_params(saved);
  CHECK(plain == doctest::Approx(alone).epsilon(0.001));
}

// One CTA of four warps (one warpgroup) with wgmma_warpgroup_op set: warp w
// reaches its k-blocks `delay[w]` cycles after the others' start and runs
// `kblocks` of them (fence, four m64n128k16, commit, wait_group 0); `issuers`
// of the four issue at all. Returns each warp's cycle (from t0) after its
// last wait, and the run's status.
std::pair<std::vector<uint64_t>, sk::sim::RunStatus> warpgroup_run(std::vector<uint64_t> delay, int kblocks,
                                                                  int issuers = 4) {
  sm100::Params p = sm90::gpu_params();
  p.cta_start_latency = 0;
  sm100::Gpu gpu(p, false);
  const std::string saved = sk::test::sm90_params_with({});
  sm90::use_params(sk::test::sm90_params_with({{"wgmma_warpgroup_op", 1}}));
  sm90::api::reset();
  uint64_t t0 = 0;
  std::vector<uint64_t> done(4, 0);
  const std::string err = gpu.launch(1, 4, 65536, [&] {
    sk::sim::Warp& w = gpu.warp();
    if (t0 == 0) t0 = gpu.engine().now() + kT0;
    w.stall(t0 + delay[w.index()] - gpu.engine().now(), "wait");
    if (w.index() >= issuers) return;
    std::vector<float> acc(32 * 64, 0.0f);
    for (int kb = 0; kb < kblocks; ++kb) kblock(acc, kb);
    w.sync();
    done[w.index()] = gpu.engine().now() - t0;
  });
  REQUIRE(err.empty());
  const auto status = gpu.run(10000000);
  sm90::use_params(saved);
  return {done, status};
}

TEST_CASE("with wgmma_warpgroup_op a warpgroup's op starts with its last warp and ends for all four") {
  const double per_op = sm90::extras().wgmma_ii_per_op + 128 * sm90::extras().wgmma_ii_per_n;
  // Together: every warp done at the same cycle.
  const auto [together, s1] = warpgroup_run({0, 0, 0, 0}, 4);
  REQUIRE(s1 == sk::sim::RunStatus::kCompleted);
  for (int w = 1; w < 4; ++w) CHECK(together[w] == together[0]);
  // One warp 1,000 cycles late: the others wait for it, and all end 1,000
  // cycles later than together (per-warp quarters would let three finish first).
  const auto [late, s2] = warpgroup_run({0, 0, 0, 1000}, 4);
  REQUIRE(s2 == sk::sim::RunStatus::kCompleted);
  for (int w = 0; w < 4; ++w) CHECK(late[w] == together[w] + 1000);
  // Four k-blocks of four ops back to back at least fill the tensor core.
  CHECK(static_cast<double>(together[0]) >= 16 * per_op);
  // A warp that never issues its wgmma: the three that wait are a deadlock.
  const auto [partial, s3] = warpgroup_run({0, 0, 0, 0}, 1, 3);
  CHECK(s3 == sk::sim::RunStatus::kDeadlock);
}

}  // namespace
