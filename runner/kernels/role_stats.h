// role_stats.h: per-role busy and stall shares of a finished model run, the
// `roles` of the summary, for every architecture.
//
// A role is the name kernel code gives its warps or waves (annotate_role).
// busy = alive and not blocked, stall = blocked, both as shares of `cycles`
// averaged over the role's slots; stalls are split by cause from the wait's
// slice name (the NVIDIA mbarrier rings, the AMD counters, barriers and
// memory waits; see stall_cause in role_stats.cc).
//
// Invariant: slot_scale is the fraction of the run each warp's slot was held
// by it (1 with one CTA per SM for the whole run; less when more CTAs than
// SMs took turns), so shares stay per slot.
#pragma once

#include <vector>

#include "engine/engine.h"
#include "runner/result/run_result.h"

namespace sk::sim {

std::vector<RoleStats> role_stats(const Engine& eng, Cycle cycles, double slot_scale = 1.0);

}  // namespace sk::sim
