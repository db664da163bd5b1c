// init_order.cc: the race detector's initialisation-order check.
//
// A sync object that must be initialised (an mbarrier: mbarrier.init; an
// MI300X pipeline counter: the store that zeroes it) gets its init as an event
// on the initialising warp's clock. Every use of the object by any warp (an
// arrive, a wait, expect_tx, the issue of a TMA load or commit that completes
// on it, a counter atomic) must be ordered after that event by happens-before:
// by program order, or through a barrier the initialising warp reached after
// the init. Otherwise the init is not guaranteed to be visible to the user on
// hardware, whatever order this schedule ran them in.
//
// Invariants:
//   * the check is made on the first schedule in which both events happen: a
//     use after the init in time is checked at the use; a use before any init
//     (which the model also reports as use before init) is remembered, first
//     per warp, and checked when the init comes;
//   * a use ordered *before* the init is not this rule's finding (the model's
//     use-before-init finding covers it);
//   * a re-init starts a new incarnation: later uses are checked against it;
//   * one report per (rule, use line, init line), within the detector's cap.
#include <fmt/format.h>

#include "engine/source_loc.h"
#include "engine/warp.h"
#include "verify/hb/race_detector.h"
#include "verify/hb/report_text.h"

namespace sk::verify {
namespace {
constexpr int kMaxReports = 32;

std::string object_name(std::string_view name, uint64_t key) {
  return name.empty() ? fmt::format("the object at shared offset {:#x}", key) : std::string(name);
}
}  // namespace

RaceDetector::SyncEvent RaceDetector::event_now(const sim::Warp& w, const char* what,
                                                const std::source_location& loc) const {
  SyncEvent e;
  e.warp = &w;
  e.clock = ctas_[w.cta()].warp[w.index()].get(comp(w));
  e.what = what;
  e.site = w.site(loc);
  e.cycle = engine_.now();
  return e;
}

void RaceDetector::sync_init(const sim::Warp& w, uint64_t key, const InitKind& init,
                             const std::source_location& loc) {
  CtaState& c = ctas_[w.cta()];
  std::vector<SyncEvent> early;
  if (auto it = c.syncs.find(key); it != c.syncs.end()) early = std::move(it->second.early);
  Sync s;
  s.comp = new_component(w.cta());
  s.init = event_now(w, init.what, loc);
  s.kind = init;
  Sync& stored = c.syncs[key] = std::move(s);
  // Uses that came earlier in time: a finding unless they are ordered before
  // the init (then they are plainly a use before init, reported by the model).
  const VectorClock& vc = c.warp[w.index()];
  for (const SyncEvent& use : early)
    if (use.warp != &w && vc.get(comp(*use.warp)) < use.clock)
      report_init_order(stored, use, key, true);
}

void RaceDetector::sync_use(const sim::Warp& w, uint64_t key, const char* what,
                            std::string_view name, const std::source_location& loc) {
  sync_use_at(w, w.cta(), key, what, name, loc);
}

void RaceDetector::sync_use_at(const sim::Warp& w, int cta, uint64_t key, const char* what,
                               std::string_view name, const std::source_location& loc) {
  Sync& s = sync(cta, key);
  if (s.name.empty() && !name.empty()) s.name = std::string(name);
  if (s.init.warp == nullptr) {
    for (const SyncEvent& e : s.early)
      if (e.warp == &w) return;
    SyncEvent e = event_now(w, what, loc);
    e.name = std::string(name);
    s.early.push_back(std::move(e));
    return;
  }
  const sim::Warp& init = *s.init.warp;
  if (&init == &w) return;
  const VectorClock& vc = ctas_[w.cta()].warp[w.index()];
  if (vc.get(comp(init)) >= s.init.clock) return;
  SyncEvent use = event_now(w, what, loc);
  use.name = std::string(name);
  report_init_order(s, use, key, false);
}

void RaceDetector::report_init_order(const Sync& s, const SyncEvent& use, uint64_t key,
                                     bool use_first) {
  auto dedupe = std::make_tuple(std::string(s.kind.rule), sim::format_location(use.site.loc),
                                sim::format_location(s.init.site.loc));
  if (!reported_.insert(dedupe).second || init_reports_ >= kMaxReports) return;
  ++init_reports_;
  const sim::Warp& init = *s.init.warp;
  sim::Finding f;
  f.cls = "mbarrier";
  f.rule = s.kind.rule;
  f.message = fmt::format(
      "{} on {} by {} is not ordered after its {} by {} at {}; no happens-before edge leads from "
      "the init to this use ({} in this schedule), so on hardware the use may see the object "
      "uninitialised: {}",
      use.what, object_name(use.name, key), who(*use.warp), s.kind.what, who(init),
      sim::format_site(s.init.site),
      use_first ? "the use ran before the init" : "the init happened to run first", s.kind.fix);
  sim::locate(f, use.site);
  f.cta = use.warp->cta();
  f.warp = use.warp->index();
  f.role = use.warp->role();
  f.details.push_back(fmt::format("init: {} by {} at cycle {} ({})", s.kind.what, who(init),
                                  s.init.cycle, sim::format_site(s.init.site)));
  f.details.push_back(fmt::format("use:  {} by {} at cycle {} ({})", use.what, who(*use.warp),
                                  use.cycle, sim::format_site(use.site)));
  engine_.report(std::move(f));
}

}  // namespace sk::verify
