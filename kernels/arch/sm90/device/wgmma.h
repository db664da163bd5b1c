// wgmma.h (SM90 device build): warpgroup MMA (wgmma.mma_async) with both
// operands in shared memory or A from registers, and its ordering
// instructions.
//
// Invariants: every function here is executed by all 128 threads of a
// warpgroup (four consecutive warps starting at a multiple of 4), in
// convergence (.sync.aligned). Accumulator registers may not be read or
// written between an mma_async and the wait_group that covers it; call
// wgmma_fence() before the first mma_async that reads registers written by
// ordinary instructions. Operands are BF16 (or F16) tiles with the 128-byte
// swizzle: K-major, described by make_smem_desc_sw128(), or MN-major (the
// forms' TA / TB template arguments set), by make_smem_desc_sw128_mn().
//
// Accumulators are a LaneArray<float, N/2> (one row per thread on the
// device, all 32 lanes of a warp in the model). Layout of m64nNk16 (FP32),
// thread t of the warpgroup, warp w =
// t / 32, lane l = t % 32: d[4j + 0..3] hold rows 16w + l/4 (+8 for 2 and 3),
// columns 8j + 2(l%4) (+1 for 1 and 3).
#pragma once

#include "kernels/arch/sm90/smem_desc.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/platform.h"

namespace sk::arch {

// A region that the four warps of a warpgroup run alike: a hint to the
// model (models/sm90/lockstep.h), nothing on the device.
SK_DEVICE void warpgroup_converged_begin() {}
SK_DEVICE void warpgroup_converged_end() {}

SK_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" : : : "memory"); }

SK_DEVICE void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;" : : : "memory");
}

// The accumulators pinned in their registers here (no instruction). The
// compiler may otherwise copy accumulators that an mma_async still writes
// (to join two paths of a loop that leaves a group in flight), and one such
// read makes ptxas serialize every wgmma of the kernel (its warning C7514).
// Placed around each k-block's ops and after each wait_group.
template <class T, int N, int L>
SK_DEVICE void wgmma_fence_operand(LaneArray<T, N, L>& acc) {
  T* d = acc.lane(0);
  SK_UNROLL
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

template <int N>
SK_DEVICE void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;" : : "n"(N) : "memory");
}

// Register budget per thread of the executing warpgroup (setmaxnreg): a
// producer gives registers back, consumers take them. Takes effect only with
// a register cap at entry (__launch_bounds__(threads, 1)).
template <int Regs>
SK_DEVICE void warpgroup_reg_dealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" : : "n"(Regs));
}
template <int Regs>
SK_DEVICE void warpgroup_reg_alloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" : : "n"(Regs));
}

// The wgmma.mma_async forms with both operands in SMEM and FP32 accumulators,
// D[64 x N] (+)= A[64 x 16] * B[N x 16]^T, for BF16 or F16 elements (the
// PTX type is spliced into the instruction text; the operand lists exist
// once per shape). N/2 accumulator registers per thread of the warpgroup.
// The accumulator operand lists, D[0 .. N/2) as %0 .. %(N/2 - 1).
#define SK_WGMMA_D_64 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
  "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define SK_WGMMA_D_128 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
  "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, " \
  "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, " \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define SK_WGMMA_D_256 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
  "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, " \
  "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, " \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, " \
  "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, " \
  "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, " \
  "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, " \
  "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, " \
  "%124, %125, %126, %127}"
#define SK_WGMMA_TEXT_64(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." T "." T " " \
  SK_WGMMA_D_64 \
  ", %32, %33, p, 1, 1, %35, %36;\n}\n"
#define SK_WGMMA_OUT_64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),  \
  "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),  \
  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),  \
  "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),  \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),  \
  "+f"(d[30]), "+f"(d[31])
#define SK_WGMMA_TEXT_128(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." T "." T " " \
  SK_WGMMA_D_128 \
  ", %64, %65, p, 1, 1, %67, %68;\n}\n"
#define SK_WGMMA_OUT_128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),  \
  "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),  \
  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),  \
  "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),  \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),  \
  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
  "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),  \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),  \
  "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),  \
  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define SK_WGMMA_D_192 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, " \
  "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, " \
  "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, " \
  "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, " \
  "%77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, " \
  "%92, %93, %94, %95}"
#define SK_WGMMA_TEXT_192(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n192k16.f32." T "." T " " \
  SK_WGMMA_D_192 \
  ", %96, %97, p, 1, 1, %99, %100;\n}\n"
#define SK_WGMMA_OUT_192 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),  \
  "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),  \
  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),  \
  "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),  \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),  \
  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
  "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),  \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),  \
  "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),  \
  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),  \
  "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),  \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),  \
  "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),  \
  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),  \
  "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define SK_WGMMA_TEXT_256(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32." T "." T " " \
  SK_WGMMA_D_256 \
  ", %128, %129, p, 1, 1, %131, %132;\n}\n"
#define SK_WGMMA_OUT_256 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),  \
  "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),  \
  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),  \
  "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),  \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),  \
  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
  "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),  \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),  \
  "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),  \
  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),  \
  "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),  \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),  \
  "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),  \
  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),  \
  "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),  \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]),  \
  "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),  \
  "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),  \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),  \
  "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),  \
  "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]),  \
  "+f"(d[127])
#define SK_WGMMA_IN \
  "l"(desc_a), "l"(desc_b), "r"(static_cast<uint32_t>(accumulate)), "n"(TA), "n"(TB)

// TA, TB: the imm-trans-a / imm-trans-b operands (1: the operand is MN-major,
// described by make_smem_desc_sw128_mn()).
template <int N, bool F16, int TA, int TB>
SK_DEVICE void wgmma_m64nNk16_ss(LaneArray<float, N / 2>& acc, uint64_t desc_a, uint64_t desc_b,
                                 bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 192 || N == 256,
                "wgmma tile N of 64, 128, 192 or 256 here (192: SS only)");
  float* d = acc.regs[0];
  if constexpr (N == 64 && F16)
    asm volatile(SK_WGMMA_TEXT_64("f16") : SK_WGMMA_OUT_64 : SK_WGMMA_IN : "memory");
  else if constexpr (N == 64)
    asm volatile(SK_WGMMA_TEXT_64("bf16") : SK_WGMMA_OUT_64 : SK_WGMMA_IN : "memory");
  else if constexpr (N == 128 && F16)
    asm volatile(SK_WGMMA_TEXT_128("f16") : SK_WGMMA_OUT_128 : SK_WGMMA_IN : "memory");
  else if constexpr (N == 128)
    asm volatile(SK_WGMMA_TEXT_128("bf16") : SK_WGMMA_OUT_128 : SK_WGMMA_IN : "memory");
  else if constexpr (N == 192 && F16)
    asm volatile(SK_WGMMA_TEXT_192("f16") : SK_WGMMA_OUT_192 : SK_WGMMA_IN : "memory");
  else if constexpr (N == 192)
    asm volatile(SK_WGMMA_TEXT_192("bf16") : SK_WGMMA_OUT_192 : SK_WGMMA_IN : "memory");
  else if constexpr (F16)
    asm volatile(SK_WGMMA_TEXT_256("f16") : SK_WGMMA_OUT_256 : SK_WGMMA_IN : "memory");
  else
    asm volatile(SK_WGMMA_TEXT_256("bf16") : SK_WGMMA_OUT_256 : SK_WGMMA_IN : "memory");
}

// The forms with A from registers (wgmma ... RS): D[64 x N] (+)= A[64 x 16] *
// B[N x 16]^T, A as four .b32 registers per thread (two BF16 or F16 each) in
// the layout of the m64nNk16 accumulator's columns 16k .. 16k+15, so a
// softmax result P converted to 16-bit feeds the next MMA without a trip
// through shared memory. Thread t, warp w = t / 32, lane l = t % 32: a[r]
// holds row 16w + l/4 (+8 for r = 1, 3), columns 2(l%4) (+8 for r = 2, 3)
// and the next, the lower column in the low half. A cannot be transposed (no
// imm-trans-a); TB as above. A's registers must not change until the
// wait_group that covers the MMA.
#define SK_WGMMA_RS_TEXT_64(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." T "." T " " SK_WGMMA_D_64 \
  ", {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
#define SK_WGMMA_RS_TEXT_128(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." T "." T " " SK_WGMMA_D_128 \
  ", {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
#define SK_WGMMA_RS_TEXT_256(T) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32." T "." T " " SK_WGMMA_D_256 \
  ", {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n"
#define SK_WGMMA_RS_IN                                                              \
  "r"(a.regs[0][0]), "r"(a.regs[0][1]), "r"(a.regs[0][2]), "r"(a.regs[0][3]), "l"(desc_b), \
      "r"(static_cast<uint32_t>(accumulate)), "n"(TB)

template <int N, bool F16, int TB>
SK_DEVICE void wgmma_m64nNk16_rs(LaneArray<float, N / 2>& acc, const LaneArray<uint32_t, 4>& a,
                                 uint64_t desc_b, bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma tile N of 64, 128 or 256 here");
  float* d = acc.regs[0];
  if constexpr (N == 64 && F16)
    asm volatile(SK_WGMMA_RS_TEXT_64("f16") : SK_WGMMA_OUT_64 : SK_WGMMA_RS_IN : "memory");
  else if constexpr (N == 64)
    asm volatile(SK_WGMMA_RS_TEXT_64("bf16") : SK_WGMMA_OUT_64 : SK_WGMMA_RS_IN : "memory");
  else if constexpr (N == 128 && F16)
    asm volatile(SK_WGMMA_RS_TEXT_128("f16") : SK_WGMMA_OUT_128 : SK_WGMMA_RS_IN : "memory");
  else if constexpr (N == 128)
    asm volatile(SK_WGMMA_RS_TEXT_128("bf16") : SK_WGMMA_OUT_128 : SK_WGMMA_RS_IN : "memory");
  else if constexpr (F16)
    asm volatile(SK_WGMMA_RS_TEXT_256("f16") : SK_WGMMA_OUT_256 : SK_WGMMA_RS_IN : "memory");
  else
    asm volatile(SK_WGMMA_RS_TEXT_256("bf16") : SK_WGMMA_OUT_256 : SK_WGMMA_RS_IN : "memory");
}

#undef SK_WGMMA_IN
#undef SK_WGMMA_RS_IN
#undef SK_WGMMA_RS_TEXT_64
#undef SK_WGMMA_RS_TEXT_128
#undef SK_WGMMA_RS_TEXT_256
#undef SK_WGMMA_D_64
#undef SK_WGMMA_D_128
#undef SK_WGMMA_D_192
#undef SK_WGMMA_D_256
#undef SK_WGMMA_OUT_64
#undef SK_WGMMA_OUT_128
#undef SK_WGMMA_OUT_192
#undef SK_WGMMA_OUT_256
#undef SK_WGMMA_TEXT_64
#undef SK_WGMMA_TEXT_128
#undef SK_WGMMA_TEXT_192
#undef SK_WGMMA_TEXT_256

template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n64k16_bf16_ss(LaneArray<float, 32>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<64, false, TA, TB>(acc, desc_a, desc_b, accumulate);
}
template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n64k16_f16_ss(LaneArray<float, 32>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<64, true, TA, TB>(acc, desc_a, desc_b, accumulate);
}
template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n128k16_bf16_ss(LaneArray<float, 64>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<128, false, TA, TB>(acc, desc_a, desc_b, accumulate);
}
template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n128k16_f16_ss(LaneArray<float, 64>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<128, true, TA, TB>(acc, desc_a, desc_b, accumulate);
}
template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n256k16_bf16_ss(LaneArray<float, 128>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<256, false, TA, TB>(acc, desc_a, desc_b, accumulate);
}
template <int TA = 0, int TB = 0>
SK_DEVICE void wgmma_m64n256k16_f16_ss(LaneArray<float, 128>& acc, uint64_t desc_a, uint64_t desc_b,
                                  bool accumulate) {
  wgmma_m64nNk16_ss<256, true, TA, TB>(acc, desc_a, desc_b, accumulate);
}

// A from registers (see wgmma_m64nNk16_rs).
template <int TB = 0>
SK_DEVICE void wgmma_m64n64k16_bf16_rs(LaneArray<float, 32>& acc, const LaneArray<uint32_t, 4>& a,
                                       uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<64, false, TB>(acc, a, desc_b, accumulate);
}
template <int TB = 0>
SK_DEVICE void wgmma_m64n128k16_bf16_rs(LaneArray<float, 64>& acc, const LaneArray<uint32_t, 4>& a,
                                        uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<128, false, TB>(acc, a, desc_b, accumulate);
}
template <int TB = 0>
SK_DEVICE void wgmma_m64n256k16_bf16_rs(LaneArray<float, 128>& acc, const LaneArray<uint32_t, 4>& a,
                                        uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<256, false, TB>(acc, a, desc_b, accumulate);
}
template <int TB = 0>
SK_DEVICE void wgmma_m64n64k16_f16_rs(LaneArray<float, 32>& acc, const LaneArray<uint32_t, 4>& a,
                                      uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<64, true, TB>(acc, a, desc_b, accumulate);
}
template <int TB = 0>
SK_DEVICE void wgmma_m64n128k16_f16_rs(LaneArray<float, 64>& acc, const LaneArray<uint32_t, 4>& a,
                                       uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<128, true, TB>(acc, a, desc_b, accumulate);
}
template <int TB = 0>
SK_DEVICE void wgmma_m64n256k16_f16_rs(LaneArray<float, 128>& acc, const LaneArray<uint32_t, 4>& a,
                                       uint64_t desc_b, bool accumulate) {
  wgmma_m64nNk16_rs<256, true, TB>(acc, a, desc_b, accumulate);
}

}  // namespace sk::arch
