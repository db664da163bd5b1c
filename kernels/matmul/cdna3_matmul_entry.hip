// cdna3_matmul_entry.hip: gfx942 (MI300X) device entry points of the CDNA3
// matmuls, compiled by clang HIP (tests/gfx942) from the same headers the
// model build uses.
//
// Invariants: the ping-pong kernels are launched with 512 work-items (8 waves)
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
// MN-major operands (--layout-a col, --layout-b row): both for the ping-pong
// kernel, A alone for the wave-specialized one.
using PingPongMn =
    sk::Cdna3PingPongMatmul<sk::Cdna3MatmulConfig<128, 128, 32, 3, false, sk::OperandLayouts{1, 1}>>;
using WaveSpecializedAMn = sk::Cdna3WaveSpecializedMatmul<
    sk::Cdna3MatmulConfig<128, 128, 32, 3, false, sk::OperandLayouts{1, 0}>>;
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

// MN-major operands: the MFMA operands of an MN-major tile are gathered with
// ds_read_u16 (kernels/io/lds_tile_loader.h, LdsMnTileLayout).
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(512, 512))) void
sk_cdna3_pingpong_matmul_mn_major(sk::Cdna3MatmulParams p) {
  PingPongMn::run(p);
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(384, 384))) void
sk_cdna3_wave_specialized_matmul_a_mn_major(sk::Cdna3MatmulParams p) {
  WaveSpecializedAMn::run(p);
}
