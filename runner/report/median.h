// median.h: the median of a set of figures (the stamp logs' summaries,
// runner/kernels/attention_stamps.cc and matmul_stamps.cc). Header-only.
//
// Invariants: 0 for an empty set; an even count gives the mean of the two
// middle values.
#pragma once

#include <algorithm>
#include <vector>

namespace sk::report {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace sk::report
