#include "verify/explore/report.h"

#include <fmt/format.h>

#include "engine/call_site.h"

namespace sk::verify {

std::string format_found(const FoundFinding& f, uint64_t explored, const std::string& replay) {
  const sim::Finding& x = f.finding;
  std::string s = fmt::format("[{}] {}: {}\n", x.cls, x.rule, x.message);
  if (!x.location.empty()) s += fmt::format("    at {}", x.location);
  if (x.cta >= 0) s += fmt::format("{}CTA {}", x.location.empty() ? "    " : ", ", x.cta);
  if (x.warp >= 0) s += fmt::format(" warp {}{}", x.warp, x.role.empty() ? "" : " (" + x.role + ")");
  s += fmt::format(", cycle {}\n", x.cycle);
  if (!x.chain.empty()) s += "    through " + sim::join_chain(x.chain) + "\n";
  for (const auto& d : x.details) s += "    " + d + "\n";
  s += fmt::format("    seed {} (seen in {} of {} schedules)", f.seed, f.schedules, explored);
  if (!replay.empty()) s += fmt::format("; replay: {} --seed {}", replay, f.seed);
  return s + "\n";
}

std::string format_report(const ExploreReport& r, const std::string& replay) {
  std::string s = fmt::format("explored {} schedule(s) in {:.2f} s: {} distinct finding(s)\n",
                              r.explored, r.wall_s, r.findings.size());
  if (r.orders > 0)
    s += fmt::format("interleavings covered: {} distinct synchronization orders\n", r.orders);
  for (const auto& f : r.findings) s += format_found(f, r.explored, replay);
  for (const auto& e : r.errors) s += "error: " + e + "\n";
  if (r.limited > 0)
    s += fmt::format("limit: {} schedule(s) stopped at --max-cycles or --wall-limit before the "
                     "kernel finished (first: seed {}); they were explored only that far\n",
                     r.limited, r.first_limited_seed);
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';
        else o += c;
    }
  }
  return o;
}

}  // namespace sk::verify
