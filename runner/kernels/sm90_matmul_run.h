// sm90_matmul_run.h: host side of the SM90 structured matmul in the model.
//
// The same problem setup and FP64 reference check as the SM100 run (random
// BF16 inputs in 16-byte-aligned padded rows whose padding is NaN), launched
// on the SM90 parameters (132 SMs, timing measured on the H200). The request
// is the SM100 one: tile N 128, 192 or 256, and as many stages as fit.
#pragma once

#include <string>

#include "runner/kernels/sm100_matmul_run.h"
#include "runner/result/run_result.h"

namespace sk::sim {

std::string validate_sm90_matmul(const MatmulRequest& req);
RunResult run_sm90_matmul(const MatmulRequest& req);
std::string sm90_matmul_configs_help();
// CTAs of the persistent launch: one per SM (at most one per tile), or with
// --cluster as many whole clusters as fit on the GPU at once (at most one per
// block of cluster_m x cluster_n tiles).
uint64_t sm90_matmul_grid(const MatmulRequest& req);

}  // namespace sk::sim
