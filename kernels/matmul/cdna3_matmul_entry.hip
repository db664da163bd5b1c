// cdna3_matmul_entry.hip: gfx942 (MI300X) device entry points of the CDNA3
// matmuls, compiled by clang HIP (tests/gfx942) from the same headers the
// model build uses.
//
// Invariants: the ping-pong kernel is launched with 512 work-items (8 waves)
// per workgroup and the wave-specialized ones (BF16 and F16) with 384 (6
// waves), each with
// kLdsBytes of dynamic LDS and a grid of at most the number of output tiles.
#include "kernels/matmul/cdna3_pingpong_matmul.h"
#include "kernels/matmul/cdna3_wave_specialized_matmul.h"

namespace {
using Config = sk::Cdna3MatmulConfig<128, 128, 32, 3>;
using PingPong = sk::Cdna3PingPongMatmul<Config>;
using WaveSpecialized = sk::Cdna3WaveSpecializedMatmul<Config>;
using WaveSpecializedF16 = sk::Cdna3WaveSpecializedMatmul<sk::Cdna3MatmulConfig<128, 128, 32, 3, true>>;
static_assert(PingPong::kLdsBytes <= 64 * 1024 && WaveSpecialized::kLdsBytes <= 64 * 1024,
              "gfx942 has 64 KiB of LDS per workgroup");
}  // namespace

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(512, 512))) void
sk_cdna3_pingpong_matmul(sk::Cdna3MatmulParams p) {
  PingPong::run(p);
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(384, 384))) void
sk_cdna3_wave_specialized_matmul(sk::Cdna3MatmulParams p) {
  WaveSpecialized::run(p);
}

// The same with F16 operands (v_mfma_f32_32x32x8f16).
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(384, 384))) void
sk_cdna3_wave_specialized_matmul_f16(sk::Cdna3MatmulParams p) {
  WaveSpecializedF16::run(p);
}
