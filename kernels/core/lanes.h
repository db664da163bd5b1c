// lanes.h: explicit lane-level intent in kernel code.
//
// Warp-specialized kernels mostly run warp-uniform code, with a few operations
// that exactly one lane must issue (a TMA, an MMA, an mbarrier init) and some
// per-lane data movement. Both are spelled out so that both builds mean the
// same thing, on every arch (a warp of 32 lanes on NVIDIA, a wave of 64 on
// AMD):
//
//   if (auto lane = sk::elect_one()) {        // one lane of the warp
//     sk::arch::tma_load_2d(...);
//   }
//   sk::for_each_lane([&](uint32_t l) {       // every active lane, lane l
//     out[l] = regs.lane(l)[0];
//   });
//
// On the device elect_one() is elect.sync and for_each_lane calls the body once
// with the thread's own lane. In the model the warp's active-lane set is
// narrowed to one lane for the scope of the `if`, and for_each_lane iterates the
// active lanes. An operation issued outside elect_one() is issued by every
// lane, in both builds.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/core/platform.h"

namespace sk {

class [[nodiscard]] ElectedLane {
 public:
  SK_DEVICE ElectedLane() : elected_(arch::elect_one_begin()) {}
  SK_DEVICE ~ElectedLane() { arch::lane_scope_end(); }
  ElectedLane(const ElectedLane&) = delete;
  ElectedLane& operator=(const ElectedLane&) = delete;
  SK_DEVICE explicit operator bool() const { return elected_; }

 private:
  bool elected_;
};

// Narrows execution to one lane of the warp for the enclosing if-statement.
SK_DEVICE ElectedLane elect_one() { return ElectedLane{}; }

// Runs fn(lane) for each active lane (device: the calling thread's lane).
// The body is per-lane data movement only: no synchronization inside.
template <class Fn>
SK_DEVICE void for_each_lane(Fn&& fn) {
  arch::for_each_lane(static_cast<Fn&&>(fn));
}

}  // namespace sk
