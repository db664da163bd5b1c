// atomics.h (gfx942 device build): 32-bit atomics with an explicit memory
// scope, for counters and flags in LDS or global memory.
//
// Invariants:
//   * p is a generic pointer to a 4-byte aligned uint32_t in LDS or global
//     memory; clang emits ds_* when it can prove LDS, global_* when it can
//     prove global, flat_* otherwise, all with the same meaning.
//   * atomic_add is acq_rel, atomic_load_acquire acquire, atomic_store_release
//     release, each at scope s, with the code the LLVM AMDGPU memory model
//     gives gfx942 (non-tgsplit launches, the default):
//       kWavefront, kWorkgroup: no cache maintenance and no waits; the waves
//         of a workgroup share one CU, whose LDS executes in order and whose
//         vector memory path is in order, so the wave's earlier ds_* and
//         global accesses are already ordered before the atomic;
//       kAgent: a release writes back L2 (buffer_wbl2 sc1; MI300X has one L2
//         per XCD) and waits for the wave's earlier memory operations; an
//         acquire waits for the atomic and invalidates the caches
//         (buffer_inv sc1);
//       kSystem: the same with sc0 sc1.
//   * No release covers LDS DMA (lds_dma.h): its LDS write lands
//     asynchronously and only vmcnt tracks it, so s_waitcnt_vmcnt<0>() must
//     come before a release that publishes LDS DMA data.
//   * Each active lane performs its own atomic: a counter that every lane of
//     a wave increments counts 64 times (as in the model). Bracket it with
//     elect_one_begin()/lane_scope_end() (lanes.h) for one increment per wave.
//   * wait_counter_geq spins until a monotonic counter (one that starts at 0,
//     only grows and never wraps) reaches a target: an acquire load per try,
//     s_sleep 0 between tries. It is an intrinsic, not kernel code, because
//     the model blocks the wave on the counter instead of running the spin:
//     a counter that never gets there is then a deadlock finding with the
//     counter's ledger, not a livelock at the cycle bound.
#pragma once

#include "kernels/arch/gfx942/device/sched.h"
#include "isa/gfx942_types.h"
#include "kernels/core/platform.h"

namespace sk::arch {

// Returns the value before the addition.
SK_DEVICE uint32_t atomic_add(uint32_t* p, uint32_t v, Scope s) {
  // Constant scopes per case: after inlining with a constant s only one
  // atomic remains.
  switch (s) {
    case Scope::kWavefront:
      return __hip_atomic_fetch_add(p, v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_WAVEFRONT);
    case Scope::kWorkgroup:
      return __hip_atomic_fetch_add(p, v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_WORKGROUP);
    case Scope::kAgent:
      return __hip_atomic_fetch_add(p, v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
    case Scope::kSystem:
      break;
  }
  return __hip_atomic_fetch_add(p, v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_SYSTEM);
}

SK_DEVICE uint32_t atomic_load_acquire(const uint32_t* p, Scope s) {
  // __hip_atomic_load takes a non-const pointer; the load does not write.
  uint32_t* q = const_cast<uint32_t*>(p);
  switch (s) {
    case Scope::kWavefront:
      return __hip_atomic_load(q, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WAVEFRONT);
    case Scope::kWorkgroup:
      return __hip_atomic_load(q, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
    case Scope::kAgent:
      return __hip_atomic_load(q, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    case Scope::kSystem:
      break;
  }
  return __hip_atomic_load(q, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}

SK_DEVICE void atomic_store_release(uint32_t* p, uint32_t v, Scope s) {
  switch (s) {
    case Scope::kWavefront:
      __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WAVEFRONT);
      return;
    case Scope::kWorkgroup:
      __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
      return;
    case Scope::kAgent:
      __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
      return;
    case Scope::kSystem:
      break;
  }
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

// Lane: any (every calling lane spins; waves call it with the whole wave).
SK_DEVICE void wait_counter_geq(const uint32_t* p, uint32_t target, Scope s) {
  while (atomic_load_acquire(p, s) < target) {
    s_sleep<0>();
  }
}

}  // namespace sk::arch
