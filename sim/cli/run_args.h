// run_args.h: the options of `sim run` and `sim verify` and their parsing
// into a family's problem (problem.h) and a MatmulRequest, its run options
// and GEMM view, separate from running anything, so that the parsing can be
// tested and fuzzed on its own.
//
// Invariants: parse_run_args either returns a request that its family's
// validate accepts (or help was asked for) or throws UsageError with a
// one-line message; it never runs a simulation and never creates or truncates
// a file.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

#include "sim/cli/distributed_args.h"
#include "sim/cli/problem.h"
#include "sim/cli/progress.h"
#include "runner/kernels/sm100_matmul_run.h"

namespace sk::cli {

namespace po = boost::program_options;

// The options of `sim run`; verify_options() adds --schedules, --jobs and the
// Slurm options (sim/cli/distributed_args.h).
po::options_description run_options();
po::options_description verify_options();

struct RunArgs {
  sim::MatmulRequest q;
  std::string json_path;  // "", "-" or a writable path
  double wall = 600;      // --wall-limit, seconds
  uint64_t schedules = 0; // sim verify only
  int jobs = 2;           // sim verify only
  DistributedArgs dist;   // sim verify only: --slurm ... or an array task's --slice
  bool help = false;      // --help was given (and printed); nothing else is set
  Problem problem;        // the family and its fields
  ProgressMode progress;  // --progress / --no-progress

  // The --kernel name, and the family's one-line validation of `q`.
  const std::string& kernel_name() const { return problem.kernel(); }
  std::string validate(const sim::MatmulRequest& run) const { return problem.validate(run); }
  // Runs the family with `run` as its run options (inside a simulation
  // process, see engine/isolate.h).
  sim::RunResult simulate(const sim::MatmulRequest& run) const { return problem.run(run); }
};

// Parses argv (argv[0] is the command, "run" or "verify") against `opts`.
RunArgs parse_run_args(int argc, char** argv, const char* cmd,
                       const po::options_description& opts);

}  // namespace sk::cli
