#include "engine/lanes.h"

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/source_loc.h"
#include "engine/warp.h"

namespace sk::sim::lanes {
namespace {
Warp& warp() {
  Warp* w = Engine::get().current();
  if (w == nullptr) throw std::logic_error("lane operation called outside kernel code");
  return *w;
}
}  // namespace

bool elect_one_begin() {
  Warp& w = warp();
  const uint64_t m = w.active_mask();
  w.push_mask(m & (~m + 1));
  return m != 0;
}

void scope_end() { warp().pop_mask(); }

uint64_t loop_begin(const void* site, uint32_t visit) {
  Warp& w = warp();
  LaneLoop* policy = Engine::get().lane_loop();
  return policy == nullptr ? w.active_mask() : policy->begin(w, site, visit) & w.active_mask();
}

void loop_lane(int lane) { warp().set_current_lane(lane); }

void loop_end(const void* site) {
  Warp& w = warp();
  w.set_current_lane(-1);
  if (LaneLoop* policy = Engine::get().lane_loop()) policy->end(w, site);
}

void annotate_role(const char* role) {
  Warp& w = warp();
  w.set_role(role);
  if (w.traced) Engine::get().trace().rename(w.track, fmt::format("warp {} {}", w.index(), role));
}

void report_stage(const char* rule, const std::string& message, const std::source_location& loc) {
  Finding f;
  f.cls = "stage_handle";
  f.rule = rule;
  f.message = message;
  locate(f, Engine::get().site_here(loc));
  Engine::get().report(std::move(f));
}

}  // namespace sk::sim::lanes
