// vector_clock.h: dense vector clocks over one CTA's components.
//
// A CTA's components are its warps (0 .. warps-1) followed by one component per
// sync-object incarnation (an mbarrier after each init, a named barrier). A
// clock value missing from the vector is 0. Joins are element-wise maxima.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sk::verify {

class VectorClock {
 public:
  uint32_t get(uint32_t comp) const { return comp < v_.size() ? v_[comp] : 0; }
  void set(uint32_t comp, uint32_t value) {
    if (comp >= v_.size()) v_.resize(comp + 1, 0);
    v_[comp] = value;
  }
  uint32_t tick(uint32_t comp) {
    set(comp, get(comp) + 1);
    return v_[comp];
  }
  void join(const VectorClock& o) {
    if (o.v_.size() > v_.size()) v_.resize(o.v_.size(), 0);
    for (size_t i = 0; i < o.v_.size(); ++i) v_[i] = std::max(v_[i], o.v_[i]);
  }
  void clear() { v_.clear(); }
  bool empty() const { return v_.empty(); }

 private:
  std::vector<uint32_t> v_;
};

// A point on one component: "ordered before any clock C with C[comp] >= value".
struct Epoch {
  uint32_t comp = 0, value = 0;
};

}  // namespace sk::verify
