// mainloop.h: what the SM100 structured matmul's input stage is made of, as
// one policy of Sm100MatmulConfig (its Mainloop_ parameter).
//
// A mainloop policy is a class template At<BM, BN, BK, Stages> with:
//   Payload            the input TilePipeline's payload (what one stage holds);
//                      its Tiles have at least `a` and `b`
//   Op                 the TileOp: Op(op_tmem_col), then per stage
//                      mma(tmem_base, d_col, tiles, accumulate) and commit(bar)
//   ScaleIo            TileIO for the stage's loads beyond A and B (scale
//                      factors): a Source the kernel Params hold, prefetch(),
//                      load(tiles, full_barrier, k_block, m_tile, n_tile,
//                      batch) (batch: the work item's matrix)
//   kBytesPerStage     what the stage's loads deliver (expect_tx)
//   kKCoordPerStage    how far one stage advances the A and B tensor maps'
//                      K coordinate (elements; bytes for packed FP4)
//   kTmemColsPerStage  TMEM columns the Op uses per input stage besides the
//                      accumulators (block scale factors), at
//                      op_tmem_col + stage * kTmemColsPerStage
//   kElemBytes         bytes of one A or B element as the tensor maps see it
//                      (2: BF16/F16, 1: FP8 and packed FP4); an MN-major
//                      tile's 128-byte box holds 128 / kElemBytes rows
//   kName              the element format, for configuration names
//   kCtaGroup          (optional, 1 when absent) 2 for the 2-SM mainloop:
//                      a stage holds this CTA's BM rows of A and BN / 2 rows
//                      of B, kBytesPerStage is this CTA's share, and the Op
//                      issues for the pair (kernels/op/umma_op.h)
//   kPromote           false: one accumulator per tile, stored as it is;
//                      true: one partial accumulator per k-block, which the
//                      epilogue warps fold into registers with
//                      promote(acc, tmem_base, col, quarter, stage tiles)
//                      (Accumulator, clear(acc)); they then also consume the
//                      input stages (to read the stage's scales)
// The kernel (sm100_matmul.h) calls only these; the pipeline, the scheduler,
// the accumulator ring and the epilogue are the same for every mainloop.
//
// Bf16Mainloop is the plain BF16 GEMM: A/B tiles, kind::f16 UMMA, no scales;
// F16Mainloop the same with IEEE F16 elements; Bf16PairMainloop and
// F16PairMainloop their 2-SM forms (a 256 x BN tile per CTA pair).
#pragma once

#include "kernels/core/numeric.h"
#include "kernels/core/platform.h"
#include "kernels/op/umma_op.h"
#include "kernels/pipeline/payloads.h"

namespace sk {

// ScaleIo of a mainloop without scale factors: no Source fields, no loads.
struct NoScaleIo {
  struct Source {};
  SK_DEVICE explicit NoScaleIo(const Source*) {}
  SK_DEVICE void prefetch() const {}
  template <class Tiles>
  SK_DEVICE void load(const Tiles&, uint64_t*, uint32_t, uint32_t, uint32_t, uint32_t) const {}
};

// A plain kind::f16 GEMM of 16-bit elements of format In (the payload
// stores their bits; only the UMMA reads them as numbers).
template <int BM, int BN, int BK, int Stages, umma::InputType In, int CtaGroup = 1>
struct Kind16Mainloop {
  static constexpr int kCtaGroup = CtaGroup;
  using Payload = StandardPayload<bf16_t, BM, BN / CtaGroup, BK, Stages>;
  using Op = UmmaOp<BM, BN, BK, In, CtaGroup>;
  using ScaleIo = NoScaleIo;
  static constexpr uint32_t kBytesPerStage = Payload::kBytesPerStage;
  static constexpr int32_t kKCoordPerStage = BK;
  static constexpr uint32_t kTmemColsPerStage = 0;
  static constexpr uint32_t kElemBytes = 2;
  static constexpr const char* kName = In == umma::InputType::kF16 ? "f16" : "bf16";
  static constexpr bool kPromote = false;
};

template <int BM, int BN, int BK, int Stages>
struct Bf16Mainloop : Kind16Mainloop<BM, BN, BK, Stages, umma::InputType::kBF16> {};
template <int BM, int BN, int BK, int Stages>
struct F16Mainloop : Kind16Mainloop<BM, BN, BK, Stages, umma::InputType::kF16> {};
template <int BM, int BN, int BK, int Stages>
struct Bf16PairMainloop : Kind16Mainloop<BM, BN, BK, Stages, umma::InputType::kBF16, 2> {};
template <int BM, int BN, int BK, int Stages>
struct F16PairMainloop : Kind16Mainloop<BM, BN, BK, Stages, umma::InputType::kF16, 2> {};

// A mainloop's kCtaGroup, 1 for those without one.
template <class Mainloop>
SK_HOST_DEVICE constexpr int cta_group_of() {
  if constexpr (requires { Mainloop::kCtaGroup; })
    return Mainloop::kCtaGroup;
  else
    return 1;
}

}  // namespace sk
