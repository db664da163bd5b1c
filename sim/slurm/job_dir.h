// job_dir.h: the directory of one `sim` command distributed over a Slurm
// array job: its layout, its manifest and the sbatch script its tasks run.
//
//   DIR/manifest.json            the command (sweep or verify), its arguments as typed and
//                                as every task runs them, the sim binary, the working
//                                directory, the slices with the items each covers, and every
//                                submission (array job id, slices, sbatch arguments)
//   DIR/job.sbatch               the script of every array task: slice $SLURM_ARRAY_TASK_ID
//   DIR/slices/slice-I.json      slice I's results, written by its task
//   DIR/logs/slice-I.JOB.out     the task's stdout and stderr (Slurm writes them; JOB is the
//   DIR/logs/slice-I.JOB.err     array job id, so a resubmitted slice keeps its earlier logs)
//   DIR/status/slice-I.JOB.exit  how sim ended in that task ("exit N" or "signal TERM"),
//                                written by the script
//
// Invariants: a directory is a job directory exactly when it holds a
// manifest.json with this format's tag; create_job_dir creates a new job
// directory only in a path that is absent or an empty directory, and never
// writes anywhere else; the manifest and every slice file are written to a
// temporary name and renamed, so a reader sees a complete file or none.
// Every failure is an Error with a one-line message.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sk::slurm {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One `sbatch --array` of some of the slices.
struct Submission {
  std::string job_id;                // the array job id sbatch printed
  std::vector<uint32_t> slices;      // the array indices it covers
  std::vector<std::string> sbatch;   // the sbatch command line
  int64_t submitted_unix = 0;        // seconds since the epoch
};

struct Manifest {
  std::string command;                 // "sweep" or "verify"
  std::vector<std::string> argv;       // the command's arguments as typed (after the command)
  std::vector<std::string> task_args;  // the arguments each task runs with (no Slurm or output
                                       // options); a task adds --slice I/N --slice-out FILE
  std::string binary;                  // absolute path of the sim binary
  std::string workdir;                 // absolute; every task starts there
  std::string json_path;               // the command's --json: "", "-" or an absolute path
  std::string partition, time_limit;   // "": the site's defaults
  uint32_t cpus_per_task = 1;
  uint64_t items = 0;                  // configurations or schedules in all
  std::vector<boost::json::array> slices;  // slice I: the items it covers, in the command's terms
  std::vector<Submission> submissions;     // in the order they were made
};

// The paths of a job directory (see the layout above).
struct JobDir {
  std::string dir;  // absolute
  std::string manifest() const { return dir + "/manifest.json"; }
  std::string script() const { return dir + "/job.sbatch"; }
  std::string slice_file(uint32_t slice) const;
  std::string log_out(const std::string& job, uint32_t slice) const;
  std::string log_err(const std::string& job, uint32_t slice) const;
  std::string exit_marker(const std::string& job, uint32_t slice) const;
};

// `path` made absolute against the current directory (no symlinks resolved).
std::string absolute_path(const std::string& path);

// Creates a new job directory at `path` (and its parents): refused when
// `path` is a file, a job directory already, a directory that is not empty,
// or cannot be created or written.
JobDir create_job_dir(const std::string& path);

// An existing job directory: refused when `path` holds no manifest of this
// format or the manifest does not parse.
JobDir open_job_dir(const std::string& path);

void write_manifest(const JobDir& d, const Manifest& m);
Manifest read_manifest(const JobDir& d);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename; throws Error naming the path.
void write_file_atomic(const std::string& path, const std::string& text);

// Reads the whole file into `text`; false when it cannot be read.
bool read_file(const std::string& path, std::string& text);

// `s` as one word for sh: in single quotes, with ' written as '\''.
std::string shell_quote(const std::string& s);

// The script each array task runs (DIR/job.sbatch): cd into the working
// directory, run the sim binary with the task arguments and its slice, and
// record how it ended in the exit marker.
std::string sbatch_script(const JobDir& d, const Manifest& m);

}  // namespace sk::slurm
