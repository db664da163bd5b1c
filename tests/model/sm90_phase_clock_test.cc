// sm90_phase_clock_test.cc: the SM clock follows the tensor work
// (models/sm100/phase_clock.h) and a CTA's warps start after
// cta_start_latency, in one launch of a one-warp kernel that reports tensor
// work by hand at known cycles.
//
// Expected, from the definitions alone: the rest phase until the first work,
// the tensor phase until `hold` after the end of the last work (work that
// arrives before then extends it), the rest phase after; the time is each
// segment's cycles over its clock, and the memory side's cycle counts follow
// the clock in effect.
#include <doctest/doctest.h>

#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"

namespace {
namespace sm100 = sk::models::sm100;
namespace sm90 = sk::models::sm90;

TEST_CASE("the tensor phase runs from the first tensor work to hold after the last") {
  sm100::Params p = sm90::gpu_params();
  p.cta_start_latency = 700;
  sm100::Gpu gpu(p, false);
  sm90::api::reset();
  sm100::PhaseClock& clock = sm90::api::phase_clock();
  // Tensor phase at 1.5 GHz, rest at 2.0, hold 100 ns = 150 tensor-phase cycles.
  clock.start(gpu, {1.5, 2.0, 100.0});
  uint64_t body_start = 0, l2_at_rest = 0, l2_in_tensor = 0;
  const std::string err = gpu.launch(1, 1, 1024, [&] {
    sk::sim::Warp& w = gpu.warp();
    body_start = gpu.engine().now();
    l2_at_rest = gpu.params().tma_l2_latency;
    w.stall(300, "before");                // rest phase until 1000
    clock.tensor_work(1500);               // tensor phase from 1000
    l2_in_tensor = gpu.params().tma_l2_latency;
    w.stall(300, "overlap");               // at 1300, before 1500 + 150
    clock.tensor_work(1800);               // extends it: ends at 1950
    w.stall(1400, "idle");                 // the kernel ends at 2700
  });
  REQUIRE(err.empty());
  REQUIRE(gpu.run(1000000) == sk::sim::RunStatus::kCompleted);

  CHECK(body_start == 700);
  const auto& seg = gpu.sm_clock().segments();
  REQUIRE(seg.size() == 3);
  CHECK(seg[0].from == 0);
  CHECK(seg[0].ghz == 2.0);
  CHECK(seg[1].from == 1000);
  CHECK(seg[1].ghz == 1.5);
  CHECK(seg[2].from == 1950);
  CHECK(seg[2].ghz == 2.0);
  CHECK(clock.tensor_cycles(2700) == 950);
  CHECK(gpu.sm_clock().ns_at(2700) == doctest::Approx(1000 / 2.0 + 950 / 1.5 + 750 / 2.0));
  // The L2 latency is a time on the memory side: fewer SM cycles at the
  // lower clock, by the clocks' ratio.
  CHECK(l2_at_rest == p.at_sm_clock(2.0).tma_l2_latency);
  CHECK(l2_in_tensor == p.at_sm_clock(1.5).tma_l2_latency);
  CHECK(l2_in_tensor < l2_at_rest);
  clock.stop();
}

}  // namespace
