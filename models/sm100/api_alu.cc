// api_alu.cc: the per-lane math that kernels account for in the model
// (account_alu, account_quad_reduce; models/sm100/api.h), for the SM90 and
// SM100 models alike: the rates are the parameter file's (sfu_cycles,
// half_rate_cycles, alu_chain_step, quad_reduce_step).
//
// Invariants: the cost is the warp's own (issue_local + Warp::spend): nothing
// another warp observes changes, so no context switch is taken.
#include <algorithm>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"

namespace sk::models::sm100::api {

void account_alu(uint32_t fma, uint32_t sfu, uint32_t half, uint32_t chain, const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  const Params& p = gpu().params();
  const double cycles = std::max(
      {fma + half * p.half_rate_cycles, sfu * p.sfu_cycles, chain * p.alu_chain_step});
  w.spend(static_cast<sim::Cycle>(cycles + 0.5));
}

void account_quad_reduce(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  w.spend(static_cast<sim::Cycle>(2 * gpu().params().quad_reduce_step + 0.5));
}

}  // namespace sk::models::sm100::api
