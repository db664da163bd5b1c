// sm_clock.h: the SM clock over one launch, for a model whose clock changes
// while the kernel runs (the H200 lowers its SM clock while the tensor cores
// work and raises it again after them: models/sm100/phase_clock.h).
//
// The simulation counts SM cycles; the clock maps them to time. The log is a
// list of segments, each starting at a cycle and running at one clock until
// the next begins. Invariants: segments start in non-decreasing cycles, every
// clock is positive, and a change at the cycle of the last one replaces it
// (a zero-length segment takes no time and is not kept).
#pragma once

#include <cstdint>
#include <vector>

namespace sk::models::sm100 {

class SmClock {
 public:
  struct Segment {
    uint64_t from;  // first cycle at this clock
    double ghz;
  };

  explicit SmClock(double ghz) : log_{{0, ghz}} {}

  // The clock from cycle `at` on (at >= the last change; throws otherwise).
  void set(uint64_t at, double ghz);
  double ghz() const { return log_.back().ghz; }
  // Nanoseconds from cycle 0 to cycle c.
  double ns_at(uint64_t c) const;
  const std::vector<Segment>& segments() const { return log_; }

 private:
  std::vector<Segment> log_;
};

}  // namespace sk::models::sm100
