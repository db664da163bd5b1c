// power_clocks_test.cc: the clock search of power_clocks.h on a launch that
// is arithmetic, not simulated: which simulations it asks for (clocks and
// max_cycles), that its answer is always a whole launch's, and what a window
// saves and what it costs when its rates miss.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "runner/kernels/power_clocks.h"

namespace {
using namespace sk::sim;
using sk::models::sm100::KernelActivity;
using sk::models::sm100::LaunchClocks;
using sk::models::sm100::PowerModel;

PowerModel h200_like() {
  PowerModel m;
  m.limit_w = 700;
  m.tensor_clock_ghz = 1.79;
  m.static_w = 100;
  m.pj_per_tma_byte = 22.27;
  m.pj_per_hbm_byte = 62;
  m.pj_per_sm_cycle = 2484;
  return m;
}
constexpr double kFmax = 1.98;

// A launch of 2 M SM cycles at the tensor cap whose memory side keeps its
// speed in ns (fewer SM cycles at a lower clock), 10,000 cycles of start-up
// outside the tensor phase, and bytes at a steady rate; stopped at its
// max_cycles it reports what it did up to there, its rates off by `bias`
// (a window's start-up).
struct Launch {
  double bias = 1.0;
  bool deadlock_in_window = false;
  struct Call {
    uint64_t max_cycles;
    LaunchClocks at;
  };
  std::vector<Call> calls;

  uint64_t cycles_at(double ghz) const { return static_cast<uint64_t>(2e6 * (0.8 + 0.2 * ghz / 1.79)); }
  RunResult operator()(const MatmulRequest& q, LaunchClocks f) {
    calls.push_back({q.max_cycles, f});
    RunResult r;
    const uint64_t whole = cycles_at(f.tensor_ghz);
    const bool stopped = q.max_cycles < whole;
    r.cycles = stopped ? q.max_cycles : whole;
    r.tensor_phase_cycles = r.cycles - 10'000;
    const double rate = stopped ? bias : 1.0;
    r.smem_fill_bytes = static_cast<uint64_t>(30.0 * 132 * r.tensor_phase_cycles * rate);
    r.hbm_bytes = static_cast<uint64_t>(4.0 * 132 * r.tensor_phase_cycles * rate);
    r.ctas = 132;
    r.status = stopped ? (deadlock_in_window ? "deadlock" : "limit") : "completed";
    r.limit = stopped && !deadlock_in_window ? "max_cycles" : "";
    r.predicted_time_us = static_cast<double>(r.cycles) / (f.tensor_ghz * 1e3);
    r.wall_s = stopped ? 0.1 : 1.0;
    return r;
  }
};

KernelActivity activity(const RunResult& r) {
  KernelActivity a;
  a.tma_bytes = static_cast<double>(r.smem_fill_bytes);
  a.hbm_bytes = static_cast<double>(r.hbm_bytes);
  a.cycles = r.cycles;
  a.tensor_cycles = r.tensor_phase_cycles;
  a.active_sms = static_cast<int>(r.ctas);
  return a;
}

RunResult search(Launch& l, uint64_t window) {
  MatmulRequest q;
  return run_power_limited(
      q, h200_like(), kFmax, [&l](const MatmulRequest& x, LaunchClocks f) { return l(x, f); },
      [](const RunResult& r) { return activity(r); }, window);
}

}  // namespace

TEST_CASE("without a window the launch is simulated at the caps first, then at its clocks") {
  Launch l;
  const RunResult r = search(l, 0);
  REQUIRE(l.calls.size() >= 2);
  CHECK(l.calls[0].at.tensor_ghz == doctest::Approx(1.79));
  for (const auto& c : l.calls) CHECK(c.max_cycles == MatmulRequest{}.max_cycles);
  CHECK(r.status == "completed");
  CHECK(r.simulations == static_cast<int>(l.calls.size()));
  CHECK(r.tensor_phase_cycles > 0);
  CHECK(l.calls.back().at.tensor_ghz < 1.79);  // the draw at the cap is over the limit
}

TEST_CASE("a window whose rates are the launch's saves the simulation at the caps") {
  Launch plain, windowed;
  const RunResult a = search(plain, 0);
  const RunResult b = search(windowed, 200'000);
  REQUIRE(windowed.calls.size() == 2);
  CHECK(windowed.calls[0].max_cycles == 200'000);
  CHECK(windowed.calls[0].at.tensor_ghz == doctest::Approx(1.79));
  CHECK(windowed.calls[1].max_cycles == MatmulRequest{}.max_cycles);
  CHECK(b.status == "completed");
  CHECK(b.simulations == 2);
  CHECK(b.wall_s == doctest::Approx(1.1));
  CHECK(plain.calls.size() > windowed.calls.size() - 1);
  // Both answers are whole launches at clocks within the search's 1 %.
  CHECK(std::abs(windowed.calls.back().at.tensor_ghz / plain.calls.back().at.tensor_ghz - 1) < 0.01);
  CHECK(b.cycles == windowed.cycles_at(windowed.calls.back().at.tensor_ghz));
  CHECK(a.cycles == plain.cycles_at(plain.calls.back().at.tensor_ghz));
}

TEST_CASE("a window whose rates miss costs one more whole simulation, not a wrong answer") {
  Launch l;
  l.bias = 1.4;  // the start-up's loads weigh 40 % too much
  const RunResult r = search(l, 200'000);
  REQUIRE(l.calls.size() == 3);
  CHECK(l.calls[1].at.tensor_ghz < l.calls[2].at.tensor_ghz);  // the window's clock was too low
  CHECK(r.status == "completed");
  CHECK(r.simulations == 3);
  Launch plain;
  search(plain, 0);
  CHECK(std::abs(l.calls.back().at.tensor_ghz / plain.calls.back().at.tensor_ghz - 1) < 0.01);
}

TEST_CASE("a launch shorter than its window is the search without one") {
  Launch plain, windowed;
  search(plain, 0);
  search(windowed, 5'000'000);
  REQUIRE(plain.calls.size() == windowed.calls.size());
  for (size_t i = 0; i < plain.calls.size(); ++i)
    CHECK(plain.calls[i].at.tensor_ghz == windowed.calls[i].at.tensor_ghz);
}

TEST_CASE("a finding inside the window is the answer") {
  Launch l;
  l.deadlock_in_window = true;
  const RunResult r = search(l, 200'000);
  CHECK(l.calls.size() == 1);
  CHECK(r.status == "deadlock");
  CHECK(r.simulations == 1);
}

TEST_CASE("pinned clocks: one simulation, no window") {
  Launch l;
  MatmulRequest q;
  q.sm_clock_ghz = 1.6;
  const RunResult r = run_power_limited(
      q, h200_like(), kFmax, [&l](const MatmulRequest& x, LaunchClocks f) { return l(x, f); },
      [](const RunResult& x) { return activity(x); }, 200'000);
  REQUIRE(l.calls.size() == 1);
  CHECK(l.calls[0].max_cycles == MatmulRequest{}.max_cycles);
  CHECK(r.simulations == 1);
}

// libsystemc (linked through the runner) provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
