// write_path.cc: processor sharing of the SM90 model's store paths
// (write_path.h).
#include "models/sm90/write_path.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

namespace sk::models::sm90 {
namespace {
constexpr double kDone = 1e-6;  // bytes left that count as none (rounding)
constexpr auto kLater = std::greater<std::pair<double, WritePath::Job*>>();  // min-heap order
}  // namespace

void WritePath::reset(std::function<Rates()> rates, Schedule schedule) {
  rates_ = std::move(rates);
  per_sm_ = rates_().gpc > 0;
  schedule_ = std::move(schedule);
  sms_.clear();
  storing_ = 0;
  s_ = 0;
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

double WritePath::storing_rate(int sm) const {
  const size_t i = static_cast<size_t>(sm);
  if (i >= sms_.size() || sms_[i].jobs.empty()) return 0;
  return per_sm_ ? rho_[i] * sms_[i].n() : per_sm_rate();
}

double WritePath::per_sm_rate() const {
  const Rates r = rates_();
  double per_sm = r.sm;
  if (r.series > 0 && storing_ > 0) per_sm = 1.0 / (1.0 / r.sm + storing_ / r.series);
  if (r.gpu > 0 && storing_ > 0) per_sm = std::min(per_sm, r.gpu / storing_);
  return per_sm;
}

void WritePath::mark(Sm& s) const {
  if (!s.jobs.empty()) s.v += (s_ - s.s_mark) / s.n();
  s.s_mark = s_;
}

void WritePath::set_deadline(Sm& s) const {
  if (!s.jobs.empty()) s.deadline = s.s_mark + (s.jobs.front().first - s.v) * s.n();
}

WritePath::Sm* WritePath::first_due() {
  Sm* first = nullptr;
  for (Sm& s : sms_)
    if (!s.jobs.empty() && (first == nullptr || s.deadline < first->deadline)) first = &s;
  return first;
}

void WritePath::pop_done(Sm& s) {
  while (!s.jobs.empty() && s.jobs.front().first - s.v <= kDone) {
    Job* job = s.jobs.front().second;
    std::pop_heap(s.jobs.begin(), s.jobs.end(), kLater);
    s.jobs.pop_back();
    job->done = true;
    completed(job->sm).notify(sc_core::SC_ZERO_TIME);
  }
  if (s.jobs.empty()) {
    --storing_;
    s.v = 0;  // the counter restarts with the SM's next job
  }
}

void WritePath::complete_due(Sm& s) {
  mark(s);
  pop_done(s);
  set_deadline(s);
}

void WritePath::sm_rates(const Rates& r) {
  rho_.assign(sms_.size(), 0.0);
  double base = r.sm;
  if (r.series > 0 && storing_ > 0) base = 1.0 / (1.0 / r.sm + storing_ / r.series);
  auto gpc_of = [&r](size_t i) -> uint32_t {
    return r.gpc_of != nullptr && i < r.gpc_of->size() ? (*r.gpc_of)[i] : 0;
  };
  auto first = [&r](size_t i) { return r.first != nullptr && i < r.first->size() && (*r.first)[i] != 0; };
  // Storing SMs per GPC: served first, and the others.
  std::vector<std::pair<int, int>> count;
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (sms_[i].jobs.empty() || gpc_of(i) == 0) continue;
    if (gpc_of(i) >= count.size()) count.resize(gpc_of(i) + 1);
    (first(i) ? count[gpc_of(i)].first : count[gpc_of(i)].second) += 1;
  }
  std::vector<double> rate(sms_.size(), 0.0);
  double total = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (sms_[i].jobs.empty()) continue;
    double x = base;
    if (gpc_of(i) != 0) {
      const auto [nf, no] = count[gpc_of(i)];
      if ((nf + no) * base > r.gpc) {
        const double fast = nf > 0 ? std::min(base, r.gpc / nf) : 0.0;
        x = first(i) ? fast : std::min(base, std::max(r.gpc - nf * fast, 0.0) / no);
      }
    }
    rate[i] = x;
    total += x;
  }
  const double scale = r.gpu > 0 && total > r.gpu ? r.gpu / total : 1.0;
  for (size_t i = 0; i < sms_.size(); ++i)
    if (!sms_[i].jobs.empty()) rho_[i] = rate[i] * scale / sms_[i].n();
}

double WritePath::until_first() const {
  double until = INFINITY;
  for (size_t i = 0; i < sms_.size(); ++i)
    if (!sms_[i].jobs.empty() && rho_[i] > 0)
      until = std::min(until, std::max(sms_[i].jobs.front().first - sms_[i].v, 0.0) / rho_[i]);
  return until;
}

void WritePath::advance_per_sm(double to, const Rates& r) {
  while (t_ < to && storing_ > 0) {
    sm_rates(r);
    const double step = std::min(until_first(), to - t_);
    for (size_t i = 0; i < sms_.size(); ++i)
      if (!sms_[i].jobs.empty()) sms_[i].v += rho_[i] * step;
    t_ += step;
    for (Sm& sm : sms_)
      if (!sm.jobs.empty() && sm.jobs.front().first - sm.v <= kDone) pop_done(sm);
  }
  t_ = std::max(t_, to);
}

void WritePath::advance(double to) {
  if (per_sm_) return advance_per_sm(to, rates_());
  while (t_ < to && storing_ > 0) {
    const double rate = per_sm_rate();
    const double deadline = first_due()->deadline;
    const double until = std::max(deadline - s_, 0.0) / rate;
    if (until > to - t_) {
      s_ += rate * (to - t_);
      t_ = to;
    } else {
      s_ = std::max(s_, deadline);
      t_ += until;
    }
    // Every SM whose first job has its bytes out completes it (the warps of
    // one epilogue wave store alike and finish together); rounding may leave
    // a job a hair short at the cycle it was planned for, which counts as
    // done.
    for (Sm& s : sms_)
      if (!s.jobs.empty() && (s.deadline - s_) / s.n() <= kDone) complete_due(s);
  }
  t_ = std::max(t_, to);
}

void WritePath::plan() {
  ++generation_;
  if (per_sm_) {
    if (storing_ == 0) return;
    sm_rates(rates_());
    const double at = std::min(std::ceil(t_ + until_first() - 1e-9), 0x1p62);
    schedule_(static_cast<uint64_t>(at), generation_);
    return;
  }
  const Sm* first = first_due();
  if (first == nullptr) return;
  const double until = std::max(first->deadline - s_, 0.0) / per_sm_rate();
  // A rate so small that the bytes never leave still gives a cycle in range
  // (the engine's cycle limit ends such a run).
  const double at = std::min(std::ceil(t_ + until - 1e-9), 0x1p62);
  schedule_(static_cast<uint64_t>(at), generation_);
}

void WritePath::submit(Job& job, uint64_t now) {
  advance(static_cast<double>(now));
  const size_t i = static_cast<size_t>(job.sm);
  if (i >= sms_.size()) sms_.resize(i + 1);
  Sm& s = sms_[i];
  mark(s);
  if (s.jobs.empty()) ++storing_;
  s.jobs.emplace_back(s.v + job.bytes, &job);
  std::push_heap(s.jobs.begin(), s.jobs.end(), kLater);
  set_deadline(s);
  plan();
}

void WritePath::on_event(uint64_t now, uint64_t generation) {
  if (generation != generation_) return;
  advance(static_cast<double>(now));
  plan();
}

}  // namespace sk::models::sm90
