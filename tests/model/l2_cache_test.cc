// l2_cache_test.cc: the L2 cache's index and LRU (models/sm100/l2_cache.h,
// L2Cache) against a plain reference: a list searched from the front, LRU by
// bytes, misses taken in hot or aged (a stamp of the bytes taken in so far,
// less the age; the oldest stamp goes first, an aged entry on a tie). Random
// keys from a pool larger than the capacity holds, random sizes, fills and
// boxes larger than the capacity, so that entries are evicted, reused and the
// open-addressed index grows and deletes through long probe runs; every
// access must give the reference's hit, ready time and resident bytes.
#include <doctest/doctest.h>

#include <cstdint>
#include <list>
#include <random>

#include "models/sm100/l2_cache.h"

namespace {
using sk::models::sm100::BoxKey;
using sk::models::sm100::L2Cache;

struct Ref {
  struct E {
    BoxKey key;
    uint64_t bytes, ready, stamp;
    bool aged;
  };
  uint64_t capacity, age, resident = 0, traffic = 0;
  std::list<E> lru;  // front: most recently used, or aged and taken in last
  std::list<E>::iterator find(const BoxKey& k) {
    for (auto it = lru.begin(); it != lru.end(); ++it)
      if (it->key == k) return it;
    return lru.end();
  }
  // The victim: the oldest stamp, an aged entry before a used one, and among
  // equals the one furthest from the front.
  std::list<E>::iterator victim() {
    auto v = lru.end();
    for (auto it = lru.begin(); it != lru.end(); ++it)
      if (v == lru.end() || it->stamp < v->stamp || (it->stamp == v->stamp && it->aged >= v->aged))
        v = it;
    return v;
  }
  L2Cache::Lookup access(const BoxKey& k, uint64_t bytes, L2Cache::Insert where) {
    auto it = find(k);
    if (it != lru.end()) {
      it->stamp = traffic;
      it->aged = false;
      lru.splice(lru.begin(), lru, it);
      return {true, lru.front().ready};
    }
    if (bytes > capacity) return {};
    while (resident > capacity - bytes && !lru.empty()) {
      auto v = victim();
      resident -= v->bytes;
      lru.erase(v);
    }
    traffic += bytes;
    const bool aged = where == L2Cache::Insert::kAged;
    lru.push_front(E{k, bytes, UINT64_MAX, aged ? traffic - std::min(traffic, age) : traffic, aged});
    resident += bytes;
    return {};
  }
  void fill(const BoxKey& k, uint64_t t) {
    auto it = find(k);
    if (it != lru.end()) it->ready = t;
  }
};

// Keys that differ in one field at a time, so that equal hashes' neighbours
// and near-equal keys meet in the index.
BoxKey key_of(uint32_t i) {
  return BoxKey{0x10000ull + (i % 3) * 0x1000000ull, static_cast<int32_t>(i % 37) * 64,
                static_cast<int32_t>(i / 37) * 128, 64, i % 5 == 0 ? 64u : 128u, (i / 7) % 2};
}

void run(uint64_t capacity, uint32_t pool, uint64_t seed, int steps, double age = 1.0) {
  L2Cache c(capacity, age);
  Ref r{capacity, static_cast<uint64_t>(age * capacity)};
  std::mt19937_64 rng(seed);
  uint64_t hits = 0;
  for (int s = 0; s < steps; ++s) {
    const BoxKey k = key_of(static_cast<uint32_t>(rng() % pool));
    if (rng() % 4 == 0) {
      const uint64_t t = rng() % 100000;
      c.fill(k, t);
      r.fill(k, t);
      continue;
    }
    // Mostly a box's size, sometimes one past the capacity (never kept).
    const uint64_t bytes = rng() % 50 == 0 ? capacity + 1 : 4096 * (1 + rng() % 8);
    const auto where = rng() % 3 == 0 ? L2Cache::Insert::kAged : L2Cache::Insert::kHot;
    const L2Cache::Lookup got = c.access(k, bytes, where), want = r.access(k, bytes, where);
    REQUIRE(got.hit == want.hit);
    if (got.hit) {
      CHECK(got.ready == want.ready);
      ++hits;
    }
    REQUIRE(c.resident_bytes() == r.resident);
    REQUIRE(c.resident_bytes() <= capacity);
  }
  CHECK(c.hits() == hits);
  // Both outcomes happen: the run exercises eviction and reuse.
  CHECK(hits > 0);
  CHECK(c.misses() > static_cast<uint64_t>(steps) / 10);
}
}  // namespace

TEST_CASE("the cache keeps the reference's LRU under churn") {
  run(256 * 1024, 200, 1, 20000);    // a few dozen resident, many evictions
  run(64 * 1024 * 1024, 6000, 2, 60000);  // thousands resident: the index grows
  run(40 * 1024, 30, 3, 20000);      // a handful resident, long reuse
  run(256 * 1024, 200, 4, 20000, 0.25);  // aged entries younger than some used ones
  run(256 * 1024, 200, 5, 20000, 4.0);   // aged entries older than everything resident
}
