// intrinsics.h: the SM90 intrinsic API, model build.
//
// The common NVIDIA layer (identity, lanes, mbarrier, TMA) is the one in
// kernels/arch/sm100/model/intrinsics.h; this adds wgmma, setmaxnreg and per-lane global
// stores under the device build's names (kernels/arch/sm90/device/).
#pragma once

#include <cmath>
#include <cstdint>
#include <source_location>

#include "kernels/arch/sm90/smem_desc.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/numeric.h"
#include "kernels/arch/sm100/model/intrinsics.h"
#include "models/sm90/api.h"
#include "models/sm90/lockstep.h"

namespace sk::arch {

namespace m90 = sk::models::sm90::api;

template <int Regs>
inline void wgmma_mma_model(LaneArray<float, Regs>& acc, uint64_t da, uint64_t db, bool accumulate,
                            std::source_location l, bool f16 = false, int ta = 0, int tb = 0) {
  m90::wgmma_mma(&acc.regs[0][0], Regs, da, db, accumulate, l, f16, ta != 0, tb != 0);
}
// Any of the forms below by N and element type, as the device's
// wgmma_m64nNk16_ss / _rs (kernels/arch/sm90/device/wgmma.h).
template <int N, bool F16, int TA, int TB>
inline void wgmma_m64nNk16_ss(LaneArray<float, N / 2>& acc, uint64_t da, uint64_t db, bool accumulate,
                              Loc l = Loc::current()) {
  static_assert(N == 64 || N == 128 || N == 192 || N == 256,
                "wgmma tile N of 64, 128, 192 or 256 here (192: SS only)");
  wgmma_mma_model(acc, da, db, accumulate, l, F16, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n64k16_bf16_ss(LaneArray<float, 32>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, false, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n128k16_bf16_ss(LaneArray<float, 64>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, false, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n256k16_bf16_ss(LaneArray<float, 128>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, false, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n64k16_f16_ss(LaneArray<float, 32>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, true, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n128k16_f16_ss(LaneArray<float, 64>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, true, TA, TB);
}
template <int TA = 0, int TB = 0>
inline void wgmma_m64n256k16_f16_ss(LaneArray<float, 128>& acc, uint64_t da, uint64_t db,
                                  bool accumulate, Loc l = Loc::current()) {
  wgmma_mma_model(acc, da, db, accumulate, l, true, TA, TB);
}
// A from registers (wgmma ... RS; layout in kernels/arch/sm90/device/wgmma.h).
template <int Regs>
inline void wgmma_rs_model(LaneArray<float, Regs>& acc, const LaneArray<uint32_t, 4>& a, uint64_t db,
                           bool accumulate, std::source_location l, bool f16, int tb) {
  m90::wgmma_mma_rs(&acc.regs[0][0], Regs, &a.regs[0][0], db, accumulate, l, f16, tb != 0);
}
template <int N, bool F16, int TB>
inline void wgmma_m64nNk16_rs(LaneArray<float, N / 2>& acc, const LaneArray<uint32_t, 4>& a,
                              uint64_t db, bool accumulate, Loc l = Loc::current()) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma tile N of 64, 128 or 256 here");
  wgmma_rs_model(acc, a, db, accumulate, l, F16, TB);
}
template <int TB = 0>
inline void wgmma_m64n64k16_bf16_rs(LaneArray<float, 32>& acc, const LaneArray<uint32_t, 4>& a,
                                    uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, false, TB);
}
template <int TB = 0>
inline void wgmma_m64n128k16_bf16_rs(LaneArray<float, 64>& acc, const LaneArray<uint32_t, 4>& a,
                                     uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, false, TB);
}
template <int TB = 0>
inline void wgmma_m64n256k16_bf16_rs(LaneArray<float, 128>& acc, const LaneArray<uint32_t, 4>& a,
                                     uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, false, TB);
}
template <int TB = 0>
inline void wgmma_m64n64k16_f16_rs(LaneArray<float, 32>& acc, const LaneArray<uint32_t, 4>& a,
                                   uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, true, TB);
}
template <int TB = 0>
inline void wgmma_m64n128k16_f16_rs(LaneArray<float, 64>& acc, const LaneArray<uint32_t, 4>& a,
                                    uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, true, TB);
}
template <int TB = 0>
inline void wgmma_m64n256k16_f16_rs(LaneArray<float, 128>& acc, const LaneArray<uint32_t, 4>& a,
                                    uint64_t db, bool accumulate, Loc l = Loc::current()) {
  wgmma_rs_model(acc, a, db, accumulate, l, true, TB);
}
// A region that the four warps of a warpgroup run alike (a consumer's main
// loop): timing runs simulate it once per warpgroup (models/sm90/lockstep.h).
inline void warpgroup_converged_begin(Loc l = Loc::current()) { m90::warpgroup_converged_begin(l); }
inline void warpgroup_converged_end(Loc l = Loc::current()) { m90::warpgroup_converged_end(l); }
inline void wgmma_fence(Loc l = Loc::current()) { m90::wgmma_fence(l); }
inline void wgmma_commit_group(Loc l = Loc::current()) { m90::wgmma_commit_group(l); }
// A compiler fence on the device (the accumulators stay in their registers);
// the model's registers never move.
template <class T, int N, int L>
inline void wgmma_fence_operand(LaneArray<T, N, L>&) {}
template <int N>
inline void wgmma_wait_group(Loc l = Loc::current()) {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  m90::wgmma_wait_group(N, l);
}
template <int Regs>
inline void warpgroup_reg_dealloc(Loc l = Loc::current()) {
  m90::warpgroup_set_regs(l);
}
template <int Regs>
inline void warpgroup_reg_alloc(Loc l = Loc::current()) {
  m90::warpgroup_set_regs(l);
}
inline void st_global_b32(void* dst, uint32_t v, Loc l = Loc::current()) {
  m90::st_global(dst, &v, 4, l);
}
inline void st_global_b16(void* dst, uint16_t v, Loc l = Loc::current()) {
  m90::st_global(dst, &v, 2, l);
}
inline void st_global_v4(void* dst, const uint32_t* v, Loc l = Loc::current()) {
  m90::st_global(dst, v, 16, l);
}
inline void account_global_store(uint32_t bytes, Loc l = Loc::current()) {
  m90::account_global_store(bytes, l);
}
// A warp's `instructions` 32-lane 4-byte store instructions (128 bytes
// each), with the bytes each of them wrote inside D (0: predicated off).
inline void account_global_stores(const uint16_t* bytes_in_d, uint32_t instructions, Loc l = Loc::current()) {
  m90::account_global_stores(bytes_in_d, instructions, l);
}
// Bytes a warp wrote with st_global_v4 in whole sectors.
inline void account_global_store_v4(uint32_t bytes, Loc l = Loc::current()) {
  m90::account_global_store_v4(bytes, l);
}

}  // namespace sk::arch
