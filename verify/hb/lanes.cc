// lanes.cc: a warp's lanes in the race detector (race_detector.h). A write
// made in a lane loop is published to others only by a release that covers
// its lane (the lane's own, or one after a __syncwarp or a whole-warp
// release); another lane of the same warp sees it only after a lane sync;
// after an acquire by part of a warp, its other lanes lag until a
// __syncwarp or a whole-warp acquire. Invariants: lane syncs are kept in the
// order of the warp's clock; 32-lane warps only (a CDNA wave's lanes issue
// in lockstep).
#include <algorithm>

#include "engine/warp.h"
#include "verify/hb/race_detector.h"

namespace sk::verify {

void RaceDetector::note_partial_acquire(const sim::Warp& w, uint32_t from) {
  if (w.lanes() != 32) return;  // a CDNA wave's lanes issue in lockstep
  CtaState::Lag& l = ctas_[w.cta()].lag[w.index()];
  if (l.lanes == 0) {
    l.clock = clock_of(w);
    l.wclock = wclock_of(w);
    l.from = from;
  }
  l.lanes |= ~w.active_mask() & 0xffffffffull;
}

void RaceDetector::warp_sync(const sim::Warp& w) {
  if (!w.all_lanes_active()) return;
  clear_lag(w);
  const uint32_t at = clock_of(w).get(comp(w));
  ctas_[w.cta()].lane_syncs[w.index()].push_back(LaneSync{at, at + 1});
  tick(w);  // releases after the sync carry more than `at`
}

bool RaceDetector::lane_published(const Record& r, uint32_t seen) const {
  const CtaState& c = ctas_[r.warp->cta()];
  const size_t w = static_cast<size_t>(r.warp->index());
  const uint32_t own = c.lane_released[w][static_cast<size_t>(r.lane)];
  return (own >= r.clock && seen >= own) || lane_synced(r, seen);
}

int RaceDetector::access_lane(const sim::Warp& w) {
  if (w.current_lane() >= 0) return w.current_lane();
  const uint64_t m = w.active_mask();
  return m != 0 && (m & (m - 1)) == 0 ? __builtin_ctzll(m) : -1;
}

bool RaceDetector::lane_synced(const Record& r, uint32_t seen) const {
  const std::vector<LaneSync>& syncs = ctas_[r.warp->cta()].lane_syncs[static_cast<size_t>(r.warp->index())];
  auto it = std::lower_bound(syncs.begin(), syncs.end(), r.clock,
                             [](const LaneSync& s, uint32_t v) { return s.upto < v; });
  return it != syncs.end() && seen >= it->need;
}

bool RaceDetector::lane_before_op(const Record& r, const Op& o) const {
  // The operation's clock at issue is one below issue_clock (issue ticks).
  return ((o.lanes >> r.lane) & 1) != 0 || lane_synced(r, o.issue_clock - 1);
}

}  // namespace sk::verify
