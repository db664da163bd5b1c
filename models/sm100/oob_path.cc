#include "models/sm100/oob_path.h"

#include <algorithm>
#include <cstddef>

namespace sk::models::sm100 {
namespace {
// The first grid index whose value is >= x (the last when none is).
size_t at_or_above(const std::vector<uint32_t>& axis, double x) {
  size_t i = 0;
  while (i + 1 < axis.size() && axis[i] < x) ++i;
  return i;
}

bool increasing(const std::vector<uint32_t>& v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

bool later(const std::pair<Cycle, int>& a, const std::pair<Cycle, int>& b) { return a.first > b.first; }
}  // namespace

double OobRates::at(uint32_t rows_outside, uint32_t loading, double depth) const {
  const size_t o = at_or_above(outside, rows_outside), s = at_or_above(sms, loading);
  const double* row = &rows_per_cycle[(o * sms.size() + s) * depths.size()];
  if (depth <= depths.front()) return row[0];
  if (depth >= depths.back()) return row[depths.size() - 1];
  size_t j = 0;
  while (depths[j + 1] < depth) ++j;
  const double f = (depth - depths[j]) / (depths[j + 1] - depths[j]);
  if (row[j] > 0 && row[j + 1] > 0) return row[j] + f * (row[j + 1] - row[j]);
  return f < 0.5 ? row[j] : row[j + 1];
}

std::string OobRates::check() const {
  if (outside.empty() && sms.empty() && depths.empty() && rows_per_cycle.empty()) return "";
  if (outside.empty() || sms.empty() || depths.empty())
    return "the zero-fill surface needs all three axes (rows outside, SMs, boxes in flight) or none";
  if (!increasing(outside) || !increasing(sms) || !increasing(depths))
    return "the zero-fill surface's axes must be strictly increasing";
  if (outside.front() == 0 || sms.front() == 0 || depths.front() == 0)
    return "the zero-fill surface's axes start at 1 or more";
  const size_t want = outside.size() * sms.size() * depths.size();
  if (rows_per_cycle.size() != want)
    return "the zero-fill surface has " + std::to_string(rows_per_cycle.size()) + " rates for a grid of " +
           std::to_string(want);
  return "";
}

void OobPath::retire(Cycle now) {
  while (!flight_.empty() && flight_.front().first <= now) {
    if (--per_sm_[flight_.front().second] == 0) --loading_;
    std::pop_heap(flight_.begin(), flight_.end(), later);
    flight_.pop_back();
  }
}

Cycle OobPath::pass(const OobRates& rates, double fixed, int sm, Cycle issued, Cycle start, uint32_t rows) {
  double rate = fixed;
  if (!rates.empty()) {
    retire(issued);
    if (static_cast<size_t>(sm) >= per_sm_.size()) per_sm_.resize(sm + 1, 0);
    const uint32_t loading = loading_ + (per_sm_[sm] == 0 ? 1 : 0);
    const double depth = static_cast<double>(flight_.size() + 1) / loading;
    rate = rates.at(rows, loading, depth);
    if (rate <= 0) return start;  // the path keeps up: the SM's port is the limit
  }
  return static_cast<Cycle>(link_.pass(static_cast<double>(start), rows, rate) + 0.999);
}

void OobPath::landed_at(int sm, Cycle done) {
  if (static_cast<size_t>(sm) >= per_sm_.size()) per_sm_.resize(sm + 1, 0);
  if (per_sm_[sm]++ == 0) ++loading_;
  flight_.emplace_back(done, sm);
  std::push_heap(flight_.begin(), flight_.end(), later);
}

}  // namespace sk::models::sm100
