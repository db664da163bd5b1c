// report_text.h: what the race detector's files share in their reports
// (internal to verify/hb): the cap on race reports and the names of a
// memory space and a warp.
#pragma once

#include <fmt/format.h>

#include <string>

#include "engine/observer.h"
#include "engine/warp.h"

namespace sk::verify {

inline constexpr int kMaxRaceReports = 32;

inline const char* space_name(sim::Space s) {
  switch (s) {
    case sim::Space::kSmem: return "shared memory";
    case sim::Space::kTmem: return "TMEM";
    default: return "global memory";
  }
}

// "CTA 1 warp 9 (mma)".
inline std::string who(const sim::Warp& w) {
  return fmt::format("CTA {} warp {} ({})", w.cta(), w.index(), w.role().empty() ? "?" : w.role());
}

}  // namespace sk::verify
