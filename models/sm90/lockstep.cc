// lockstep.cc: see lockstep.h.
#include "models/sm90/lockstep.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <systemc>

#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"

namespace sk::models::sm90::api {
namespace {
using sm100::Cta;
using sm100::api::gpu;
using sm100::api::local_now;
using sim::Cycle;

constexpr int kMembers = 4;
const std::string kLeaderWait = "warpgroup converge";
const std::string kFollowerWait = "lockstep: its leader runs the region";

// One warpgroup's regions: region n of each warp pairs with region n of the
// others (counted from 1).
struct Region {
  std::array<uint64_t, kMembers> entered{};  // regions each warp has entered
  std::array<Cycle, kMembers> entry_at{};    // and its time at the last entry
  uint64_t exits = 0;                        // regions the leader has left
  Cycle exit_at = 0;                         // the leader's time at its last exit
  const sim::Warp* leader = nullptr;
  std::pair<uint64_t, uint64_t> leader_calls{};  // of the last region left
  // The leader's stalls at its entry, and what the region added to them.
  std::vector<std::pair<std::string, Cycle>> stalls_at_entry, stalls_in_region;
  std::unique_ptr<sc_core::sc_event> entered_ev = std::make_unique<sc_core::sc_event>();
  std::unique_ptr<sc_core::sc_event> exited_ev = std::make_unique<sc_core::sc_event>();
};

bool& enabled() {
  static bool on = true;
  return on;
}

// By CTA and warpgroup; cleared by reset_lockstep().
std::unordered_map<uint64_t, Region>& regions() {
  static std::unordered_map<uint64_t, Region> r;
  return r;
}
Region& region_of(const Cta& cta, const sim::Warp& w) {
  return regions()[static_cast<uint64_t>(cta.id) << 8 | static_cast<uint64_t>(w.index() / kMembers)];
}

// Whether this warp's region runs in lockstep: the same answer for every
// warp of a launch's warpgroup of four.
bool lockstep_here(const Cta& cta, const sim::Warp& w) {
  return enabled() && gpu().obs() == nullptr &&
         gpu().engine().schedule().seed() == 0 && cta.warps - w.index() / kMembers * kMembers >= kMembers;
}

// What `now` adds to `before` (stalls by what, first-seen order).
std::vector<std::pair<std::string, Cycle>> stall_delta(
    const std::vector<std::pair<std::string, Cycle>>& before,
    const std::vector<std::pair<std::string, Cycle>>& now) {
  std::vector<std::pair<std::string, Cycle>> d;
  for (const auto& [what, c] : now) {
    Cycle was = 0;
    for (const auto& [w0, c0] : before)
      if (w0 == what) was = c0;
    if (c > was) d.emplace_back(what, c - was);
  }
  return d;
}
}  // namespace

void set_lockstep(bool on) { enabled() = on; }
void reset_lockstep() { regions().clear(); }

void warpgroup_converged_begin(const Loc& loc) {
  sim::Warp& w = gpu().warp();
  w.set_location(loc);
  Cta& cta = gpu().cta_of_current();
  if (!lockstep_here(cta, w)) return;
  Region& r = region_of(cta, w);
  const int q = w.index() % kMembers;
  const uint64_t n = ++r.entered[q];
  r.entry_at[q] = local_now(w);
  w.clear_region_calls();
  if (q != 0) {
    w.set_follower(true);
    r.entered_ev->notify(sc_core::SC_ZERO_TIME);
    return;
  }
  // The leader: the region starts when the last of the four has entered.
  w.block_until(
      *r.entered_ev,
      [&r, n] { return std::all_of(r.entered.begin(), r.entered.end(), [n](uint64_t e) { return e >= n; }); },
      [&w, &r, n] {
        std::string late;
        for (int i = 1; i < kMembers; ++i)
          if (r.entered[i] < n) late += fmt::format("{}{}", late.empty() ? "" : ", ", w.index() + i);
        return fmt::format("warp {} waits for warp(s) {} of its warpgroup to reach the converged region "
                           "(arch::warpgroup_converged_begin) that it has reached",
                           w.index(), late);
      },
      kLeaderWait);
  // As the .sync.aligned wgmma, the region's ops wait for the last warp.
  const Cycle latest = *std::max_element(r.entry_at.begin(), r.entry_at.end());
  if (latest > local_now(w)) w.spend(latest - local_now(w));
  r.leader = &w;
  r.stalls_at_entry = w.stalls_by_what();
  w.set_acts_for(kMembers);
}

void warpgroup_converged_end(const Loc& loc) {
  sim::Warp& w = gpu().warp();
  Cta& cta = gpu().cta_of_current();
  if (w.acts_for() > 1) {  // the leader, leaving
    w.set_location(loc);
    Region& r = region_of(cta, w);
    w.set_acts_for(1);
    r.exit_at = local_now(w);
    r.leader_calls = w.region_calls();
    r.stalls_in_region = stall_delta(r.stalls_at_entry, w.stalls_by_what());
    ++r.exits;
    r.exited_ev->notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (!w.follower()) return;  // no lockstep here
  w.set_location(loc);
  w.set_follower(false);
  Region& r = region_of(cta, w);
  const uint64_t n = r.entered[w.index() % kMembers];
  w.block_until(
      *r.exited_ev, [&r, n] { return r.exits >= n; },
      [&w] {
        return fmt::format("warp {} waits for warp {}, which runs their warpgroup's converged region for it",
                           w.index(), w.index() / kMembers * kMembers);
      },
      kFollowerWait);
  if (r.exit_at > local_now(w)) w.spend(r.exit_at - local_now(w));
  w.absorb_stalls(r.stalls_in_region, kFollowerWait);
  follow_wgmma_stream(w, *r.leader);
  if (w.region_calls() != r.leader_calls)
    gpu().finding(
        "model", "model.lockstep_diverged",
        fmt::format("warp {} made {} calls in its warpgroup's converged region where warp {} made {}: the "
                    "region (arch::warpgroup_converged_begin to _end) is not run alike by the four warps",
                    w.index(), w.region_calls().first, r.leader->index(), r.leader_calls.first),
        loc);
}

}  // namespace sk::models::sm90::api
