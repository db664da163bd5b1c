// identity.h (SM100 device build): where the executing thread sits in the launch.
//
// Invariants: the kernel is launched with a 1-D grid and 1-D blocks, so only the
// .x components carry information. warp_idx() is broadcast from lane 0 so the
// compiler can prove it warp-uniform and keep role dispatch branch-free within a
// warp. dynamic_smem() is 1024-byte aligned because SWIZZLE_128B TMA tiles and
// UMMA descriptors require that alignment of their base.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE uint32_t warp_idx() {
  // Without the shuffle the value is per-thread as far as the compiler knows,
  // and branches on it would be compiled as divergent.
  return __shfl_sync(0xffffffffu, threadIdx.x / 32u, 0);
}

SK_DEVICE uint32_t cta_idx() { return blockIdx.x; }

SK_DEVICE uint32_t num_ctas() { return gridDim.x; }

SK_DEVICE uint8_t* dynamic_smem() {
  // Function-scope extern declaration: every inclusion names the same launch-time
  // dynamic shared memory, without a namespace-scope symbol per translation unit.
  extern __shared__ __align__(1024) uint8_t sk_dynamic_smem_base[];
  return sk_dynamic_smem_base;
}

}  // namespace sk::arch
