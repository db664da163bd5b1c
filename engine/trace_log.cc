#include "engine/trace_log.h"

namespace sk::sim {

uint32_t TraceLog::track(int parent, const std::string& name, int rank, bool counter,
                         const std::string& unit) {
  auto key = std::make_pair(parent, name);
  auto it = by_name_.find(key);
  if (it != by_name_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(tracks_.size());
  tracks_.push_back(TraceTrack{name, parent, rank, counter, unit});
  by_name_.emplace(key, id);
  return id;
}

void TraceLog::rename(uint32_t id, const std::string& name) {
  TraceTrack& t = tracks_.at(id);
  by_name_.erase({t.parent, t.name});
  t.name = name;
  by_name_[{t.parent, name}] = id;
}

void TraceLog::slice(TraceSlice s) {
  if (!enabled_) return;
  if (s.end < s.begin) s.end = s.begin;
  slices_.push_back(std::move(s));
}

void TraceLog::counter(uint32_t track, Cycle ts, double value) {
  if (!enabled_) return;
  counters_.push_back(TraceCounter{track, ts, value});
}

}  // namespace sk::sim
