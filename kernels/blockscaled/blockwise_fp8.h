// blockwise_fp8.h: blockwise-scaled FP8 matmul on SM100 (the DeepGEMM
// recipe), composed from the structured matmul.
//
//   D[m][n] = sum_kb sa[kb][m] * sb[kb][n / 128] * sum_{k in kb} A[m][k] * B[n][k]
//
// A and B are E4M3 (K-major by default); sa is one FP32 scale per row of A per 128 K
// (a "1 x 128" block), sb one per 128 x 128 block of B. Since the scales
// change every 128 K, a plain accumulation cannot apply them; the mainloop
// (kernels/matmul/mainloop.h) instead
//   * loads A, B, A's 128 scales and B's scale per stage (4 TMA loads,
//     BlockScaledPayload),
//   * has the MMA warp compute each k-block's product into a fresh TMEM
//     accumulator (Fp8UmmaOp, kind::f8f6f4; kPromote),
//   * and has the epilogue warps promote it: acc[row] += partial * sa * sb,
//     in FP32 registers, reading the scales from the same input stage (which
//     they release after the MMA's commit has), then store the tile.
// The pipeline, scheduler, accumulator ring and the store path are the
// matmul's; B's scale is applied in the epilogue, A's comes through the
// payload.
//
// Scale tensors (the host writes them, runner/kernels/blockwise_host.h): sa is
// [ceil(K/128)][M] FP32 (M-major, rows padded to 16 bytes), loaded as a box
// {128, 1} at (m0, kb); sb is [ceil(K/128)][ceil(N/128)] FP32 padded to 16
// bytes, loaded as a box {4, 1} at (n_tile, kb) of which element 0 is used.
// Rows past M and blocks past N are zero-filled by TMA. A batch has one of
// each per matrix: both maps are rank 3, the work item's matrix the third
// coordinate. A and B may each be K- or MN-major (kind::f8f6f4 takes both;
// the loaders bring 128-row boxes of an MN-major operand); the scales do not
// depend on it.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/platform.h"
#include "kernels/matmul/config.h"
#include "kernels/matmul/sm100_matmul.h"
#include "kernels/op/fp8_umma_op.h"
#include "kernels/pipeline/payloads.h"

namespace sk {

class BlockwiseScaleLoader {
 public:
  struct Source {
    arch::TensorMap sfa;  // [batches][KB][M] FP32, box {128, 1, 1}
    arch::TensorMap sfb;  // [batches][KB][NB] FP32, box {4, 1, 1}
  };
  static constexpr uint32_t kSfaBytes = 128 * 4;
  static constexpr uint32_t kSfbBytes = 4 * 4;

  SK_DEVICE explicit BlockwiseScaleLoader(const Source* s) : s_(s) {}

  // Lane: one (inside sk::elect_one()).
  SK_DEVICE void prefetch() const {
    arch::prefetch_tensormap(&s_->sfa);
    arch::prefetch_tensormap(&s_->sfb);
  }
  template <class Tiles>
  SK_DEVICE void load(const Tiles& t, uint64_t* full_barrier, uint32_t kb, uint32_t m_tile,
                      uint32_t n_tile, uint32_t batch) const {
    const int32_t l = static_cast<int32_t>(batch);
    arch::tma_load_3d(t.sfa, &s_->sfa, full_barrier, static_cast<int32_t>(m_tile * 128),
                      static_cast<int32_t>(kb), l);
    arch::tma_load_3d(t.sfb, &s_->sfb, full_barrier, static_cast<int32_t>(n_tile),
                      static_cast<int32_t>(kb), l);
  }

 private:
  const Source* s_;
};

struct BlockwiseFp8Mainloop {
  template <int BM, int BN, int BK, int Stages>
  struct At {
    static_assert(BN == 128, "one B scale per 128 x 128 block: the tile is 128 wide");
    static_assert(BK == 128, "a k-block is 128 FP8 elements: one scale of A per row");
    using Op = Fp8UmmaOp<BM, BN>;
    // B's scale takes 16 bytes of a 128-byte slot (TMA destinations are
    // 128-byte aligned).
    using Payload = BlockScaledPayload<BM * 128, BN * 128, BlockwiseScaleLoader::kSfaBytes, 128,
                                       Stages>;
    using ScaleIo = BlockwiseScaleLoader;
    static constexpr uint32_t kBytesPerStage =
        BM * 128 + BN * 128 + BlockwiseScaleLoader::kSfaBytes + BlockwiseScaleLoader::kSfbBytes;
    static constexpr int32_t kKCoordPerStage = 128;
    static constexpr uint32_t kTmemColsPerStage = 0;
    static constexpr uint32_t kElemBytes = 1;
    static constexpr const char* kName = "blockwise_fp8_e4m3";
    static constexpr bool kPromote = true;

    using Accumulator = LaneArray<float, BN>;

    // Lane: warp.
    SK_DEVICE static void clear(Accumulator& acc) {
      for_each_lane([&](uint32_t l) {
        for (int i = 0; i < BN; ++i) acc.lane(l)[i] = 0.0f;
      });
    }

    // Lane: warp. acc += partial * sa[row] * sb, the partial being the
    // k-block's accumulator at TMEM column `col`, rows of this warp's quarter.
    template <class Tiles>
    SK_DEVICE static void promote(Accumulator& acc, uint32_t tmem_base, uint32_t col,
                                  uint32_t quarter, const Tiles& t) {
      const float* sa = reinterpret_cast<const float*>(t.sfa) + 32 * quarter;
      const float* sb = reinterpret_cast<const float*>(t.sfb);
      LaneArray<float, 1> scale;
      for_each_lane([&](uint32_t l) {
        scale.lane(l)[0] = arch::ld_shared(sa + l) * arch::ld_shared(sb);
      });
      add_scaled(acc, tmem_base, col, quarter, scale);
    }

    // Lane: warp. acc += partial * scale (per lane: per row).
    SK_DEVICE static void add_scaled(Accumulator& acc, uint32_t tmem_base, uint32_t col,
                                     uint32_t quarter, const LaneArray<float, 1>& scale) {
      for (uint32_t c = 0; c < BN / 32; ++c) {
        LaneArray<uint32_t, 32> part;
        arch::tcgen05_ld_32x32b_x32(tmem_base + ((32 * quarter) << 16) + col + 32 * c, part);
        arch::tcgen05_wait_ld();
        for_each_lane([&](uint32_t l) {
          for (uint32_t j = 0; j < 32; ++j) {
            float v;
            memcpy(&v, &part.lane(l)[j], 4);
            acc.lane(l)[32 * c + j] += v * scale.lane(l)[0];
          }
        });
      }
    }
  };
};

template <int Stages>
using Sm100BlockwiseFp8Config =
    Sm100MatmulConfig<128, 128, 128, Stages, bf16_t, StaticPersistentScheduler, TmaTileLoader,
                      false, BlockwiseFp8Mainloop::template At, true>;

template <class Cfg>
using Sm100BlockwiseFp8Matmul = Sm100Matmul<Cfg>;

}  // namespace sk
