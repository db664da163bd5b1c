// finding.h: a rule violation, deadlock or bound reported by the model.
//
// Findings are data, never exceptions: a kernel that breaks a hardware rule
// produces a Finding and the simulation continues where the model can give the
// operation a defined meaning (or ends cleanly where it cannot). `cls` is the
// bug class (research/verify.md section 5 names them), `rule` the precise rule,
// `location` the kernel source line that issued the offending operation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sk::sim {

using Cycle = uint64_t;

struct Finding {
  std::string cls;       // e.g. "mbarrier", "tmem", "tma", "deadlock"
  std::string rule;      // e.g. "mbarrier.reinit_without_inval"
  std::string message;   // one sentence a kernel author can act on
  Cycle cycle = 0;       // simulated cycle at which it was detected
  std::string location;  // file:line of the kernel call site (the author's line)
  // The call chain from the author's line to the intrinsic, outermost first
  // ("kernel.h:88", "tile_pipeline.h:163", "mbarrier_backend.h:67"); empty
  // when the intrinsic was called from the kernel directly (engine/call_site.h).
  std::vector<std::string> chain;
  int cta = -1;          // -1 when not tied to one CTA
  int warp = -1;         // -1 when raised by an async agent
  std::string role;      // warp role annotated by the kernel, if any
  std::vector<std::string> details;  // extra lines (e.g. every blocked warp)
};

}  // namespace sk::sim
