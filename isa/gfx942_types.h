// gfx942_types.h: the value types of the gfx942 intrinsic API.
//
// Plain C++ with no device code and no project includes: the device layer
// (kernels/arch/gfx942/device/) and the MI300X model (models/mi300x/api.h)
// both implement the API over these exact types, so isa/ sits below both (the
// one-source rule: kernel code builds the same structs in both builds).
//
// Invariants:
//   * Bf16x4 holds four raw bfloat16 bit patterns; v[i] is the i-th K element
//     of one lane's MFMA operand (see mfma.h for which row/column and K range
//     each lane holds). Its 8-byte alignment lets ld_lds/ld_global move it as
//     one 64-bit access (ds_read_b64 / global_load_dwordx2).
//   * Acc4 and Acc16 are one lane's share of an FP32 MFMA accumulator, in
//     accumulator register order: v[r] is VGPR r of the instruction's C/D
//     operand (mfma.h gives the (row, column) of each r per lane).
//   * BufferRsrc is the 128-bit buffer resource descriptor (V#) of MUBUF
//     instructions; kernels/arch/gfx942/device/buffer_rsrc.h encodes it and
//     gives the bit layout, the model decodes it on its own.
//   * Scope is the memory scope of an atomic, in increasing order of the set
//     of agents it synchronises with; it maps one to one onto the HIP/LLVM
//     AMDGPU sync scopes (wavefront, workgroup, agent, system).
#pragma once

#include <cstdint>

namespace sk::arch {

struct alignas(8) Bf16x4 {
  uint16_t v[4];
};

struct Acc4 {
  float v[4];
};

struct Acc16 {
  float v[16];
};

struct alignas(16) BufferRsrc {
  uint32_t w[4];
};

static_assert(sizeof(Bf16x4) == 8, "Bf16x4 is one 64-bit VGPR pair");
static_assert(sizeof(Acc4) == 16 && sizeof(Acc16) == 64, "accumulators are 4 / 16 VGPRs");

enum class Scope {
  kWavefront,  // the lanes of the calling wave
  kWorkgroup,  // the waves of the calling workgroup (one CU)
  kAgent,      // every workgroup of the launch on this GPU (L2 coherent)
  kSystem,     // the GPU, other GPUs and the host
};

}  // namespace sk::arch
