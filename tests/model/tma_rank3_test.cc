// Rank-3 tiled TMA maps (a batch of matrices): a load reads only its plane,
// zero-fills rows past the plane's end (the next plane's bytes are never
// read), a plane outside the tensor is all zeros with its full bytes counted,
// a store writes only its plane's in-bounds rows, and an instruction whose
// rank is not the map's is a finding.
#include <doctest/doctest.h>

#include <cstring>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/swizzle.h"
#include "models/sm100/gpu.h"
#include "tests/model/scenario.h"

namespace {
using sk::models::sm100::Swizzle;
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

// Three planes of 40 x 70 BF16 elements, rows 72 elements apart, planes 41
// rows apart (one padding row between planes). Element (z, r, c) is
// z << 13 | r << 7 | c; the padding holds 0xffff.
constexpr int kPlanes = 3, kRows = 40, kCols = 70, kPitch = 72, kPlaneRows = 41;
sk::arch::TensorMap g_map;
sk::arch::TensorMap g_map2d;
uint64_t g_addr = 0;

uint16_t value(int z, int r, int c) { return static_cast<uint16_t>(z << 13 | r << 7 | c); }

void setup() {
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t bytes = uint64_t{kPlanes} * kPlaneRows * kPitch * 2;
  g_addr = gpu.gmem().allocate(bytes, "batch");
  auto* p = reinterpret_cast<uint16_t*>(gpu.gmem().host(g_addr));
  for (int z = 0; z < kPlanes; ++z)
    for (int r = 0; r < kPlaneRows; ++r)
      for (int c = 0; c < kPitch; ++c)
        p[(z * kPlaneRows + r) * kPitch + c] = r < kRows && c < kCols ? value(z, r, c) : 0xffff;
  const uint64_t dims[3] = {kCols, kRows, kPlanes};
  const uint64_t strides[2] = {kPitch * 2, uint64_t{kPlaneRows} * kPitch * 2};
  REQUIRE(sk::models::sm100::encode_tiled_3d(g_map, g_addr, 2, dims, strides, 64, 8,
                                             Swizzle::k128B).empty());
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_map2d, g_addr, 2, kCols, kRows, kPitch * 2, 64, 8,
                                             Swizzle::k128B).empty());
}

// Loads box (c0, c1) of plane c2 and notes the number of wrong elements;
// the n-th load of a run waits on its own barrier.
void load_and_check(int32_t c0, int32_t c1, int32_t c2) {
  static int n = 0;
  uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()) + n++;
  uint8_t* dst = sk::arch::dynamic_smem() + 1024;
  if (auto l = sk::elect_one()) {
    sk::arch::mbarrier_init(bar, 1);
    sk::arch::mbarrier_arrive_expect_tx(bar, 64 * 8 * 2);
    sk::arch::tma_load_3d(dst, &g_map, bar, c0, c1, c2);
  }
  while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
  }
  int wrong = 0;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) {
      uint16_t got;
      memcpy(&got, dst + sk::swizzle_offset<128>(r * 128 + c * 2), 2);
      const int gr = c1 + r, gc = c0 + c;
      const bool in = c2 >= 0 && c2 < kPlanes && gr < kRows && gc < kCols;
      wrong += got != (in ? value(c2, gr, gc) : 0);
    }
  note(std::to_string(wrong));
}

ScenarioOptions options() {
  ScenarioOptions o{.warps = 1};
  o.setup = setup;
  return o;
}
}  // namespace

TEST_CASE("a rank-3 load reads its own plane and zero-fills rows past the plane's end") {
  auto r = run_scenario(options(), [] {
    load_and_check(0, 8, 1);    // inside plane 1
    load_and_check(16, 36, 1);  // rows 40..43 lie past the plane (its padding row, then plane 2)
    load_and_check(0, 0, 2);    // the last plane
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0", "0", "0"});
}

TEST_CASE("a plane outside the tensor loads zeros and still counts the box's bytes") {
  auto r = run_scenario(options(), [] { load_and_check(0, 0, kPlanes); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0"});
}

TEST_CASE("a rank-3 store writes its plane's in-bounds rows and nothing else") {
  auto r = run_scenario(options(), [] {
    uint8_t* src = sk::arch::dynamic_smem() + 1024;
    for (int i = 0; i < 64 * 8; ++i) {
      const uint16_t v = 0x5a5a;
      memcpy(src + i * 2, &v, 2);
    }
    if (auto l = sk::elect_one()) {
      sk::arch::fence_proxy_async_shared();
      sk::arch::tma_store_3d(&g_map, src, 8, 36, 2);  // rows 36..43: 40.. are clipped
      sk::arch::bulk_commit_group();
      sk::arch::bulk_wait_group<0>();
    }
    sk::arch::sync_warp();
    auto& gpu = sk::models::sm100::Gpu::current();
    const auto* p = reinterpret_cast<const uint16_t*>(gpu.gmem().host(g_addr));
    int wrong = 0, written = 0;
    for (int z = 0; z < kPlanes; ++z)
      for (int r = 0; r < kPlaneRows; ++r)
        for (int c = 0; c < kPitch; ++c) {
          const bool target = z == 2 && r >= 36 && r < kRows && c >= 8 && c < kCols;
          const uint16_t before = r < kRows && c < kCols ? value(z, r, c) : 0xffff;
          const uint16_t got = p[(z * kPlaneRows + r) * kPitch + c];
          written += target;
          wrong += got != (target ? 0x5a5a : before);
        }
    note(std::to_string(written) + " " + std::to_string(wrong));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{std::to_string(4 * 62) + " 0"});
}

namespace {
// Every lane writes its 32 bytes of a box of staging at `src`, then fences
// the async proxy (and, with `sync`, meets __syncwarp).
void fill_staging(uint32_t* src, bool sync) {
  sk::for_each_lane([&](uint32_t l) {
    for (uint32_t i = 0; i < 8; ++i) sk::arch::st_shared(src + l * 8 + i, 0x5a5a5a5au);
  });
  sk::arch::fence_proxy_async_shared();
  if (sync) sk::arch::sync_warp();
}

// One lane stores the box at `src` to plane `plane` of D and waits for its
// read (`read_only`) or for all of it.
void store_staging(uint32_t* src, int32_t plane, bool read_only) {
  if (auto l = sk::elect_one()) {
    sk::arch::tma_store_3d(&g_map, src, 8, 36, plane);
    sk::arch::bulk_commit_group();
    if (read_only)
      sk::arch::bulk_wait_group_read<0>();
    else
      sk::arch::bulk_wait_group<0>();
  }
}
}  // namespace

TEST_CASE("an elected lane's TMA store reads the other lanes' staging only after __syncwarp") {
  // The TMA-store epilogue's order (kernels/io/wgmma_tile_writer.h): every
  // lane writes its part of the box, fences the async proxy, and one lane
  // issues the store; without the __syncwarp between, the issuing lane's
  // store is not ordered after the other lanes' writes.
  for (const bool synced : {true, false}) {
    ScenarioOptions o = options();
    o.race_detector = true;
    auto r = run_scenario(o, [synced] {
      auto* src = reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 1024);
      fill_staging(src, synced);
      store_staging(src, 2, false);
      sk::arch::sync_warp();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("synced: " << synced);
    if (synced) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK_MESSAGE(r.has_rule("syncwarp.missing_before_release"), r.findings_text());
      CHECK_MESSAGE(r.findings_text().find("issue of an async operation") != std::string::npos,
                    r.findings_text());
    }
  }
}

TEST_CASE("lanes refill a TMA store's staging only after the elected lane's wait and __syncwarp") {
  // The TMA-store epilogue's staging reuse: one lane stores the box and
  // waits for the store to have read it (bulk wait_group.read); the lanes
  // then write the next box there. Without __syncwarp after the wait, the
  // other lanes' writes are not ordered after the store's read.
  for (const bool synced : {true, false}) {
    ScenarioOptions o = options();
    o.race_detector = true;
    auto r = run_scenario(o, [synced] {
      auto* src = reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 1024);
      fill_staging(src, true);
      store_staging(src, 2, true);
      if (synced) sk::arch::sync_warp();
      fill_staging(src, true);
      store_staging(src, 1, false);  // another plane of D
      sk::arch::sync_warp();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("synced: " << synced);
    if (synced) {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    } else {
      CHECK_MESSAGE(r.has_rule("syncwarp.missing_after_acquire"), r.findings_text());
    }
  }
}

TEST_CASE("an instruction whose rank is not the map's is a finding") {
  auto r = run_scenario(options(), [] {
    uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
    uint8_t* dst = sk::arch::dynamic_smem() + 1024;
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::tma_load_2d(dst, &g_map, bar, 0, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tma.rank_mismatch"));
  auto r2 = run_scenario(options(), [] {
    if (auto l = sk::elect_one())
      sk::arch::tma_store_3d(&g_map2d, sk::arch::dynamic_smem() + 1024, 0, 0, 0);
  });
  REQUIRE_MESSAGE(r2.ok, r2.error);
  CHECK(r2.has_rule("tma.rank_mismatch"));
}

TEST_CASE("rank-3 encoding enforces the driver's rules on the plane stride and dim") {
  sk::models::sm100::TensorMapModel m;
  const uint64_t dims[3] = {64, 64, 4}, zero_planes[3] = {64, 64, 0};
  const uint64_t good[2] = {128, 128 * 64}, odd[2] = {128, 128 * 64 + 8};
  CHECK(sk::models::sm100::encode_tiled_3d(m, 0x1000, 2, dims, good, 64, 8, Swizzle::k128B).empty());
  CHECK(m.rank == 3);
  CHECK(m.box_bytes() == 64 * 8 * 2);
  CHECK(!sk::models::sm100::encode_tiled_3d(m, 0x1000, 2, dims, odd, 64, 8, Swizzle::k128B).empty());
  CHECK(!sk::models::sm100::encode_tiled_3d(m, 0x1000, 2, zero_planes, good, 64, 8, Swizzle::k128B)
             .empty());
  CHECK(!sk::models::sm100::encode_tiled_3d(m, 0x1008, 2, dims, good, 64, 8, Swizzle::k128B).empty());
}
