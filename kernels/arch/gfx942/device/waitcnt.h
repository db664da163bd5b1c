// waitcnt.h (gfx942 device build): s_waitcnt on the vector-memory and
// LDS/scalar-memory counters.
//
// Each wave counts its outstanding operations per kind; s_waitcnt blocks the
// wave until each counter is <= the value encoded for it:
//   vmcnt    vector memory: global/buffer loads and stores, LDS DMA (0..63)
//   expcnt   exports and GDS (0..7), always left at its maximum here
//   lgkmcnt  LDS (ds_*), GDS, scalar memory, messages (0..15)
// gfx9 encodes them in the 16-bit immediate as vmcnt[3:0] in bits [3:0] and
// vmcnt[5:4] in bits [15:14], expcnt in [6:4], lgkmcnt in [11:8]; a field at
// its maximum does not wait.
//
// Invariants: N is a compile-time constant in the counter's range (checked);
// the calls are also compiler barriers, so no LDS or global access of the
// source moves across them. clang may merge adjacent waits into one
// instruction (the stricter count of each counter wins).
#pragma once

#include "kernels/arch/gfx942/device/address_space.h"
#include "kernels/core/platform.h"

namespace sk::arch {

inline constexpr int kMaxVmcnt = 63;
inline constexpr int kMaxExpcnt = 7;
inline constexpr int kMaxLgkmcnt = 15;

// The gfx9 s_waitcnt immediate; plain constexpr so the model can decode
// against the same encoding in its tests.
SK_HOST_DEVICE constexpr uint16_t waitcnt_imm(int vmcnt, int expcnt, int lgkmcnt) {
  return static_cast<uint16_t>((vmcnt & 0xF) | ((expcnt & 0x7) << 4) | ((lgkmcnt & 0xF) << 8) |
                               (((vmcnt >> 4) & 0x3) << 14));
}

static_assert(waitcnt_imm(kMaxVmcnt, kMaxExpcnt, kMaxLgkmcnt) == 0xCF7F, "no-wait immediate");
static_assert(waitcnt_imm(0, kMaxExpcnt, kMaxLgkmcnt) == 0x0F70, "vmcnt(0)");
static_assert(waitcnt_imm(37, kMaxExpcnt, kMaxLgkmcnt) == 0x8F75, "vmcnt(37): high bits split");
static_assert(waitcnt_imm(kMaxVmcnt, kMaxExpcnt, 0) == 0xC07F, "lgkmcnt(0)");

// Wait until at most N vector-memory operations of this wave are outstanding.
template <int N>
SK_DEVICE void s_waitcnt_vmcnt() {
  static_assert(N >= 0 && N <= kMaxVmcnt, "vmcnt is 6 bits on gfx9");
  constexpr uint16_t kImm = waitcnt_imm(N, kMaxExpcnt, kMaxLgkmcnt);
  detail::compiler_barrier();
  __builtin_amdgcn_s_waitcnt(kImm);
  detail::compiler_barrier();
}

// Wait until at most N LDS/GDS/scalar-memory operations are outstanding.
template <int N>
SK_DEVICE void s_waitcnt_lgkmcnt() {
  static_assert(N >= 0 && N <= kMaxLgkmcnt, "lgkmcnt is 4 bits on gfx9");
  constexpr uint16_t kImm = waitcnt_imm(kMaxVmcnt, kMaxExpcnt, N);
  detail::compiler_barrier();
  __builtin_amdgcn_s_waitcnt(kImm);
  detail::compiler_barrier();
}

}  // namespace sk::arch
