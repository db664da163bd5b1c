// intervals.h: busy intervals of a modelled resource ([begin, end) cycles),
// for the run summaries and the models that keep them: their union, total
// length and overlap.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/finding.h"

namespace sk::sim {

using Interval = std::pair<Cycle, Cycle>;

// The union of v as sorted, disjoint intervals.
inline std::vector<Interval> merged(std::vector<Interval> v) {
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
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

inline Cycle total(const std::vector<Interval>& v) {
  Cycle t = 0;
  for (auto [a, b] : v) t += b > a ? b - a : 0;
  return t;
}

// Length of the intersection of two merged interval lists.
inline Cycle intersection(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  Cycle t = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    Cycle lo = std::max(x[i].first, y[j].first), hi = std::min(x[i].second, y[j].second);
    if (hi > lo) t += hi - lo;
    (x[i].second < y[j].second) ? ++i : ++j;
  }
  return t;
}

}  // namespace sk::sim
