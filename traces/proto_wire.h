// proto_wire.h: the few protobuf wire-format primitives the trace writer needs.
//
// Protobuf encodes a message as a run of (key, value) pairs, where
// key = field_number << 3 | wire_type. We need three wire types:
//   * kVarint (0): 7 bits per byte, little-endian groups, high bit = "more".
//     Negative int64 values are sent as their two's-complement uint64 and so
//     always take 10 bytes (that is what int64 fields mean; zigzag is only for
//     sint64, which the Perfetto subset never uses).
//   * kFixed64 (1): 8 bytes little-endian; used for double and fixed64 (the
//     TrackEvent flow ids are fixed64, NOT varint).
//   * kLengthDelimited (2): varint byte count, then the bytes; used for
//     strings and nested messages.
//
// Invariants: every function only appends to `out` (never rewrites earlier
// bytes), so a caller can build a nested message in a scratch buffer and then
// frame it with append_bytes_field. Encoding is independent of host byte order.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sk::traces::wire {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

inline constexpr size_t kMaxVarintBytes = 10;

inline void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

inline void append_tag(std::string& out, uint32_t field, WireType type) {
  append_varint(out, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type));
}

inline void append_fixed64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// uint32/uint64/bool/enum fields.
inline void append_varint_field(std::string& out, uint32_t field, uint64_t value) {
  append_tag(out, field, WireType::kVarint);
  append_varint(out, value);
}

// int32/int64 fields: two's complement, so -1 is ten bytes (not zigzag).
inline void append_int_field(std::string& out, uint32_t field, int64_t value) {
  append_varint_field(out, field, static_cast<uint64_t>(value));
}

inline void append_fixed64_field(std::string& out, uint32_t field, uint64_t value) {
  append_tag(out, field, WireType::kFixed64);
  append_fixed64(out, value);
}

inline void append_double_field(std::string& out, uint32_t field, double value) {
  uint64_t bits = 0;
  static_assert(sizeof(bits) == sizeof(value));
  std::memcpy(&bits, &value, sizeof(bits));
  append_fixed64_field(out, field, bits);
}

// Strings, bytes, and already-encoded nested messages.
inline void append_bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  append_tag(out, field, WireType::kLengthDelimited);
  append_varint(out, bytes.size());
  out.append(bytes.data(), bytes.size());
}

// Field 1 of perfetto.protos.Trace is `repeated TracePacket packet`; a trace
// file is nothing but these records back to back, so it can be streamed.
inline constexpr uint32_t kTracePacketField = 1;

inline void append_trace_packet_record(std::string& out, std::string_view packet) {
  append_bytes_field(out, kTracePacketField, packet);
}

}  // namespace sk::traces::wire
