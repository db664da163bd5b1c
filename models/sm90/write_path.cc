// write_path.cc: processor sharing of the SM90 model's store paths
// (write_path.h).
#include "models/sm90/write_path.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sk::models::sm90 {
namespace {
constexpr double kDone = 1e-6;  // bytes left that count as none (rounding)
}

void WritePath::reset(std::function<Rates()> rates, Schedule schedule) {
  rates_ = std::move(rates);
  schedule_ = std::move(schedule);
  jobs_.clear();
  per_sm_.clear();
  events_.clear();
  t_ = 0;
  ++generation_;
}

sc_core::sc_event& WritePath::completed(int sm) {
  const size_t i = static_cast<size_t>(sm);
  if (i >= events_.size()) events_.resize(i + 1);
  if (!events_[i]) events_[i] = std::make_unique<sc_core::sc_event>();
  return *events_[i];
}

int WritePath::storing_sms() const {
  return static_cast<int>(std::count_if(per_sm_.begin(), per_sm_.end(), [](int n) { return n > 0; }));
}

std::vector<double> WritePath::sm_rates(const Rates& r) const {
  double per_sm = r.sm;
  const int storing = storing_sms();
  if (r.gpu > 0 && storing > 0) per_sm = std::min(per_sm, r.gpu / storing);
  std::vector<double> out(jobs_.size());
  for (size_t j = 0; j < jobs_.size(); ++j) out[j] = per_sm / per_sm_[static_cast<size_t>(jobs_[j]->sm)];
  return out;
}

double WritePath::until_first_done(const std::vector<double>& rate) const {
  double first = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < jobs_.size(); ++j) first = std::min(first, jobs_[j]->left / rate[j]);
  return first;
}

void WritePath::advance(double to) {
  while (t_ < to && !jobs_.empty()) {
    const std::vector<double> rate = sm_rates(rates_());
    const double step = std::min(until_first_done(rate), to - t_);
    for (size_t j = 0; j < jobs_.size(); ++j) jobs_[j]->left -= rate[j] * step;
    t_ += step;
    // Jobs that have no bytes left leave; the others' shares grow.
    std::vector<Job*> still;
    for (Job* job : jobs_) {
      if (job->left > kDone) {
        still.push_back(job);
        continue;
      }
      job->left = 0;
      job->done = true;
      --per_sm_[static_cast<size_t>(job->sm)];
      completed(job->sm).notify(sc_core::SC_ZERO_TIME);
    }
    jobs_.swap(still);
  }
  t_ = std::max(t_, to);
}

void WritePath::plan() {
  ++generation_;
  if (jobs_.empty()) return;
  const double first = until_first_done(sm_rates(rates_()));
  // A rate so small that the bytes never leave still gives a cycle in range
  // (the engine's cycle limit ends such a run).
  const double at = std::min(std::ceil(t_ + first - 1e-9), 0x1p62);
  schedule_(static_cast<uint64_t>(at), generation_);
}

void WritePath::submit(Job& job, uint64_t now) {
  advance(static_cast<double>(now));
  const size_t sm = static_cast<size_t>(job.sm);
  if (sm >= per_sm_.size()) per_sm_.resize(sm + 1, 0);
  ++per_sm_[sm];
  jobs_.push_back(&job);
  plan();
}

void WritePath::on_event(uint64_t now, uint64_t generation) {
  if (generation != generation_) return;
  advance(static_cast<double>(now));
  plan();
}

}  // namespace sk::models::sm90
