// Compile-only probe: every wgmma form with A from registers (RS) of the SM90
// device layer, so ptxas validates their operands (four .b32 A registers, the
// B descriptor, imm-trans-b). Never launched.
#include "kernels/arch/sm90/device/all.h"

__global__ void __launch_bounds__(128, 1) sm90_wgmma_rs_probe(float* out, uint64_t desc_b, uint32_t seed) {
  sk::LaneArray<uint32_t, 4> a;
  for (int r = 0; r < 4; ++r) a.regs[0][r] = seed * (r + 1) + threadIdx.x;
  sk::LaneArray<float, 32> d64;
  sk::LaneArray<float, 64> d128;
  sk::LaneArray<float, 128> d256;
  sk::arch::wgmma_fence();
  sk::arch::wgmma_m64n64k16_bf16_rs(d64, a, desc_b, false);
  sk::arch::wgmma_m64n64k16_f16_rs<1>(d64, a, desc_b, true);
  sk::arch::wgmma_m64n128k16_bf16_rs(d128, a, desc_b, false);
  sk::arch::wgmma_m64n128k16_f16_rs(d128, a, desc_b, true);
  sk::arch::wgmma_m64n256k16_bf16_rs<1>(d256, a, desc_b, false);
  sk::arch::wgmma_m64n256k16_f16_rs(d256, a, desc_b, true);
  sk::arch::wgmma_commit_group();
  sk::arch::wgmma_wait_group<0>();
  float s = 0;
  for (int i = 0; i < 32; ++i) s += d64.regs[0][i];
  for (int i = 0; i < 64; ++i) s += d128.regs[0][i];
  for (int i = 0; i < 128; ++i) s += d256.regs[0][i];
  out[threadIdx.x] = s;
}
