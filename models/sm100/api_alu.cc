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
// While the SM's tensor core has work queued (up to cta.tc_free), each pipe
// and the chain run alu_under_mma times slower (H100, measured apart: an
// ex2 stream 1.33x, FMA 1.47x, max.f32 1.96x, an FMA chain 1.13-1.21x beside
// a warpgroup whose wgmma keep the tensor core busy; docs/hardware.md).
// The part of a cost that falls after the queue's end runs at the idle rate.
// The queue is the one the engine knows at the warp's own time: wgmma that
// another warp issues later in engine order do not slow this account (a
// variant that synced first to see them predicted attention 3-11 % faster,
// not slower: the pipes then took their reservations in time order, which
// moved more than the slowdown; docs/hardware.md).
//
// The other direction (tensor_under_fp32, off unless the file's a > 0): the
// FP32 instructions of an account slow the SM's tensor core over the part of
// the account that its queue overlaps (H200, measured apart: a full FMA
// stream on the other warps triples every wgmma op's time); the arch's
// wgmma model moves the queued work by what it loses (Gpu::tensor_lost).
//
// Invariants: the cost is paid in the warp's own time (issue_local +
// Warp::spend), so no context switch is taken; a pipe's next free cycle only
// grows; with alu_under_mma all 1 (SM100) nothing is slowed.
#include <algorithm>
#include <cmath>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"

namespace sk::models::sm100::api {

namespace {
// Cycles that `cost` idle-rate cycles take from `start` when the rate is
// `factor` times slower until `busy_end`.
double stretched(sim::Cycle start, double cost, double factor, sim::Cycle busy_end) {
  if (factor == 1 || cost <= 0 || start >= busy_end) return cost;
  const double busy = static_cast<double>(busy_end - start);
  if (cost * factor <= busy) return cost * factor;
  return busy + (cost - busy / factor);
}
}  // namespace

void account_alu(uint32_t fma, uint32_t sfu, uint32_t half, uint32_t chain, const Loc& loc) {
  const Params& p = gpu().params();
  const Params::UnderMma& f = p.alu_under_mma;
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  const int q = w.index() % 4;
  const sim::Cycle now = local_now(w);
  const sim::Cycle busy_end = f.any() ? cta.tc_free : 0;
  sim::Cycle end =
      now + static_cast<sim::Cycle>(stretched(now, chain * p.alu_chain_step, f.chain, busy_end) + 0.5);
  auto take = [&](sim::Cycle& free, double cycles, double factor) {
    if (cycles <= 0) return;
    const sim::Cycle start = std::max(now, free);
    free = start + static_cast<sim::Cycle>(stretched(start, cycles, factor, busy_end) + 0.5);
    end = std::max(end, free);
  };
  // The FP32 pipe's full- and half-rate instructions, slowed each by its own
  // factor: one cost at their cycle-weighted factor.
  const double full = fma, halves = half * p.half_rate_cycles;
  if (full + halves > 0)
    take(cta.fp32_free[q], full + halves, (full * f.fp32 + halves * f.half) / (full + halves));
  take(cta.sfu_free[q], sfu * p.sfu_cycles, f.sfu);
  // The other direction: this warp's FP32 instructions, u a cycle of the
  // account on its sub-partition (a half-rate one counted once: what they
  // read of the register file), slow the tensor core's queued work over the
  // part of the account they overlap, to 1 - a u^p of its rate for a quarter
  // of the SM (tensor_under_fp32).
  const Params::TensorUnderFp32& t = p.tensor_under_fp32;
  if (t.a > 0 && fma + half > 0 && end > now && cta.tc_free > now) {
    const double u = std::min(1.0, static_cast<double>(fma + half) / static_cast<double>(end - now));
    const double rate = std::max(0.1, 1 - t.a * std::pow(u, t.p));
    const double overlap = static_cast<double>(std::min(end, cta.tc_free) - now);
    const auto lost = static_cast<sim::Cycle>(overlap * (1 - rate) / 4 + 0.5);
    if (lost > 0) gpu().tensor_lost(cta, now, lost);
  }
  w.spend(end - now);
}

void spin_cycles(uint32_t cycles, const Loc& loc) {
  // A lockstep leader's spin is its followers' too: they spin beside it.
  if (skip_in_lockstep(gpu().warp(), loc)) return;
  issue_local(loc).spend(cycles);
}

void account_quad_reduce(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  w.spend(static_cast<sim::Cycle>(2 * gpu().params().quad_reduce_step + 0.5));
}

}  // namespace sk::models::sm100::api
