// config.h: conv2d fprop on SM100, composed from the structured matmul.
//
// The kernel is Sm100Matmul with one component swapped: operand A comes from
// Im2colTileLoader instead of TmaTileLoader. The pipeline, the UMMA TileOp,
// the TMEM accumulator ring, the epilogue (TMA store of D = NPQK, i.e. the
// NHWC output) and the scheduler are the matmul's, unchanged. The GEMM the
// kernel sees is M = N*P*Q, N = K (output channels), K = R*S*Cp.
#pragma once

#include "kernels/conv2d/im2col_tile_loader.h"
#include "kernels/matmul/config.h"
#include "kernels/matmul/sm100_matmul.h"

namespace sk {

// Residual: D = conv(X, W) + beta * C, with the matmul's 8th warp (epilogue
// load) bringing C in while the MMA runs.
template <int BN, int Stages, class OutT, bool Residual = false>
using Sm100Conv2dConfig = Sm100MatmulConfig<128, BN, 64, Stages, OutT, StaticPersistentScheduler,
                                            Im2colTileLoader, Residual>;

template <class Cfg>
using Sm100Conv2d = Sm100Matmul<Cfg>;

}  // namespace sk
