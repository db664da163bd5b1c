// verify_report.h: what `sim verify` prints and writes for an exploration:
// the header line, the replay command of a seed and the JSON document. Shared
// by the local run (sim/main.cc) and the merge of a Slurm job
// (sim/cli/distributed.h), so the two cannot drift apart.
//
// Invariant: the JSON depends only on the inputs and the report's findings
// and errors, never on timing (the wall time is in the text only).
#pragma once

#include <boost/json.hpp>
#include <string>

#include "sim/cli/run_args.h"
#include "verify/explore/explorer.h"

namespace sk::cli {

// The `sim run ... --functional` command that replays a schedule (the seed
// is appended).
std::string replay_command(const RunArgs& in);

// "verify matmul on sm100: M=.. N=.. K=.., tile 128x.., S stages; seeds A..B\n"
std::string verify_header(const RunArgs& in);

// The --json document: kernel, arch, explored, findings (each with its seed,
// schedule count and replay command) and errors.
boost::json::object verify_to_json(const RunArgs& in, const verify::ExploreReport& rep);

// The exit status (sim/cli/exit_codes.h): 1 for findings or schedules that
// could not finish, else 3 when a schedule stopped at a limit, else 0.
int verify_exit_code(const verify::ExploreReport& rep);

}  // namespace sk::cli
