// config.h: block-scaled matmul on SM100 (MXFP8, NVFP4), composed from the
// structured matmul.
//
// The kernel is Sm100Matmul with one policy changed, the mainloop
// (kernels/matmul/mainloop.h): a stage is a BlockScaledPayload (A and B tiles
// and their scale factors, 4 TMA loads), the TileOp is BlockScaledUmmaOp
// (tcgen05.cp of the scales, then the block-scaled tcgen05.mma kind), and the
// TileIO adds BlockScaleLoader. The pipeline, the scheduler, the TMEM
// accumulator ring and the epilogue are the matmul's, unchanged.
//
//   D[M, N] = sum_k (A[m, k] * sa[m, k / block]) * (B[n, k] * sb[n, k / block])
//
// FP32 accumulation in TMEM, D in OutT. The configurations are batched
// (rank-3 maps of A, B, D and the scales; a single GEMM is a batch of one).
// A and B are K-major, or for MXFP8 either may be MN-major (kind::mxf8f6f4
// takes transposed operands; kind::mxf4nvf4, NVFP4's, does not: PTX ISA,
// tcgen05 "Transpose and Negate operations").
#pragma once

#include "kernels/blockscaled/scale_loader.h"
#include "kernels/matmul/config.h"
#include "kernels/matmul/sm100_matmul.h"
#include "kernels/op/block_scaled_umma_op.h"
#include "kernels/pipeline/payloads.h"

namespace sk {

template <class Format>
struct BlockScaledMainloop {
  template <int BM, int BN, int BK, int Stages>
  struct At {
    using Op = BlockScaledUmmaOp<BM, BN, Format>;
    using Payload = BlockScaledPayload<BM * 128, BN * 128, Op::kSfaBytes, Op::kSfbBytes, Stages>;
    using ScaleIo = BlockScaleLoader<BN, Format::kAtoms>;
    static constexpr uint32_t kBytesPerStage = Payload::kBytesPerStage;
    static constexpr int32_t kKCoordPerStage = Format::kKCoordPerStage;
    static constexpr uint32_t kTmemColsPerStage = Op::kTmemColsPerStage;
    static constexpr uint32_t kElemBytes = 1;  // FP8, or two packed E2M1 (K-major only)
    static constexpr const char* kName = Format::kName;
    static constexpr bool kPromote = false;
    static_assert(BK == Format::kBK, "BK is the format's K per stage (128 bytes of each row)");
  };
};

template <class Format, int BN, int Stages, class OutT>
using Sm100BlockScaledConfig =
    Sm100MatmulConfig<128, BN, Format::kBK, Stages, OutT, StaticPersistentScheduler, TmaTileLoader,
                      false, BlockScaledMainloop<Format>::template At, true>;

using Mxfp8E4m3 = Mxf8Format<umma::Mxf8f6f4Type::kE4M3, umma::Mxf8f6f4Type::kE4M3>;
using Mxfp8E5m2 = Mxf8Format<umma::Mxf8f6f4Type::kE5M2, umma::Mxf8f6f4Type::kE5M2>;

template <class Cfg>
using Sm100BlockScaledMatmul = Sm100Matmul<Cfg>;

}  // namespace sk
