#include "models/sm100/l2_cache.h"

#include <algorithm>
#include <utility>

namespace sk::models::sm100 {

L2Cache::Lookup L2Cache::access(const BoxKey& key, uint64_t bytes, Insert where) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++hits_;
    return Lookup{true, it->second->ready};
  }
  ++misses_;
  if (bytes > capacity_) return Lookup{};  // never fits: always streams
  evict_to(capacity_ - bytes);
  const auto at = where == Insert::kHot ? lru_.begin() : lru_.end();
  index_.emplace(key, lru_.insert(at, Entry{key, bytes, UINT64_MAX}));
  resident_ += bytes;
  return Lookup{};
}

void L2Cache::fill(const BoxKey& key, uint64_t ready_cycle) {
  auto it = index_.find(key);
  if (it != index_.end()) it->second->ready = ready_cycle;
}

void L2Cache::evict_to(uint64_t limit) {
  while (resident_ > limit && !lru_.empty()) {
    resident_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

L2::L2(uint64_t capacity_bytes, std::vector<uint32_t> side)
    : side_(std::move(side)),
      one_(side_.empty() ? capacity_bytes : 0),
      half_{L2Cache(side_.empty() ? 0 : capacity_bytes / 2),
            L2Cache(side_.empty() ? 0 : capacity_bytes / 2)} {}

void L2::lookup(L2Cache& c, const BoxKey& key, uint64_t bytes, L2Reads& out, bool& missed,
                L2Cache::Insert where) {
  const L2Cache::Lookup l = c.access(key, bytes, where);
  if (l.hit) {
    out.note_hit(l.ready);
    return;
  }
  out.hbm_bytes += bytes;
  out.add_fill(&c, key);
  missed = true;
}

void L2::read(int sm, const BoxKey& key, uint64_t bytes, L2Reads& out) {
  ++lookups_;
  bool missed = false;
  if (side_.empty()) {
    lookup(one_, key, bytes, out, missed);
  } else {
    const uint32_t h = static_cast<size_t>(sm) < side_.size() ? side_[static_cast<size_t>(sm)] : 0;
    L2Cache& near = half_[h];
    const uint64_t homed_here = bytes / 2, homed_across = bytes - homed_here;
    lookup(near, key, homed_here, out, missed);
    // The lines homed across: the copy beside the SM, else the other half
    // (which keeps a line it fetches from HBM for this reader at its cold
    // end); the copy is taken in once the load lands.
    BoxKey copy = key;
    copy.copy = 1;
    const L2Cache::Lookup c = near.access(copy, homed_across);
    if (c.hit) {
      out.note_hit(c.ready);
    } else {
      out.add_fill(&near, copy);
      lookup(half_[1 - h], key, homed_across, out, missed, L2Cache::Insert::kCold);
    }
  }
  if (!missed) ++out.parts_hit;
}

void L2::preload_read(int sm, const BoxKey& key, uint64_t bytes) {
  L2Reads r;
  read(sm, key, bytes, r);
  --lookups_;
  land(r, 0);
}

void L2::preload_written(const BoxKey& key, uint64_t bytes) {
  if (side_.empty()) {
    if (!one_.access(key, bytes).hit) one_.fill(key, 0);
    return;
  }
  const uint64_t here = bytes / 2;
  if (!half_[0].access(key, here).hit) half_[0].fill(key, 0);
  if (!half_[1].access(key, bytes - here).hit) half_[1].fill(key, 0);
}

void L2::land(const L2Reads& r, uint64_t ready) {
  for (size_t i = 0; i < r.fills; ++i) {
    const L2Reads::Fill& f = r.fill(i);
    f.cache->fill(f.key, ready);
  }
}

}  // namespace sk::models::sm100
