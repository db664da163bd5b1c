// site.h (model build): the caller's line that kernel components carry, so
// that a finding names the author's line and the chain through the
// components (engine/call_site.h).
//
// A component's public function takes `arch::CallSite site = arch::CallSite::current()`
// as its last parameter and opens `const arch::Caller caller(site);` before it
// does anything: for the duration of the call, the line that called it sits
// on the calling warp's caller stack, above the intrinsic calls it makes.
// The device builds define the same names as empty types
// (kernels/arch/device_site.h), so nothing of this reaches the PTX.
//
// Invariant: a Caller pops exactly what it pushed (nothing when no warp is
// executing, e.g. host-side setup code), so the stack is balanced on every
// return path.
#pragma once

#include <source_location>

#include "engine/engine.h"
#include "engine/warp.h"

namespace sk::arch {

using CallSite = std::source_location;

class [[nodiscard]] Caller {
 public:
  explicit Caller(const CallSite& site) : warp_(sim::Engine::get().current()) {
    if (warp_ != nullptr) warp_->push_caller(site);
  }
  ~Caller() {
    if (warp_ != nullptr) warp_->pop_caller();
  }
  Caller(const Caller&) = delete;
  Caller& operator=(const Caller&) = delete;

 private:
  sim::Warp* warp_;
};

}  // namespace sk::arch
