#include "models/sm100/l2_cache.h"

namespace sk::models::sm100 {

L2Cache::Lookup L2Cache::access(const BoxKey& key, uint64_t bytes) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++hits_;
    return Lookup{true, it->second->ready};
  }
  ++misses_;
  if (bytes > capacity_) return Lookup{};  // never fits: always streams
  evict_to(capacity_ - bytes);
  lru_.push_front(Entry{key, bytes, UINT64_MAX});
  index_.emplace(key, lru_.begin());
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

}  // namespace sk::models::sm100
