// intrinsics.h: the gfx942 (MI300X) intrinsic API, model build.
//
// Same names and signatures as kernels/arch/gfx942/device/ (clang HIP), plus a
// defaulted std::source_location so findings name the calling line. Every
// function forwards to models/mi300x/api.h. The lane and instrumentation
// intrinsics (elect_one_begin, lane_scope_end, for_each_lane, annotate_role,
// report_*) are the ones every model shares (kernels/arch/model/lanes.h), and the
// value types (Bf16x4, Acc4, Acc16, Scope, BufferRsrc) are the device layer's
// own plain-C++ headers, so kernel code builds the same structs in both builds.
// Kernel code reaches this header only through kernels/arch/gfx942.h.
//
// Per-lane operations (ld_lds, st_lds, ld_global, st_global, the LDS DMAs)
// are called inside sk::for_each_lane, once per lane as on the device; the
// model treats the k-th such call of every lane in one loop as one wave
// instruction (models/mi300x/gpu.h, "lane batches"). Called outside a lane
// loop they act for the whole wave at once (a wave-uniform access).
#pragma once

#include <cstdint>
#include <source_location>

#include "kernels/arch/gfx942/device/buffer_rsrc.h"
#include "isa/gfx942_types.h"
#include "kernels/core/lane_array.h"
#include "kernels/arch/model/lanes.h"
#include "models/mi300x/api.h"

namespace sk::arch {

using Loc = std::source_location;
namespace amd = sk::models::mi300x::api;

inline constexpr int kWaveSize = 64;

// Identity.
inline uint32_t lane_idx() { return amd::lane_idx(); }
inline uint32_t wave_idx() { return amd::wave_idx(); }
inline uint32_t block_idx() { return amd::block_idx(); }
inline uint32_t num_blocks() { return amd::num_blocks(); }
inline uint32_t waves_per_block() { return amd::waves_per_block(); }
inline uint8_t* dynamic_lds() { return amd::dynamic_lds(); }

// LDS and global memory (memory.h).
template <class T>
inline T ld_lds(const T* p, Loc l = Loc::current()) {
  T v;
  amd::ld_lds(p, &v, sizeof(T), l);
  return v;
}
template <class T>
inline void st_lds(T* p, T v, Loc l = Loc::current()) {
  amd::st_lds(p, &v, sizeof(T), l);
}
// Two ds_read_u16, lo in bits 0-15 of the result and hi in 16-31 (memory.h):
// two wave instructions inside a lane loop.
inline uint32_t ld_lds_u16x2(const uint16_t* lo, const uint16_t* hi, Loc l = Loc::current()) {
  return amd::ld_lds_u16x2(lo, hi, l);
}
inline uint32_t lds_addr(const void* p, Loc l = Loc::current()) { return amd::lds_addr(p, l); }
template <class T>
inline T ld_global(const T* p, Loc l = Loc::current()) {
  T v;
  amd::ld_global(p, &v, sizeof(T), l);
  return v;
}
template <class T>
inline void st_global(T* p, T v, Loc l = Loc::current()) {
  amd::st_global(p, &v, sizeof(T), l);
}

// LDS DMA (lds_dma.h).
inline void global_load_lds_dword(void* lds_base, const void* global_src, Loc l = Loc::current()) {
  amd::global_load_lds_dword(lds_base, global_src, l);
}
inline void buffer_load_dword_lds(void* lds_base, BufferRsrc rsrc, uint32_t byte_offset,
                                  Loc l = Loc::current()) {
  amd::buffer_load_dword_lds(lds_base, rsrc, byte_offset, l);
}

// s_waitcnt (waitcnt.h).
template <int N>
inline void s_waitcnt_vmcnt(Loc l = Loc::current()) {
  static_assert(N >= 0 && N <= 63, "vmcnt is 6 bits on gfx9");
  amd::s_waitcnt_vmcnt(N, l);
}
template <int N>
inline void s_waitcnt_lgkmcnt(Loc l = Loc::current()) {
  static_assert(N >= 0 && N <= 15, "lgkmcnt is 4 bits on gfx9");
  amd::s_waitcnt_lgkmcnt(N, l);
}

// Scoped atomics (atomics.h).
inline uint32_t atomic_add(uint32_t* p, uint32_t v, Scope s, Loc l = Loc::current()) {
  return amd::atomic_add(p, v, s, l);
}
inline uint32_t atomic_load_acquire(const uint32_t* p, Scope s, Loc l = Loc::current()) {
  return amd::atomic_load_acquire(p, s, l);
}
inline void atomic_store_release(uint32_t* p, uint32_t v, Scope s, Loc l = Loc::current()) {
  amd::atomic_store_release(p, v, s, l);
}
inline void wait_counter_geq(const uint32_t* p, uint32_t target, Scope s, Loc l = Loc::current()) {
  amd::wait_counter_geq(p, target, s, l);
}

// Scheduling (sched.h).
template <int N>
inline void s_sleep(Loc l = Loc::current()) {
  static_assert(N >= 0 && N <= 127, "s_sleep takes 7 bits");
  amd::s_sleep(N, l);
}
template <int P>
inline void s_setprio(Loc l = Loc::current()) {
  static_assert(P >= 0 && P <= 3, "s_setprio takes 0..3");
  amd::s_setprio(P, l);
}
inline void s_barrier(Loc l = Loc::current()) { amd::s_barrier(l); }
inline void workgroup_sync(Loc l = Loc::current()) { amd::workgroup_sync(l); }

// MFMA (mfma.h), wave-level forms: lane l's operand of register i of a
// WaveArray lives at regs[l][i], so the model takes the base and the stride.
template <int NC, int NA, int NB>
inline void mfma_f32_32x32x8_bf16(WaveArray<Acc16, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                  int ai, const WaveArray<Bf16x4, NB>& b, int bi,
                                  Loc l = Loc::current()) {
  amd::mfma_f32_32x32x8_bf16(&c.regs[0][ci], NC, &a.regs[0][ai], NA, &b.regs[0][bi], NB, l);
}
template <int NC, int NA, int NB>
inline void mfma_f32_32x32x8_f16(WaveArray<Acc16, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                 int ai, const WaveArray<Bf16x4, NB>& b, int bi,
                                 Loc l = Loc::current()) {
  amd::mfma_f32_32x32x8_f16(&c.regs[0][ci], NC, &a.regs[0][ai], NA, &b.regs[0][bi], NB, l);
}
template <int NC, int NA, int NB>
inline void mfma_f32_16x16x16_bf16(WaveArray<Acc4, NC>& c, int ci, const WaveArray<Bf16x4, NA>& a,
                                   int ai, const WaveArray<Bf16x4, NB>& b, int bi,
                                   Loc l = Loc::current()) {
  amd::mfma_f32_16x16x16_bf16(&c.regs[0][ci], NC, &a.regs[0][ai], NA, &b.regs[0][bi], NB, l);
}

// Instrumentation (hooks.h; the shared ones come from kernels/arch/model/lanes.h).
inline void annotate_counter(const uint32_t* counter, const char* name, int index,
                             uint32_t arrivals_per_lap = 0) {
  amd::annotate_counter(counter, name, index, arrivals_per_lap);
}

}  // namespace sk::arch
