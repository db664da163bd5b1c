// perfetto_writer_test.cc: PerfettoWriter's byte layout and usage validation.
//
// Layout tests decode the output with a tiny wire reader written here (not the
// writer's own code) and check the invariants trace_processor depends on:
// record framing, sequence id on every packet, the cleared-state flag on the
// first packet only, fixed64 flow ids. Validation tests check that each misuse
// throws std::logic_error and writes nothing.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "traces/perfetto_writer.h"

using sk::traces::PerfettoWriter;
using sk::traces::TrackId;

namespace {

// One decoded field: varint/fixed64 value or length-delimited bytes.
struct Field {
  uint32_t number;
  int wire_type;
  uint64_t value = 0;
  std::string bytes;
};

uint64_t read_varint(const std::string& s, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    REQUIRE(pos < s.size());
    auto b = static_cast<unsigned char>(s[pos++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return v;
  }
}

std::vector<Field> decode(const std::string& s) {
  std::vector<Field> fields;
  for (size_t pos = 0; pos < s.size();) {
    uint64_t key = read_varint(s, pos);
    Field f{.number = static_cast<uint32_t>(key >> 3), .wire_type = static_cast<int>(key & 7)};
    if (f.wire_type == 0) {
      f.value = read_varint(s, pos);
    } else if (f.wire_type == 1) {
      REQUIRE(pos + 8 <= s.size());
      for (int i = 0; i < 8; ++i) f.value |= uint64_t{static_cast<unsigned char>(s[pos + i])} << (8 * i);
      pos += 8;
    } else {
      REQUIRE(f.wire_type == 2);
      uint64_t len = read_varint(s, pos);
      REQUIRE(pos + len <= s.size());
      f.bytes = s.substr(pos, len);
      pos += len;
    }
    fields.push_back(f);
  }
  return fields;
}

std::vector<const Field*> find(const std::vector<Field>& fields, uint32_t number) {
  std::vector<const Field*> out;
  for (const Field& f : fields) {
    if (f.number == number) out.push_back(&f);
  }
  return out;
}

// The packets of a trace file: every top-level field must be Trace.packet.
std::vector<std::vector<Field>> packets_of(const std::string& trace) {
  std::vector<std::vector<Field>> out;
  for (const Field& record : decode(trace)) {
    REQUIRE(record.number == 1);
    REQUIRE(record.wire_type == 2);
    out.push_back(decode(record.bytes));
  }
  return out;
}

std::string hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{}{:02x}", out.empty() ? "" : " ", c);
  return out;
}

}  // namespace

TEST_CASE("a process track descriptor has the exact expected bytes") {
  std::ostringstream os;
  PerfettoWriter w(os);
  CHECK(w.add_process_track("G", 7) == 1);
  // 0a 13                     Trace.packet, 19 bytes
  //   50 01 68 01             trusted_packet_sequence_id 1, sequence_flags 1
  //   e2 03 0c                track_descriptor, 12 bytes
  //     08 01 12 01 47        uuid 1, name "G"
  //     1a 05 08 07 32 01 47  process { pid 7, process_name "G" }
  CHECK(hex(os.str()) == "0a 13 50 01 68 01 e2 03 0c 08 01 12 01 47 1a 05 08 07 32 01 47");
}

TEST_CASE("packets: one sequence id everywhere, cleared flag only first, unique uuids") {
  std::ostringstream os;
  PerfettoWriter w(os, 42);
  TrackId gpu = w.add_process_track("GPU 0", 0);
  TrackId sm = w.add_track(gpu, "SM 0");
  TrackId role = w.add_track(sm, "load", {2, false, "producer"});
  TrackId bytes = w.add_counter_track(sm, "bytes", "");
  w.begin_slice(role, 5, "issue", {{"k", int64_t{-1}}, {"u", 0.5}, {"s", std::string("x")}}, {0xABCDEFull});
  w.end_slice(role, 9);
  w.counter(bytes, 9, 3.0);
  w.instant(sm, 12, "done", {}, {}, {0xABCDEFull});
  w.finish();
  CHECK(std::vector<TrackId>{gpu, sm, role, bytes} == std::vector<TrackId>{1, 2, 3, 4});

  auto packets = packets_of(os.str());
  REQUIRE(packets.size() == 8);
  for (size_t i = 0; i < packets.size(); ++i) {
    auto seq = find(packets[i], 10);
    REQUIRE(seq.size() == 1);
    CHECK(seq[0]->value == 42);
    CHECK(find(packets[i], 13).size() == (i == 0 ? 1u : 0u));
  }
  CHECK(find(packets[0], 13)[0]->value == 1);

  // The role track: parent 2, no child_ordering (explicit_child_order=false), rank 2.
  auto role_desc = decode(find(packets[2], 60).at(0)->bytes);
  CHECK(find(role_desc, 5).at(0)->value == sm);
  CHECK(find(role_desc, 11).empty());
  CHECK(find(role_desc, 12).at(0)->value == 2);
  CHECK(find(role_desc, 14).at(0)->bytes == "producer");
  // The counter track carries an (empty) CounterDescriptor.
  auto counter_desc = decode(find(packets[3], 60).at(0)->bytes);
  CHECK(find(counter_desc, 8).at(0)->bytes.empty());

  // BEGIN: timestamp, type 1, track, name, typed args, fixed64 flow id.
  CHECK(find(packets[4], 8).at(0)->value == 5);
  auto begin = decode(find(packets[4], 11).at(0)->bytes);
  CHECK(find(begin, 9).at(0)->value == 1);
  CHECK(find(begin, 11).at(0)->value == role);
  CHECK(find(begin, 23).at(0)->bytes == "issue");
  auto flow = find(begin, 47);
  REQUIRE(flow.size() == 1);
  CHECK(flow[0]->wire_type == 1);
  CHECK(flow[0]->value == 0xABCDEFull);
  auto args = find(begin, 4);
  REQUIRE(args.size() == 3);
  CHECK(find(decode(args[0]->bytes), 4).at(0)->value == ~uint64_t{0});  // int -1
  CHECK(find(decode(args[1]->bytes), 5).at(0)->wire_type == 1);          // double
  CHECK(find(decode(args[2]->bytes), 6).at(0)->bytes == "x");            // string
  // END has no name; COUNTER carries double_counter_value (44, fixed64).
  auto end = decode(find(packets[5], 11).at(0)->bytes);
  CHECK(find(end, 9).at(0)->value == 2);
  CHECK(find(end, 23).empty());
  auto counter = decode(find(packets[6], 11).at(0)->bytes);
  CHECK(find(counter, 9).at(0)->value == 4);
  CHECK(find(counter, 44).at(0)->wire_type == 1);
  // INSTANT terminates the flow with field 48, also fixed64.
  auto instant = decode(find(packets[7], 11).at(0)->bytes);
  CHECK(find(instant, 9).at(0)->value == 3);
  CHECK(find(instant, 48).at(0)->wire_type == 1);
  CHECK(find(instant, 48).at(0)->value == 0xABCDEFull);
}

// Each misuse must throw std::logic_error and leave the stream untouched.
#define CHECK_REJECTS(w, os, call)             \
  do {                                         \
    size_t size_before = os.str().size();      \
    CHECK_THROWS_AS(call, std::logic_error);   \
    CHECK(os.str().size() == size_before);     \
    (void)w;                                   \
  } while (0)

TEST_CASE("usage validation: slices, timestamps, track kinds") {
  std::ostringstream os;
  PerfettoWriter w(os);
  TrackId gpu = w.add_process_track("GPU 0", 0);
  TrackId a = w.add_track(gpu, "a");
  TrackId c = w.add_counter_track(gpu, "c", "bytes");

  CHECK_REJECTS(w, os, w.end_slice(a, 1));                          // END without BEGIN
  w.begin_slice(a, 10, "s");
  CHECK_REJECTS(w, os, w.end_slice(a, 9));                          // END before BEGIN
  CHECK_REJECTS(w, os, w.instant(a, 5, "i"));                       // ts decreasing
  w.end_slice(a, 10);                                               // equal ts is fine
  CHECK_REJECTS(w, os, w.end_slice(a, 11));                         // stack now empty
  w.counter(c, 4, 1.0);
  CHECK_REJECTS(w, os, w.counter(c, 3, 2.0));                       // counter ts decreasing
  CHECK_REJECTS(w, os, w.counter(a, 20, 1.0));                      // counter on slice track
  CHECK_REJECTS(w, os, w.begin_slice(c, 20, "x"));                  // slice on counter track
  CHECK_REJECTS(w, os, w.instant(99, 20, "x"));                     // unknown track
  CHECK_REJECTS(w, os, w.begin_slice(0, 20, "x"));                  // no global track
  CHECK_REJECTS(w, os, w.add_track(gpu, "a"));                      // duplicate sibling name
  CHECK_REJECTS(w, os, w.add_counter_track(gpu, "c", ""));          // ... counters too
  CHECK_REJECTS(w, os, w.add_track(c, "child"));                    // counter has no children
  CHECK_REJECTS(w, os, w.add_track(99, "orphan"));                  // unknown parent
  CHECK_REJECTS(w, os, w.add_process_track("GPU 1", 0));            // duplicate pid
  CHECK_REJECTS(w, os, w.begin_slice(a, uint64_t{1} << 63, "x"));   // negative as int64
  CHECK(w.add_track(a, "a") != a);                                  // same name, other parent: ok
  CHECK_THROWS_AS(PerfettoWriter(os, 0), std::logic_error);         // sequence id 0
  w.finish();
}

TEST_CASE("usage validation: flows") {
  std::ostringstream os;
  PerfettoWriter w(os);
  TrackId a = w.add_track(sk::traces::kNoParent, "a");
  TrackId b = w.add_track(sk::traces::kNoParent, "b");

  CHECK_REJECTS(w, os, w.instant(a, 1, "x", {}, {0}));              // flow id 0
  CHECK_REJECTS(w, os, w.instant(a, 1, "x", {}, {3, 3}));           // listed twice
  CHECK_REJECTS(w, os, w.instant(a, 1, "x", {}, {3}, {3}));         // both ends on one event
  w.instant(a, 10, "origin", {}, {1});
  CHECK_REJECTS(w, os, w.instant(a, 11, "again", {}, {1}));         // originates twice
  CHECK_REJECTS(w, os, w.instant(b, 9, "early", {}, {}, {1}));      // terminator starts earlier
  w.instant(b, 10, "same ts, written after", {}, {}, {1});          // ok: replayed after origin

  // Tracks may be written in any interleaving: a terminator may be written
  // before its origin if it starts strictly later.
  w.begin_slice(b, 50, "waiter", {}, {}, {2});
  w.end_slice(b, 60);
  CHECK(w.pending_flow_count() == 1);
  CHECK_REJECTS(w, os, w.instant(a, 50, "tie", {}, {2}));           // tie, but terminator first
  w.instant(a, 40, "late origin", {}, {2});
  CHECK(w.pending_flow_count() == 0);
  // An id is used by one flow only, even after that flow ended (a second
  // origin would otherwise make check_trace.py count it twice).
  CHECK_REJECTS(w, os, w.instant(a, 70, "reuse", {}, {1}));
  CHECK_REJECTS(w, os, w.instant(b, 70, "reuse", {}, {}, {2}));
  // Ids finished out of order are all remembered.
  for (uint64_t id : {9, 7, 8, 12, 10, 11}) w.instant(a, 80, "o", {}, {id});
  for (uint64_t id : {12, 8, 10, 7, 11, 9}) w.instant(b, 90, "t", {}, {}, {id});
  for (uint64_t id : {7, 8, 9, 10, 11, 12}) CHECK_REJECTS(w, os, w.instant(a, 95, "reuse", {}, {id}));
  w.instant(a, 96, "fresh", {}, {13});
  w.instant(b, 97, "fresh end", {}, {}, {13});
  w.finish();
}

TEST_CASE("finish reports open slices and dangling flows") {
  std::ostringstream os;
  PerfettoWriter w(os);
  TrackId a = w.add_track(sk::traces::kNoParent, "a");
  w.begin_slice(a, 1, "open");
  CHECK(w.open_slice_count() == 1);
  CHECK_THROWS_WITH_AS(w.finish(), doctest::Contains("never ends"), std::logic_error);
  w.end_slice(a, 2);
  w.instant(a, 3, "x", {}, {5});
  CHECK_THROWS_WITH_AS(w.finish(), doctest::Contains("flow id 5 never terminates"), std::logic_error);
  w.instant(a, 4, "y", {}, {}, {5});
  CHECK_NOTHROW(w.finish());
}
