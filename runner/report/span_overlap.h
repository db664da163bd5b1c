// span_overlap.h: how many of a set of time spans are open at once, on
// average over the time that any of them is open (attention's epilogues: how
// many SMs store at once, from the model's probe points in
// runner/kernels/attention_stamps.cc and from the GPU's in
// hw/h200/attention_bench.cu). Header-only and standard C++ only, so that the
// CUDA benchmark can include it.
//
// Invariants: a span is [begin, end) with begin <= end; the result is 0 for no
// span (or only empty ones) and otherwise at least 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace sk::report {

inline double mean_open(const std::vector<std::pair<uint64_t, uint64_t>>& spans) {
  std::vector<std::pair<uint64_t, int>> ev;
  ev.reserve(2 * spans.size());
  for (const auto& [begin, end] : spans) ev.push_back({begin, 1}), ev.push_back({end, -1});
  std::sort(ev.begin(), ev.end());
  double weighted = 0, busy = 0;
  int open = 0;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    open += ev[i].second;
    const double dt = static_cast<double>(ev[i + 1].first - ev[i].first);
    if (open > 0) weighted += open * dt, busy += dt;
  }
  return busy > 0 ? weighted / busy : 0.0;
}

}  // namespace sk::report
