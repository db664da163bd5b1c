// call_site.h: where in the kernel source an operation came from: the line
// that called the intrinsic and the chain of component calls above it.
//
// Kernel components (TilePipeline, the loaders, the MMA ops) take their
// caller's std::source_location as a defaulted argument and push it on the
// calling warp's caller stack for the duration of the call (sk::arch::Caller,
// kernels/arch/model/site.h); an intrinsic's own location is the innermost
// frame. A Site is that innermost location plus an interned id of the caller
// frames above it, so a finding can name the author's line ("the kernel's
// consumer.acquire()") and the path through the components to the intrinsic.
//
// Invariants:
//   * caller id 0 is the empty chain; every other id names (parent id, frame)
//     and is never reused or freed within the process, so a Site stored in a
//     record stays valid for the life of the program;
//   * interning is thread-safe (explorers may run schedules on threads);
//   * frames are listed outermost first, the Site's own location last.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "engine/finding.h"
#include "engine/source_loc.h"

namespace sk::sim {

struct Site {
  std::source_location loc{};
  uint32_t callers = 0;  // interned caller chain; 0: none (the kernel's own line)
};

// The id of the chain `parent` extended by the frame `frame` (the innermost).
uint32_t intern_caller(uint32_t parent, const std::source_location& frame);

// Every frame of `site`, outermost first, as "path:line"; frames whose file
// is unknown are left out.
std::vector<std::string> site_frames(const Site& site);
// "a.h:3 -> b.h:7 -> c.h:9".
std::string format_site(const Site& site);
std::string join_chain(const std::vector<std::string>& frames);
// Sets the finding's location to the outermost frame (the author's line) and,
// when the site has callers, its chain to every frame.
void locate(Finding& f, const Site& site);

}  // namespace sk::sim
