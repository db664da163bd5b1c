// matmul_args.h: the options of `sim run` and `sim verify` and their parsing
// into a MatmulRequest (and, for --kernel conv2d, a conv shape; for
// --kernel block_scaled_matmul, the format), separate from running anything,
// so that the parsing can be tested and fuzzed on its own.
//
// Invariants: parse_matmul_args either returns a request that
// validate_matmul accepts (or help was asked for) or throws UsageError with a
// one-line message; it never runs a simulation and never creates or truncates
// a file.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

#include "sim/cli/distributed_args.h"
#include "runner/kernels/block_scaled_run.h"
#include "runner/kernels/conv2d_run.h"
#include "runner/kernels/sm100_matmul_run.h"

namespace sk::cli {

namespace po = boost::program_options;

// The options of `sim run`; verify_options() adds --schedules, --jobs and the
// Slurm options (sim/cli/distributed_args.h).
po::options_description run_options();
po::options_description verify_options();

// The kernel families `sim run` and `sim verify` take (--kernel).
enum class Family { kMatmul, kConv2d, kBlockScaled, kBlockwiseFp8 };

struct MatmulArgs {
  Family family = Family::kMatmul;
  sim::MatmulRequest q;
  std::string json_path;  // "", "-" or a writable path
  double wall = 3600;     // --wall-limit, seconds
  uint64_t schedules = 0; // sim verify only
  int jobs = 2;           // sim verify only
  DistributedArgs dist;   // sim verify only: --slurm ... or an array task's --slice
  bool help = false;      // --help was given (and printed); nothing else is set
  // --kernel conv2d: the convolution; q then holds its implicit GEMM's M, N, K
  // and the run options.
  bool conv = false;
  sim::Conv2dShape conv_shape;
  bool residual = false;  // --residual: the fused residual (8th warp)
  float beta = 1.0f;      // --beta
  sim::Conv2dRequest conv_request() const {
    sim::Conv2dRequest r{conv_shape, residual, beta, q};
    return r;
  }
  // --kernel block_scaled_matmul: --format mxfp8|nvfp4 and, for mxfp8,
  // --fp8-type e4m3|e5m2.
  sim::BlockFormat format = sim::BlockFormat::kMxfp8E4m3;

  // The --kernel name, and the family's one-line validation of `q`.
  const char* kernel_name() const;
  std::string validate(const sim::MatmulRequest& run) const;
  // Runs the family with `run` as its run options (inside a simulation
  // process, see engine/isolate.h).
  sim::RunResult simulate(const sim::MatmulRequest& run) const;
};

// Parses argv (argv[0] is the command, "run" or "verify") against `opts`.
MatmulArgs parse_matmul_args(int argc, char** argv, const char* cmd,
                             const po::options_description& opts);

}  // namespace sk::cli
