// doctest_with_main.cc: doctest's implementation and main(), for tests that
// link no SystemC (libsystemc provides main() itself and calls sc_main).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
