#include "sim/kernels/matmul_dispatch.h"

#include <stdexcept>

#include "sim/kernels/sm90_matmul_run.h"

namespace sk::sim {

std::string validate_matmul(const MatmulRequest& q) {
  if (q.arch == "sm100") return validate_sm100_matmul(q);
  if (q.arch == "sm90") {
    if (q.clc) return "--scheduler clc needs --arch sm100 (cluster launch control is Blackwell's)";
    return validate_sm90_matmul(q);
  }
  return "unknown architecture '" + q.arch + "'";
}

RunResult run_matmul(const MatmulRequest& q) {
  if (q.arch == "sm90") return run_sm90_matmul(q);
  if (q.arch == "sm100") return run_sm100_matmul(q);
  throw std::invalid_argument("unknown architecture '" + q.arch + "'");
}

}  // namespace sk::sim
