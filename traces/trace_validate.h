// trace_validate.h: an in-process, independent checker for the native Perfetto
// traces that PerfettoWriter produces (for fuzzing and tests, where running the
// protoc-based traces/tools/check_trace.py per input is too slow).
//
// It decodes the protobuf wire format with its own reader (none of the writer's
// encoding code) and accepts any input bytes: it never reads out of bounds,
// recurses at most 100 messages deep and always ends with ok or an error.
//
// Checks, mirroring check_trace.py where it has the rule:
//   * framing: every top-level field is Trace.packet (field 1, length-delimited)
//     and nothing is truncated or trails; every field of every nested message
//     is in the schema subset (traces/proto/perfetto_trace_subset.proto) with
//     its wire type, enums hold known values; a singular field appears at most
//     once and a oneof has one member set (stricter than protobuf's merging);
//   * every packet carries the same non-zero trusted_packet_sequence_id and the
//     first one sets SEQ_INCREMENTAL_STATE_CLEARED;
//   * track descriptors: uuid non-zero and unique; parent_uuid declared by an
//     earlier descriptor that is not a counter track; sibling names unique
//     unless sibling_merge_behavior is set; process pids unique;
//   * events: a timestamp that fits in int64, a track declared earlier, slices
//     (BEGIN/END/INSTANT) only on non-counter tracks, counter values only on
//     counter tracks (and present); per track, timestamps never decrease;
//   * BEGIN/END form a strict stack per track and nothing is open at the end;
//   * every non-zero flow id originates once and terminates once, on another
//     event, replayed (by timestamp, then file position) after the origin, on a
//     slice that starts at or after the originating slice; none is left dangling.
// With per-track timestamps non-decreasing, replaying in file order gives the
// same stacks and flow ends as check_trace.py's stable sort by timestamp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sk::traces {

struct TraceValidation {
  bool ok = false;
  std::string error;  // the first problem found, one line; empty when ok
  // Counts of what was read (complete only when ok): packets, declared tracks,
  // slices (BEGIN + INSTANT), counter events, flows with both ends.
  uint64_t packets = 0, tracks = 0, slices = 0, counters = 0, flows = 0;
};

TraceValidation validate_trace(std::string_view bytes);

}  // namespace sk::traces
