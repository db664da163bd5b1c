// api.h: the gfx942 (MI300X) intrinsic semantics, as the model implements them.
//
// kernels/arch/gfx942.h maps every sk::arch intrinsic onto one of these calls in
// the model build (kernels/arch/gfx942/model/intrinsics.h). Each call acts for the calling
// wave's active lanes; inside sk::for_each_lane a per-lane call is that lane's
// part of one wave instruction (see gpu.h). Rule violations become findings and
// the call then does the least surprising defined thing: a buggy kernel is
// reported, never crashes the simulator.
#pragma once

#include <cstdint>
#include <source_location>

#include "isa/gfx942_types.h"

namespace sk::models::mi300x::api {

using Loc = std::source_location;
using arch::Acc16;
using arch::Acc4;
using arch::Bf16x4;
using arch::BufferRsrc;
using arch::Scope;

uint32_t lane_idx();
uint32_t wave_idx();
uint32_t block_idx();
uint32_t num_blocks();
uint32_t waves_per_block();
uint8_t* dynamic_lds();

void ld_lds(const void* p, void* out, uint32_t bytes, const Loc& loc);
void st_lds(void* p, const void* v, uint32_t bytes, const Loc& loc);
// Two ds_read_u16 (two wave instructions in a lane loop, each timed and
// bank-conflict counted as any LDS read), packed: lo | hi << 16.
uint32_t ld_lds_u16x2(const uint16_t* lo, const uint16_t* hi, const Loc& loc);
uint32_t lds_addr(const void* p, const Loc& loc);
void ld_global(const void* p, void* out, uint32_t bytes, const Loc& loc);
void st_global(void* p, const void* v, uint32_t bytes, const Loc& loc);

void global_load_lds_dword(void* lds_base, const void* global_src, const Loc& loc);
void buffer_load_dword_lds(void* lds_base, BufferRsrc rsrc, uint32_t byte_offset, const Loc& loc);

void s_waitcnt_vmcnt(int n, const Loc& loc);
void s_waitcnt_lgkmcnt(int n, const Loc& loc);

uint32_t atomic_add(uint32_t* p, uint32_t v, Scope s, const Loc& loc);
uint32_t atomic_load_acquire(const uint32_t* p, Scope s, const Loc& loc);
void atomic_store_release(uint32_t* p, uint32_t v, Scope s, const Loc& loc);
void wait_counter_geq(const uint32_t* p, uint32_t target, Scope s, const Loc& loc);

void s_sleep(int n, const Loc& loc);
void s_setprio(int p, const Loc& loc);
void s_barrier(const Loc& loc);
void workgroup_sync(const Loc& loc);

// Lane l's operands are c[l * c_stride], a[l * a_stride], b[l * b_stride].
void mfma_f32_32x32x8_bf16(Acc16* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                           int b_stride, const Loc& loc);
void mfma_f32_16x16x16_bf16(Acc4* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                            int b_stride, const Loc& loc);
// v_mfma_f32_32x32x8_f16: the same shape with IEEE F16 operands (their bits
// in the same 4 x 16-bit registers).
void mfma_f32_32x32x8_f16(Acc16* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                          int b_stride, const Loc& loc);

void annotate_counter(const uint32_t* counter, const char* name, int index,
                      uint32_t arrivals_per_lap);

}  // namespace sk::models::mi300x::api
