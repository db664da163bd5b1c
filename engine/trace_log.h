// trace_log.h: what the model records for a trace, independent of file format.
//
// Tracks form a tree (GPU -> SM -> CTA -> role / engine tracks). Slices are
// recorded complete (begin and end known), which is natural for a simulator:
// a wait slice is recorded when the wait ends, a TMA transfer when it is issued
// (its completion time is known then). traces/ turns this into Perfetto.
//
// Busy runs (busy()) record what a resource that does one thing at a time
// spends its cycles on (a warp issuing, a SIMD's matrix core, a CU's LDS
// pipe): runs of one name that follow each other without a gap merge into one
// slice, so a long stretch of back-to-back work is one slice, not thousands.
//
// Invariants: track ids are indices into tracks(); a track's parent has a
// smaller id; flow ids are unique and nonzero; every flow recorded with
// flow_out on one slice is terminated by at most one later slice; the busy
// slices of one track are disjoint and in time order (a run that would begin
// before the end of the track's previous busy slice begins at its end).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/finding.h"

namespace sk::sim {

struct TraceTrack {
  std::string name;
  int parent = -1;  // -1: a root (one GPU)
  int rank = 0;     // order among siblings
  bool counter = false;
  std::string unit;
};

struct TraceSlice {
  uint32_t track;
  Cycle begin, end;
  std::string name;
  std::vector<std::pair<std::string, int64_t>> args;
  uint64_t flow_out = 0;  // originates a flow
  uint64_t flow_in = 0;   // terminates a flow
};

struct TraceCounter {
  uint32_t track;
  Cycle ts;
  double value;
};

class TraceLog {
 public:
  bool enabled() const { return enabled_; }
  void set_enabled(bool e) { enabled_ = e; }

  // Returns the id of the child of `parent` named `name`, creating it.
  uint32_t track(int parent, const std::string& name, int rank = 0, bool counter = false,
                 const std::string& unit = "");
  void rename(uint32_t track, const std::string& name);
  void slice(TraceSlice s);
  // Records `ops` operations named `name` keeping `track` busy over
  // [begin, end). A run that begins where the track's previous busy slice
  // ends, with the same name, extends that slice (its "ops" argument, present
  // when ops > 0, sums them); an empty run records nothing.
  void busy(uint32_t track, Cycle begin, Cycle end, const std::string& name, int64_t ops = 0);
  void counter(uint32_t track, Cycle ts, double value);
  uint64_t new_flow() { return ++next_flow_; }

  const std::vector<TraceTrack>& tracks() const { return tracks_; }
  const std::vector<TraceSlice>& slices() const { return slices_; }
  const std::vector<TraceCounter>& counters() const { return counters_; }

 private:
  bool enabled_ = false;
  std::vector<TraceTrack> tracks_;
  std::map<std::pair<int, std::string>, uint32_t> by_name_;
  std::vector<TraceSlice> slices_;
  std::vector<size_t> last_busy_;  // per track: index of its last busy slice + 1 (0: none)
  std::vector<TraceCounter> counters_;
  uint64_t next_flow_ = 0;
};

}  // namespace sk::sim
