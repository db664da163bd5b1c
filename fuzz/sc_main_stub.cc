// sc_main_stub.cc: libsystemc.so refers to sc_main (its own main() calls
// it), so every program linking SystemC must define one. A fuzz target's
// main() is libFuzzer's or replay_main.cc's, which comes first at link time;
// this sc_main is never called.
#include <cstdio>

extern "C" int sc_main(int, char**) {
  std::fprintf(stderr, "fuzz target: sc_main is not an entry point\n");
  return 2;
}
