// proxy_fence_global_test.cc: generic-proxy writes to global memory and a
// later TMA load of the same bytes in one launch (PTX 9.7.13.4, 8.6). The
// writer's st.global must be made visible to the async proxy with
// fence.proxy.async.global or the plain fence.proxy.async; the
// .shared::cta form does not cover global memory. One warp writes a row of a
// matrix with st.global (the SM90 intrinsic), fences (or not), and loads the
// box holding it by TMA.
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/arch/sm90.h"
#include "kernels/core/lanes.h"
#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "tests/model/scenario.h"

namespace {
using sk::models::sm100::Swizzle;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
namespace arch = sk::arch;

enum class Fence { kNone, kShared, kGlobal, kAll };

// A 64 x 64 BF16 matrix, box 64 x 8.
arch::TensorMap g_map;
uint8_t* g_base = nullptr;

sk::test::ScenarioResult write_then_load(Fence fence) {
  ScenarioOptions o{.warps = 1};
  o.race_detector = true;
  o.setup = [] {
    sk::models::sm90::api::reset();
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint64_t addr = gpu.gmem().allocate(64 * 64 * 2, "M");
    g_base = gpu.gmem().host(addr);
    REQUIRE(sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 64, 64, 128, 64, 8, Swizzle::kNone)
                .empty());
  };
  return run_scenario(o, [fence] {
    uint64_t* bar = reinterpret_cast<uint64_t*>(arch::dynamic_smem());
    uint8_t* dst = arch::dynamic_smem() + 1024;
    // Row 0 of the matrix, 4 bytes per lane.
    sk::for_each_lane([](uint32_t l) { arch::st_global_b32(g_base + 4 * l, 0x3f803f80u); });
    if (fence == Fence::kShared) arch::fence_proxy_async_shared();
    if (fence == Fence::kGlobal) arch::fence_proxy_async_global();
    if (fence == Fence::kAll) arch::fence_proxy_async();
    arch::sync_warp();  // every lane's store (and fence) before the elected lane's load
    if (auto l = sk::elect_one()) {
      arch::mbarrier_init(bar, 1);
      arch::mbarrier_arrive_expect_tx(bar, 64 * 8 * 2);
      arch::tma_load_2d(dst, &g_map, bar, 0, 0);
    }
    while (!arch::mbarrier_try_wait_parity(bar, 0)) {
    }
  });
}
}  // namespace

TEST_CASE("st.global then a TMA load of the same bytes needs fence.proxy.async.global") {
  for (Fence f : {Fence::kNone, Fence::kShared, Fence::kGlobal, Fence::kAll}) {
    CAPTURE(static_cast<int>(f));
    auto r = write_then_load(f);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    if (f == Fence::kNone || f == Fence::kShared)
      CHECK_MESSAGE(r.count_rule("proxy.missing_fence_proxy_async") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}
