// perfetto_fuzz.cc: the Perfetto trace writer on random event streams.
//
// Input: a stream of operations (1 opcode byte + argument bytes) on a
// PerfettoWriter: add process, slice and counter tracks, begin and end
// slices, instants with args and flows, counter values, at timestamps that
// mostly advance and sometimes go back. Calls that would break a trace rule
// must throw std::logic_error and write nothing; the harness then carries on.
// At the end it closes what is open (slices, flows) and finishes.
//
// Contract checked: the bytes written are always a valid trace by an
// independent decoder (traces/trace_validate.h), whatever calls were made or
// refused; the writer throws nothing but std::logic_error; no crash or
// sanitizer report.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "traces/perfetto_writer.h"
#include "traces/trace_validate.h"

namespace {

using sk::traces::Arg;
using sk::traces::PerfettoWriter;
using sk::traces::TrackId;

[[noreturn]] void defect(const std::string& what) {
  std::fprintf(stderr, "perfetto_fuzz: %s\n", what.c_str());
  std::abort();
}

class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t byte() { return i_ < n_ ? d_[i_++] : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = v << 8 | byte();
    return v;
  }
  std::string name() {
    static const char* kNames[] = {"load", "mma", "epilogue", "", "stage 0", "x", "\xff\xfe", "GPU"};
    const uint8_t b = byte();
    return b < 0xC0 ? std::string(kNames[b % 8]) + (b & 8 ? std::to_string(b) : "")
                    : std::string(1 + b % 7, static_cast<char>(byte()));
  }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
};

struct Track {
  TrackId id;
  bool counter;
  uint64_t last_ts = 0;
  int open = 0;
};

struct Harness {
  std::ostringstream out;
  PerfettoWriter w{out};
  std::vector<Track> tracks;
  std::set<uint64_t> originated, pending;  // flows begun; begun and not yet ended
  uint64_t max_ts = 0;
  int unique = 0;

  // Calls `fn`; a rule-breaking call must throw std::logic_error, nothing else.
  template <class Fn>
  bool attempt(Fn&& fn) {
    try {
      fn();
      return true;
    } catch (const std::logic_error&) {
      return false;
    } catch (const std::exception& e) {
      defect(std::string("the writer threw something other than std::logic_error: ") + e.what());
    }
  }

  Track* pick(Input& in) {
    if (tracks.empty()) return nullptr;
    return &tracks[in.byte() % tracks.size()];
  }

  uint64_t timestamp(Input& in, const Track& t) {
    const uint8_t b = in.byte();
    if (b >= 0xF0) return in.u64();                  // anything at all
    if (b >= 0xE0) return t.last_ts - (b & 0xF);     // going back (may wrap)
    return t.last_ts + (b < 0x80 ? b : uint64_t{b} << 20);
  }

  std::vector<Arg> args(Input& in) {
    std::vector<Arg> a;
    const int n = in.byte() % 4;
    for (int i = 0; i < n; ++i) {
      const uint8_t kind = in.byte();
      std::string name = in.name();
      if (kind % 3 == 0) a.push_back(Arg{name, static_cast<int64_t>(in.u64())});
      if (kind % 3 == 1) {
        uint64_t bits = in.u64();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        a.push_back(Arg{name, v});
      }
      if (kind % 3 == 2) a.push_back(Arg{name, in.name()});
    }
    return a;
  }

  void step(Input& in) {
    const uint8_t op = in.byte();
    switch (op % 8) {
      case 0: {
        const std::string n = in.name();
        const int32_t pid = static_cast<int32_t>(in.byte()) - 8;
        TrackId id = 0;
        if (attempt([&] { id = w.add_process_track(n, pid); })) tracks.push_back(Track{id, false});
        break;
      }
      case 1:
      case 2: {
        Track* parent = (in.byte() & 1) ? pick(in) : nullptr;
        const TrackId pid = parent ? parent->id : (in.byte() == 0xFF ? 9999 : sk::traces::kNoParent);
        const std::string n = in.name();
        TrackId id = 0;
        const bool counter = op % 8 == 2;
        if (attempt([&] {
              id = counter ? w.add_counter_track(pid, n, in.name(), in.byte())
                           : w.add_track(pid, n, sk::traces::TrackOptions{in.byte(), true, n});
            }))
          tracks.push_back(Track{id, counter});
        break;
      }
      case 3:
      case 4: {
        Track* t = pick(in);
        if (t == nullptr) break;
        const uint64_t ts = timestamp(in, *t);
        const std::string n = in.name();
        const std::vector<Arg> a = args(in);
        std::vector<uint64_t> begin, end;
        if (in.byte() & 1) begin.push_back(in.byte() % 16);
        // Only flows already begun end here (the harness can close those).
        if ((in.byte() & 1) && !pending.empty())
          end.push_back(*std::next(pending.begin(), in.byte() % pending.size()));
        const bool instant = op % 8 == 4;
        if (attempt([&] {
              if (instant)
                w.instant(t->id, ts, n, a, begin, end);
              else
                w.begin_slice(t->id, ts, n, a, begin, end);
            })) {
          t->last_ts = ts;
          max_ts = std::max(max_ts, ts);
          if (!instant) ++t->open;
          for (uint64_t f : begin) originated.insert(f), pending.insert(f);
          for (uint64_t f : end) pending.erase(f);
        }
        break;
      }
      case 5: {
        Track* t = pick(in);
        if (t == nullptr) break;
        const uint64_t ts = timestamp(in, *t);
        if (attempt([&] { w.end_slice(t->id, ts); })) {
          t->last_ts = ts;
          max_ts = std::max(max_ts, ts);
          --t->open;
        }
        break;
      }
      default: {
        Track* t = pick(in);
        if (t == nullptr) break;
        const uint64_t ts = timestamp(in, *t);
        uint64_t bits = in.u64();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        if (in.byte() & 1) v = static_cast<double>(static_cast<int32_t>(bits));
        if (attempt([&] { w.counter(t->id, ts, v); })) {
          t->last_ts = ts;
          max_ts = std::max(max_ts, ts);
        }
        break;
      }
    }
  }

  // Closes every open slice and ends every pending flow, then finishes.
  void close() {
    for (Track& t : tracks)
      while (t.open > 0) {
        if (!attempt([&] { w.end_slice(t.id, t.last_ts); }))
          defect("the writer refused to close an open slice at its last timestamp");
        --t.open;
      }
    if (!pending.empty()) {
      const std::vector<uint64_t> ends(pending.begin(), pending.end());
      if (!attempt([&] {
            const TrackId t = w.add_track(sk::traces::kNoParent, "flow ends (fuzz harness)");
            w.instant(t, max_ts, "end", {}, {}, ends);
          }))
        defect("the writer refused to end pending flows at the latest timestamp");
    }
    if (!attempt([&] { w.finish(); })) defect("finish() refused a trace with nothing open");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  Input in(data, size);
  Harness h;
  for (int n = 0; !in.done() && n < 512; ++n) h.step(in);
  h.close();
  const std::string bytes = h.out.str();
  const sk::traces::TraceValidation v = sk::traces::validate_trace(bytes);
  if (!v.ok) defect("the writer produced an invalid trace: " + v.error);
  return 0;
}
