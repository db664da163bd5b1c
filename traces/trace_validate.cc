// trace_validate.cc: wire reader, schema walk and event replay for validate_trace().
//
// Three layers, each bounds-checked on its own: read_field() splits bytes into
// fields; check_message() walks one message against a table of the schema
// subset (recursing into nested messages up to a depth limit); Validator
// interprets packets in file order, keeping only per-track and per-flow state.
// Every loop either consumes input or walks a fixed table, so arbitrary bytes
// always end in ok or an error.
#include "traces/trace_validate.h"

#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace sk::traces {
namespace {

using std::to_string;

constexpr uint8_t kWireVarint = 0, kWireFixed64 = 1, kWireBytes = 2;
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;
constexpr int kMaxDepth = 100;  // the protobuf library's default recursion limit
constexpr uint64_t kMaxTimestamp = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// Field numbers the replay reads (the full list is in the schema tables below).
namespace packet_field {
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kSequenceFlags = 13,
                   kIncrementalStateCleared = 41, kTrackDescriptor = 60;
}
namespace descriptor_field {
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kParentUuid = 5, kCounter = 8,
                   kSiblingMergeBehavior = 15, kProcessPid = 1;
}
namespace event_field {
constexpr uint32_t kType = 9, kTrackUuid = 11, kName = 23, kCounterValue = 30,
                   kDoubleCounterValue = 44, kFlowIds = 47, kTerminatingFlowIds = 48;
}
enum EventType : int32_t { kUnspecified, kSliceBegin, kSliceEnd, kInstant, kCounter };
constexpr const char* kTypeNames[] = {"TYPE_UNSPECIFIED", "TYPE_SLICE_BEGIN", "TYPE_SLICE_END",
                                      "TYPE_INSTANT", "TYPE_COUNTER"};

// Little-endian fixed64 from the first 8 bytes of `b` (the caller checks the size).
uint64_t load_fixed64(std::string_view b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
  return v;
}

struct Field {
  uint32_t number = 0;
  uint8_t wire = 0;
  uint64_t value = 0;      // varint or fixed64 payload
  std::string_view bytes;  // length-delimited payload
};

// Reads a varint off the front of `rest`.
bool read_varint(std::string_view& rest, uint64_t& v, std::string& error) {
  v = 0;
  for (size_t i = 0; i < rest.size() && i < 10; ++i) {
    uint64_t byte = static_cast<unsigned char>(rest[i]);
    if (i == 9 && byte > 1) break;  // bits beyond 64
    v |= (byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      rest.remove_prefix(i + 1);
      return true;
    }
  }
  error = rest.size() < 10 ? "truncated varint" : "varint longer than 64 bits";
  return false;
}

// Reads one field off the front of `rest`; on malformed input returns false
// with `error` set. A successful read always consumes at least one byte.
bool read_field(std::string_view& rest, Field& f, std::string& error) {
  uint64_t key = 0;
  if (!read_varint(rest, key, error)) return false;
  f = Field{};
  if ((key >> 3) == 0 || (key >> 3) > kMaxFieldNumber) {
    error = "invalid field number " + to_string(key >> 3);
    return false;
  }
  f.number = static_cast<uint32_t>(key >> 3);
  f.wire = static_cast<uint8_t>(key & 7);
  const std::string field = "field " + to_string(f.number);
  if (f.wire == kWireVarint) return read_varint(rest, f.value, error);
  if (f.wire == kWireFixed64) {
    if (rest.size() < 8) {
      error = field + ": truncated fixed64";
      return false;
    }
    f.value = load_fixed64(rest);
    rest.remove_prefix(8);
    return true;
  }
  if (f.wire != kWireBytes) {
    error = field + " has wire type " + to_string(f.wire) + ", which the schema subset never uses";
    return false;
  }
  uint64_t length = 0;
  if (!read_varint(rest, length, error)) return false;
  if (length > rest.size()) {
    error = field + ": length " + to_string(length) + " runs past the end (" +
            to_string(rest.size()) + " bytes left)";
    return false;
  }
  f.bytes = rest.substr(0, length);
  rest.remove_prefix(length);
  return true;
}

// ---- The schema subset, as tables (kept in step with perfetto_trace_subset.proto).

enum class Kind : uint8_t { kVarint, kEnum, kFixed64, kBytes, kMessage };
enum Msg : uint8_t { kPacket, kEvent, kDescriptor, kProcess, kThread, kCounterDesc, kAnnotation };

struct Spec {
  uint32_t number;
  const char* name;
  Kind kind;
  uint8_t arg = 0;  // kEnum: largest known value; kMessage: a Msg
  bool repeated = false;
  uint8_t oneof = 0;  // 0: none; members of one oneof share a number (1..3)
};
constexpr Kind V = Kind::kVarint, E = Kind::kEnum, F = Kind::kFixed64, B = Kind::kBytes,
               M = Kind::kMessage;

constexpr Spec kPacketFields[] = {
    {8, "timestamp", V}, {10, "trusted_packet_sequence_id", V}, {13, "sequence_flags", V},
    {41, "incremental_state_cleared", V}, {87, "first_packet_on_sequence", V},
    {11, "track_event", M, kEvent, false, 1}, {60, "track_descriptor", M, kDescriptor, false, 1}};
constexpr Spec kProcessFields[] = {
    {1, "pid", V}, {2, "cmdline", B, 0, true}, {5, "process_priority", V},
    {6, "process_name", B}, {7, "start_timestamp_ns", V}, {8, "process_labels", B, 0, true}};
constexpr Spec kThreadFields[] = {{1, "pid", V}, {2, "tid", V}, {5, "thread_name", B}};
constexpr Spec kCounterFields[] = {
    {1, "type", E, 2}, {2, "categories", B, 0, true}, {3, "unit", E, 3}, {6, "unit_name", B},
    {4, "unit_multiplier", V}, {5, "is_incremental", V}, {7, "y_axis_share_key", B}};
constexpr Spec kDescriptorFields[] = {
    {1, "uuid", V}, {5, "parent_uuid", V}, {2, "name", B, 0, false, 1},
    {10, "static_name", B, 0, false, 1}, {13, "atrace_name", B, 0, false, 1},
    {14, "description", B}, {3, "process", M, kProcess}, {4, "thread", M, kThread},
    {8, "counter", M, kCounterDesc}, {9, "disallow_merging_with_system_tracks", V},
    {11, "child_ordering", E, 3}, {12, "sibling_order_rank", V},
    {15, "sibling_merge_behavior", E, 3}, {16, "sibling_merge_key", B, 0, false, 2},
    {17, "sibling_merge_key_int", V, 0, false, 2}};
constexpr Spec kAnnotationFields[] = {
    {10, "name", B}, {2, "bool_value", V, 0, false, 1}, {3, "uint_value", V, 0, false, 1},
    {4, "int_value", V, 0, false, 1}, {5, "double_value", F, 0, false, 1},
    {6, "string_value", B, 0, false, 1}, {7, "pointer_value", V, 0, false, 1},
    {9, "legacy_json_value", B, 0, false, 1}, {11, "dict_entries", M, kAnnotation, true},
    {12, "array_values", M, kAnnotation, true}};
constexpr Spec kEventFields[] = {
    {22, "categories", B, 0, true}, {23, "name", B}, {9, "type", E, 4}, {11, "track_uuid", V},
    {30, "counter_value", V, 0, false, 1}, {44, "double_counter_value", F, 0, false, 1},
    {4, "debug_annotations", M, kAnnotation, true}, {47, "flow_ids", F, 0, true},
    {48, "terminating_flow_ids", F, 0, true}, {52, "correlation_id", V},
    {53, "correlation_id_str", B}};

struct Schema {
  const char* name;
  std::span<const Spec> fields;
};
constexpr Schema kSchemas[] = {  // indexed by Msg
    {"TracePacket", kPacketFields},       {"TrackEvent", kEventFields},
    {"TrackDescriptor", kDescriptorFields}, {"ProcessDescriptor", kProcessFields},
    {"ThreadDescriptor", kThreadFields},  {"CounterDescriptor", kCounterFields},
    {"DebugAnnotation", kAnnotationFields}};

bool wire_fits(const Spec& spec, const Field& f) {
  switch (spec.kind) {
    case Kind::kVarint:
    case Kind::kEnum:
      return f.wire == kWireVarint;
    case Kind::kFixed64:  // a repeated scalar may also arrive packed
      return f.wire == kWireFixed64 ||
             (spec.repeated && f.wire == kWireBytes && f.bytes.size() % 8 == 0);
    default:
      return f.wire == kWireBytes;
  }
}

// Checks every field of `bytes` (and of its nested messages) against the schema.
bool check_message(std::string_view bytes, Msg msg, int depth, std::string& error) {
  const Schema& schema = kSchemas[msg];
  auto bad = [&](const std::string& what) {
    error = std::string(schema.name) + ": " + what;
    return false;
  };
  if (depth > kMaxDepth) return bad("messages nested more than " + to_string(kMaxDepth) + " deep");
  uint64_t seen = 0;                            // bit per singular field (index in the table)
  std::array<int, 4> oneof_member{-1, -1, -1, -1};  // table index of the member set
  Field f;
  while (!bytes.empty()) {
    std::string problem;
    if (!read_field(bytes, f, problem)) return bad(problem);
    size_t index = 0;
    while (index < schema.fields.size() && schema.fields[index].number != f.number) ++index;
    if (index == schema.fields.size() || !wire_fits(schema.fields[index], f)) {
      return bad("unknown field " + to_string(f.number) + " (wire type " + to_string(f.wire) +
                 "): not in the schema subset, or the wrong wire type");
    }
    const Spec& spec = schema.fields[index];
    if (!spec.repeated) {
      if ((seen >> index) & 1) return bad(std::string(spec.name) + " appears twice");
      seen |= uint64_t{1} << index;
    }
    if (spec.oneof != 0) {
      int& member = oneof_member[spec.oneof];
      if (member >= 0) {
        return bad(std::string(spec.name) + " and " + schema.fields[member].name +
                   " are both set (one oneof)");
      }
      member = static_cast<int>(index);
    }
    if (spec.kind == Kind::kEnum) {
      auto value = static_cast<int32_t>(f.value);  // enums are int32 on the wire
      if (value < 0 || value > spec.arg) {
        return bad(std::string(spec.name) + " = " + to_string(value) +
                   " is not a known enum value");
      }
    }
    if (spec.kind == Kind::kMessage && !check_message(f.bytes, Msg(spec.arg), depth + 1, error)) {
      return false;
    }
  }
  return true;
}

// The fields of an already checked message.
std::vector<Field> fields_of(std::string_view bytes) {
  std::vector<Field> out;
  Field f;
  std::string ignored;
  while (!bytes.empty() && read_field(bytes, f, ignored)) out.push_back(f);
  return out;
}

const Field* find(const std::vector<Field>& fields, uint32_t number) {
  for (const Field& f : fields) {
    if (f.number == number) return &f;
  }
  return nullptr;
}

uint64_t value_of(const std::vector<Field>& fields, uint32_t number) {
  const Field* f = find(fields, number);
  return f != nullptr ? f->value : 0;
}

// Every id of a repeated fixed64 field, plain or packed.
std::vector<uint64_t> fixed64s(const std::vector<Field>& fields, uint32_t number) {
  std::vector<uint64_t> out;
  for (const Field& f : fields) {
    if (f.number != number) continue;
    if (f.wire == kWireFixed64) out.push_back(f.value);
    for (size_t at = 0; f.wire == kWireBytes && at + 8 <= f.bytes.size(); at += 8) {
      out.push_back(load_fixed64(f.bytes.substr(at)));
    }
  }
  return out;
}

// A name for an error message: printable ASCII kept, other bytes escaped, and cut short.
std::string quoted(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < name.size() && i < 64; ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out + (name.size() > 64 ? "...'" : "'");
}

struct OpenSlice {
  uint64_t start, packet;
  std::string name;
};
struct TrackState {
  std::string name;
  bool counter = false;
  bool has_ts = false;
  uint64_t last_ts = 0;
  std::vector<OpenSlice> open;  // oldest first
};
struct FlowEnd {
  uint64_t ts = 0, packet = 0, start = 0;  // start: of the slice the end binds to
};
struct FlowState {
  uint32_t origins = 0, terminations = 0;
  FlowEnd origin, termination;
};

class Validator {
 public:
  TraceValidation run(std::string_view bytes) {
    result_.ok = scan(bytes);
    result_.tracks = tracks_.size();
    return std::move(result_);
  }

 private:
  bool reject(std::string message) {
    result_.error = std::move(message);
    return false;
  }
  std::string here() const { return "packet #" + to_string(result_.packets) + ": "; }

  bool scan(std::string_view bytes) {
    for (std::string_view rest = bytes; !rest.empty();) {
      std::string at = "byte " + to_string(bytes.size() - rest.size()) + ": ", problem;
      Field f;
      if (!read_field(rest, f, problem)) return reject(at + problem);
      if (f.number != 1 || f.wire != kWireBytes) {
        return reject(at + "top-level field " + to_string(f.number) + " (wire type " +
                      to_string(f.wire) + ") is not Trace.packet (field 1, length-delimited)");
      }
      if (!packet(f.bytes)) return false;
      ++result_.packets;
    }
    for (const auto& [uuid, track] : tracks_) {
      if (track.open.empty()) continue;
      const OpenSlice& s = track.open.front();
      return reject("packet #" + to_string(s.packet) + ": slice " + quoted(s.name) +
                    " begun at ts " + to_string(s.start) + " on track " + to_string(uuid) + " " +
                    quoted(track.name) + " never ends");
    }
    for (const auto& [id, flow] : flows_) {
      if (flow.origins != 0 && flow.terminations != 0) continue;
      bool no_origin = flow.origins == 0;
      return reject("flow id " + to_string(id) + (no_origin ? ": originates" : ": terminates") +
                    " 0 times (must be once; its other end is at packet #" +
                    to_string(no_origin ? flow.termination.packet : flow.origin.packet) + ")");
    }
    return true;
  }

  bool packet(std::string_view bytes) {
    std::string problem;
    if (!check_message(bytes, kPacket, 0, problem)) return reject(here() + problem);
    std::vector<Field> fields = fields_of(bytes);
    auto sequence_id = static_cast<uint32_t>(value_of(fields, packet_field::kSequenceId));
    if (sequence_id == 0) {
      return reject(here() + "no trusted_packet_sequence_id (the events would be dropped)");
    }
    if (result_.packets == 0) {
      sequence_id_ = sequence_id;
      if ((value_of(fields, packet_field::kSequenceFlags) & 1) == 0 &&
          value_of(fields, packet_field::kIncrementalStateCleared) == 0) {
        return reject(here() + "first packet of sequence " + to_string(sequence_id) +
                      " lacks SEQ_INCREMENTAL_STATE_CLEARED");
      }
    } else if (sequence_id != sequence_id_) {
      return reject(here() + "trusted_packet_sequence_id " + to_string(sequence_id) +
                    " differs from the first packet's " + to_string(sequence_id_));
    }
    if (const Field* d = find(fields, packet_field::kTrackDescriptor)) return descriptor(d->bytes);
    if (const Field* e = find(fields, packet_field::kTrackEvent)) {
      return event(e->bytes, find(fields, packet_field::kTimestamp));
    }
    return true;
  }

  bool descriptor(std::string_view bytes) {
    std::vector<Field> fields = fields_of(bytes);
    uint64_t uuid = value_of(fields, descriptor_field::kUuid);
    uint64_t parent = value_of(fields, descriptor_field::kParentUuid);
    const Field* name_field = find(fields, descriptor_field::kName);
    std::string name(name_field != nullptr ? name_field->bytes : std::string_view());
    std::string where = here() + "track " + to_string(uuid) + " " + quoted(name);
    if (uuid == 0) return reject(where + ": uuid must be non-zero");
    if (tracks_.count(uuid) != 0) return reject(where + ": uuid already declared");
    if (parent != 0) {
      auto it = tracks_.find(parent);
      if (it == tracks_.end()) {
        return reject(where + ": parent_uuid " + to_string(parent) +
                      " is not declared by an earlier descriptor");
      }
      if (it->second.counter) {
        return reject(where + ": parent_uuid " + to_string(parent) + " is a counter track");
      }
    }
    if (!siblings_.insert({parent, name}).second &&
        find(fields, descriptor_field::kSiblingMergeBehavior) == nullptr) {
      return reject(where + ": a sibling track has the same name (they would be merged)");
    }
    if (const Field* process = find(fields, descriptor_field::kProcess)) {
      std::vector<Field> process_fields = fields_of(process->bytes);
      if (const Field* pid = find(process_fields, descriptor_field::kProcessPid)) {
        auto value = static_cast<int32_t>(pid->value);  // int32 on the wire
        if (!pids_.insert(value).second) {
          return reject(where + ": pid " + to_string(value) + " is already used");
        }
      }
    }
    TrackState& track = tracks_[uuid];
    track.name = std::move(name);
    track.counter = find(fields, descriptor_field::kCounter) != nullptr;
    return true;
  }

  bool event(std::string_view bytes, const Field* timestamp) {
    std::vector<Field> fields = fields_of(bytes);
    auto type = static_cast<int32_t>(value_of(fields, event_field::kType));  // checked: 0..4
    uint64_t uuid = value_of(fields, event_field::kTrackUuid);
    uint64_t ts = timestamp != nullptr ? timestamp->value : 0;
    std::string where = here() + kTypeNames[type] + " at ts " +
                        (timestamp != nullptr ? to_string(ts) : "none") + " on track " +
                        to_string(uuid);
    if (timestamp == nullptr) return reject(where + ": no timestamp");
    auto it = tracks_.find(uuid);
    if (it == tracks_.end()) {
      return reject(where + ": track is not declared by an earlier descriptor");
    }
    TrackState& track = it->second;
    where += " " + quoted(track.name);
    if (type == kCounter) {
      if (!track.counter) return reject(where + ": counter value on a non-counter track");
      if (find(fields, event_field::kCounterValue) == nullptr &&
          find(fields, event_field::kDoubleCounterValue) == nullptr) {
        return reject(where + ": counter event without a value");
      }
    } else if (type == kUnspecified) {
      return reject(where + ": unsupported event type");
    } else if (track.counter) {
      return reject(where + ": slice event on a counter track");
    }
    if (ts > kMaxTimestamp) return reject(where + ": timestamp does not fit in int64");
    if (track.has_ts && ts < track.last_ts) {
      return reject(where + ": timestamp is before the track's previous event at ts " +
                    to_string(track.last_ts));
    }
    track.has_ts = true;
    track.last_ts = ts;
    if (type == kCounter) {
      ++result_.counters;
      return true;  // flow ids on counter events bind to no slice and are ignored
    }
    uint64_t start = ts;
    if (type == kSliceEnd) {
      if (track.open.empty()) return reject(where + ": SLICE_END has no open slice");
      start = track.open.back().start;
      track.open.pop_back();
    } else {
      ++result_.slices;
      if (type == kSliceBegin) {
        const Field* name = find(fields, event_field::kName);
        std::string_view text = name != nullptr ? name->bytes : std::string_view();
        track.open.push_back({ts, result_.packets, std::string(text)});
      }
    }
    const FlowEnd end{ts, result_.packets, start};
    for (uint64_t id : fixed64s(fields, event_field::kFlowIds)) {
      if (!flow_end(where, id, true, end)) return false;
    }
    for (uint64_t id : fixed64s(fields, event_field::kTerminatingFlowIds)) {
      if (!flow_end(where, id, false, end)) return false;
    }
    return true;
  }

  bool flow_end(const std::string& where, uint64_t id, bool origin, const FlowEnd& end) {
    std::string flow = "flow id " + to_string(id);
    if (id == 0) return reject(where + ": flow ids must be non-zero");
    FlowState& state = flows_[id];
    uint32_t& count = origin ? state.origins : state.terminations;
    FlowEnd& mine = origin ? state.origin : state.termination;
    if (++count > 1) {
      return reject(flow + (origin ? ": originates" : ": terminates") +
                    " twice (must be once) at packet #" + to_string(mine.packet) + ", packet #" +
                    to_string(end.packet));
    }
    mine = end;
    if (state.origins == 0 || state.terminations == 0) return true;
    const FlowEnd& o = state.origin;
    const FlowEnd& t = state.termination;
    if (o.packet == t.packet) {
      return reject(flow + ": originates and terminates on the same event (packet #" +
                    to_string(o.packet) + ")");
    }
    if (std::pair(t.ts, t.packet) < std::pair(o.ts, o.packet)) {
      return reject(flow + ": terminator (packet #" + to_string(t.packet) + ", ts " +
                    to_string(t.ts) + ") is replayed before its origin (packet #" +
                    to_string(o.packet) + ", ts " + to_string(o.ts) +
                    "), so it would be dropped (backward flow)");
    }
    if (t.start < o.start) {
      return reject(flow + ": terminating slice starts at " + to_string(t.start) +
                    ", before the originating slice at " + to_string(o.start) + " (backward flow)");
    }
    ++result_.flows;
    return true;
  }

  TraceValidation result_;
  uint32_t sequence_id_ = 0;
  std::map<uint64_t, TrackState> tracks_;  // ordered: the end-of-trace report is deterministic
  std::set<std::pair<uint64_t, std::string>> siblings_;
  std::set<int32_t> pids_;
  std::map<uint64_t, FlowState> flows_;
};

}  // namespace

TraceValidation validate_trace(std::string_view bytes) { return Validator().run(bytes); }

}  // namespace sk::traces
