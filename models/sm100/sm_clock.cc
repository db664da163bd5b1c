#include "models/sm100/sm_clock.h"

#include <cstddef>
#include <stdexcept>

namespace sk::models::sm100 {

void SmClock::set(uint64_t at, double ghz) {
  if (!(ghz > 0)) throw std::invalid_argument("SmClock: the clock must be positive");
  if (at < log_.back().from) throw std::logic_error("SmClock: a change before the last one");
  if (ghz == log_.back().ghz) return;
  if (at == log_.back().from) {
    log_.back().ghz = ghz;
    if (log_.size() > 1 && log_[log_.size() - 2].ghz == ghz) log_.pop_back();
    return;
  }
  log_.push_back({at, ghz});
}

double SmClock::ns_at(uint64_t c) const {
  double ns = 0;
  for (size_t i = 0; i < log_.size() && log_[i].from < c; ++i) {
    const uint64_t to = i + 1 < log_.size() && log_[i + 1].from < c ? log_[i + 1].from : c;
    ns += static_cast<double>(to - log_[i].from) / log_[i].ghz;
  }
  return ns;
}

}  // namespace sk::models::sm100
