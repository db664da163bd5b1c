// trace_validate_test.cc: validate_trace() on writer output, on hand-built
// defective traces, and on random and mutated bytes.
//
// Defective traces are encoded with a few wire helpers written here (not the
// writer's), so each defect is exactly the bytes the test spells out.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "traces/perfetto_writer.h"
#include "traces/trace_validate.h"

using sk::traces::PerfettoWriter;
using sk::traces::TrackId;
using sk::traces::TraceValidation;
using sk::traces::validate_trace;

namespace {

std::string varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7F) | 0x80);
  return out + static_cast<char>(v);
}
std::string key(uint32_t field, int wire) { return varint(uint64_t{field} << 3 | wire); }
std::string vfield(uint32_t field, uint64_t v) { return key(field, 0) + varint(v); }
std::string bfield(uint32_t field, const std::string& b) {
  return key(field, 2) + varint(b.size()) + b;
}
std::string fixed64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}
std::string ffield(uint32_t field, uint64_t v) { return key(field, 1) + fixed64(v); }
std::string flows(const std::vector<uint64_t>& origins, const std::vector<uint64_t>& terminations) {
  std::string out;
  for (uint64_t id : origins) out += ffield(47, id);
  for (uint64_t id : terminations) out += ffield(48, id);
  return out;
}

constexpr int kBegin = 1, kEnd = 2, kInstant = 3, kCounter = 4;

// A trace built packet by packet; `seq` 0 leaves the sequence id out.
struct RawTrace {
  uint32_t seq = 1;
  bool first = true;
  std::string bytes;

  void packet(const std::string& body) {
    std::string p = seq != 0 ? vfield(10, seq) : "";
    if (first) p += vfield(13, 1);
    first = false;
    bytes += bfield(1, p + body);
  }
  void track(uint64_t uuid, const std::string& name, uint64_t parent = 0,
             const std::string& extra = "") {
    std::string parent_field = parent != 0 ? vfield(5, parent) : "";
    packet(bfield(60, vfield(1, uuid) + parent_field + bfield(2, name) + extra));
  }
  void counter_track(uint64_t uuid, const std::string& name, uint64_t parent = 0) {
    track(uuid, name, parent, bfield(8, ""));
  }
  void process(uint64_t uuid, const std::string& name, int32_t pid) {
    track(uuid, name, 0, bfield(3, vfield(1, static_cast<uint64_t>(int64_t{pid}))));
  }
  void event(uint64_t ts, int type, uint64_t track, const std::string& extra = "") {
    packet(vfield(8, ts) + bfield(11, vfield(9, type) + vfield(11, track) + extra));
  }
  void value(uint64_t ts, uint64_t track, double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    event(ts, kCounter, track, ffield(44, bits));
  }
};

// A small valid trace: process 1 > slice tracks 2 and 3, counter track 4.
RawTrace base() {
  RawTrace t;
  t.process(1, "GPU 0", 0);
  t.track(2, "a", 1);
  t.track(3, "b", 1);
  t.counter_track(4, "c", 1);
  return t;
}

#define CHECK_REJECTED(trace_bytes, fragment)                                \
  do {                                                                       \
    TraceValidation r_ = validate_trace(trace_bytes);                        \
    INFO("error: " << r_.error);                                             \
    CHECK_FALSE(r_.ok);                                                      \
    CHECK(r_.error.find(fragment) != std::string::npos);                     \
    CHECK(r_.error.find('\n') == std::string::npos);                         \
  } while (0)

}  // namespace

TEST_CASE("a writer trace with every feature validates, with the right counts") {
  std::ostringstream os;
  PerfettoWriter w(os, 7);
  TrackId gpu0 = w.add_process_track("GPU 0", 1);
  TrackId gpu1 = w.add_process_track("GPU 1", 2);
  TrackId sm = w.add_track(gpu0, "SM 0", {.description = "one SM"});
  TrackId load = w.add_track(sm, "load", {1, true, "loads"});
  TrackId mma = w.add_track(sm, "mma", {2, false, ""});
  TrackId other = w.add_track(gpu1, "SM 0");  // same name, other parent
  TrackId bytes = w.add_counter_track(sm, "bytes", "bytes", 3);
  w.begin_slice(sm, 0, "tile",
                {{"m", int64_t{-3}}, {"util", 0.5}, {"tensor", std::string("A\nB")}});
  w.begin_slice(load, 10, "issue", {}, {1});
  w.begin_slice(load, 12, "inner");
  w.end_slice(load, 15);
  w.end_slice(load, 20);
  w.counter(bytes, 10, 4096.0);
  w.counter(bytes, 20, 0.0);
  w.instant(mma, 25, "flip", {{"phase", int64_t{1}}}, {2}, {1});
  w.begin_slice(other, 40, "wait", {}, {}, {3});  // terminator written before its origin
  w.end_slice(other, 50);
  w.begin_slice(mma, 30, "k-block", {}, {3}, {2});
  w.end_slice(mma, 35);
  w.end_slice(sm, 60);
  w.finish();

  TraceValidation r = validate_trace(os.str());
  INFO("error: " << r.error);
  CHECK(r.ok);
  CHECK(r.error.empty());
  CHECK(r.packets == 20);
  CHECK(r.tracks == 7);
  CHECK(r.slices == 6);  // 5 BEGIN + 1 INSTANT
  CHECK(r.counters == 2);
  CHECK(r.flows == 3);

  CHECK(validate_trace("").ok);  // a writer with no calls writes nothing
  CHECK(validate_trace(base().bytes).ok);
}

TEST_CASE("framing defects") {
  RawTrace t = base();
  CHECK_REJECTED(std::string("\x0a"), "truncated varint");
  CHECK_REJECTED(t.bytes + std::string("\x0a\x85"), "truncated varint");
  CHECK_REJECTED(std::string("\x0a\x7f\x01", 3), "runs past the end");
  CHECK_REJECTED(t.bytes.substr(0, t.bytes.size() - 1), "runs past the end");
  CHECK_REJECTED(t.bytes + bfield(2, ""), "top-level field 2");
  CHECK_REJECTED(t.bytes + vfield(1, 5), "is not Trace.packet");
  CHECK_REJECTED(std::string(11, '\xff'), "varint longer than 64 bits");
  CHECK_REJECTED(std::string("\x02\x00", 2), "invalid field number 0");

  RawTrace u = base();
  u.event(5, kInstant, 2, vfield(999, 1));
  CHECK_REJECTED(u.bytes, "unknown field 999");
  RawTrace v = base();
  v.event(5, kInstant, 2, vfield(47, 3));  // flow id as a varint instead of fixed64
  CHECK_REJECTED(v.bytes, "unknown field 47 (wire type 0)");
  RawTrace e = base();
  e.event(5, 9, 2);
  CHECK_REJECTED(e.bytes, "type = 9 is not a known enum value");
  RawTrace d = base();
  d.event(5, kInstant, 2, vfield(11, 3));
  CHECK_REJECTED(d.bytes, "track_uuid appears twice");
  RawTrace both = base();
  both.packet(bfield(11, "") + bfield(60, ""));
  CHECK_REJECTED(both.bytes, "are both set");

  // Debug annotations nest; the depth is bounded, not the stack.
  auto nested = [](int depth) {
    std::string a = bfield(10, "leaf");
    for (int i = 0; i < depth; ++i) a = bfield(11, a);
    return a;
  };
  RawTrace ok = base();
  ok.event(5, kInstant, 2, bfield(4, nested(50)));
  CHECK(validate_trace(ok.bytes).ok);
  RawTrace deep = base();
  deep.event(5, kInstant, 2, bfield(4, nested(5000)));
  CHECK_REJECTED(deep.bytes, "nested more than 100 deep");
}

TEST_CASE("sequence id defects") {
  RawTrace t;
  t.seq = 0;
  t.track(1, "a");
  CHECK_REJECTED(t.bytes, "no trusted_packet_sequence_id");
  RawTrace u = base();
  u.seq = 2;
  u.event(1, kInstant, 2);
  CHECK_REJECTED(u.bytes, "differs from the first packet's 1");
  RawTrace w;
  w.first = false;  // the first packet lacks the flag
  w.track(1, "a");
  CHECK_REJECTED(w.bytes, "lacks SEQ_INCREMENTAL_STATE_CLEARED");
  RawTrace x;  // incremental_state_cleared is an accepted alternative
  x.first = false;
  x.packet(vfield(41, 1) + bfield(60, vfield(1, 1) + bfield(2, "a")));
  CHECK(validate_trace(x.bytes).ok);
}

TEST_CASE("track descriptor defects") {
  RawTrace t = base();
  t.track(2, "again", 1);
  CHECK_REJECTED(t.bytes, "uuid already declared");
  RawTrace zero = base();
  zero.track(0, "zero");
  CHECK_REJECTED(zero.bytes, "uuid must be non-zero");
  RawTrace orphan = base();
  orphan.track(9, "orphan", 77);
  CHECK_REJECTED(orphan.bytes, "parent_uuid 77 is not declared");
  RawTrace child = base();
  child.track(9, "child", 4);
  CHECK_REJECTED(child.bytes, "parent_uuid 4 is a counter track");
  RawTrace sibling = base();
  sibling.counter_track(9, "a", 1);
  CHECK_REJECTED(sibling.bytes, "same name");
  RawTrace merged = base();  // an explicit merge behaviour allows it
  merged.track(9, "a", 1, vfield(15, 2));
  CHECK(validate_trace(merged.bytes).ok);
  RawTrace pid = base();
  pid.process(9, "GPU 1", 0);
  CHECK_REJECTED(pid.bytes, "pid 0 is already used");
}

TEST_CASE("event defects") {
  RawTrace undeclared = base();
  undeclared.event(1, kInstant, 42);
  CHECK_REJECTED(undeclared.bytes, "track is not declared");
  RawTrace later = base();  // declared, but only after its use
  later.event(1, kInstant, 9);
  later.track(9, "late");
  CHECK_REJECTED(later.bytes, "track is not declared");
  RawTrace value = base();
  value.value(1, 2, 1.0);
  CHECK_REJECTED(value.bytes, "counter value on a non-counter track");
  RawTrace slice = base();
  slice.event(1, kBegin, 4);
  CHECK_REJECTED(slice.bytes, "slice event on a counter track");
  RawTrace empty = base();
  empty.event(1, kCounter, 4);
  CHECK_REJECTED(empty.bytes, "counter event without a value");
  RawTrace untyped = base();
  untyped.event(1, 0, 2);
  CHECK_REJECTED(untyped.bytes, "unsupported event type");
  RawTrace no_ts = base();
  no_ts.packet(bfield(11, vfield(9, kInstant) + vfield(11, 2)));
  CHECK_REJECTED(no_ts.bytes, "no timestamp");
  RawTrace big = base();
  big.event(uint64_t{1} << 63, kInstant, 2);
  CHECK_REJECTED(big.bytes, "does not fit in int64");
  RawTrace back = base();
  back.event(10, kInstant, 2);
  back.event(20, kInstant, 3);  // other tracks have their own clocks
  back.event(9, kInstant, 2);
  CHECK_REJECTED(back.bytes, "before the track's previous event at ts 10");
  RawTrace counter_back = base();
  counter_back.value(10, 4, 1.0);
  counter_back.value(9, 4, 2.0);
  CHECK_REJECTED(counter_back.bytes, "before the track's previous event");
}

TEST_CASE("slice stack defects") {
  RawTrace end = base();
  end.event(1, kEnd, 2);
  CHECK_REJECTED(end.bytes, "SLICE_END has no open slice");
  RawTrace crossed = base();  // each track has its own stack
  crossed.event(1, kBegin, 2);
  crossed.event(2, kEnd, 3);
  CHECK_REJECTED(crossed.bytes, "SLICE_END has no open slice");
  RawTrace open = base();
  open.event(1, kBegin, 2, bfield(23, "outer"));
  open.event(2, kBegin, 2, bfield(23, "inner"));
  open.event(3, kEnd, 2);
  CHECK_REJECTED(open.bytes, "slice 'outer' begun at ts 1 on track 2 'a' never ends");
}

TEST_CASE("flow defects") {
  RawTrace dangling = base();
  dangling.event(1, kInstant, 2, flows({5}, {}));
  CHECK_REJECTED(dangling.bytes, "flow id 5: terminates 0 times");
  RawTrace orphan = base();
  orphan.event(1, kInstant, 2, flows({}, {6}));
  CHECK_REJECTED(orphan.bytes, "flow id 6: originates 0 times");
  RawTrace twice = base();
  twice.event(1, kInstant, 2, flows({5}, {}));
  twice.event(2, kInstant, 2, flows({5}, {}));
  twice.event(3, kInstant, 3, flows({}, {5}));
  CHECK_REJECTED(twice.bytes, "flow id 5: originates twice");
  RawTrace same = base();
  same.event(1, kInstant, 2, flows({5}, {5}));
  CHECK_REJECTED(same.bytes, "on the same event");
  RawTrace backward = base();
  backward.event(50, kInstant, 2, flows({7}, {}));
  backward.event(30, kInstant, 3, flows({}, {7}));
  CHECK_REJECTED(backward.bytes, "replayed before its origin");
  RawTrace tie = base();  // same ts, terminator first in the file
  tie.event(30, kInstant, 3, flows({}, {7}));
  tie.event(30, kInstant, 2, flows({7}, {}));
  CHECK_REJECTED(tie.bytes, "replayed before its origin");
  RawTrace on_end = base();  // ends on the END of a slice begun before the origin
  on_end.event(30, kBegin, 3);
  on_end.event(40, kInstant, 2, flows({9}, {}));
  on_end.event(50, kEnd, 3, flows({}, {9}));
  CHECK_REJECTED(on_end.bytes, "slice starts at 30, before the originating slice at 40");
  RawTrace zero = base();
  zero.event(1, kInstant, 2, flows({0}, {}));
  CHECK_REJECTED(zero.bytes, "flow ids must be non-zero");

  RawTrace good = base();  // terminator written first but starting later; packed ids
  good.event(50, kInstant, 3, flows({}, {7}));
  good.event(40, kInstant, 2, bfield(47, fixed64(7) + fixed64(8)));
  good.event(60, kInstant, 3, flows({}, {8}));
  TraceValidation r = validate_trace(good.bytes);
  INFO("error: " << r.error);
  CHECK(r.ok);
  CHECK(r.flows == 2);
}

TEST_CASE("random, truncated and bit-flipped bytes end in ok or an error") {
  std::mt19937 rng(20240607);
  auto check_sane = [](const std::string& bytes) {
    TraceValidation r = validate_trace(bytes);
    CHECK(r.ok == r.error.empty());
    CHECK(r.error.find('\n') == std::string::npos);
    return r.ok;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2 == 0 && !bytes.empty()) bytes[0] = '\x0a';  // looks like a packet record
    check_sane(bytes);
  }

  std::ostringstream os;
  PerfettoWriter w(os);
  TrackId gpu = w.add_process_track("GPU 0", 0);
  TrackId a = w.add_track(gpu, "a");
  TrackId b = w.add_track(gpu, "b");
  TrackId c = w.add_counter_track(gpu, "c", "bytes");
  for (uint64_t k = 0; k < 20; ++k) {
    w.begin_slice(a, 10 * k, "s", {{"k", static_cast<int64_t>(k)}, {"x", 0.25}}, {k + 1});
    w.instant(a, 10 * k + 2, "i", {{"name", std::string("v")}});
    w.end_slice(a, 10 * k + 5);
    w.instant(b, 10 * k + 6, "t", {}, {}, {k + 1});
    w.counter(c, 10 * k, static_cast<double>(k));
  }
  w.finish();
  const std::string valid = os.str();
  REQUIRE(check_sane(valid));

  int still_ok = 0;
  for (size_t n = 0; n < valid.size(); ++n) still_ok += check_sane(valid.substr(0, n));
  // A cut is valid only at a packet boundary with no open slice or flow: after
  // 0-4 descriptors, and after each round's last two packets (but the full trace).
  CHECK(still_ok == 5 + 20 + 19);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = valid;
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
      bytes[rng() % bytes.size()] ^= static_cast<char>(1 << (rng() % 8));
    }
    if (i % 4 == 0) bytes.resize(rng() % bytes.size());
    check_sane(bytes);
  }
}
