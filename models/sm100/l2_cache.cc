#include "models/sm100/l2_cache.h"

#include <algorithm>
#include <utility>

namespace sk::models::sm100 {

uint32_t L2Cache::hash_of(const BoxKey& key) {
  // BoxKeyHash, finished so that its low bits (the table's mask) mix.
  uint64_t h = BoxKeyHash{}(key);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return static_cast<uint32_t>(h);
}

size_t L2Cache::probe(const BoxKey& key, uint32_t h) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.entry == kNil || (s.hash == h && entries_[s.entry].key == key)) return i;
  }
}

void L2Cache::unlink(uint32_t e) {
  Entry& x = entries_[e];
  List& l = list_of(e);
  (x.prev == kNil ? l.head : entries_[x.prev].next) = x.next;
  (x.next == kNil ? l.tail : entries_[x.next].prev) = x.prev;
  x.prev = x.next = kNil;
}

void L2Cache::link_front(uint32_t e) {
  Entry& x = entries_[e];
  List& l = list_of(e);
  x.prev = kNil;
  x.next = l.head;
  (l.head == kNil ? l.tail : entries_[l.head].prev) = e;
  l.head = e;
}


void L2Cache::erase_slot(size_t i) {
  // Backward shift: later slots of the run whose home is not in (i, j] move
  // into the hole, so no probe meets an empty slot before its key.
  const size_t mask = slots_.size() - 1;
  for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
    if (slots_[j].entry == kNil) break;
    const size_t home = slots_[j].hash & mask;
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{};
  --used_;
}

void L2Cache::grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{});
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.entry == kNil) continue;
    size_t i = s.hash & mask;
    while (slots_[i].entry != kNil) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

L2Cache::Lookup L2Cache::access(const BoxKey& key, uint64_t bytes, Insert where) {
  const uint32_t h = hash_of(key);
  const size_t i = probe(key, h);
  if (slots_[i].entry != kNil) {
    const uint32_t e = slots_[i].entry;
    if (entries_[e].aged || e != lru_.head) {
      unlink(e);
      entries_[e].aged = false;
      link_front(e);
    }
    entries_[e].stamp = traffic_;
    ++hits_;
    return Lookup{true, entries_[e].ready};
  }
  ++misses_;
  if (bytes > capacity_) return Lookup{};  // never fits: always streams
  evict_to(capacity_ - bytes);
  uint32_t e = free_;
  if (e != kNil) {
    free_ = entries_[e].next;
  } else {
    e = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  entries_[e].key = key;
  entries_[e].hash = h;
  entries_[e].bytes = bytes;
  entries_[e].ready = UINT64_MAX;
  // An aged entry's stamp lies age_bytes_ behind the clock, and the clock
  // only grows: each list stays ordered by stamp from its head.
  traffic_ += bytes;
  entries_[e].aged = where == Insert::kAged;
  entries_[e].stamp = entries_[e].aged ? traffic_ - std::min(traffic_, age_bytes_) : traffic_;
  link_front(e);
  resident_ += bytes;
  // Eviction may have shifted slots: probe again for the key's place.
  if ((used_ + 1) * 2 > slots_.size()) grow();
  slots_[probe(key, h)] = Slot{e, h};
  ++used_;
  return Lookup{};
}

void L2Cache::fill(const BoxKey& key, uint64_t ready_cycle) {
  const Slot& s = slots_[probe(key, hash_of(key))];
  if (s.entry != kNil) entries_[s.entry].ready = ready_cycle;
}

void L2Cache::evict_to(uint64_t limit) {
  while (resident_ > limit && (lru_.tail != kNil || aged_.tail != kNil)) {
    // The older of the two lists' oldest (the aged one on a tie).
    const uint32_t e = aged_.tail != kNil && (lru_.tail == kNil ||
                                              entries_[aged_.tail].stamp <= entries_[lru_.tail].stamp)
                           ? aged_.tail
                           : lru_.tail;
    resident_ -= entries_[e].bytes;
    erase_slot(probe(entries_[e].key, entries_[e].hash));
    unlink(e);
    entries_[e].aged = false;
    entries_[e].next = free_;
    free_ = e;
  }
}

L2::L2(uint64_t capacity_bytes, std::vector<uint32_t> side, double far_age)
    : side_(std::move(side)),
      one_(side_.empty() ? capacity_bytes : 0),
      half_{L2Cache(side_.empty() ? 0 : capacity_bytes / 2, far_age),
            L2Cache(side_.empty() ? 0 : capacity_bytes / 2, far_age)} {}

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
    // (which keeps a line it fetches from HBM for this reader aged); the
    // copy is taken in once the load lands.
    BoxKey copy = key;
    copy.copy = 1;
    const L2Cache::Lookup c = near.access(copy, homed_across);
    if (c.hit) {
      out.note_hit(c.ready);
    } else {
      out.add_fill(&near, copy);
      lookup(half_[1 - h], key, homed_across, out, missed, L2Cache::Insert::kAged);
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
