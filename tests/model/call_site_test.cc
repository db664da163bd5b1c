// call_site_test.cc: findings name the author's line and the chain of
// component calls down to the intrinsic (engine/call_site.h,
// kernels/arch/model/site.h). Components take their caller's line as a
// defaulted arch::CallSite and hold an arch::Caller for the call; a finding's
// location is the outermost frame, its chain every frame.
#include <doctest/doctest.h>

#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/payloads.h"
#include "kernels/pipeline/tile_pipeline.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;

std::string here(int line) { return "tests/model/call_site_test.cc:" + std::to_string(line); }

uint64_t* misaligned() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem() + 12); }

// Two layers of component: outer() calls inner(), which makes the intrinsic
// call the model reports (an mbarrier at an address that is not 8-byte
// aligned).
constexpr int kIntrinsicLine = __LINE__ + 4;
constexpr int kInnerCallLine = __LINE__ + 8;
void inner(uint64_t* b, sk::arch::CallSite site = sk::arch::CallSite::current()) {
  const sk::arch::Caller caller(site);
  sk::arch::mbarrier_init(b, 1);
}

void outer(uint64_t* b, sk::arch::CallSite site = sk::arch::CallSite::current()) {
  const sk::arch::Caller caller(site);
  inner(b);
}

const sk::test::ScenarioFinding* first(const ScenarioResult& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("a finding two components down names the kernel's line, then each component's") {
  static constexpr int kKernelLine = __LINE__ + 3;
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    if (auto l = sk::elect_one()) {
      outer(misaligned());
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  const auto* f = first(r, "mbarrier.bad_address");
  REQUIRE_MESSAGE(f != nullptr, r.findings_text());
  CHECK(f->location == here(kKernelLine));
  CHECK(f->chain ==
        std::vector<std::string>{here(kKernelLine), here(kInnerCallLine), here(kIntrinsicLine)});
}

TEST_CASE("the caller stack is popped on return: a later direct call has no chain") {
  static constexpr int kDirectLine = __LINE__ + 5;
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    if (auto l = sk::elect_one()) {
      outer(reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem() + 16));  // aligned: clean
      sk::arch::mbarrier_arrive(reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem() + 16));
      sk::arch::mbarrier_init(misaligned(), 1);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  const auto* f = first(r, "mbarrier.bad_address");
  REQUIRE_MESSAGE(f != nullptr, r.findings_text());
  CHECK(f->location == here(kDirectLine));
  CHECK(f->chain.empty());
}

TEST_CASE("a stage handle dropped unreleased is reported at the line that acquired it") {
  static constexpr int kAcquireLine = __LINE__ + 10;
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    using Pipe = sk::TilePipeline<sk::WorkPayload<uint32_t>, 2>;
    struct Smem {
      typename Pipe::Storage bars;
      uint32_t slots[2];
    };
    auto* s = reinterpret_cast<Smem*>(sk::arch::dynamic_smem());
    if (auto l = sk::elect_one()) Pipe::init(&s->bars, 1, 1, "ring");
    const Pipe pipe(&s->bars, sk::WorkPayload<uint32_t>{s->slots});
    { auto st = pipe.producer().acquire(); }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  const auto* f = first(r, "stage.unreleased");
  REQUIRE_MESSAGE(f != nullptr, r.findings_text());
  CHECK(f->location == here(kAcquireLine));
  REQUIRE(f->chain.size() == 2);
  CHECK(f->chain[0] == here(kAcquireLine));
  CHECK(f->chain[1].rfind("kernels/pipeline/tile_pipeline.h:", 0) == 0);
}

TEST_CASE("a deadlock in the ring names the kernel's acquire, through the pipeline and backend") {
  static constexpr int kAcquireLine = __LINE__ + 10;
  auto r = run_scenario(ScenarioOptions{.warps = 1}, [] {
    using Pipe = sk::TilePipeline<sk::WorkPayload<uint32_t>, 2>;
    struct Smem {
      typename Pipe::Storage bars;
      uint32_t slots[2];
    };
    auto* s = reinterpret_cast<Smem*>(sk::arch::dynamic_smem());
    if (auto l = sk::elect_one()) Pipe::init(&s->bars, 1, 1, "ring");
    const Pipe pipe(&s->bars, sk::WorkPayload<uint32_t>{s->slots});
    auto st = pipe.consumer().acquire();  // nothing ever fills the stage
    std::move(st).release();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.status == "deadlock");
  REQUIRE_MESSAGE(!r.findings.empty(), r.findings_text());
  const auto& f = r.findings.front();
  CHECK(f.location == here(kAcquireLine));
  REQUIRE(f.chain.size() == 3);
  CHECK(f.chain[1].rfind("kernels/pipeline/tile_pipeline.h:", 0) == 0);
  CHECK(f.chain[2].rfind("kernels/pipeline/mbarrier_backend.h:", 0) == 0);
  REQUIRE(!r.deadlock_details.empty());
  CHECK(r.deadlock_details.front().find(here(kAcquireLine) + " -> kernels/pipeline/") !=
        std::string::npos);
}
