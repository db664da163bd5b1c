// trace_log.cc: see trace_log.h.
#include "engine/trace_log.h"

#include <algorithm>

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

void TraceLog::busy(uint32_t track, Cycle begin, Cycle end, const std::string& name,
                    int64_t ops) {
  if (!enabled_) return;
  if (track >= last_busy_.size()) last_busy_.resize(track + 1, 0);
  size_t& last = last_busy_[track];
  if (last != 0) {
    TraceSlice& p = slices_[last - 1];
    begin = std::max(begin, p.end);
    end = std::max(end, begin);
    if (begin == p.end && p.name == name) {
      p.end = end;
      if (ops > 0 && !p.args.empty()) p.args.front().second += ops;
      return;
    }
  }
  if (end <= begin) return;
  TraceSlice s{track, begin, end, name, {}, 0, 0};
  if (ops > 0) s.args.emplace_back("ops", ops);
  slices_.push_back(std::move(s));
  last = slices_.size();
}

void TraceLog::counter(uint32_t track, Cycle ts, double value) {
  if (!enabled_) return;
  counters_.push_back(TraceCounter{track, ts, value});
}

}  // namespace sk::sim
