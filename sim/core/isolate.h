// isolate.h: run one simulation in a child process.
//
// SystemC's kernel cannot be reset, and a kernel under test may crash the
// process (a wild pointer in kernel code) or never terminate. Every simulation
// therefore runs in a forked child that returns its result as text through a
// pipe; the parent enforces a wall-clock limit. A crash or timeout becomes an
// error string, never a crash or hang of the caller.
#pragma once

#include <functional>
#include <string>

namespace sk::sim {

struct IsolatedResult {
  bool ok = false;        // child exited normally and returned a payload
  std::string payload;    // what fn returned
  std::string error;      // why not ok
};

IsolatedResult run_isolated(const std::function<std::string()>& fn, double wall_limit_s);

}  // namespace sk::sim
