// distributed.h: `sim sweep` and `sim verify` over one Slurm array job, and
// `sim collect`, which merges the job's results (docs/slurm.md).
//
// The submitting command writes a job directory (sim/slurm/job_dir.h) and
// submits one array job; each array task runs the same sim binary with the
// same request plus --slice I/N --slice-out FILE and writes the raw result of
// every item of its slice; sim collect (or --wait) merges the slices.
//
// Invariants:
//  - slice I of N holds the items i with i % N == I, where the items are
//    what the local run runs, in its order: for a sweep the configurations
//    that fit (plan_sweep), for verify the seeds --seed .. --seed+S-1 (as
//    verify::shard_seeds splits them);
//  - a task records for each item exactly what the local run gets back from
//    the item's simulation process (sweep: the RunResult JSON or the error;
//    verify: the schedule's findings or error), and the merge hands those to
//    the same functions as the local run (set_sweep_result and rank_sweep,
//    merge_schedules), so a complete merge prints the same table and
//    findings and writes the same JSON bytes as the local run;
//  - a merge with a slice missing is never presented as complete: the text
//    says PARTIAL and names the missing slices with their state and items,
//    the JSON carries "partial": true and "missing", and the exit status is
//    kExitIncomplete;
//  - every error is one line and exit status 2.
#pragma once

#include "sim/cli/run_args.h"
#include "sim/cli/sweep.h"

namespace sk::cli {

// The exit status of a merge that lacks a slice (pending, running, failed,
// cancelled, timed out or lost). 0 and 1 mean what they mean for a local run.
constexpr int kExitIncomplete = 3;  // kExitLimit of sim/cli/exit_codes.h: no complete answer

// `sim sweep` with --slurm DIR (submit) or --slice (an array task).
int sweep_distributed(const SweepArgs& a);

// `sim verify` with --slurm DIR (submit) or --slice (an array task).
int verify_distributed(const RunArgs& a);

// `sim collect DIR [--wait] [--json FILE|-]` and
// `sim collect --resume DIR [--wait] [--json FILE|-] [--partition P] [--time-limit T]`
// (argv[0] is "collect").
int cmd_collect(int argc, char** argv);

}  // namespace sk::cli
