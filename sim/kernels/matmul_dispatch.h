// matmul_dispatch.h: the matmul of the requested architecture (MatmulRequest::arch):
// the SM100 kernel (tcgen05, TMEM) or the SM90 kernel (wgmma), each on its model.
#pragma once

#include <string>

#include "sim/kernels/sm100_matmul_run.h"
#include "sim/run/run_result.h"

namespace sk::sim {

// Empty when the request can run, else a one-line reason.
std::string validate_matmul(const MatmulRequest& req);
RunResult run_matmul(const MatmulRequest& req);

}  // namespace sk::sim
