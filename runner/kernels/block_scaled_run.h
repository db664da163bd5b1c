// block_scaled_run.h: the block-scaled matmul (kernels/blockscaled/) in the
// SM100 model: MXFP8 (E4M3 or E5M2 elements, a UE8M0 scale per 32 along K)
// and NVFP4 (E2M1 elements, a UE4M3 scale per 16), D = A * B^T in BF16 with
// FP32 accumulation. The host quantizes random data to the format
// (block_scaled_host.h) and, in functional mode, checks D against the FP64
// reference GEMM of runner/ref/block_formats.h.
//
// And the blockwise-scaled FP8 matmul (kernels/blockscaled/blockwise_fp8.h):
// E4M3 A and B with FP32 scales per 1 x 128 block of A and per 128 x 128
// block of B, promoted per k-block in the epilogue (blockwise_host.h),
// checked against ref::blockwise_fp8_gemm.
#pragma once

#include <string>

#include "runner/kernels/block_scaled_host.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

struct BlockScaledRequest {
  BlockFormat format = BlockFormat::kMxfp8E4m3;
  // Shape, tile N (128 or 256), stages, seed, mode, trace and bounds.
  MatmulRequest run;
};

// Empty when the request can run, else a one-line reason.
std::string validate_block_scaled(const BlockScaledRequest& req);
RunResult run_block_scaled(const BlockScaledRequest& req);

// Blockwise FP8: the shape, stages and run options of `req` (tile 128 x 128
// x 128; tile_n must be 128).
std::string validate_blockwise_fp8(const MatmulRequest& req);
RunResult run_blockwise_fp8(const MatmulRequest& req);

// Records an FP8 run's operand layouts in r (the summary's `operands` line,
// config.operands in the JSON) when A or B is MN-major: the layouts and the
// 16-byte-padded pitches (elements = bytes) the host used. K-major runs are
// left as they were reported before layouts existed.
void describe_fp8_operands(RunResult& r, const MatmulRequest& q);

}  // namespace sk::sim
