// perfetto_writer.h: streams a native Perfetto trace (TrackEvent protobuf).
//
// The output is a run of `Trace.packet` records (0x0A <varint len> <TracePacket>)
// written straight to the ostream as each call is made, so the trace is never
// held in memory; only per-track state (name, last timestamp, stack of open
// slice starts) and the flows still waiting for their other end are kept.
//
// Invariants the writer keeps, so that trace_processor never silently drops or
// misdraws anything (the simulator must never produce an invalid trace):
//   * every packet carries the same non-zero trusted_packet_sequence_id and the
//     first packet carries SEQ_INCREMENTAL_STATE_CLEARED; names are written
//     inline (no interning), so no packet depends on incremental state;
//   * a track's descriptor is written once, when the track is added, i.e.
//     before any event can use it; uuids are 1, 2, 3... (non-zero, unique,
//     far below 2^53 so the UI's JavaScript never rounds them);
//   * sibling tracks have unique names (same-name siblings would be merged into
//     one visual track by the UI) and process tracks have unique pids;
//   * per track, timestamps never decrease and BEGIN/END form a strict stack;
//     slices go on slice/process tracks only, values on counter tracks only;
//   * a flow id originates once and terminates once (and is never used again),
//     on a slice that starts at
//     or after the originating slice (trace_processor decides arrow direction
//     by slice start times, and ignores a terminator it sees before the origin).
// Violations throw std::logic_error before anything is written for that call.
//
// Timestamps are simulated cycles written as nanoseconds (1 cycle shows as 1 ns).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace sk::traces {

using TrackId = uint64_t;

// Parent for a top-level custom track (it then appears as a global track group).
inline constexpr TrackId kNoParent = 0;
inline constexpr uint32_t kDefaultSequenceId = 1;

struct TrackOptions {
  // Position among siblings; only honoured when the parent orders explicitly.
  int32_t sibling_rank = 0;
  // Whether this track's own children are ordered by their sibling_rank
  // (child_ordering = EXPLICIT) instead of the UI's default.
  bool explicit_child_order = true;
  // Shown in the UI's help popup for the track.
  std::string description;
};

// One debug annotation; trace_processor exposes it as arg "debug.<name>".
// Integers must be int64_t (cast unsigned values) so the value stays typed.
struct Arg {
  std::string name;
  std::variant<int64_t, double, std::string> value;
};

class PerfettoWriter {
 public:
  explicit PerfettoWriter(std::ostream& out, uint32_t sequence_id = kDefaultSequenceId);
  ~PerfettoWriter();  // flushes; never throws (call finish() to validate the end)
  PerfettoWriter(const PerfettoWriter&) = delete;
  PerfettoWriter& operator=(const PerfettoWriter&) = delete;

  // Root track of one GPU. Note: the UI does not nest children of a process
  // track under it; they become siblings shown inside the process group.
  TrackId add_process_track(const std::string& name, int32_t pid);
  // Slice track; `parent` is kNoParent or any non-counter track. The name must
  // be unique among the parent's children.
  TrackId add_track(TrackId parent, const std::string& name, const TrackOptions& options = {});
  // Counter track; `unit_name` is free-form ("bytes", "stages"), may be empty.
  TrackId add_counter_track(TrackId parent, const std::string& name, const std::string& unit_name,
                            int32_t sibling_rank = 0);

  // Flow ids bind to the slice this event opens. `flow_ids` start arrows,
  // `terminating_flow_ids` end them.
  void begin_slice(TrackId track, uint64_t ts, const std::string& name,
                   const std::vector<Arg>& args = {}, const std::vector<uint64_t>& flow_ids = {},
                   const std::vector<uint64_t>& terminating_flow_ids = {});
  // Closes the newest open slice on `track`.
  void end_slice(TrackId track, uint64_t ts);
  // Zero-duration slice at the track's current nesting depth.
  void instant(TrackId track, uint64_t ts, const std::string& name,
               const std::vector<Arg>& args = {}, const std::vector<uint64_t>& flow_ids = {},
               const std::vector<uint64_t>& terminating_flow_ids = {});
  void counter(TrackId track, uint64_t ts, double value);

  // End-of-trace check: throws std::logic_error if a slice is still open or a
  // flow lacks its other end; flushes the stream either way.
  void finish();

  uint32_t sequence_id() const { return sequence_id_; }
  size_t open_slice_count() const;
  size_t pending_flow_count() const { return pending_flows_.size(); }

 private:
  enum class TrackKind : uint8_t { kProcess, kSlice, kCounter };
  struct TrackState {
    TrackKind kind;
    std::string name;
    bool has_ts = false;
    uint64_t last_ts = 0;
    std::vector<uint64_t> open_starts;  // start ts of each open slice, oldest first
  };
  // A flow whose other end has not been written yet.
  struct PendingFlow {
    bool seen_origin;    // false: only the terminator has been written so far
    uint64_t slice_start;
  };

  TrackId new_track(TrackId parent, const std::string& name, TrackKind kind);
  TrackState& event_track(TrackId track, uint64_t ts, bool want_counter, const char* what);
  void check_flows(const std::string& name, uint64_t ts, const std::vector<uint64_t>& flow_ids,
                   const std::vector<uint64_t>& terminating_flow_ids) const;
  void commit_flows(uint64_t ts, const std::vector<uint64_t>& flow_ids,
                    const std::vector<uint64_t>& terminating_flow_ids);
  void write_slice_event(uint32_t type, TrackId track, uint64_t ts, const std::string& name,
                         const std::vector<Arg>& args, const std::vector<uint64_t>& flow_ids,
                         const std::vector<uint64_t>& terminating_flow_ids);
  void write_packet(bool has_ts, uint64_t ts, uint32_t payload_field, const std::string& payload);

  std::ostream& out_;
  const uint32_t sequence_id_;
  bool first_packet_ = true;
  std::vector<TrackState> tracks_;  // index = uuid - 1
  std::set<std::pair<TrackId, std::string>> sibling_names_;
  std::set<int32_t> pids_;
  std::unordered_map<uint64_t, PendingFlow> pending_flows_;
  // Ids of finished flows as [first, last] ranges: a simulator numbers its
  // flows densely, so this stays a handful of entries however long the trace.
  std::map<uint64_t, uint64_t> finished_flows_;
  // Scratch buffers reused across calls so steady-state writing does not allocate.
  std::string packet_, payload_, nested_, record_;
};

}  // namespace sk::traces
