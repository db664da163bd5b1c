// doctest_impl.cc: doctest's implementation, one object for every test that
// links //third_party/system:doctest_impl (the test files include
// <doctest/doctest.h> only and bring their own entry point).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
