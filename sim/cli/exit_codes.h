// exit_codes.h: the one exit-status contract of every `sim` command
// (sim --help and the README state it; tests/cli checks it per command).
//
//   0  clean: the run completed with no finding and, with --functional, a
//      passing check (verify: every schedule; sweep: every configuration)
//   1  findings or a failed check (a deadlock and a livelock are findings),
//      or a simulation that crashed
//   2  bad usage or input: one line on stderr, nothing simulated; or an
//      output file that could not be written after simulating (the summary
//      is printed first)
//   3  no complete answer: a run stopped at --max-cycles or --wall-limit
//      (status limit) with no finding, or a Slurm job that is not complete
//      (sim collect)
//
// When several apply, findings (1) win, then an output that could not be
// written (2), then a limit (3): a finding is never hidden behind a limit.
#pragma once

#include "runner/result/run_result.h"

namespace sk::cli {

inline constexpr int kExitClean = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitLimit = 3;

// The status of `sim run` for result r; `output_failed`: a --json, --trace or
// --timeline file could not be written.
inline int run_exit_code(const sim::RunResult& r, bool output_failed) {
  if (!r.findings.empty() || (r.check.ran && !r.check.passed && r.status == "completed"))
    return kExitFindings;
  if (output_failed) return kExitUsage;
  if (r.status == "limit") return kExitLimit;
  return kExitClean;
}

}  // namespace sk::cli
