// lanes.h (SM100 device build): lane election, lane identity and CTA barriers.
//
// Invariants: elect_one_begin() and sync_warp() must be reached by all 32 lanes
// of the warp (full member mask). elect_one_begin()/lane_scope_end() bracket a
// single-lane region; on the device the hardware predicate already restricts the
// region, so lane_scope_end() emits nothing (the model uses it to restore the
// active lane set). Named barrier ids 0..15 with id 0 reserved for cta_sync();
// num_threads must be a multiple of 32.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE bool elect_one_begin() {
  uint32_t elected = 0;
  // The leader's lane id is not needed, so the destination is the sink `_`.
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "elect.sync _|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(elected));
  return elected != 0;
}

SK_DEVICE void lane_scope_end() {}

SK_DEVICE uint32_t lane_id() {
  uint32_t id;
  // Not volatile: %laneid never changes for a thread, so repeated reads (one
  // per LaneArray access in kernel code) may be merged into one.
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

SK_DEVICE void sync_warp() { __syncwarp(); }

SK_DEVICE void cta_sync() { __syncthreads(); }

SK_DEVICE void named_barrier_sync(uint32_t id, uint32_t num_threads) {
  asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(num_threads) : "memory");
}

SK_DEVICE void named_barrier_arrive(uint32_t id, uint32_t num_threads) {
  asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(num_threads) : "memory");
}

}  // namespace sk::arch

namespace sk::arch {

// Per-lane data code: on the device each thread is its own lane.
template <class Fn>
SK_DEVICE void for_each_lane(Fn&& fn) {
  fn(lane_id());
}

// The 32-bit shared-window address of a pointer into shared memory (what
// descriptors and shared-memory instructions take).
SK_DEVICE uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte store to shared memory (generic proxy).
SK_DEVICE void st_shared_b128(void* dst, const uint32_t (&v)[4]) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
               :
               : "r"(smem_addr(dst)), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
               : "memory");
}

// 16-byte load from shared memory (generic proxy).
SK_DEVICE void ld_shared_b128(const void* src, uint32_t (&v)[4]) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "r"(smem_addr(src))
               : "memory");
}

// Plain shared-memory data (work items, the TMEM address slot): ordinary
// loads and stores; the model records them for race detection.
template <class T>
SK_DEVICE T ld_shared(const T* src) {
  return *src;
}
template <class T>
SK_DEVICE void st_shared(T* dst, const T& v) {
  *dst = v;
}

}  // namespace sk::arch
