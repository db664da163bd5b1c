// commands.h: finding Slurm's client commands on PATH and running them (or
// any other program) without a shell.
//
// Invariants: a command runs from its argv, never through a shell, with stdin
// from /dev/null and its stdout and stderr captured in full; a program that
// cannot be started gives a result with status 127 and the reason in `err`,
// never an exception. Children are forked only from the calling thread, as in
// engine/isolate.h.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace sk::slurm {

struct CommandResult {
  int status = -1;       // exit status; 128 + N when killed by signal N
  std::string out, err;  // everything the command wrote
};

CommandResult run_command(const std::vector<std::string>& argv);

// The absolute path of an executable `name` on PATH, or "" when there is none.
std::string find_on_path(const std::string& name);

// Slurm's client commands; a field is "" when the command is not on PATH.
struct Tools {
  std::string sbatch, squeue, scancel, sacct;
};

Tools find_tools();

// The names among `needed` ("sbatch", "squeue", "scancel", "sacct") that `t`
// lacks, in the order given.
std::vector<std::string> missing_tools(const Tools& t, std::initializer_list<const char*> needed);

// The first non-empty line of `text`, trimmed ("" when there is none).
std::string first_line(const std::string& text);

}  // namespace sk::slurm
