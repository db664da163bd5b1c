// sched.h (gfx942 device build): wave scheduling: sleep, priority and the
// workgroup barrier.
//
// Invariants:
//   * s_sleep<N>: N in [0, 127]; the wave sleeps about 64 * N cycles (N = 0
//     only yields its issue slot), the backoff of a spin on a counter.
//   * s_setprio<P>: P in [0, 3]; the wave's issue priority from now on, raised
//     around an MFMA cluster in ping-pong schedules and lowered after it.
//   * s_barrier(): every wave of the workgroup must reach it (the same number
//     of times); it orders execution only. gfx942 has no implicit wait before
//     a barrier (the back-off barrier), so LDS written before it is visible to
//     other waves after it only if the writer waited first:
//     s_waitcnt_lgkmcnt<0>() for ds_* stores, s_waitcnt_vmcnt<0>() for LDS DMA
//     (global stores need none within a workgroup: the CU keeps them in
//     order, see atomics.h). It is a compiler barrier too, so no access in
//     the source moves across it. Ping-pong schedules use it this way, with
//     waits they budget themselves.
//   * workgroup_sync(): release fence (workgroup scope), s_barrier, acquire
//     fence: what HIP's __syncthreads() does. The compiler emits the waits the
//     release needs: s_waitcnt lgkmcnt(0) for ds_* writes, none for global
//     accesses (the CU keeps them in order, see atomics.h). LDS DMA still
//     needs its own s_waitcnt_vmcnt<0>() first.
#pragma once

#include "kernels/arch/gfx942/device/address_space.h"
#include "kernels/core/platform.h"

namespace sk::arch {

template <int N>
SK_DEVICE void s_sleep() {
  static_assert(N >= 0 && N <= 127, "s_sleep takes 7 bits");
  __builtin_amdgcn_s_sleep(N);
}

template <int P>
SK_DEVICE void s_setprio() {
  static_assert(P >= 0 && P <= 3, "s_setprio takes 0..3");
  __builtin_amdgcn_s_setprio(P);
}

SK_DEVICE void s_barrier() {
  detail::compiler_barrier();
  __builtin_amdgcn_s_barrier();
  detail::compiler_barrier();
}

SK_DEVICE void workgroup_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

}  // namespace sk::arch
