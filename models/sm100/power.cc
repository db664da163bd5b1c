#include "models/sm100/power.h"

#include <algorithm>
#include <cmath>

namespace sk::models::sm100 {
namespace {

// Each phase's cycles and dynamic energy (pJ) at the maximum clock.
struct Phase {
  uint64_t cycles = 0;
  double pj = 0;
};
Phase tensor_phase(const PowerModel& m, const KernelActivity& a) {
  const uint64_t t = std::min(a.tensor_cycles, a.cycles);
  return {t, m.pj_per_flop * a.flops + m.pj_per_tma_byte * a.tma_bytes + m.pj_per_hbm_byte * a.hbm_bytes +
                 m.pj_per_sm_cycle * static_cast<double>(t) * a.active_sms};
}
Phase rest_phase(const PowerModel& m, const KernelActivity& a) {
  const uint64_t r = a.cycles - std::min(a.tensor_cycles, a.cycles);
  return {r, m.pj_per_sm_cycle * static_cast<double>(r) * a.active_sms};
}

double scale(const PowerModel& m, double f_max, double f) { return std::pow(f / f_max, m.energy_exponent); }

double draw_w(const PowerModel& m, double f_max, double ghz, Phase p) {
  if (p.cycles == 0) return m.static_w;
  return m.static_w + 1e-12 * p.pj * scale(m, f_max, ghz) / (static_cast<double>(p.cycles) / (ghz * 1e9));
}

// The highest clock in (0, cap] at which the phase's draw fits the limit
// (the draw rises with the clock, as f^(1 + exponent)).
double highest_fitting(const PowerModel& m, double f_max, double cap, Phase p) {
  if (m.limit_w <= 0 || draw_w(m, f_max, cap, p) <= m.limit_w) return cap;
  double lo = 0, hi = cap;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (draw_w(m, f_max, mid, p) > m.limit_w ? hi : lo) = mid;
  }
  return lo;  // > 0: static_w < limit_w (checked where the file is read)
}

}  // namespace

double board_power_w(const PowerModel& m, double f_max, LaunchClocks f, const KernelActivity& a) {
  const Phase t = tensor_phase(m, a), r = rest_phase(m, a);
  const double seconds = static_cast<double>(t.cycles) / (f.tensor_ghz * 1e9) +
                         static_cast<double>(r.cycles) / (f.rest_ghz * 1e9);
  if (seconds <= 0) return m.static_w;
  const double joules = 1e-12 * (t.pj * scale(m, f_max, f.tensor_ghz) + r.pj * scale(m, f_max, f.rest_ghz));
  return m.static_w + joules / seconds;
}

double tensor_phase_power_w(const PowerModel& m, double f_max, double ghz, const KernelActivity& a) {
  return draw_w(m, f_max, ghz, tensor_phase(m, a));
}

double rest_phase_power_w(const PowerModel& m, double f_max, double ghz, const KernelActivity& a) {
  return draw_w(m, f_max, ghz, rest_phase(m, a));
}

LaunchClocks clock_caps(const PowerModel& m, double f_max) {
  return {m.tensor_clock_ghz > 0 ? std::min(m.tensor_clock_ghz, f_max) : f_max, f_max};
}

LaunchClocks power_limited_clocks(const PowerModel& m, double f_max, const KernelActivity& a) {
  const LaunchClocks cap = clock_caps(m, f_max);
  return {highest_fitting(m, f_max, cap.tensor_ghz, tensor_phase(m, a)),
          highest_fitting(m, f_max, cap.rest_ghz, rest_phase(m, a))};
}

}  // namespace sk::models::sm100
