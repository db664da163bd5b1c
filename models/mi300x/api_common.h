// api_common.h: helpers shared by the mi300x api_*.cc files (not part of the
// API): instruction issue, the wave's own clock, and LDS range checks.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

#include "models/mi300x/gpu.h"

namespace sk::models::mi300x::api {

inline Gpu& gpu() { return Gpu::current(); }

// Charges one instruction issue for the calling wave after paying its
// accumulated cost, so the operation acts at the right cycle before it
// touches state other waves can see.
inline sim::Warp& issue(const std::source_location& loc) {
  sim::Warp& w = gpu().warp();
  w.set_location(loc);
  w.sync();
  w.spend(gpu().params().issue_cycles + gpu().engine().schedule().warp_delay(w.index()));
  gpu().engine().count_event();
  return w;
}

// Like issue() without paying the accumulated cost first: for operations
// private to the wave or scheduled at times computed from local_now().
inline sim::Warp& issue_local(const std::source_location& loc) {
  sim::Warp& w = gpu().warp();
  w.set_location(loc);
  w.spend(gpu().params().issue_cycles + gpu().engine().schedule().warp_delay(w.index()));
  gpu().engine().count_event();
  return w;
}

// The wave's own time: the simulation time plus its unpaid cost.
inline Cycle local_now(const sim::Warp& w) { return gpu().engine().now() + w.pending(); }

// The labels of the waves' stalls (stalls_by_what), built once.
inline const std::string kVmcntStall = "s_waitcnt vmcnt";
inline const std::string kLgkmcntStall = "s_waitcnt lgkmcnt";
inline const std::string kOperandStall = "mfma waits for operands";
inline const std::string kSleepStall = "s_sleep";
inline const std::string kBarrierWait = "s_barrier";

// Blocks the wave until `until` or until its own time, whichever is later,
// the part past its own time counted as a stall labelled `what`: one sleep
// (its unpaid cost and the stall together), after which the wave is at the
// simulation's time.
inline void stall_until(sim::Warp& w, Cycle until, const std::string& what) {
  const Cycle local = gpu().engine().now() + w.pending();
  if (until > local) w.stall_local(until - local, what);
  w.sync();
}

// The LDS offset of [p, p + bytes), or -1 (reported as lds.bad_access) when
// the range leaves the workgroup's LDS or is not aligned to min(bytes, 16).
int64_t lds_range(const void* p, uint32_t bytes, const char* op, const std::source_location& loc);

// Marks the wave's vector memory operations as retired down to `n`
// outstanding (s_waitcnt vmcnt(n)): waits for each, lands LDS DMA data and
// tells the observer the wave waited for it.
void retire_vm(sim::Warp& w, WaveState& ws, size_t n);

}  // namespace sk::models::mi300x::api
