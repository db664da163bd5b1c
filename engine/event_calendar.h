// event_calendar.h: the engine's queue of timed entries, popped in (cycle,
// insertion order).
//
// Most entries fall due within a few thousand cycles of the current one (issue
// costs, TMA and MMA latencies, a warp's wake-up), so they go into a calendar:
// one FIFO bucket per cycle over the window [base, base + kSpan), and a bitmap
// of the non-empty buckets. Entries further out wait in a heap and move into
// their bucket when the window reaches them. Push and pop are O(1) for the
// near entries; the heap, which costs O(log n) and a cache miss per level,
// only sees the far ones.
//
// Invariants:
//   * Every bucket entry's cycle is the bucket's cycle, in [base, base + kSpan).
//   * Every heap entry's cycle is >= base + kSpan (advance() moves the others
//     out, in (cycle, insertion order), before anything can be pushed directly
//     into their buckets), so within a bucket, insertion order is global
//     insertion order.
//   * Entries are never due before base: the caller drains each cycle before
//     time moves past it.
#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <vector>

namespace sk::sim {

template <class Entry>
class EventCalendar {
 public:
  static constexpr uint64_t kSpan = 4096;  // cycles covered by buckets; a power of two

  bool empty() const { return size_ == 0; }

  // Moves the window to start at `now` (>= the current base). Buckets before
  // `now` must be empty.
  void advance(uint64_t now) {
    if (now <= base_) return;
    base_ = now;
    while (!far_.empty() && far_.top().t < base_ + kSpan) {
      append(far_.top().t, far_.top().e);
      far_.pop();
    }
  }

  // Adds an entry due at cycle t >= base.
  void push(uint64_t t, const Entry& e) {
    ++size_;
    if (t < base_ + kSpan) {
      append(t, e);
    } else {
      far_.push(Far{t, seq_++, e});
    }
  }

  // The earliest due cycle; the calendar must not be empty.
  uint64_t next_time() const {
    const uint64_t start = base_ & kMask;
    // Scan the bitmap from base's bucket round the ring.
    for (uint64_t i = 0; i <= kWords; ++i) {
      const uint64_t word = ((start >> 6) + i) % kWords;
      uint64_t bits = used_[word];
      if (i == 0) bits &= ~uint64_t{0} << (start & 63);  // buckets before base's, this word
      if (i == kWords) bits &= (start & 63) == 0 ? 0 : ~(~uint64_t{0} << (start & 63));
      if (bits != 0) {
        const uint64_t index = word * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
        return base_ + ((index - start) & kMask);
      }
    }
    return far_.top().t;
  }

  // The bucket of cycle t (in the window): entries in insertion order. The
  // caller consumes them by index (pushes at t append to it while it runs),
  // then calls clear_bucket(t).
  std::vector<Entry>& bucket(uint64_t t) { return buckets_[t & kMask]; }
  void clear_bucket(uint64_t t) {
    auto& b = buckets_[t & kMask];
    size_ -= b.size();
    b.clear();
    used_[(t & kMask) >> 6] &= ~(uint64_t{1} << (t & 63));
  }

 private:
  static constexpr uint64_t kMask = kSpan - 1;
  static constexpr uint64_t kWords = kSpan / 64;
  struct Far {
    uint64_t t, seq;
    Entry e;
    bool operator>(const Far& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };

  void append(uint64_t t, const Entry& e) {
    buckets_[t & kMask].push_back(e);
    used_[(t & kMask) >> 6] |= uint64_t{1} << (t & 63);
  }

  uint64_t base_ = 0;
  uint64_t seq_ = 0;
  uint64_t size_ = 0;
  std::array<std::vector<Entry>, kSpan> buckets_;
  std::array<uint64_t, kWords> used_{};
  std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;
};

}  // namespace sk::sim
