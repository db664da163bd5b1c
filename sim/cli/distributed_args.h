// distributed_args.h: the options that send `sim sweep` and `sim verify` to
// a Slurm array job (--slurm DIR, --partition, --tasks, --time-limit, --wait)
// and the hidden ones an array task runs with (--slice I/N --slice-out FILE),
// parsed apart from running anything (docs/slurm.md).
//
// Invariants: parsing never touches the file system beyond the checks of
// require_writable; the task arguments hold every option the user gave,
// spelled out in full as --name value, except the Slurm, slice and --json
// options, so a task parses exactly the request the submitting command
// parsed (relative --params paths made absolute); every failure is a
// UsageError with a one-line message.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace sk::cli {

namespace po = boost::program_options;

struct DistributedArgs {
  std::string slurm_dir;  // --slurm DIR as given; "" runs here
  std::string partition, time_limit;  // "": the site's defaults
  uint32_t tasks = 0;     // --tasks; 0: the default (see distributed.h)
  bool wait = false;      // --wait: wait for the job and merge
  // An array task: --slice I/N --slice-out FILE (count 0: not a task).
  uint32_t slice = 0, slice_count = 0;
  std::string slice_out;
  std::vector<std::string> argv;       // the command's arguments as typed (after the command)
  std::vector<std::string> task_args;  // what every task runs with (see above)

  bool submit() const { return !slurm_dir.empty(); }
  bool task() const { return slice_count > 0; }
};

// Adds --slurm, --partition, --tasks, --time-limit and --wait to `o`.
void add_slurm_options(po::options_description& o);

// --slice and --slice-out, which --help does not list.
po::options_description slice_options();

// --partition and --time-limit values, checked (UsageError otherwise).
std::string parse_partition(const std::string& text);
std::string parse_time_limit(const std::string& text);

// Reads the options above from `vm` (parsed with both groups) for `sim cmd`;
// argv[0] is the command.
DistributedArgs parse_distributed_args(const po::variables_map& vm, int argc, char** argv,
                                       const std::string& cmd);

}  // namespace sk::cli
