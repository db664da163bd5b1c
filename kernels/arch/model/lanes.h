// lanes.h (model build): the lane and instrumentation intrinsics that every
// arch layer shares, in sk::arch: elect_one_begin, lane_scope_end,
// for_each_lane, annotate_role, report_unreleased, report_double_release.
//
// They are arch-neutral in the model (engine/lanes.h), so the SM100, SM90
// and MI300X intrinsic headers all include this one definition instead of
// defining their own; a binary that links several models therefore has one
// definition of each inline function. Device builds get the same names from
// kernels/arch/<arch>/device/lanes.h and hooks.h (see kernels/arch/lanes.h).
#pragma once

#include <cstdint>
#include <source_location>

#include <fmt/format.h>

#include "engine/lanes.h"

namespace sk::arch {

inline bool elect_one_begin(std::source_location = std::source_location::current()) {
  return sim::lanes::elect_one_begin();
}
inline void lane_scope_end() { sim::lanes::scope_end(); }

// Runs fn(lane) for the lanes the model's lane-loop policy picks (every
// active lane when bytes are real). Each lambda type is one loop site.
template <class Fn>
inline void for_each_lane(Fn&& fn) {
  static uint32_t visits = 0;
  const void* site = &visits;
  uint64_t mask = sim::lanes::loop_begin(site, visits++);
  while (mask != 0) {
    const int l = __builtin_ctzll(mask);
    mask &= mask - 1;
    sim::lanes::loop_lane(l);
    fn(static_cast<uint32_t>(l));
  }
  sim::lanes::loop_end(site);
}

inline void annotate_role(const char* role) { sim::lanes::annotate_role(role); }

inline void report_unreleased(const char* what,
                              std::source_location l = std::source_location::current()) {
  sim::lanes::report_stage("stage.unreleased",
                           fmt::format("{} went out of scope without release(); the stage it "
                                       "holds is never returned to the pipeline",
                                       what),
                           l);
}
inline void report_double_release(const char* what,
                                  std::source_location l = std::source_location::current()) {
  sim::lanes::report_stage("stage.double_release",
                           fmt::format("{} released a second time (through a moved-from "
                                       "handle); each stage is released exactly once per lap",
                                       what),
                           l);
}

}  // namespace sk::arch
