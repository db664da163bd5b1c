// job.h: a job directory's slices on Slurm: submitting them as one array job,
// the state of every slice, waiting for the job, and what to resubmit.
//
// A slice is done when its result file exists; otherwise its state comes
// from the queue (squeue: pending or running), then from what its latest
// task left behind: Slurm's note in the task's stderr (cancelled, time limit,
// preemption, node failure), the exit marker of the script, and, where the
// site keeps accounting, sacct. None of these needs slurmdbd.
//
// Invariants: the queue is read before the result files, so a task that
// ends between the two reads is seen as done or as queued, never as lost; a
// slice that is queued is never resubmitted; a submission is recorded in the
// manifest as soon as sbatch has accepted it. Every failure is an Error with
// a one-line message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/slurm/commands.h"
#include "sim/slurm/job_dir.h"

namespace sk::slurm {

enum class SliceState {
  kDone,          // the result file is there
  kPending,       // in the queue, waiting
  kRunning,       // in the queue, started (or completing, suspended, ...)
  kCancelled,     // scancel, or preempted
  kTimedOut,      // reached the time limit
  kFailed,        // sim or the script exited nonzero, or the node failed
  kLost,          // not queued, no result, nothing that says why
  kNotSubmitted,  // no submission covers it
};

const char* state_name(SliceState s);

struct SliceStatus {
  uint32_t slice = 0;
  SliceState state = SliceState::kNotSubmitted;
  std::string job;     // the array job id of its latest submission ("" if none)
  std::string detail;  // one line: Slurm's state, the exit status, the log's last line
};

// "0-3,5,7-8" for sbatch --array.
std::string array_spec(const std::vector<uint32_t>& slices);

// Submits `slices` of the job in `d` as one array job (the script must be
// written) and records it in the manifest, which is rewritten.
Submission submit(const JobDir& d, Manifest& m, const Tools& tools,
                  const std::vector<uint32_t>& slices);

// The state of every slice, in slice order. Without squeue, a slice with no
// result and no record of its end is reported as lost with that reason.
// `queue_error`, when given, gets "" or why the queue could not be read.
std::vector<SliceStatus> slice_states(const JobDir& d, const Manifest& m, const Tools& tools,
                                      std::string* queue_error = nullptr);

bool queued(SliceState s);

// Polls squeue until none of the job's slices is queued. Gives up with an
// Error when squeue keeps failing for `give_up_s` seconds.
void wait_for_job(const JobDir& d, const Manifest& m, const Tools& tools, double give_up_s = 120);

}  // namespace sk::slurm
