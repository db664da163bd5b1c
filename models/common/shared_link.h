// shared_link.h: a bandwidth that several agents share first come, first
// served (L2, HBM, a write path, a CU's vector memory port).
//
// Invariant: free() never decreases; bytes offered at `start` begin to pass
// at max(start, free()) and take bytes / bytes_per_cycle cycles. Times are in
// fractional cycles so that many small transfers do not each round up.
#pragma once

#include <algorithm>
#include <cstdint>

namespace sk::models {

class SharedLink {
 public:
  // Reserves the link for `bytes` offered at `start`; returns when they have
  // passed.
  double pass(double start, uint64_t bytes, double bytes_per_cycle) {
    free_ = std::max(start, free_) + static_cast<double>(bytes) / bytes_per_cycle;
    return free_;
  }
  double free() const { return free_; }

 private:
  double free_ = 0;
};

}  // namespace sk::models
