// isolate.h: run simulations in child processes.
//
// SystemC's kernel cannot be reset, and a kernel under test may crash the
// process (a wild pointer in kernel code) or never terminate. Every simulation
// therefore runs in a forked child that returns its result as text through a
// pipe. A simulation stops itself at its wall-clock limit (status limit,
// engine/engine.h); the parent kills a child that has not ended by
// hard_wall_limit(limit), which leaves it time to summarize and write its
// files but ends kernel code that loops without calling the simulator. A
// crash or kill becomes an error string, never a crash or hang of the caller.
// A child dies with its parent (SIGKILL when the parent ends, however it
// ends), so no simulation outlives an interrupted `sim`.
//
// Invariants: children are forked only from the thread that calls these
// functions, one at a time, and each pipe's write end is closed in the parent
// before the next fork. (A process that forks from several threads at once
// can hand a child a lock another thread held, an allocator's for instance,
// and the child then hangs; and a child forked while another pipe's write end
// is open keeps that pipe from ever reaching end-of-file.)
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace sk::sim {

// When the parent kills a child given `wall_limit_s`.
inline double hard_wall_limit(double wall_limit_s) {
  return wall_limit_s + (wall_limit_s * 0.25 > 10 ? wall_limit_s * 0.25 : 10);
}

struct IsolatedResult {
  bool ok = false;        // child exited normally and returned a payload
  bool killed = false;    // killed at hard_wall_limit
  std::string payload;    // what fn returned
  std::string error;      // why not ok
};

IsolatedResult run_isolated(const std::function<std::string()>& fn, double wall_limit_s);

// Runs task(0) .. task(n-1), each in its own child under `wall_limit_s`, at
// most `jobs` at a time, started in index order. done(i, result) runs on the
// calling thread as each child ends; when it returns false no further task is
// started (those running are waited for and reported).
void run_isolated_pool(size_t n, int jobs, double wall_limit_s,
                       const std::function<std::string(size_t)>& task,
                       const std::function<bool(size_t, IsolatedResult)>& done);

}  // namespace sk::sim
