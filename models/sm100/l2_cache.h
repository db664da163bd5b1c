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
// L2 (below) is the GPU's L2 built from such caches: one, or two halves of
// half the capacity each. With two halves (the H100 and H200: measured in
// docs/hardware.md, "Two halves of L2") half the lines of every box are
// homed in each half; an SM finds the lines homed beside it in its half, and
// for the others looks for a copy in its half first, then in the other half
// (the lines cross between the halves), then HBM, and keeps a copy in its
// half. A line fetched from HBM for a reader on the other side is kept in its
// home half too, but aged: taken in as if last used `far_age` half-capacities
// of traffic (bytes taken in) ago, so that it goes before anything used since
// and after what was used before, unless read again. So data that SMs of both
// halves read takes capacity in both, data that stays with its readers takes
// it about once, and a line streamed to both sides outlives the time its home
// side's readers take to come, as long as lines that only one side reads
// (aged, and never read again) leave room (docs/hardware.md, "A line
// fetched for the other half, aged").
//
// Invariants: resident bytes <= capacity after every access; every key in the
// index is in exactly one of the two lists (most recently used, aged), once,
// and every entry of the lists in the index; each list is ordered by
// its entries' stamps and eviction takes the older of the two lists' oldest;
// an L2 read counts its HBM bytes only for entries that missed in the half
// that homes them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace sk::models::sm100 {

struct BoxKey {
  uint64_t base = 0;
  int32_t c0 = 0, c1 = 0;
  uint32_t box0 = 0, box1 = 0;
  // In a half of a two-half L2: 0 the box's lines homed there, 1 the copy of
  // those homed in the other half.
  uint32_t copy = 0;
  bool operator==(const BoxKey& o) const {
    return base == o.base && c0 == o.c0 && c1 == o.c1 && box0 == o.box0 && box1 == o.box1 &&
           copy == o.copy;
  }
};

struct BoxKeyHash {
  size_t operator()(const BoxKey& k) const {
    uint64_t h = k.base * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.c0)) << 32 |
          static_cast<uint32_t>(k.c1)) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
    h ^= (uint64_t{k.box0} << 32 | k.box1) + (h << 6) + (h >> 2);
    h ^= uint64_t{k.copy} * 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h);
  }
};

class L2Cache {
 public:
  // far_age: where a kAged miss is taken in, in capacities of traffic (bytes
  // taken in): as if last used that long ago (older than everything used
  // since, younger than what was used before).
  explicit L2Cache(uint64_t capacity_bytes, double far_age = 1.0)
      : capacity_(capacity_bytes), age_bytes_(static_cast<uint64_t>(far_age * capacity_bytes)) {
    entries_.reserve(4096);  // a full grid keeps a few thousand boxes resident
    slots_.assign(8192, Slot{});
  }

  struct Lookup {
    bool hit = false;
    uint64_t ready = 0;  // hit: when the data is (or will be) in L2
  };
  // Where a miss is taken in: most recently used, or aged (as if last used
  // far_age capacities of traffic ago, unless it is read again before).
  enum class Insert { kHot, kAged };
  // Looks the box up and makes it most recently used; a miss is taken in
  // `where` says. On a miss the caller fetches it and reports when it lands
  // with fill().
  Lookup access(const BoxKey& key, uint64_t bytes, Insert where = Insert::kHot);
  void fill(const BoxKey& key, uint64_t ready_cycle);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t resident_bytes() const { return resident_; }

 private:
  // The LRU list is intrusive over a pool of entries (indices, kNil at the
  // ends), and the index an open-addressed table of entry numbers with the
  // key's hash beside each (linear probing, deletion by backward shift): one
  // lookup touches one run of slots and one entry, where a node-based map
  // and list took three scattered nodes (a TMA load reads up to three boxes
  // in each of two halves, so this lookup was the model's hottest function).
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Entry {
    BoxKey key;
    uint64_t bytes = 0;
    uint64_t ready = 0;
    uint32_t hash = 0;  // hash_of(key), low 32 bits: its slot is found without rehashing
    uint32_t prev = kNil, next = kNil;
    uint64_t stamp = 0;  // traffic_ at its last use, less age_bytes_ if taken in aged
    bool aged = false;   // in the aged list (taken in aged, not read since)
  };
  struct Slot {
    uint32_t entry = kNil;  // kNil: empty
    uint32_t hash = 0;      // the key's hash, low 32 bits
  };
  // The table's mask and tags use the low 32 bits only.
  static uint32_t hash_of(const BoxKey& key);
  // The slot holding `key` (of hash h), or the empty slot where a probe for it ends.
  size_t probe(const BoxKey& key, uint32_t h) const;
  struct List {
    uint32_t head = kNil, tail = kNil;  // head: newest
  };
  List& list_of(uint32_t e) { return entries_[e].aged ? aged_ : lru_; }
  void unlink(uint32_t e);
  void link_front(uint32_t e);
  void erase_slot(size_t i);
  void grow();
  void evict_to(uint64_t limit);

  uint64_t capacity_;
  uint64_t age_bytes_;
  uint64_t traffic_ = 0;  // bytes taken in so far: the stamps' clock
  uint64_t resident_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
  std::vector<Entry> entries_;
  List lru_;   // head: most recently used
  List aged_;  // kAged misses not read since, head: the latest taken in
  uint32_t free_ = kNil;                // entries no longer in use, through `next`
  std::vector<Slot> slots_;             // a power of two, at most half full
  size_t used_ = 0;
};

// What one load found in L2 over its parts: the bytes that come from HBM, the
// latest time at which a part that hit is in L2, and the entries to mark
// filled when the load lands (L2::land).
struct L2Reads {
  uint64_t hbm_bytes = 0;
  uint64_t hit_ready = 0;
  bool any_hit = false;
  uint32_t parts_hit = 0;  // parts that needed nothing from HBM
  struct Fill {
    L2Cache* cache;
    BoxKey key;
  };
  // Up to kInline fills are kept without a heap allocation (a tiled box makes
  // at most three), in slots left uninitialized until used: a load builds an
  // L2Reads for every box, and zeroing unused slots showed in the profile.
  void note_hit(uint64_t ready) {
    any_hit = true;
    hit_ready = std::max(hit_ready, ready);
  }
  static constexpr size_t kInline = 12;
  union Slot {
    Fill fill;
    Slot() {}
  };
  std::array<Slot, kInline> inline_fills;
  std::vector<Fill> more_fills;
  size_t fills = 0;
  void add_fill(L2Cache* c, const BoxKey& k) {
    if (fills < kInline)
      new (&inline_fills[fills].fill) Fill{c, k};
    else
      more_fills.push_back(Fill{c, k});
    ++fills;
  }
  const Fill& fill(size_t i) const {
    return i < kInline ? inline_fills[i].fill : more_fills[i - kInline];
  }
};

class L2 {
 public:
  // side: the half beside each SM (Params::l2_side); empty: one cache.
  // far_age: the age a half gives a line it fetches for the other side
  // (Params::l2_far_line_age).
  L2(uint64_t capacity_bytes, std::vector<uint32_t> side, double far_age);

  // Reads one part of a load (a box, or an im2col row chunk) of `bytes` for
  // SM `sm` and adds what it found to `out`.
  void read(int sm, const BoxKey& key, uint64_t bytes, L2Reads& out);
  // The load of `r` lands at `ready`: its missed entries hold data from then.
  void land(const L2Reads& r, uint64_t ready);
  // Before a launch, as launches before it left L2 (runner/kernels/
  // input_sets.h): `key` read by SM `sm` and landed at cycle 0, or written
  // (half of its bytes homed in each half, no copies). Neither counts as a
  // lookup of the launch.
  void preload_read(int sm, const BoxKey& key, uint64_t bytes);
  void preload_written(const BoxKey& key, uint64_t bytes);

  uint64_t lookups() const { return lookups_; }  // parts read
  bool halves() const { return !side_.empty(); }

 private:
  // Looks `key` up in `c`: a hit is noted in `out`, a miss adds its bytes to
  // HBM's and its entry to the fills, and sets `missed`.
  void lookup(L2Cache& c, const BoxKey& key, uint64_t bytes, L2Reads& out, bool& missed,
              L2Cache::Insert where = L2Cache::Insert::kHot);

  std::vector<uint32_t> side_;
  L2Cache one_;
  std::array<L2Cache, 2> half_;
  uint64_t lookups_ = 0;
};

}  // namespace sk::models::sm100
