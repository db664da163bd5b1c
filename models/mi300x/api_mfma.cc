// api_mfma.cc: v_mfma_f32_32x32x8_bf16, v_mfma_f32_16x16x16_bf16 and
// v_mfma_f32_32x32x8_f16 (kernels/arch/gfx942/device/mfma.h gives the lane
// layouts used here; the F16 form has the BF16 one's layout and, in the
// CDNA3 ISA's MFMA table, its 16 passes, so it takes the same cycles).
//
// Invariants: all 64 lanes take part (a partial wave is a finding and the
// instruction is skipped); products of BF16 values are exact in FP32 and the
// sums are FP32. Timing: the wave's SIMD (wave index % simds_per_cu) has one
// matrix core, busy mfma_*_cycles per instruction; an MFMA issues when that
// core is free and after the wave's outstanding LDS and global loads (the
// compiler waits for operand registers before use).
#include <fmt/format.h>


#include "models/common/element_types.h"
#include "models/mi300x/api.h"
#include "models/mi300x/api_common.h"

namespace sk::models::mi300x::api {
namespace {

float element(uint16_t bits, bool f16) { return f16 ? fp16_to_float(bits) : bf16_to_float(bits); }

// M = N = kM, K = 4 * (64 / kM); kRegs accumulator registers per lane.
// crow(l, r) is the row of C held by register r of lane l; its column is
// l % kM. Lane l holds A[l % kM][4 * (l / kM) + i] and B[4 * (l / kM) + i][l % kM].
template <int kM, int kRegs, class AccT, class RowFn>
void mfma(AccT* c, int cs, const Bf16x4* a, int as, const Bf16x4* b, int bs, uint32_t cycles,
          RowFn crow, const char* name, const Loc& loc, bool f16 = false) {
  constexpr int kK = 4 * (64 / kM);
  sim::Warp& w = issue_local(loc);
  if (w.active_count() != 64) {
    gpu().finding("warp_collective", "mfma.partial_wave",
                  fmt::format("{} issued by {} of 64 lanes; its matrices are made of every lane's "
                              "operands, so the whole wave must execute it",
                              name, w.active_count()),
                  loc);
    return;
  }
  WaveState& ws = gpu().wave_state();
  Cycle t = local_now(w);
  if (ws.regs_ready > t) {
    stall_until(w, ws.regs_ready, kOperandStall);
    t = local_now(w);
  }
  const int simd = w.index() % gpu().params().simds_per_cu;
  const Cycle start = gpu().reserve_simd(simd, t, cycles, 2.0 * kM * kM * kK);
  w.spend(start - t);
  if (gpu().traces_current())
    gpu().trace_busy(fmt::format("MFMA SIMD {}", simd), Gpu::kMfmaTrackRank + simd, start,
                     start + cycles, name);
  if (!gpu().functional()) return;
  float A[kM][kK], B[kK][kM];
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) {
      A[l % kM][4 * (l / kM) + i] = element(a[l * as].v[i], f16);
      B[4 * (l / kM) + i][l % kM] = element(b[l * bs].v[i], f16);
    }
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < kRegs; ++r) {
      const int row = crow(l, r), col = l % kM;
      float sum = 0;
      for (int k = 0; k < kK; ++k) sum += A[row][k] * B[k][col];
      c[l * cs].v[r] += sum;
    }
}

}  // namespace

void mfma_f32_32x32x8_bf16(Acc16* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                           int b_stride, const Loc& loc) {
  mfma<32, 16>(
      c, c_stride, a, a_stride, b, b_stride, gpu().params().mfma_32x32x8_bf16_cycles,
      [](int l, int r) { return 8 * (r / 4) + 4 * (l / 32) + (r % 4); },
      "v_mfma_f32_32x32x8_bf16", loc);
}

void mfma_f32_32x32x8_f16(Acc16* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                          int b_stride, const Loc& loc) {
  mfma<32, 16>(
      c, c_stride, a, a_stride, b, b_stride, gpu().params().mfma_32x32x8_bf16_cycles,
      [](int l, int r) { return 8 * (r / 4) + 4 * (l / 32) + (r % 4); },
      "v_mfma_f32_32x32x8_f16", loc, true);
}

void mfma_f32_16x16x16_bf16(Acc4* c, int c_stride, const Bf16x4* a, int a_stride, const Bf16x4* b,
                            int b_stride, const Loc& loc) {
  mfma<16, 4>(
      c, c_stride, a, a_stride, b, b_stride, gpu().params().mfma_16x16x16_bf16_cycles,
      [](int l, int r) { return 4 * (l / 16) + r; }, "v_mfma_f32_16x16x16_bf16", loc);
}

}  // namespace sk::models::mi300x::api
