// sysc_reset.h: a fresh SystemC simulation context, for code that runs
// several independent simulations in one process (the model fuzz target; the
// SM90 runner, which simulates a launch again at its power-limited clock).
//
// SystemC elaborates and starts a context once; the CLI and the tests get a
// fresh one by running each simulation in its own process. Where a second
// simulation must run in the same process, this installs a new context and
// deletes the previous one (with every process in it, including warps still
// blocked at a deadlock), except the first, which libsystemc's static objects
// use until exit.
// Call it only when no sk::sim::Engine exists.
#pragma once

namespace sk::sim {

void reset_systemc();

}  // namespace sk::sim
