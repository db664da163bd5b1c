// api_alu.cc: the per-lane math that kernels account for in the model
// (account_alu, account_quad_reduce; models/sm100/api.h), for the SM90 and
// SM100 models alike: the rates are the parameter file's (sfu_cycles,
// half_rate_cycles, alu_chain_step, quad_reduce_step).
//
// The FP32 pipe and the SFU belong to a sub-partition (warp index % 4), not
// to a warp: the H100 microbenchmarks measured 16 ex2 and 121 FMA results per
// SM-cycle however many warps issued them (docs/hardware.md, attention
// microbenchmarks). A warp's instructions take its sub-partition's pipes from
// max(its own time, when the pipe is next free), in the order the warps
// account for them; the warp spends until the later pipe is done, or the
// dependent chain, whichever is longer.
//
// Invariants: the cost is paid in the warp's own time (issue_local +
// Warp::spend), so no context switch is taken; a pipe's next free cycle only
// grows.
#include <algorithm>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"

namespace sk::models::sm100::api {

void account_alu(uint32_t fma, uint32_t sfu, uint32_t half, uint32_t chain, const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  const Params& p = gpu().params();
  Cta& cta = gpu().cta_of_current();
  const int q = w.index() % 4;
  const sim::Cycle now = local_now(w);
  sim::Cycle end = now + static_cast<sim::Cycle>(chain * p.alu_chain_step + 0.5);
  auto take = [&](sim::Cycle& free, double cycles) {
    if (cycles <= 0) return;
    free = std::max(now, free) + static_cast<sim::Cycle>(cycles + 0.5);
    end = std::max(end, free);
  };
  take(cta.fp32_free[q], fma + half * p.half_rate_cycles);
  take(cta.sfu_free[q], sfu * p.sfu_cycles);
  w.spend(end - now);
}

void account_quad_reduce(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  w.spend(static_cast<sim::Cycle>(2 * gpu().params().quad_reduce_step + 0.5));
}

}  // namespace sk::models::sm100::api
