#include "traces/sim_trace_export.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "traces/perfetto_writer.h"

namespace sk::traces {
namespace {

struct Event {
  uint64_t ts;
  int kind;  // 0 end, 1 instant, 2 begin
  uint64_t order;
  size_t slice;
  TrackId track;
};

}  // namespace

void write_perfetto(const sim::TraceLog& log, std::ostream& out) {
  const auto& tracks = log.tracks();
  const auto& slices = log.slices();

  // Lanes: for each track, slice i goes to the first lane whose last slice
  // ended at or before it begins.
  std::vector<size_t> order(slices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return slices[a].begin < slices[b].begin;
  });
  std::vector<std::vector<uint64_t>> lane_end(tracks.size());
  std::vector<int> lane_of(slices.size(), 0);
  for (size_t i : order) {
    auto& ends = lane_end[slices[i].track];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > slices[i].begin) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = slices[i].end;
    lane_of[i] = static_cast<int>(lane);
  }

  // Flows: first origin, first strictly later terminating slice.
  std::unordered_map<uint64_t, size_t> origin;
  for (size_t i : order)
    if (slices[i].flow_out != 0 && !origin.count(slices[i].flow_out)) origin[slices[i].flow_out] = i;
  std::unordered_map<uint64_t, size_t> target;
  for (size_t i : order) {
    uint64_t f = slices[i].flow_in;
    if (f == 0 || target.count(f)) continue;
    auto o = origin.find(f);
    if (o != origin.end() && slices[o->second].begin < slices[i].begin) target[f] = i;
  }

  PerfettoWriter w(out);
  std::vector<std::vector<TrackId>> ids(tracks.size());
  for (size_t t = 0; t < tracks.size(); ++t) {
    const auto& tr = tracks[t];
    size_t lanes = std::max<size_t>(1, lane_end[t].size());
    for (size_t l = 0; l < lanes; ++l) {
      std::string name = l == 0 ? tr.name : tr.name + " #" + std::to_string(l + 1);
      TrackId parent = tr.parent < 0 ? kNoParent : ids[tr.parent][0];
      TrackId id;
      if (tr.parent < 0 && l == 0)
        id = w.add_process_track(name, static_cast<int32_t>(t + 1));
      else if (tr.counter)
        id = w.add_counter_track(parent, name, tr.unit, tr.rank);
      else
        id = w.add_track(parent, name, TrackOptions{tr.rank * 8 + static_cast<int32_t>(l), true, ""});
      ids[t].push_back(id);
    }
  }

  std::vector<Event> events;
  events.reserve(slices.size() * 2);
  for (size_t i = 0; i < slices.size(); ++i) {
    const auto& s = slices[i];
    TrackId tid = ids[s.track][lane_of[i]];
    if (s.end == s.begin) {
      events.push_back(Event{s.begin, 1, i, i, tid});
    } else {
      events.push_back(Event{s.begin, 2, i, i, tid});
      events.push_back(Event{s.end, 0, i, i, tid});
    }
  }
  // Same timestamp: ends first; among begins, flow origins before their
  // terminations (origins begin strictly earlier, so ts order suffices), and
  // longer slices first so nesting stays valid.
  std::sort(events.begin(), events.end(), [&](const Event& a, const Event& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.kind == 2 && slices[a.slice].end != slices[b.slice].end)
      return slices[a.slice].end > slices[b.slice].end;
    if (a.kind == 0 && slices[a.slice].begin != slices[b.slice].begin)
      return slices[a.slice].begin > slices[b.slice].begin;
    return a.order < b.order;
  });

  for (const Event& e : events) {
    const auto& s = slices[e.slice];
    if (e.kind == 0) {
      w.end_slice(e.track, e.ts);
      continue;
    }
    std::vector<Arg> args;
    for (const auto& [k, v] : s.args) args.push_back(Arg{k, static_cast<int64_t>(v)});
    std::vector<uint64_t> outs, ins;
    if (s.flow_out != 0 && origin[s.flow_out] == e.slice && target.count(s.flow_out))
      outs.push_back(s.flow_out);
    if (s.flow_in != 0) {
      auto t = target.find(s.flow_in);
      if (t != target.end() && t->second == e.slice) ins.push_back(s.flow_in);
    }
    if (e.kind == 1)
      w.instant(e.track, e.ts, s.name, args, outs, ins);
    else
      w.begin_slice(e.track, e.ts, s.name, args, outs, ins);
  }
  w.finish();
}

}  // namespace sk::traces
