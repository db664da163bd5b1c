// l2_cache.h: the shared L2 as the timing model sees it, for TMA tile loads.
//
// Residency is tracked per TMA box: the key is (tensor base address, box
// coordinates, box shape), which is exact for tiled kernels whose loads are
// aligned tiles (every CTA that needs A's tile (k, m) asks for the same box)
// and treats partially overlapping boxes as distinct. Replacement is LRU by
// bytes against the capacity. A box whose first miss is still streaming from
// HBM is "pending": a second request waits for that fill instead of going to
// HBM again (miss merging). The model is used in timing and functional mode
// alike; it only decides times, never data.
//
// Invariants: resident bytes <= capacity after every access; every key in the
// index is in the LRU list exactly once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>

namespace sk::models::sm100 {

struct BoxKey {
  uint64_t base = 0;
  int32_t c0 = 0, c1 = 0;
  uint32_t box0 = 0, box1 = 0;
  bool operator==(const BoxKey& o) const {
    return base == o.base && c0 == o.c0 && c1 == o.c1 && box0 == o.box0 && box1 == o.box1;
  }
};

struct BoxKeyHash {
  size_t operator()(const BoxKey& k) const {
    uint64_t h = k.base * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.c0)) << 32 |
          static_cast<uint32_t>(k.c1)) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
    h ^= (uint64_t{k.box0} << 32 | k.box1) + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

class L2Cache {
 public:
  explicit L2Cache(uint64_t capacity_bytes) : capacity_(capacity_bytes) {
    index_.reserve(4096);  // a full grid keeps a few thousand boxes resident
  }

  struct Lookup {
    bool hit = false;
    uint64_t ready = 0;  // hit: when the data is (or will be) in L2
  };
  // Looks the box up and makes it most recently used. On a miss the caller
  // fetches it and reports when it lands with fill().
  Lookup access(const BoxKey& key, uint64_t bytes);
  void fill(const BoxKey& key, uint64_t ready_cycle);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t resident_bytes() const { return resident_; }

 private:
  struct Entry {
    BoxKey key;
    uint64_t bytes;
    uint64_t ready;
  };
  void evict_to(uint64_t limit);

  uint64_t capacity_;
  uint64_t resident_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
  std::list<Entry> lru_;  // front: most recently used
  std::unordered_map<BoxKey, std::list<Entry>::iterator, BoxKeyHash> index_;
};

}  // namespace sk::models::sm100
