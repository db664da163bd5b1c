// cluster_order.cc: what the CTAs of a cluster must order around a peer's
// life (race_detector.h): a peer's shared memory and barriers are used only
// after something orders the user after the peer started
// (cluster.peer_not_started), and every peer's access to a CTA is ordered
// before that CTA's exit (cluster.exit_not_ordered). Invariant: both are
// judged on happens-before, not on the model's timing.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "engine/source_loc.h"
#include "engine/warp.h"
#include "verify/hb/race_detector.h"
#include "verify/hb/report_text.h"

namespace sk::verify {

bool RaceDetector::knows_started(const VectorClock& vc, int cta) const {
  const uint32_t first = static_cast<uint32_t>((cta % cluster_size_) * warps_per_cta_);
  for (uint32_t i = 0; i < static_cast<uint32_t>(warps_per_cta_); ++i)
    if (vc.get(first + i) > 0) return true;
  return false;
}

void RaceDetector::check_peer_started(const sim::Warp& w, const VectorClock& vc, int cta,
                                      const char* what, const sim::Site& site) {
  if (cta == w.cta() || domain(cta) != domain(w.cta()) || knows_started(vc, cta)) return;
  std::optional<sim::Finding> f = new_finding("cluster", "cluster.peer_not_started", site, cta);
  if (!f) return;
  f->message = fmt::format(
      "{} by {} targets CTA {} (rank {} of the cluster), but nothing orders it after anything "
      "CTA {} did: a CTA of the cluster may use a peer's shared memory or barriers only once it "
      "knows the peer is running (the CUDA programming guide's rule for distributed shared "
      "memory); meet the cluster barrier after launch first (barrier.cluster.arrive and wait: "
      "arch::cluster_sync)",
      what, who(w), cta, cta % cluster_size_, cta);
  f->cta = w.cta();
  f->warp = w.index();
  f->role = w.role();
  engine_.report(std::move(*f));
}

void RaceDetector::cta_exit(int cta) {
  CtaState& c = ctas_[cta];
  if (c.remote.empty()) return;
  VectorClock exit;
  for (const VectorClock& vc : c.warp) exit.join(vc);
  for (const Remote& r : c.remote) {
    bool ordered = false;
    if (r.op == 0) {
      ordered = exit.get(comp(*r.warp)) >= r.clock;
    } else {
      for (const Epoch& e : ops_[r.op - 1].resolved) ordered |= exit.get(e.comp) >= e.value;
    }
    if (ordered) continue;
    std::optional<sim::Finding> f = new_finding("cluster", "cluster.exit_not_ordered", r.site, cta);
    if (!f) continue;
    f->message = fmt::format(
        "CTA {} exited, but a {} on it by {} at cycle {} is not ordered before its exit: nothing "
        "CTA {} waited on covers it, so on hardware it may reach the CTA's shared memory after "
        "the SM has moved on; drain what peers send (wait on the barriers they arrive on or load "
        "into) and meet the cluster barrier before exiting, also with peers that read it",
        cta, r.what, who(*r.warp), r.cycle, cta);
    f->details.push_back(fmt::format("remote: {} by {} ({})", r.what, who(*r.warp),
                                     sim::format_site(r.site)));
    engine_.report(std::move(*f));
  }
  c.remote.clear();
}

}  // namespace sk::verify
