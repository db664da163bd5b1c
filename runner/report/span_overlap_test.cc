// span_overlap_test.cc: mean_open against spans counted by hand.
#include <doctest/doctest.h>

#include "runner/report/span_overlap.h"

TEST_CASE("mean_open: how many spans are open at once while any is") {
  using sk::report::mean_open;
  CHECK(mean_open({}) == 0.0);
  CHECK(mean_open({{7, 7}}) == 0.0);                             // an empty span is never open
  CHECK(mean_open({{0, 10}, {20, 30}}) == doctest::Approx(1.0));  // apart: one at a time; the gap is not counted
  // 0-5 one, 5-10 two, 10-15 one: 20 span-cycles over 15 cycles.
  CHECK(mean_open({{5, 15}, {0, 10}}) == doctest::Approx(20.0 / 15.0));
  // Three identical spans: three open all the time.
  CHECK(mean_open({{3, 9}, {3, 9}, {3, 9}}) == doctest::Approx(3.0));
}
