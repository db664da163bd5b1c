// proto_wire_test.cc: known-answer tests for the protobuf wire primitives.
//
// The expected bytes are worked out by hand from the wire-format rules (and
// the classic "field 1 = 150 -> 08 96 01" example), so an encoding slip in
// proto_wire.h cannot hide behind a round trip through our own decoder.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "traces/proto_wire.h"

namespace wire = sk::traces::wire;

namespace {

// Hex dump, so that a failing CHECK prints readable bytes.
std::string hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{}{:02x}", out.empty() ? "" : " ", c);
  return out;
}

std::string bytes(std::vector<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

std::string varint(uint64_t v) {
  std::string out;
  wire::append_varint(out, v);
  return out;
}

}  // namespace

TEST_CASE("varint: known byte sequences") {
  CHECK(hex(varint(0)) == "00");
  CHECK(hex(varint(1)) == "01");
  CHECK(hex(varint(127)) == "7f");
  CHECK(hex(varint(128)) == "80 01");
  CHECK(hex(varint(150)) == "96 01");
  CHECK(hex(varint(300)) == "ac 02");
  CHECK(hex(varint(16384)) == "80 80 01");
  CHECK(hex(varint(std::numeric_limits<uint64_t>::max())) == "ff ff ff ff ff ff ff ff ff 01");
  CHECK(varint(std::numeric_limits<uint64_t>::max()).size() == wire::kMaxVarintBytes);
}

TEST_CASE("tags combine field number and wire type") {
  std::string out;
  wire::append_tag(out, 1, wire::WireType::kLengthDelimited);    // Trace.packet
  wire::append_tag(out, 47, wire::WireType::kFixed64);           // TrackEvent.flow_ids
  wire::append_tag(out, 60, wire::WireType::kLengthDelimited);   // TracePacket.track_descriptor
  wire::append_tag(out, 10, wire::WireType::kVarint);            // trusted_packet_sequence_id
  CHECK(hex(out) == "0a f9 02 e2 03 50");
}

TEST_CASE("varint fields, including negative int64 as ten bytes") {
  std::string out;
  wire::append_varint_field(out, 1, 150);
  CHECK(hex(out) == "08 96 01");
  out.clear();
  wire::append_int_field(out, 4, -1);  // DebugAnnotation.int_value = -1
  CHECK(hex(out) == "20 ff ff ff ff ff ff ff ff ff 01");
  out.clear();
  wire::append_int_field(out, 12, -2);  // sibling_order_rank = -2 (int32 sign-extends)
  CHECK(hex(out) == "60 fe ff ff ff ff ff ff ff ff 01");
}

TEST_CASE("fixed64 flow ids use wire type 1 and little-endian bytes") {
  std::string out;
  wire::append_fixed64_field(out, 47, 0x0102030405060708ull);
  CHECK(hex(out) == "f9 02 08 07 06 05 04 03 02 01");
  out.clear();
  wire::append_fixed64_field(out, 48, 1);  // terminating_flow_ids
  CHECK(hex(out) == "81 03 01 00 00 00 00 00 00 00");
}

TEST_CASE("doubles are IEEE-754 bits as fixed64") {
  std::string out;
  wire::append_double_field(out, 44, 1.0);  // double_counter_value
  CHECK(hex(out) == "e1 02 00 00 00 00 00 00 f0 3f");
  out.clear();
  wire::append_double_field(out, 5, -2.5);
  CHECK(hex(out) == "29 00 00 00 00 00 00 04 c0");
}

TEST_CASE("length-delimited strings and nested messages") {
  std::string out;
  wire::append_bytes_field(out, 23, "mma");  // TrackEvent.name
  CHECK(hex(out) == "ba 01 03 6d 6d 61");
  out.clear();
  wire::append_bytes_field(out, 2, "");
  CHECK(hex(out) == "12 00");

  std::string inner;
  wire::append_varint_field(inner, 1, 150);
  std::string outer;
  wire::append_bytes_field(outer, 3, inner);
  CHECK(hex(outer) == "1a 03 08 96 01");

  // A nested message longer than 127 bytes needs a two-byte length.
  std::string big(200, 'x');
  std::string framed;
  wire::append_bytes_field(framed, 11, big);
  CHECK(framed.size() == 1 + 2 + 200);
  CHECK(hex(framed.substr(0, 3)) == "5a c8 01");
}

TEST_CASE("trace packet records are Trace field 1") {
  std::string packet = bytes({0x50, 0x01});  // trusted_packet_sequence_id = 1
  std::string out;
  wire::append_trace_packet_record(out, packet);
  CHECK(hex(out) == "0a 02 50 01");
}
