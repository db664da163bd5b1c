// doctest_main.cc: test entry point. libsystemc provides main() and calls
// sc_main, so tests start from sc_main; every simulation itself runs in a
// child process (tests/model/scenario.h, engine/isolate.h).
#include <doctest/doctest.h>

#include <cstdlib>
#include "verify/hb/install.h"

extern "C" int sc_main(int argc, char* argv[]) {
  sk::verify::install_race_detector();
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
