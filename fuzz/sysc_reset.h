// sysc_reset.h: a fresh SystemC simulation context, for harnesses that run
// many independent simulations in one process (the model fuzz target).
//
// SystemC elaborates and starts a context once; the CLI and the tests get a
// fresh one by running each simulation in its own process. A fuzz target
// must stay in libFuzzer's process, so between inputs it installs a new
// context and deletes the previous one (with every process in it, including
// warps still blocked at a deadlock), except the first, which libsystemc's
// static objects use until exit.
// Call it only when no sk::sim::Engine exists.
#pragma once

namespace sk::fuzz {

void reset_systemc();

}  // namespace sk::fuzz
