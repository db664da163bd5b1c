// mi300x_matmul_run.h: host side of the CDNA3 matmuls in the MI300X model.
//
// The problem setup and FP64 reference check of the NVIDIA runs (random BF16
// inputs in padded rows whose padding is NaN, a NaN-poisoned D), launched on
// the MI300X parameters (304 CUs, one workgroup per CU, persistent grid of
// min(tiles, CUs)). MatmulRequest::amd_kernel picks the kernel: "pingpong"
// (8 waves, kernels/matmul/cdna3_pingpong_matmul.h) or "wave_specialized"
// (2 loader + 4 MFMA waves on one counter per stage). Tile 128x128x32, 2 or
// 3 LDS stages.
#pragma once

#include <string>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

std::string validate_mi300x_matmul(const MatmulRequest& req);
RunResult run_mi300x_matmul(const MatmulRequest& req);
std::string mi300x_matmul_configs_help();

}  // namespace sk::sim
