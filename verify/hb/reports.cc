// reports.cc: the race detector's reports (race_detector.h): the text of an
// access, a range and a barrier, a pair of accesses, the scope rules' pairs
// with the CTA-scope release or acquire between them, and the opening of the
// detector's own findings. Invariant: every report is made once per (rule,
// its lines) and within the detector's cap.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "engine/source_loc.h"
#include "engine/warp.h"
#include "verify/hb/race_detector.h"
#include "verify/hb/report_text.h"

namespace sk::verify {

std::string RaceDetector::range_text(sim::Space s, uint64_t lo, uint64_t hi) const {
  if (s == sim::Space::kGlobal && global_namer_)
    return fmt::format("bytes [{}, {})", global_namer_(lo), global_namer_(hi));
  if (s == sim::Space::kTmem) {
    uint64_t q0 = lo / sim::kTmemQuarterStride, q1 = (hi - 1) / sim::kTmemQuarterStride;
    return fmt::format("lanes [{}, {}) columns [{}, {})", 32 * q0, 32 * (q1 + 1),
                       lo % sim::kTmemQuarterStride, (hi - 1) % sim::kTmemQuarterStride + 1);
  }
  return fmt::format("bytes [{:#x}, {:#x})", lo, hi);
}

RaceDetector::RaceDetector(sim::Engine& engine) : engine_(engine) {}

std::string RaceDetector::describe(const Record& r) const {
  return fmt::format("{} {} {} {} by {}{} at cycle {} ({})", r.what,
                     r.atomic ? "atomically updates" : r.write ? "writes" : "reads",
                     space_name(r.space), range_text(r.space, r.lo, r.hi), who(*r.warp),
                     r.op != 0 ? " (async)" : "", r.cycle, sim::format_site(r.site));
}

void RaceDetector::report_pair(const std::string& cls, const std::string& rule,
                               const std::string& why, const Record& earlier, const Record& later,
                               uint64_t granule, const std::string& extra) {
  auto key = std::make_tuple(rule, sim::format_location(earlier.site.loc),
                             sim::format_location(later.site.loc));
  if (!reported_.insert(key).second || race_reports_ >= kMaxRaceReports) return;
  ++race_reports_;
  const uint64_t g = later.space == sim::Space::kTmem ? 1 : 16;
  const uint64_t lo = std::max(earlier.lo, later.lo), hi = std::min(earlier.hi, later.hi);
  std::string where = lo < hi ? range_text(later.space, lo, hi)
                              : range_text(later.space, granule * g, granule * g + g);
  sim::Finding f;
  f.cls = cls;
  f.rule = rule;
  f.message = fmt::format("{} {} of CTA {}: {} by {} is not ordered after {} by {}; {}",
                          space_name(later.space), where, later.cta, later.what,
                          who(*later.warp), earlier.what, who(*earlier.warp), why);
  sim::locate(f, later.site);
  f.cta = later.warp->cta();
  f.warp = later.warp->index();
  f.role = later.warp->role();
  f.details.push_back("earlier: " + describe(earlier));
  f.details.push_back("later:   " + describe(later));
  if (!extra.empty()) f.details.push_back(extra);
  engine_.report(std::move(f));
}

void RaceDetector::report_scope(const Record& earlier, const Record& later, const Accessor& a,
                                uint64_t granule) {
  // The CTA-scope release the accessor is ordered after: the writer's own
  // (after its write) if there is one, else the latest.
  const CtaScopeRelease* via = nullptr;
  for (auto it = cta_scope_releases_.rbegin(); it != cta_scope_releases_.rend(); ++it) {
    if (domain(it->warp->cta()) != domain(a.cta) || a.clock->get(comp(*it->warp)) < it->clock)
      continue;
    // A release whose cluster fence covered the write published it.
    if (it->warp == earlier.warp && it->fenced >= earlier.clock) continue;
    if (it->warp == earlier.warp && it->clock >= earlier.clock) {
      via = &*it;
      break;
    }
    if (via == nullptr) via = &*it;
  }
  // Not the writer's own CTA-scope release: an acquire at CTA scope that
  // the accessor is ordered after (its own, the latest) may be what dropped
  // the write.
  if (via == nullptr || via->warp != earlier.warp) {
    const CtaScopeAcquire* acq = nullptr;
    for (auto it = cta_scope_acquires_.rbegin(); it != cta_scope_acquires_.rend(); ++it) {
      if (it->warp->cta() != a.warp->cta() || a.clock->get(comp(*it->warp)) < it->clock) continue;
      if (acq == nullptr || it->warp == a.warp) acq = &*it;
      if (it->warp == a.warp) break;
    }
    if (acq != nullptr) {
      report_scope_acquire(*acq, earlier, later, a, granule);
      return;
    }
  }
  std::string release = "a release at CTA scope";
  std::string extra;
  if (via != nullptr) {
    release = fmt::format("mbarrier.arrive.shared::cluster (release at CTA scope) by {} on {} of "
                          "CTA {} at cycle {}",
                          who(*via->warp), barrier_name(via->cta, via->key), via->cta, via->cycle);
    extra = fmt::format("release: {} ({})", release, sim::format_site(via->site));
  }
  report_pair(
      "scope", "scope.cta_release_cross_cta",
      fmt::format("the write reaches CTA {} only through {}, which orders the releasing thread's "
                  "reads for another CTA of the cluster but does not make writes visible there "
                  "(PTX memory model: a release and an acquire synchronize only when each is in "
                  "the other's scope); release at cluster scope: arrive with .release.cluster "
                  "(arch::mbarrier_arrive_cluster_release) or issue fence.acq_rel.cluster "
                  "(arch::fence_acq_rel_cluster) before the arrive",
                  a.warp->cta(), release),
      earlier, later, granule, extra);
}

std::string RaceDetector::barrier_name(int cta, uint64_t key) const {
  const auto& syncs = ctas_[cta].syncs;
  const auto it = syncs.find(key);
  return it == syncs.end() || it->second.name.empty()
             ? fmt::format("the mbarrier at offset {:#x}", key)
             : it->second.name;
}

void RaceDetector::report_scope_acquire(const CtaScopeAcquire& acq, const Record& earlier,
                                        const Record& later, const Accessor& a, uint64_t granule) {
  report_pair(
      "scope", "scope.cta_acquire_cross_cta",
      fmt::format("the write reaches CTA {} through a release into {}, but {} waited on it at "
                  "cycle {} with mbarrier.try_wait at CTA scope (the default .acquire.cta), which "
                  "does not synchronize with a release by another CTA of the cluster (PTX memory "
                  "model: a release and an acquire synchronize only when each is in the other's "
                  "scope; cutlass#3324); wait with .acquire.cluster "
                  "(arch::mbarrier_try_wait_parity_cluster) or issue fence.acq_rel.cluster "
                  "(arch::fence_acq_rel_cluster) after the wait",
                  a.warp->cta(), barrier_name(acq.warp->cta(), acq.key), who(*acq.warp), acq.cycle),
      earlier, later, granule, fmt::format("acquire: {}", sim::format_site(acq.site)));
}

std::optional<sim::Finding> RaceDetector::new_finding(const char* cls, const char* rule,
                                                      const sim::Site& site, int cta) {
  auto key = std::make_tuple(std::string(rule), sim::format_location(site.loc), std::to_string(cta));
  if (!reported_.insert(key).second || race_reports_ >= kMaxRaceReports) return std::nullopt;
  ++race_reports_;
  sim::Finding f;
  f.cls = cls;
  f.rule = rule;
  sim::locate(f, site);
  f.cta = cta;
  return f;
}

}  // namespace sk::verify
