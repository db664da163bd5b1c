// global.h (device build): per-lane stores to global memory, and the hook that
// tells the model how many bytes a warp's per-lane stores wrote.
//
// Invariants: st_global_* are per-lane data movement (call inside
// sk::for_each_lane); the destination is naturally aligned. account_global_store
// compiles to nothing on the device: the model charges issue slots and memory
// bandwidth for the bytes, since per-lane code carries no timing of its own.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE void st_global_b32(void* dst, uint32_t v) { *static_cast<uint32_t*>(dst) = v; }
SK_DEVICE void st_global_b16(void* dst, uint16_t v) { *static_cast<uint16_t*>(dst) = v; }
SK_DEVICE void account_global_store(uint32_t /*bytes_per_warp*/) {}

}  // namespace sk::arch
