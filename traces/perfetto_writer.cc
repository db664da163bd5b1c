// perfetto_writer.cc: encoding and usage validation for PerfettoWriter.
//
// Field numbers come from Perfetto's schema (mirrored, for the subset used, in
// traces/proto/perfetto_trace_subset.proto; the protoc test keeps the two in
// step). Each public call validates first and only then writes, so a thrown
// std::logic_error never leaves half a packet or half-updated state behind.
#include "traces/perfetto_writer.h"

#include <iterator>

#include <limits>
#include <ostream>
#include <stdexcept>

#include "traces/proto_wire.h"

namespace sk::traces {
namespace {

namespace packet_field {
constexpr uint32_t kTimestamp = 8;
constexpr uint32_t kTrustedPacketSequenceId = 10;
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTrackDescriptor = 60;
constexpr uint64_t kSeqIncrementalStateCleared = 1;
}  // namespace packet_field

namespace descriptor_field {
constexpr uint32_t kUuid = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kProcess = 3;
constexpr uint32_t kParentUuid = 5;
constexpr uint32_t kCounter = 8;
constexpr uint32_t kChildOrdering = 11;
constexpr uint32_t kSiblingOrderRank = 12;
constexpr uint32_t kDescription = 14;
constexpr uint64_t kChildOrderingExplicit = 3;
constexpr uint32_t kProcessPid = 1;   // in ProcessDescriptor
constexpr uint32_t kProcessName = 6;  // in ProcessDescriptor
constexpr uint32_t kCounterUnitName = 6;  // in CounterDescriptor
}  // namespace descriptor_field

namespace event_field {
constexpr uint32_t kDebugAnnotations = 4;
constexpr uint32_t kType = 9;
constexpr uint32_t kTrackUuid = 11;
constexpr uint32_t kName = 23;
constexpr uint32_t kDoubleCounterValue = 44;
constexpr uint32_t kFlowIds = 47;             // repeated fixed64
constexpr uint32_t kTerminatingFlowIds = 48;  // repeated fixed64
constexpr uint32_t kTypeSliceBegin = 1;
constexpr uint32_t kTypeSliceEnd = 2;
constexpr uint32_t kTypeInstant = 3;
constexpr uint32_t kTypeCounter = 4;
}  // namespace event_field

namespace annotation_field {
constexpr uint32_t kIntValue = 4;
constexpr uint32_t kDoubleValue = 5;
constexpr uint32_t kStringValue = 6;
constexpr uint32_t kName = 10;
}  // namespace annotation_field

// trace_processor stores timestamps as int64 and drops negative ones.
constexpr uint64_t kMaxTimestamp = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

[[noreturn]] void fail(const std::string& message) {
  throw std::logic_error("PerfettoWriter: " + message);
}

}  // namespace

PerfettoWriter::PerfettoWriter(std::ostream& out, uint32_t sequence_id)
    : out_(out), sequence_id_(sequence_id) {
  // trace_processor drops TrackEvent packets without a sequence id.
  if (sequence_id_ == 0) fail("trusted_packet_sequence_id must be non-zero");
}

PerfettoWriter::~PerfettoWriter() {
  try {
    out_.flush();
  } catch (...) {  // a destructor must not throw; finish() reports problems
  }
}

size_t PerfettoWriter::open_slice_count() const {
  size_t count = 0;
  for (const TrackState& t : tracks_) count += t.open_starts.size();
  return count;
}

TrackId PerfettoWriter::new_track(TrackId parent, const std::string& name, TrackKind kind) {
  if (parent != kNoParent) {
    if (parent > tracks_.size()) fail("parent track " + std::to_string(parent) + " does not exist");
    if (tracks_[parent - 1].kind == TrackKind::kCounter) {
      fail("counter track '" + tracks_[parent - 1].name + "' cannot have children");
    }
  }
  if (sibling_names_.count({parent, name}) != 0) {
    fail("a sibling track named '" + name + "' already exists (the UI would merge them)");
  }
  sibling_names_.insert({parent, name});
  tracks_.push_back(TrackState{.kind = kind, .name = name});
  return tracks_.size();
}

TrackId PerfettoWriter::add_process_track(const std::string& name, int32_t pid) {
  if (pids_.count(pid) != 0) fail("pid " + std::to_string(pid) + " is already used");
  TrackId uuid = new_track(kNoParent, name, TrackKind::kProcess);
  pids_.insert(pid);
  nested_.clear();
  wire::append_int_field(nested_, descriptor_field::kProcessPid, pid);
  wire::append_bytes_field(nested_, descriptor_field::kProcessName, name);
  payload_.clear();
  wire::append_varint_field(payload_, descriptor_field::kUuid, uuid);
  wire::append_bytes_field(payload_, descriptor_field::kName, name);
  wire::append_bytes_field(payload_, descriptor_field::kProcess, nested_);
  write_packet(false, 0, packet_field::kTrackDescriptor, payload_);
  return uuid;
}

TrackId PerfettoWriter::add_track(TrackId parent, const std::string& name,
                                  const TrackOptions& options) {
  TrackId uuid = new_track(parent, name, TrackKind::kSlice);
  payload_.clear();
  wire::append_varint_field(payload_, descriptor_field::kUuid, uuid);
  if (parent != kNoParent) wire::append_varint_field(payload_, descriptor_field::kParentUuid, parent);
  wire::append_bytes_field(payload_, descriptor_field::kName, name);
  if (options.explicit_child_order) {
    wire::append_varint_field(payload_, descriptor_field::kChildOrdering,
                              descriptor_field::kChildOrderingExplicit);
  }
  wire::append_int_field(payload_, descriptor_field::kSiblingOrderRank, options.sibling_rank);
  if (!options.description.empty()) {
    wire::append_bytes_field(payload_, descriptor_field::kDescription, options.description);
  }
  write_packet(false, 0, packet_field::kTrackDescriptor, payload_);
  return uuid;
}

TrackId PerfettoWriter::add_counter_track(TrackId parent, const std::string& name,
                                          const std::string& unit_name, int32_t sibling_rank) {
  TrackId uuid = new_track(parent, name, TrackKind::kCounter);
  nested_.clear();
  if (!unit_name.empty()) wire::append_bytes_field(nested_, descriptor_field::kCounterUnitName, unit_name);
  payload_.clear();
  wire::append_varint_field(payload_, descriptor_field::kUuid, uuid);
  if (parent != kNoParent) wire::append_varint_field(payload_, descriptor_field::kParentUuid, parent);
  wire::append_bytes_field(payload_, descriptor_field::kName, name);
  wire::append_int_field(payload_, descriptor_field::kSiblingOrderRank, sibling_rank);
  // The `counter` field must be present (even empty) to make this a counter track.
  wire::append_bytes_field(payload_, descriptor_field::kCounter, nested_);
  write_packet(false, 0, packet_field::kTrackDescriptor, payload_);
  return uuid;
}

PerfettoWriter::TrackState& PerfettoWriter::event_track(TrackId track, uint64_t ts,
                                                        bool want_counter, const char* what) {
  if (track == kNoParent || track > tracks_.size()) {
    fail(std::string(what) + " on unknown track " + std::to_string(track));
  }
  TrackState& state = tracks_[track - 1];
  if ((state.kind == TrackKind::kCounter) != want_counter) {
    fail(std::string(what) + (want_counter ? " on non-counter track '" : " on counter track '") +
         state.name + "'");
  }
  if (ts > kMaxTimestamp) fail(std::string(what) + " timestamp does not fit in int64");
  if (state.has_ts && ts < state.last_ts) {
    fail(std::string(what) + " at ts " + std::to_string(ts) + " on track '" + state.name +
         "' is before the previous event at ts " + std::to_string(state.last_ts));
  }
  return state;
}

namespace {

bool in_ranges(const std::map<uint64_t, uint64_t>& ranges, uint64_t id) {
  auto it = ranges.upper_bound(id);
  if (it == ranges.begin()) return false;
  return id <= std::prev(it)->second;
}

// Adds `id` (not yet in `ranges`), merging it with the ranges it touches.
void add_to_ranges(std::map<uint64_t, uint64_t>& ranges, uint64_t id) {
  auto next = ranges.upper_bound(id);
  const bool joins_next = next != ranges.end() && next->first == id + 1;
  if (next != ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->second + 1 == id) {
      prev->second = joins_next ? next->second : id;
      if (joins_next) ranges.erase(next);
      return;
    }
  }
  const uint64_t last = joins_next ? next->second : id;
  if (joins_next) ranges.erase(next);
  ranges.emplace(id, last);
}

}  // namespace

void PerfettoWriter::check_flows(const std::string& name, uint64_t ts,
                                 const std::vector<uint64_t>& flow_ids,
                                 const std::vector<uint64_t>& terminating_flow_ids) const {
  std::set<uint64_t> seen;
  auto check_one = [&](uint64_t id, bool origin) {
    std::string where = "flow id " + std::to_string(id) + " on '" + name + "' at ts " + std::to_string(ts);
    if (id == 0) fail(where + ": flow ids must be non-zero");
    if (!seen.insert(id).second) fail(where + ": listed twice on one event");
    if (in_ranges(finished_flows_, id)) fail(where + ": the id of a flow that already ended");
    auto it = pending_flows_.find(id);
    if (it == pending_flows_.end()) return;
    const PendingFlow& other = it->second;
    if (other.seen_origin == origin) fail(where + (origin ? ": originates twice" : ": terminates twice"));
    // trace_processor replays events sorted by (ts, file position): a
    // terminator must come strictly later, or at the same ts but later in file.
    uint64_t origin_ts = origin ? ts : other.slice_start;
    uint64_t term_ts = origin ? other.slice_start : ts;
    bool term_written_first = origin;
    if (term_ts < origin_ts || (term_ts == origin_ts && term_written_first)) {
      fail(where + ": terminating slice starts at " + std::to_string(term_ts) +
           ", before its origin at " + std::to_string(origin_ts) + " (backward flow)");
    }
  };
  for (uint64_t id : flow_ids) check_one(id, true);
  for (uint64_t id : terminating_flow_ids) check_one(id, false);
}

void PerfettoWriter::commit_flows(uint64_t ts, const std::vector<uint64_t>& flow_ids,
                                  const std::vector<uint64_t>& terminating_flow_ids) {
  auto commit_one = [&](uint64_t id, bool origin) {
    // check_flows guaranteed that a pending entry is this flow's other end.
    if (pending_flows_.erase(id) == 0)
      pending_flows_.emplace(id, PendingFlow{origin, ts});
    else
      add_to_ranges(finished_flows_, id);
  };
  for (uint64_t id : flow_ids) commit_one(id, true);
  for (uint64_t id : terminating_flow_ids) commit_one(id, false);
}

void PerfettoWriter::begin_slice(TrackId track, uint64_t ts, const std::string& name,
                                 const std::vector<Arg>& args, const std::vector<uint64_t>& flow_ids,
                                 const std::vector<uint64_t>& terminating_flow_ids) {
  TrackState& state = event_track(track, ts, false, "begin_slice");
  check_flows(name, ts, flow_ids, terminating_flow_ids);
  write_slice_event(event_field::kTypeSliceBegin, track, ts, name, args, flow_ids, terminating_flow_ids);
  commit_flows(ts, flow_ids, terminating_flow_ids);
  state.open_starts.push_back(ts);
  state.has_ts = true;
  state.last_ts = ts;
}

void PerfettoWriter::end_slice(TrackId track, uint64_t ts) {
  TrackState& state = event_track(track, ts, false, "end_slice");
  if (state.open_starts.empty()) fail("end_slice on track '" + state.name + "' with no open slice");
  write_slice_event(event_field::kTypeSliceEnd, track, ts, std::string(), {}, {}, {});
  state.open_starts.pop_back();
  state.last_ts = ts;
}

void PerfettoWriter::instant(TrackId track, uint64_t ts, const std::string& name,
                             const std::vector<Arg>& args, const std::vector<uint64_t>& flow_ids,
                             const std::vector<uint64_t>& terminating_flow_ids) {
  TrackState& state = event_track(track, ts, false, "instant");
  check_flows(name, ts, flow_ids, terminating_flow_ids);
  write_slice_event(event_field::kTypeInstant, track, ts, name, args, flow_ids, terminating_flow_ids);
  commit_flows(ts, flow_ids, terminating_flow_ids);
  state.has_ts = true;
  state.last_ts = ts;
}

void PerfettoWriter::counter(TrackId track, uint64_t ts, double value) {
  TrackState& state = event_track(track, ts, true, "counter");
  payload_.clear();
  wire::append_varint_field(payload_, event_field::kType, event_field::kTypeCounter);
  wire::append_varint_field(payload_, event_field::kTrackUuid, track);
  wire::append_double_field(payload_, event_field::kDoubleCounterValue, value);
  write_packet(true, ts, packet_field::kTrackEvent, payload_);
  state.has_ts = true;
  state.last_ts = ts;
}

void PerfettoWriter::finish() {
  out_.flush();
  std::string problems;
  for (size_t i = 0; i < tracks_.size(); ++i) {
    for (uint64_t start : tracks_[i].open_starts) {
      problems += "\n  slice begun at ts " + std::to_string(start) + " on track '" +
                  tracks_[i].name + "' never ends";
    }
  }
  for (const auto& [id, flow] : pending_flows_) {
    problems += "\n  flow id " + std::to_string(id) +
                (flow.seen_origin ? " never terminates" : " terminates but never originates");
  }
  if (!problems.empty()) fail("trace is incomplete:" + problems);
}

void PerfettoWriter::write_slice_event(uint32_t type, TrackId track, uint64_t ts,
                                       const std::string& name, const std::vector<Arg>& args,
                                       const std::vector<uint64_t>& flow_ids,
                                       const std::vector<uint64_t>& terminating_flow_ids) {
  payload_.clear();
  wire::append_varint_field(payload_, event_field::kType, type);
  wire::append_varint_field(payload_, event_field::kTrackUuid, track);
  if (!name.empty()) wire::append_bytes_field(payload_, event_field::kName, name);
  for (const Arg& arg : args) {
    nested_.clear();
    wire::append_bytes_field(nested_, annotation_field::kName, arg.name);
    if (const auto* i = std::get_if<int64_t>(&arg.value)) {
      wire::append_int_field(nested_, annotation_field::kIntValue, *i);
    } else if (const auto* d = std::get_if<double>(&arg.value)) {
      wire::append_double_field(nested_, annotation_field::kDoubleValue, *d);
    } else {
      wire::append_bytes_field(nested_, annotation_field::kStringValue, std::get<std::string>(arg.value));
    }
    wire::append_bytes_field(payload_, event_field::kDebugAnnotations, nested_);
  }
  for (uint64_t id : flow_ids) wire::append_fixed64_field(payload_, event_field::kFlowIds, id);
  for (uint64_t id : terminating_flow_ids) {
    wire::append_fixed64_field(payload_, event_field::kTerminatingFlowIds, id);
  }
  write_packet(true, ts, packet_field::kTrackEvent, payload_);
}

void PerfettoWriter::write_packet(bool has_ts, uint64_t ts, uint32_t payload_field,
                                  const std::string& payload) {
  packet_.clear();
  if (has_ts) wire::append_varint_field(packet_, packet_field::kTimestamp, ts);
  wire::append_varint_field(packet_, packet_field::kTrustedPacketSequenceId, sequence_id_);
  if (first_packet_) {
    wire::append_varint_field(packet_, packet_field::kSequenceFlags,
                              packet_field::kSeqIncrementalStateCleared);
    first_packet_ = false;
  }
  wire::append_bytes_field(packet_, payload_field, payload);
  record_.clear();
  wire::append_trace_packet_record(record_, packet_);
  out_.write(record_.data(), static_cast<std::streamsize>(record_.size()));
  if (!out_) throw std::runtime_error("PerfettoWriter: writing the trace stream failed");
}

}  // namespace sk::traces
