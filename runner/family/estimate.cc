// estimate.cc: see estimate.h.
#include "runner/family/estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sk::sim {
namespace {

// Simulator rates on the reference machine (2 cores, Debian 12, the default
// build): timing-mode events per second, from the runs
// tools/fit_event_model.py collects (SM90 includes the clock solve's probe
// runs), and functional-mode FLOPs per second (the model's MMAs on the host
// plus the FP64 reference), the slowest of `sim run --functional` on
// 1024x1024x512, 512x512x2048 and 1000x520x264 (2026-11-28, idle machine;
// 0.17e9, 0.09e9 and 0.10e9 before the functional speed work of 2026-11-27).
struct HostRate {
  const char* arch;
  double events_per_s;
  double functional_flops_per_s;
};
constexpr HostRate kRates[] = {
    {"sm100", 0.75e6, 1.8e9},
    {"sm90", 1.0e6, 0.26e9},  // events: 0.38e6 before the speed work of 2026-11-27
    {"mi300x", 0.80e6, 0.11e9},  // events: 0.39e6 before the model's speed work of 2026-11-27
};
constexpr double kStartS = 0.05;  // process start, setup and summary

std::string duration(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.1f} h", s / 3600);
  if (s < 2 * 365 * 86400.0) return fmt::format("{:.0f} days", s / 86400);
  return fmt::format("{:.2g} years", s / (365 * 86400.0));
}

}  // namespace

RunEstimate estimate_run(const ArchSpace& space, const MatmulRequest& q, double flops) {
  RunEstimate e;
  const double tile_n = q.tile_n != 0 ? q.tile_n : space.default_tile_n;
  e.tiles = std::ceil(static_cast<double>(q.m) / space.tile_m) *
            std::ceil(static_cast<double>(q.n) / tile_n) * q.batch;
  const double ksteps = std::ceil(static_cast<double>(q.k) / space.tile_k);
  EventModel model = space.events;
  for (size_t i = 0; i < space.variants.size() && i < space.variant_events.size(); ++i)
    if (space.variants[i] == q.amd_kernel) model = space.variant_events[i];
  e.events = e.tiles * (model.per_tile + model.per_kstep * ksteps);
  HostRate rate = kRates[0];
  for (const HostRate& r : kRates)
    if (q.arch == r.arch) rate = r;
  e.wall_s = kStartS + e.events / rate.events_per_s;
  if (q.functional) e.wall_s += std::max(0.0, flops) / rate.functional_flops_per_s;
  return e;
}

std::string estimate_line(const RunEstimate& e, double wall_limit_s) {
  std::string s = fmt::format("estimate: {:.2g} tiles, {:.2g} events, about {} of wall time", e.tiles,
                              e.events, duration(e.wall_s));
  if (wall_limit_s > 0 && e.wall_s > wall_limit_s)
    s += fmt::format("; --wall-limit {:g} s stops it first (status limit, exit 3)", wall_limit_s);
  return s;
}

}  // namespace sk::sim
