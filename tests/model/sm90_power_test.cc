// sm90_power_test.cc: the power-limited SM clocks of a launch's two phases
// (models/sm100/power.h), the clock log that maps cycles to time
// (models/sm100/sm_clock.h) and the SM-clock view of the memory side
// (sm100::Params::at_sm_clock).
//
// The clocks are checked against the model's own definition, not against
// themselves: at the returned clocks each phase's draw meets the limit (or
// the clock is at its cap and the draw under the limit), a little faster
// would exceed it, and more work per cycle never raises a clock.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "models/sm100/params.h"
#include "models/sm100/sm_clock.h"
#include "models/sm90/params.h"
#include "models/sm100/power.h"

namespace {

using sk::models::sm100::KernelActivity;
using sk::models::sm100::LaunchClocks;
using sk::models::sm100::PowerModel;
using sk::models::sm100::board_power_w;
using sk::models::sm100::power_limited_clocks;
using sk::models::sm100::tensor_phase_power_w;

PowerModel h200_like() {
  PowerModel m;
  m.limit_w = 700;
  m.tensor_clock_ghz = 1.8;
  m.static_w = 100;
  m.pj_per_flop = 0.25;
  m.pj_per_tma_byte = 10;
  m.pj_per_hbm_byte = 150;
  m.pj_per_sm_cycle = 3000;
  m.energy_exponent = 2;
  return m;
}

// A launch of `util` tensor-core utilization on `sms` SMs at 4096 FLOP per
// SM cycle, `cycles` long (90 % of them in the tensor phase), moving
// `hbm_per_cycle` bytes per cycle.
KernelActivity dense(double util, uint64_t cycles, double hbm_per_cycle, int sms = 132) {
  KernelActivity a;
  a.cycles = cycles;
  a.tensor_cycles = cycles / 10 * 9;
  a.active_sms = sms;
  a.flops = util * 4096.0 * sms * static_cast<double>(a.tensor_cycles);
  a.hbm_bytes = hbm_per_cycle * static_cast<double>(cycles);
  a.tma_bytes = 0.008 * a.flops;  // 128x256 tiles: 48 KiB per 4.2 MFLOP
  return a;
}

TEST_CASE("each clock is at its cap or its phase's draw meets the limit exactly") {
  const PowerModel m = h200_like();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> util(0.0, 1.0), hbm(0.0, 2500.0);
  int tensor_bound = 0, rest_bound = 0;
  for (int i = 0; i < 300; ++i) {
    const KernelActivity a = dense(util(rng), 10000 + rng() % 5000000, hbm(rng), 1 + static_cast<int>(rng() % 132));
    const LaunchClocks f = power_limited_clocks(m, 1.98, a);
    REQUIRE(f.tensor_ghz > 0);
    REQUIRE(f.tensor_ghz <= f.rest_ghz);
    REQUIRE(f.rest_ghz <= 1.98);
    REQUIRE(f.tensor_ghz <= 1.8);
    const double t = tensor_phase_power_w(m, 1.98, f.tensor_ghz, a);
    const double r = rest_phase_power_w(m, 1.98, f.rest_ghz, a);
    CHECK(t <= m.limit_w * (1 + 1e-9));
    CHECK(r <= m.limit_w * (1 + 1e-9));
    if (f.tensor_ghz < 1.8) {
      ++tensor_bound;
      CHECK(t == doctest::Approx(m.limit_w).epsilon(1e-6));
      CHECK(tensor_phase_power_w(m, 1.98, f.tensor_ghz * 1.001, a) > m.limit_w);
    }
    if (f.rest_ghz < 1.98) {
      ++rest_bound;
      CHECK(r == doctest::Approx(m.limit_w).epsilon(1e-6));
      CHECK(rest_phase_power_w(m, 1.98, f.rest_ghz * 1.001, a) > m.limit_w);
    }
    // The launch's average lies between its phases' draws.
    const double avg = board_power_w(m, 1.98, f, a);
    CHECK(avg <= std::max(t, r) * (1 + 1e-9));
    CHECK(avg >= std::min(t, r) * (1 - 1e-9));
  }
  // The random launches exercise both limits and both caps.
  CHECK(tensor_bound > 10);
  CHECK(tensor_bound < 290);
  CHECK(rest_bound > 10);
  CHECK(rest_bound < 290);
}

TEST_CASE("more work per cycle never raises a clock") {
  const PowerModel m = h200_like();
  LaunchClocks last{1.8, 1.98};
  for (double u = 0.0; u <= 1.0; u += 0.05) {
    const LaunchClocks f = power_limited_clocks(m, 1.98, dense(u, 2000000, 1000));
    CHECK(f.tensor_ghz <= last.tensor_ghz + 1e-12);
    CHECK(f.rest_ghz <= last.rest_ghz + 1e-12);
    last = f;
  }
  // A few busy SMs keep both caps; all of them, dense, do not.
  const LaunchClocks few = power_limited_clocks(m, 1.98, dense(0.9, 20000, 10, 8));
  CHECK(few.tensor_ghz == 1.8);
  CHECK(few.rest_ghz == 1.98);
  CHECK(power_limited_clocks(m, 1.98, dense(0.9, 2000000, 1500)).tensor_ghz < 1.7);
}

TEST_CASE("no limit, only the tensor phase's cap") {
  PowerModel m = h200_like();
  m.limit_w = 0;
  const LaunchClocks f = power_limited_clocks(m, 1.98, dense(1.0, 1000000, 3000));
  CHECK(f.tensor_ghz == 1.8);
  CHECK(f.rest_ghz == 1.98);
  m.tensor_clock_ghz = 0;
  CHECK(power_limited_clocks(m, 1.98, dense(1.0, 1000000, 3000)).tensor_ghz == 1.98);
}

TEST_CASE("the built-in H200 parameters: the measured phase clocks") {
  const auto& p = sk::models::sm90::gpu_params();
  const double f_max = sk::models::sm90::gpu_params().clock_ghz;
  REQUIRE(p.power.limit_w > p.power.static_w);
  // 2048x2048x2048 of 128x256 tiles on 128 SMs, ~36,400 cycles of tensor
  // phase and ~12,500 of the rest: measured main loop 1.69 GHz, epilogue
  // 1.94 (with the ramp).
  KernelActivity a;
  a.flops = 2.0 * 2048 * 2048 * 2048;
  a.tensor_cycles = 36400;
  a.cycles = a.tensor_cycles + 12500;
  a.active_sms = 128;
  a.tma_bytes = 128.0 * 32 * (128 + 256) * 64 * 2;
  a.hbm_bytes = 3 * 2048.0 * 2048 * 2;
  const LaunchClocks f = power_limited_clocks(p.power, f_max, a);
  CHECK(f.tensor_ghz > 1.64);
  CHECK(f.tensor_ghz < 1.74);
  CHECK(f.rest_ghz > 1.9);
  // 128x128 tiles load 4/3 the bytes per FLOP: a lower clock (measured 1.60
  // on 128 SMs).
  KernelActivity b = a;
  b.tensor_cycles = 32 * 520 + 2000;
  b.cycles = b.tensor_cycles + 5500;
  b.flops = 2.0 * 2048 * 1024 * 2048;
  b.tma_bytes = 128.0 * 32 * (128 + 128) * 64 * 2;
  CHECK(power_limited_clocks(p.power, f_max, b).tensor_ghz < f.tensor_ghz);
  // 512^3 on 16 SMs: far under the limit, at the caps.
  KernelActivity small;
  small.flops = 2.0 * 512 * 512 * 512;
  small.cycles = 9000;
  small.tensor_cycles = 6000;
  small.active_sms = 16;
  small.tma_bytes = 16.0 * 8 * (128 + 128) * 64 * 2;
  small.hbm_bytes = 2e6;
  const LaunchClocks h = power_limited_clocks(p.power, f_max, small);
  CHECK(h.tensor_ghz == doctest::Approx(p.power.tensor_clock_ghz));
  CHECK(h.rest_ghz == f_max);
}

TEST_CASE("the clock log maps cycles to time, segment by segment") {
  sk::models::sm100::SmClock c(2.0);
  c.set(0, 1.0);  // a change at the first cycle replaces it
  CHECK(c.segments().size() == 1);
  c.set(1000, 2.0);
  c.set(1000, 2.0);  // no change
  c.set(3000, 1.0);
  CHECK(c.ns_at(500) == doctest::Approx(500.0));
  CHECK(c.ns_at(1000) == doctest::Approx(1000.0));
  CHECK(c.ns_at(2000) == doctest::Approx(1500.0));
  CHECK(c.ns_at(4000) == doctest::Approx(1000.0 + 1000.0 + 1000.0));
  CHECK_THROWS(c.set(2000, 1.5));
  CHECK_THROWS(c.set(5000, 0.0));
  // A change back at the same cycle merges with the segment before it.
  c.set(5000, 3.0);
  c.set(5000, 1.0);
  CHECK(c.segments().size() == 3);
}

TEST_CASE("at a lower SM clock the memory side takes fewer SM cycles") {
  const sk::models::sm100::Params& p = sk::models::sm90::gpu_params();
  const auto q = p.at_sm_clock(p.clock_ghz * 0.75);
  CHECK(q.clock_ghz == doctest::Approx(p.clock_ghz * 0.75));
  CHECK(q.tma_base_latency == doctest::Approx(p.tma_base_latency * 0.75).epsilon(0.01));
  CHECK(q.tma_l2_latency == doctest::Approx(p.tma_l2_latency * 0.75).epsilon(0.01));
  CHECK(q.hbm_bytes_per_cycle == doctest::Approx(p.hbm_bytes_per_cycle / 0.75));
  CHECK(q.l2_bytes_per_cycle == doctest::Approx(p.l2_bytes_per_cycle / 0.75));
  // What the SM does itself keeps its cycles.
  CHECK(q.mbarrier_latency == p.mbarrier_latency);
  CHECK(q.sm_ingest_bytes_per_cycle == p.sm_ingest_bytes_per_cycle);
  CHECK(q.issue_cycles == p.issue_cycles);
  // The same clock is the same machine.
  const auto same = p.at_sm_clock(p.clock_ghz);
  CHECK(same.tma_base_latency == p.tma_base_latency);
  CHECK(same.hbm_bytes_per_cycle == p.hbm_bytes_per_cycle);
}

}  // namespace
