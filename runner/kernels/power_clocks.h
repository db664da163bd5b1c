// power_clocks.h: a launch at its power-limited SM clocks, found by
// simulation (models/sm100/power.h, phase_clock.h), for every NVIDIA runner.
//
//   run_power_limited(q, power, f_max, run_at, activity, window)
//       run_at(request, clocks) simulates the launch with its tensor phase at
//       clocks.tensor_ghz and the rest at clocks.rest_ghz; activity(result)
//       says what that launch did (FLOPs, bytes, cycles, SMs), or for a run
//       stopped at its max_cycles, what it did up to there. The launch is
//       simulated with the phases at their caps, then at the clocks where
//       that activity fits the power limit, again until neither clock moves
//       by 1 % (at most three times: the memory side keeps its speed, so a
//       slower clock takes fewer SM cycles and draws a little more).
//       window > 0: the first simulation, at the caps, stops after `window`
//       cycles, and its activity up to there (the power model reads rates:
//       bytes per cycle of each phase) gives the first clocks; the launch is
//       then always simulated whole at them, so a long launch takes one
//       whole simulation where it took two when that window's rates land
//       within the 1 % of the whole launch's. Each runner picks its window
//       (sm90_matmul_run.cc, sm100_launch.h), or 0 for a launch too short
//       to gain.
//       These probes write no trace or timeline; a run that asks for them is
//       simulated once more at the clocks found, with its files. --sm-clock
//       (q.sm_clock_ghz, q.rest_clock_ghz) pins the clocks: one simulation.
//
// Invariants: the wall-clock limit covers all the simulations together; a
// probe that did not complete (a limit other than the window, a finding that
// stopped it) is the answer; the result's wall_s is the sum over the
// simulations; the answer is always a whole launch's simulation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "engine/sysc_reset.h"
#include "models/sm100/power.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// The first window the runners take: `window` cycles when that is at most
// 40 % of `launch_cycles`, a bound at or below the launch's length that the
// runner estimates (a window that long has the whole launch's rates within
// the search's 1 %, and the whole simulation at the clocks it gives follows);
// 0, the whole launch, otherwise.
inline uint64_t window_if_short(double launch_cycles, double window = 200'000) {
  return window > 0 && window <= 0.4 * launch_cycles ? static_cast<uint64_t>(window) : 0;
}

template <class RunAt, class Activity>
RunResult run_power_limited(const MatmulRequest& q, const models::sm100::PowerModel& power,
                            double f_max, RunAt&& run_at, Activity&& activity,
                            uint64_t window = 0) {
  if (q.sm_clock_ghz > 0)
    return run_at(q, models::sm100::LaunchClocks{
                         q.sm_clock_ghz, q.rest_clock_ghz > 0 ? q.rest_clock_ghz : q.sm_clock_ghz});
  MatmulRequest probe = q;
  probe.trace_path.clear();
  probe.timeline_path.clear();
  models::sm100::LaunchClocks at = models::sm100::clock_caps(power, f_max);
  const bool windowed = window > 0 && window < q.max_cycles && power.limit_w > 0;
  MatmulRequest first = probe;
  if (windowed) first.max_cycles = window;
  RunResult r = run_at(first, at);
  double wall = r.wall_s;
  int simulations = 1;
  // Each further simulation: a fresh SystemC context (its time does not
  // restart in a used one), the wall-clock limit that is left, the counts.
  auto again = [&](MatmulRequest x) {
    if (q.wall_limit_s > 0) x.wall_limit_s = std::max(0.001, q.wall_limit_s - wall);
    reset_systemc();
    r = run_at(x, at);
    wall += r.wall_s;
    ++simulations;
  };
  auto moved = [](double a, double b) { return std::abs(a - b) >= 0.01 * b; };
  // The window stopped the first simulation: its rates set the clocks, and
  // the launch is simulated whole at them (a finding or the wall clock that
  // stopped it first is the answer, as below).
  const bool partial = windowed && r.status == "limit" && r.limit == "max_cycles";
  if (partial) {
    at = models::sm100::power_limited_clocks(power, f_max, activity(r));
    again(probe);
  }
  for (int i = partial ? 1 : 0; i < 3 && r.status == "completed" && power.limit_w > 0; ++i) {
    const auto next = models::sm100::power_limited_clocks(power, f_max, activity(r));
    if (!moved(next.tensor_ghz, at.tensor_ghz) && !moved(next.rest_ghz, at.rest_ghz)) break;
    at = next;
    again(probe);
  }
  if ((!q.trace_path.empty() || !q.timeline_path.empty()) && r.status == "completed") {
    again(q);
  } else if (!q.trace_path.empty() || !q.timeline_path.empty()) {
    r.output_errors.push_back(
        "--trace and --timeline were not written: the run stopped while its power-limited clocks "
        "were being found (give the clocks with --sm-clock to trace a run that stops early)");
  }
  r.wall_s = wall;
  r.simulations = simulations;
  return r;
}

}  // namespace sk::sim
