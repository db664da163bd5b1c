#include "runner/kernels/role_stats.h"

#include <algorithm>
#include <map>
#include <string>

#include "engine/warp.h"

namespace sk::sim {
namespace {

// What a wait was for, from its slice name: the mbarrier rings of the NVIDIA
// structured kernels ("input" stages, "acc" accumulators, "work" items, the
// CLC response, the fused residual's "residual" ring; any other ring's
// "<name>.full" and "<name>.empty", such as attention's q, k and v), the AMD
// counters of the same rings, and the other blocking operations of the
// models. A single counter per stage serves both sides, so its waits are told
// apart by role.
const char* stall_cause(const std::string& what, const std::string& role) {
  auto starts = [&](const char* p) { return what.rfind(p, 0) == 0; };
  if (starts("wait input.full") || starts("wait counter input.full")) return "full_stage";
  if (starts("wait input.empty") || starts("wait counter input.empty")) return "empty_stage";
  if (starts("wait counter input.count")) return role == "loader" ? "empty_stage" : "full_stage";
  if (starts("wait acc.") || starts("wgmma.wait_group")) return "accumulator";
  if (starts("wait work.") || starts("wait clc")) return "scheduler";
  if (starts("wait residual.")) return "residual";
  if (starts("tcgen05.ld")) return "tmem_load";
  if (starts("tcgen05.st")) return "tmem_store";
  if (starts("bulk wait_group")) return "tma_store";
  if (starts("s_waitcnt")) return "memory_wait";
  if (starts("mfma waits for operands")) return "operand_wait";
  if (starts("bar.sync") || starts("wait tmem_dealloc") || starts("s_barrier")) return "barrier";
  if (starts("st.global")) return "global_store";
  if (starts("CTA start")) return "launch";
  // Any other ring of stages: "wait <ring>.full[i]" and "wait <ring>.empty[i]".
  if (starts("wait ")) {
    const auto dot = what.find('.');
    if (dot != std::string::npos && what.compare(dot, 5, ".full") == 0) return "full_stage";
    if (dot != std::string::npos && what.compare(dot, 6, ".empty") == 0) return "empty_stage";
  }
  return "other";
}
constexpr const char* kCauses[] = {"full_stage", "empty_stage", "accumulator", "scheduler",
                                   "residual",   "tmem_load",   "tmem_store",  "tma_store",
                                   "memory_wait",
                                   "operand_wait", "barrier",   "global_store", "launch",
                                   "other"};

}  // namespace

std::vector<RoleStats> role_stats(const Engine& eng, Cycle cycles, double slot_scale) {
  struct Acc {
    double busy = 0, stall = 0;
    std::map<std::string, double> causes;
    int warps = 0;
  };
  std::map<std::string, Acc> acc;
  std::vector<std::string> order;
  for (const auto& w : eng.warps()) {
    std::string role = w->role().empty() ? "unassigned" : w->role();
    if (!acc.count(role)) order.push_back(role);
    Acc& a = acc[role];
    // A warp that has not started or has exited is neither busy nor stalled.
    Cycle alive = std::min<Cycle>(w->done() ? w->end_cycle() : cycles, cycles) -
                  std::min<Cycle>(w->start_cycle(), cycles);
    Cycle stalled = std::min<Cycle>(w->stall_cycles(), alive);
    a.busy += static_cast<double>(alive - stalled) / cycles;
    a.stall += static_cast<double>(stalled) / cycles;
    // The causes split the stalled time (never more than it: a stall still
    // being counted when a run stops at a limit is cut at the stop).
    Cycle by_cause = 0;
    for (const auto& [what, c] : w->stalls_by_what()) by_cause += c;
    const double scale = by_cause > stalled && by_cause > 0
                             ? static_cast<double>(stalled) / static_cast<double>(by_cause)
                             : 1.0;
    for (const auto& [what, c] : w->stalls_by_what())
      a.causes[stall_cause(what, role)] += scale * static_cast<double>(c) / cycles;
    a.warps += 1;
  }
  std::vector<RoleStats> out;
  for (const auto& name : order) {
    const Acc& a = acc[name];
    const double slots = a.warps * slot_scale;
    RoleStats rs{name, 100.0 * a.busy / slots, 100.0 * a.stall / slots, {}};
    for (const char* cause : kCauses) {
      auto it = a.causes.find(cause);
      if (it != a.causes.end() && it->second > 0)
        rs.stalls.emplace_back(cause, 100.0 * it->second / slots);
    }
    out.push_back(std::move(rs));
  }
  return out;
}

}  // namespace sk::sim
