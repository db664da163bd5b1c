#include "models/sm100/phase_clock.h"

#include <algorithm>
#include <cmath>

#include "models/sm100/gpu.h"

namespace sk::models::sm100 {

void PhaseClock::start(sm100::Gpu& gpu, const PhaseClocks& clocks) {
  gpu_ = &gpu;
  clocks_ = clocks;
  tensor_ = false;
  check_pending_ = false;
  busy_until_ = since_ = closed_ = 0;
  hold_cycles_ = static_cast<uint64_t>(std::llround(clocks.hold_ns * clocks.tensor_ghz));
  gpu.set_sm_clock(clocks.rest_ghz);
}

void PhaseClock::enter(bool tensor) {
  const uint64_t now = gpu_->engine().now();
  if (tensor)
    since_ = now;
  else
    closed_ += now - since_;
  tensor_ = tensor;
  gpu_->set_sm_clock(tensor ? clocks_.tensor_ghz : clocks_.rest_ghz);
}

void PhaseClock::tensor_work(uint64_t busy_until) {
  if (gpu_ == nullptr) return;
  busy_until_ = std::max(busy_until_, busy_until);
  if (!tensor_) enter(true);
  if (check_pending_) return;
  // One pending check at a time: it moves itself to the latest end of work.
  check_pending_ = true;
  gpu_->engine().at(busy_until_ + hold_cycles_, [this] { check(); });
}

void PhaseClock::check() {
  check_pending_ = false;
  if (gpu_ == nullptr || !tensor_) return;
  const uint64_t due = busy_until_ + hold_cycles_;
  if (gpu_->engine().now() >= due) {
    enter(false);
    return;
  }
  check_pending_ = true;
  gpu_->engine().at(due, [this] { check(); });
}

PhaseClock& phase_clock() {
  static PhaseClock c;
  return c;
}

uint64_t PhaseClock::tensor_cycles(uint64_t end) const {
  // A phase closed after `end` (a check that ran past the last warp) counts
  // up to `end` at most.
  return std::min(end, closed_ + (tensor_ && end > since_ ? end - since_ : 0));
}

}  // namespace sk::models::sm100
