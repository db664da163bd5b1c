// The SM90 model's wgmma rules, each with its correct twin: a descriptor
// outside the layouts the model decodes (wgmma.bad_descriptor), operands that
// run past shared memory (wgmma.operand_out_of_range) and a wgmma without a
// wgmma.fence before it (wgmma.missing_fence).
// One warpgroup issues one m64n64k16 wgmma with fence, commit and wait.
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "models/sm90/api.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;
namespace arch = sk::arch;

constexpr uint32_t kSmem = 64 * 1024;

// How the warps fence: kFence before the wgmma (correct); kNone never;
// kAfterWait a fenced first wgmma, then wait_group, read the accumulator and
// a second wgmma without a fence.
enum class Fence { kFence, kNone, kAfterWait, kAfterWaitFenced };

// A and B descriptors at SMEM offsets a_off and b_off (K-major, 128-byte
// swizzle), each transformed by `edit` before the wgmma.
ScenarioResult one_wgmma(uint32_t a_off, uint32_t b_off, uint64_t (*edit)(uint64_t),
                         Fence fence = Fence::kFence) {
  ScenarioOptions o;
  o.warps = 4;  // one warpgroup
  o.smem_bytes = kSmem;
  o.setup = [] { sk::models::sm90::api::reset(); };
  return run_scenario(o, [a_off, b_off, edit, fence] {
    uint8_t* smem = arch::dynamic_smem();
    const uint64_t da = edit(arch::make_smem_desc_sw128(arch::smem_addr(smem + a_off)));
    const uint64_t db = edit(arch::make_smem_desc_sw128(arch::smem_addr(smem + b_off)));
    sk::LaneArray<float, 32> acc;
    if (fence != Fence::kNone) arch::wgmma_fence();
    arch::wgmma_m64n64k16_bf16_ss(acc, da, db, false);
    arch::wgmma_commit_group();
    arch::wgmma_wait_group<0>();
    if (fence == Fence::kAfterWait || fence == Fence::kAfterWaitFenced) {
      acc.lane(0)[0] *= 2.0f;  // the registers are used between the two wgmmas
      if (fence == Fence::kAfterWaitFenced) arch::wgmma_fence();
      arch::wgmma_m64n64k16_bf16_ss(acc, da, db, true);
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<0>();
    }
  });
}

uint64_t keep(uint64_t d) { return d; }
uint64_t no_swizzle(uint64_t d) { return d & ~(uint64_t{3} << 62); }
uint64_t stride_512(uint64_t d) { return (d & ~(uint64_t{0x3FFF} << 32)) | (uint64_t{512 >> 4} << 32); }

}  // namespace

TEST_CASE("a wgmma on 128B-swizzled K-major tiles inside shared memory is clean") {
  auto r = one_wgmma(0, 8192, keep);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("a descriptor without the 128B swizzle or with another row stride is wgmma.bad_descriptor") {
  for (auto edit : {no_swizzle, stride_512}) {
    auto r = one_wgmma(0, 8192, edit);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.count_rule("wgmma.bad_descriptor") == 4);  // each warp's quarter of the op
    CHECK_MESSAGE(r.findings.size() == 4, r.findings_text());
  }
}

TEST_CASE("an operand running past shared memory is wgmma.operand_out_of_range") {
  // A's 64 rows of 128 bytes start 4 KiB before the end of the CTA's SMEM.
  auto r = one_wgmma(kSmem - 4096, 8192, keep);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("wgmma.operand_out_of_range") >= 1);
  CHECK_MESSAGE(r.findings.size() == static_cast<size_t>(r.count_rule("wgmma.operand_out_of_range")),
                r.findings_text());
  // The same tile 8 KiB before the end fits.
  auto ok = one_wgmma(kSmem - 8192, 0, keep);
  REQUIRE_MESSAGE(ok.ok, ok.error);
  CHECK_MESSAGE(ok.findings.empty(), ok.findings_text());
}

TEST_CASE("a wgmma without a wgmma.fence since the start or the last wait_group is wgmma.missing_fence") {
  for (Fence f : {Fence::kNone, Fence::kAfterWait}) {
    auto r = one_wgmma(0, 8192, keep, f);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.count_rule("wgmma.missing_fence") == 4);  // once per warp
    CHECK_MESSAGE(r.findings.size() == 4, r.findings_text());
  }
  auto fixed = one_wgmma(0, 8192, keep, Fence::kAfterWaitFenced);
  REQUIRE_MESSAGE(fixed.ok, fixed.error);
  CHECK_MESSAGE(fixed.findings.empty(), fixed.findings_text());
}
