// api_common.h: helpers shared by the api_*.cc files (not part of the API).
#pragma once

#include <source_location>

#include "models/sm100/gpu.h"

namespace sk::models::sm100::api {

inline Gpu& gpu() { return Gpu::current(); }

// Charges one instruction issue for the calling warp and pays its accumulated
// cost first, so the operation acts at the right cycle before it touches state
// other warps or agents can see.
inline sim::Warp& issue(const std::source_location& loc) {
  sim::Warp& w = gpu().warp();
  w.set_location(loc);
  w.sync();
  w.spend(gpu().params().issue_cycles);
  gpu().engine().count_event();
  return w;
}

}  // namespace sk::models::sm100::api
