// Tensor maps changed by the kernel: tensormap.replace retargets a map in
// global memory, and TMA sees the change only through the tensormap proxy
// fences; a change while a load still reads the map, a missing fence, or a
// replace on a read-only map are findings.
#include <doctest/doctest.h>

#include <cstring>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/swizzle.h"
#include "models/sm100/gpu.h"
#include "tests/model/scenario.h"

namespace {
using sk::models::sm100::Swizzle;
using sk::models::sm100::TensorMapModel;
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

// A 100 x 64 BF16 matrix whose element (r, c) is r*256+c, its address, and a
// copy of its map (box 64 x 8) in a global workspace, plus one on the host.
uint64_t g_base = 0;
TensorMapModel* g_ws = nullptr;
TensorMapModel g_host_map;

void setup() {
  auto& gpu = sk::models::sm100::Gpu::current();
  g_base = gpu.gmem().allocate(100 * 64 * 2, "M");
  auto* p = reinterpret_cast<uint16_t*>(gpu.gmem().host(g_base));
  for (int r = 0; r < 100; ++r)
    for (int c = 0; c < 64; ++c) p[r * 64 + c] = static_cast<uint16_t>(r * 256 + c);
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_host_map, g_base, 2, 64, 100, 128, 64, 8,
                                             Swizzle::k128B)
              .empty());
  uint64_t ws = gpu.gmem().allocate(sizeof(TensorMapModel), "maps");
  g_ws = reinterpret_cast<TensorMapModel*>(gpu.gmem().host(ws));
  *g_ws = g_host_map;
}

uint64_t* bar() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()); }
uint8_t* tile() { return sk::arch::dynamic_smem() + 1024; }

// Loads box (0, 0) through `map` on phase `phase` of the barrier and waits.
void load(const TensorMapModel* map, uint32_t phase, bool wait = true) {
  if (auto l = sk::elect_one()) {
    sk::arch::mbarrier_arrive_expect_tx(bar(), 64 * 8 * 2);
    sk::arch::tma_load_2d(tile(), map, bar(), 0, 0);
  }
  while (wait && !sk::arch::mbarrier_try_wait_parity(bar(), phase & 1)) {
  }
}

// Notes the first row index held by the loaded tile.
void note_first_row() {
  uint16_t v;
  memcpy(&v, tile() + sk::swizzle_offset<128>(0), 2);
  note(std::to_string(v / 256));
}

enum class Fences { kBoth, kNoRelease, kNoAcquire };

void retarget(uint32_t row, Fences f) {
  if (auto l = sk::elect_one()) {
    sk::arch::tensormap_replace_global_address(g_ws, g_base + row * 128);
    sk::arch::tensormap_replace_global_dim<1>(g_ws, 100 - row);
    if (f != Fences::kNoRelease) sk::arch::fence_proxy_tensormap_release();
    if (f != Fences::kNoAcquire) sk::arch::fence_proxy_tensormap_acquire(g_ws);
  }
}

void init_bar() {
  if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar(), 1);
}

ScenarioOptions options() {
  ScenarioOptions o{.warps = 1};
  o.setup = setup;
  return o;
}
}  // namespace

TEST_CASE("a map retargeted with both fences loads from its new rows") {
  auto r = run_scenario(options(), [] {
    init_bar();
    load(g_ws, 0);
    note_first_row();
    retarget(40, Fences::kBoth);
    load(g_ws, 1);
    note_first_row();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0", "40"});
}

TEST_CASE("a retargeted map used without the writer's release is a finding") {
  auto r = run_scenario(options(), [] {
    init_bar();
    retarget(8, Fences::kNoRelease);
    load(g_ws, 0);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.has_rule("tensormap.missing_fence_proxy_tensormap"));
  CHECK(r.findings_text().find("generic.release") != std::string::npos);
}

TEST_CASE("a retargeted map used without the issuer's acquire is a finding") {
  auto r = run_scenario(options(), [] {
    init_bar();
    retarget(8, Fences::kNoAcquire);
    load(g_ws, 0);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.has_rule("tensormap.missing_fence_proxy_tensormap"));
  CHECK(r.findings_text().find("generic.acquire") != std::string::npos);
}

TEST_CASE("retargeting a map while a load still reads it is a finding") {
  auto r = run_scenario(options(), [] {
    init_bar();
    load(g_ws, 0, /*wait=*/false);
    retarget(8, Fences::kBoth);
    while (!sk::arch::mbarrier_try_wait_parity(bar(), 0)) {
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tensormap.write_while_in_use"));
}

TEST_CASE("maps outside global memory and misaligned addresses cannot be replaced") {
  auto r = run_scenario(options(), [] {
    if (auto l = sk::elect_one()) {
      sk::arch::tensormap_replace_global_address(&g_host_map, g_base);
      sk::arch::tensormap_replace_global_address(g_ws, g_base + 8);
      sk::arch::tensormap_replace_global_dim<3>(g_ws, 4);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tensormap.replace_not_global"));
  CHECK(r.has_rule("tensormap.bad_replace"));
  CHECK(r.findings_text().find("rank-2") != std::string::npos);
}
