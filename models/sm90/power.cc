#include "models/sm90/power.h"

#include <cmath>

namespace sk::models::sm90 {

double board_power_w(const PowerModel& m, double f_max_ghz, double ghz, const KernelActivity& a) {
  if (a.cycles == 0) return m.static_w;
  const double pj_at_max = m.pj_per_flop * a.flops + m.pj_per_tma_byte * a.tma_bytes +
                           m.pj_per_hbm_byte * a.hbm_bytes +
                           m.pj_per_sm_cycle * static_cast<double>(a.cycles) * a.active_sms;
  const double joules = pj_at_max * 1e-12 * std::pow(ghz / f_max_ghz, m.energy_exponent);
  const double seconds = static_cast<double>(a.cycles) / (ghz * 1e9) + m.launch_gap_us * 1e-6;
  return m.static_w + joules / seconds;
}

double power_limited_clock_ghz(const PowerModel& m, double f_max_ghz, const KernelActivity& a) {
  if (m.limit_w <= 0 || board_power_w(m, f_max_ghz, f_max_ghz, a) <= m.limit_w) return f_max_ghz;
  // The draw rises with the clock (as f^(1 + exponent) for a fixed cycle
  // count): bisect for the clock where it meets the limit.
  double lo = 0, hi = f_max_ghz;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (board_power_w(m, f_max_ghz, mid, a) > m.limit_w ? hi : lo) = mid;
  }
  return lo;  // > 0: static_w < limit_w (checked where the file is read)
}

}  // namespace sk::models::sm90
