// lanes.h: the lane-level operations that every hardware model shares:
// electing one lane, per-lane loops, role names and stage-handle reports.
//
// Kernel code reaches these through kernels/arch/model/lanes.h (the model half of
// kernels/arch/lanes.h). They act on the engine's current warp or wave and
// need nothing arch-specific, so an SM100 warp of 32 lanes and an MI300X wave
// of 64 lanes run the same code.
//
// Invariants:
//   * elect_one_begin() narrows the active set to its lowest lane (what both
//     elect.sync and v_readfirstlane pick) until the matching scope_end();
//   * a per-lane loop visits the lanes the model's LaneLoop policy returns
//     (by default every active lane) with the warp's current lane set to each
//     in turn, and reports its end to the policy.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

namespace sk::sim {

class Warp;

// How a model runs the bodies of sk::for_each_lane. `site` identifies the
// loop in the kernel source (one per lambda type), `visit` counts how often
// this process entered it before.
class LaneLoop {
 public:
  virtual ~LaneLoop() = default;
  // The lanes to visit, a subset of w.active_mask().
  virtual uint64_t begin(Warp& w, const void* site, uint32_t visit) = 0;
  virtual void end(Warp& /*w*/, const void* /*site*/) {}
};

namespace lanes {

bool elect_one_begin();
void scope_end();
uint64_t loop_begin(const void* site, uint32_t visit);
void loop_lane(int lane);  // -1 when the loop ends
void loop_end(const void* site);
void annotate_role(const char* role);
// A stage-handle finding ("stage.unreleased", "stage.double_release").
void report_stage(const char* rule, const std::string& message, const std::source_location& loc);

}  // namespace lanes
}  // namespace sk::sim
