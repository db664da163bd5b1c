// event_calendar_test.cc: the engine's event calendar pops in (cycle,
// insertion order), across the bucket window, the far heap and its
// migration, and with entries pushed into the bucket being drained. The
// reference is a sort of every entry by (cycle, insertion number).
#include "engine/event_calendar.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {

using Calendar = sk::sim::EventCalendar<int>;

// Drains cycle `now` of `c` into `out` (entries pushed meanwhile included)
// and returns the next due cycle, or UINT64_MAX when empty.
uint64_t drain(Calendar& c, uint64_t now, std::vector<std::pair<uint64_t, int>>& out) {
  c.advance(now);
  if (!c.empty() && c.next_time() == now) {
    auto& b = c.bucket(now);
    for (size_t i = 0; i < b.size(); ++i) out.emplace_back(now, b[i]);
    c.clear_bucket(now);
  }
  return c.empty() ? UINT64_MAX : c.next_time();
}

}  // namespace

TEST_CASE("entries pop by cycle, then in insertion order, near and far alike") {
  std::mt19937_64 rng(7);
  Calendar c;
  std::vector<std::pair<uint64_t, int>> pushed, popped;
  uint64_t now = 0;
  int id = 0;
  // Random pushes relative to the current cycle: mostly near, some beyond the
  // window, many at equal cycles; then drain to the next due cycle.
  for (int round = 0; round < 3000; ++round) {
    const int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const uint64_t r = rng() % 100;
      const uint64_t dt = r < 10 ? 0 : r < 80 ? rng() % 64 : r < 95 ? rng() % Calendar::kSpan
                                                                    : Calendar::kSpan + rng() % 20000;
      c.push(now + dt, id);
      pushed.emplace_back(now + dt, id++);
    }
    const uint64_t next = drain(c, now, popped);
    if (next == UINT64_MAX) continue;
    REQUIRE(next >= now);
    now = next;
  }
  for (uint64_t next = drain(c, now, popped); next != UINT64_MAX; next = drain(c, now, popped))
    now = next;
  std::stable_sort(pushed.begin(), pushed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CHECK(popped == pushed);
}

TEST_CASE("an entry pushed for the cycle being drained runs in the same drain, after the others") {
  Calendar c;
  c.push(5, 1);
  c.push(5, 2);
  c.advance(5);
  auto& b = c.bucket(5);
  std::vector<int> seen;
  for (size_t i = 0; i < b.size(); ++i) {
    seen.push_back(b[i]);
    if (b[i] == 1) c.push(5, 3);
  }
  c.clear_bucket(5);
  CHECK(seen == std::vector<int>{1, 2, 3});
  CHECK(c.empty());
}

TEST_CASE("a far entry keeps its place before a later near entry of the same cycle") {
  Calendar c;
  const uint64_t t = Calendar::kSpan * 3 + 17;
  c.push(t, 1);  // far: beyond the window at cycle 0
  c.advance(t - 10);
  c.push(t, 2);  // near now: must pop after 1
  CHECK(c.next_time() == t);
  c.advance(t);
  auto& b = c.bucket(t);
  REQUIRE(b.size() == 2);
  CHECK(b[0] == 1);
  CHECK(b[1] == 2);
}
