#include "sim/kernels/sm100_summary.h"

#include <algorithm>
#include <map>

namespace sk::sim {
namespace {
using Interval = std::pair<Cycle, Cycle>;

std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (auto iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

Cycle total(const std::vector<Interval>& v) {
  Cycle t = 0;
  for (auto [a, b] : v) t += b - a;
  return t;
}

Cycle intersection(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  Cycle t = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    Cycle lo = std::max(x[i].first, y[j].first), hi = std::min(x[i].second, y[j].second);
    if (hi > lo) t += hi - lo;
    (x[i].second < y[j].second) ? ++i : ++j;
  }
  return t;
}
}  // namespace

void summarize_sm100(models::sm100::Gpu& gpu, double flops, RunResult& r) {
  const auto& p = gpu.params();
  Engine& eng = gpu.engine();
  Cycle end = 0;
  for (const auto& w : eng.warps()) end = std::max(end, w->done() ? w->end_cycle() : eng.now());
  r.cycles = std::max<Cycle>(end, 1);
  r.clock_ghz = p.clock_ghz;
  r.predicted_time_us = static_cast<double>(r.cycles) / (p.clock_ghz * 1e3);
  r.tflops = flops / (r.predicted_time_us * 1e-6) / 1e12;
  r.peak_tflops = 8192.0 * p.num_sms * p.clock_ghz * 1e9 / 1e12;
  r.peak_fraction = r.tflops / r.peak_tflops;

  // Per role, averaged over its warps: busy = alive and not blocked; a warp
  // that has exited counts as neither busy nor stalled.
  struct Acc {
    double busy = 0, stall = 0;
    int warps = 0;
  };
  std::map<std::string, Acc> acc;
  std::vector<std::string> order;
  for (const auto& w : eng.warps()) {
    std::string role = w->role().empty() ? "unassigned" : w->role();
    if (!acc.count(role)) order.push_back(role);
    Acc& a = acc[role];
    Cycle alive = std::min<Cycle>(w->done() ? w->end_cycle() : r.cycles, r.cycles);
    Cycle stalled = std::min<Cycle>(w->stall_cycles(), alive);
    a.busy += static_cast<double>(alive - stalled) / r.cycles;
    a.stall += static_cast<double>(stalled) / r.cycles;
    a.warps += 1;
  }
  for (const auto& name : order) {
    const Acc& a = acc[name];
    r.roles.push_back(RoleStats{name, 100.0 * a.busy / a.warps, 100.0 * a.stall / a.warps});
  }

  Cycle tma = 0, covered = 0, tc = 0;
  uint64_t bytes = 0;
  for (int c = 0; c < gpu.num_ctas(); ++c) {
    auto& cta = gpu.cta(c);
    auto t = merged(cta.tma_busy), m = merged(cta.tc_busy);
    tma += total(t);
    tc += total(m);
    covered += intersection(t, m);
    bytes += cta.bytes_loaded;
  }
  r.overlap_pct = tma == 0 ? 0.0 : 100.0 * static_cast<double>(covered) / static_cast<double>(tma);
  double tc_util = static_cast<double>(tc) / (static_cast<double>(r.cycles) * std::max(1, gpu.num_ctas()));
  double hbm_util = static_cast<double>(bytes) / (p.hbm_bytes_per_cycle * static_cast<double>(r.cycles));
  r.bottleneck = tc_util >= 0.8 ? "tensor_core" : hbm_util >= 0.8 ? "hbm_bandwidth" : "load_latency";

  r.findings = eng.findings();
  r.events = eng.events();
}

}  // namespace sk::sim
