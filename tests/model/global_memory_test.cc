// global_memory_test.cc: a functional GlobalMemory lays its host bytes out
// like timing mode's virtual addresses, so that what the timing models derive
// from addresses (which 2 MiB page or 4 KiB block a box touches, whether two
// allocations share one) is the same in both modes and in every process,
// wherever the host put the memory. Before, each functional allocation had
// its own calloc: allocations that share a page in timing mode did not, and
// now and then (by the host's address-space layout) two did that should not,
// so a traced functional run could repeat with other cycles.
#include "models/common/global_memory.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <new>
#include <random>
#include <vector>

namespace {

using sk::models::GlobalMemory;
using sk::models::kDevicePageShift;

// Sizes that put allocations on both sides of page boundaries and several in
// one page: small, odd, about a page, and larger than one.
std::vector<uint64_t> sizes() {
  std::mt19937_64 rng(20261203);
  std::vector<uint64_t> s = {1, 255, 256, 257, 60'000, 62'464, 2ull << 20, (2ull << 20) - 300,
                             5'000'000};
  for (int i = 0; i < 40; ++i) s.push_back(1 + rng() % (3ull << 20));
  return s;
}

}  // namespace

TEST_CASE("functional addresses keep timing mode's page and block layout") {
  GlobalMemory timing(false), functional(true);
  std::vector<uint64_t> t, f;
  for (uint64_t n : sizes()) {
    t.push_back(timing.allocate(n, "x"));
    f.push_back(functional.allocate(n, "x"));
  }
  const uint64_t shift = f[0] - t[0];
  CHECK(shift % (uint64_t{1} << kDevicePageShift) == 0);
  for (size_t i = 0; i < t.size(); ++i) {
    CHECK(f[i] - t[i] == shift);  // one offset for all: same pages shared, same 4 KiB blocks
    CHECK(f[i] % 256 == 0);
  }
}

TEST_CASE("functional allocations are zeroed, writable and disjoint") {
  GlobalMemory g(true);
  std::vector<std::pair<uint8_t*, uint64_t>> a;
  for (uint64_t n : sizes()) {
    auto* p = g.host(g.allocate(n, "x"));
    for (uint64_t i = 0; i < n; i += 4093) CHECK(p[i] == 0);
    CHECK(p[n - 1] == 0);
    a.emplace_back(p, n);
  }
  for (size_t i = 0; i < a.size(); ++i) {
    std::fill(a[i].first, a[i].first + a[i].second, static_cast<uint8_t>(i + 1));
    if (i > 0) CHECK(a[i - 1].first + a[i - 1].second <= a[i].first);
  }
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].first[0] == static_cast<uint8_t>(i + 1));
    CHECK(a[i].first[a[i].second - 1] == static_cast<uint8_t>(i + 1));
  }
  CHECK(g.find(reinterpret_cast<uint64_t>(a[3].first), a[3].second) != nullptr);
  CHECK(g.find(reinterpret_cast<uint64_t>(a[3].first) + 1, a[3].second) == nullptr);
}

TEST_CASE("a functional allocation past the reservation is refused, not placed") {
  GlobalMemory g(true);
  g.allocate(1000, "small");
  CHECK_THROWS_AS(g.allocate(sk::models::kFunctionalReserveBytes, "huge"), std::bad_alloc);
  // The memory stays usable after the refusal.
  auto* p = g.host(g.allocate(1000, "after"));
  p[999] = 7;
  CHECK(p[999] == 7);
}

TEST_CASE("two functional memories in one process lay out alike") {
  GlobalMemory a(true), b(true);
  const uint64_t a0 = a.allocate(12345, "x"), b0 = b.allocate(12345, "x");
  const uint64_t a1 = a.allocate(777, "y"), b1 = b.allocate(777, "y");
  CHECK(a1 - a0 == b1 - b0);
  CHECK((a0 - b0) % (uint64_t{1} << kDevicePageShift) == 0);
}
