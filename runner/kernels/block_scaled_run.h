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

// Leading dimensions (--lda, --ldb, --ldd; q.lda, q.ldb, q.ldd) of these
// families count elements of the stored type: FP8 one byte each; NVFP4's E2M1
// two per byte, so an NVFP4 pitch must be even and its rows are lda / 2 bytes
// apart. D is BF16. TMA needs a row pitch that is a multiple of 16 bytes: 16
// FP8 or 32 E2M1 elements, 8 for D. 0 (not given) takes the smallest such
// pitch >= the row, which pads a packed row TMA cannot load without being
// asked (kept from before the options existed; the summary says so), where
// the plain matmul refuses; a given pitch TMA cannot take is refused unless
// --pad-rows rounded it up (q.padded).
uint32_t scaled_pitch_multiple(bool fp4);
uint32_t pad_scaled_pitch(bool fp4, uint32_t ld);
LeadingDims scaled_leading_dims(const MatmulRequest& q, bool fp4);
// Empty, or the one-line reason q's pitches cannot be used.
std::string validate_scaled_leading_dims(const MatmulRequest& q, bool fp4);

// Records an FP8 / FP4 run's operands in r (the summary's `operands` line,
// config.operands in the JSON): the layouts and pitches in elements, and
// whether they pad the rows (--pad-rows, or by default). K-major runs with the
// default pitches and no padding are left as they were reported before
// layouts existed.
void describe_fp8_operands(RunResult& r, const MatmulRequest& q, bool fp4 = false);

}  // namespace sk::sim
