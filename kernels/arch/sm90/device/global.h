// global.h (device build): per-lane stores to global memory, and the hook that
// tells the model how many bytes a warp's per-lane stores wrote.
//
// Invariants: st_global_* are per-lane data movement (call inside
// sk::for_each_lane); the destination is naturally aligned. account_global_store
// and account_global_stores compile to nothing on the device: the model
// charges issue slots and memory bandwidth for the bytes, since per-lane code
// carries no timing of its own.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE void st_global_b32(void* dst, uint32_t v) { *static_cast<uint32_t*>(dst) = v; }
SK_DEVICE void st_global_b16(void* dst, uint16_t v) { *static_cast<uint16_t*>(dst) = v; }
// v[0..3], 16 bytes, `dst` 16-byte aligned (st.global.v4.b32): whole 32-byte sectors
// when a quad's lanes store a row's 64 contiguous bytes, which the memory
// system takes at the SM's full rate however many SMs store (the 4-byte
// form's half sectors slow down as SMs store at once: docs/hardware.md).
SK_DEVICE void st_global_v4(void* dst, const uint32_t* v) {
  *static_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
}
SK_DEVICE void account_global_store(uint32_t /*bytes_per_warp*/) {}
SK_DEVICE void account_global_store_v4(uint32_t /*bytes_per_warp*/) {}
SK_DEVICE void account_global_stores(const uint16_t* /*bytes_in_d*/, uint32_t /*instructions*/) {}

}  // namespace sk::arch
