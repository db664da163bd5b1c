// lockstep.h: a warpgroup's converged region run by one warp.
//
// The SM90 kernels' consumer warpgroups run their main loop alike: each of
// the four warps waits for the same stage, issues its quarter of the same
// wgmma, commits, waits and releases the stage. The kernel marks such a loop
// (arch::warpgroup_converged_begin / _end; nothing on the device). In a run
// without an observer (so neither under the verifier nor in the CLI's
// functional runs, which carry the race detector), with the nominal
// schedule, the model runs the region once per warpgroup: warp 4g (the
// leader) enters once the other three have, at the latest of their times
// (as the .sync.aligned wgmma would start), issues each op's four quarters
// and makes each arrival four times; the followers skip every call of the
// region without a context switch and, at its end, wait for the leader and
// leave at its time with its stalls (a trace shows the wait on the
// follower's track, the region's work on the leader's). In a
// functional run without an observer (the model's tests) a follower still
// waits for each stage and computes its rows of each op (its data), with no
// timing of its own, so that it predicts the timing run's time.
//
// With every warp simulated (set_lockstep(false), the CLI's --per-warp; the
// verifier and functional runs always), the four warps' quarters of the ops
// interleave on the tensor core as their wake-ups fall: they drift a quarter
// apart and keep the tensor core fed where the leader's four back-to-back
// quarters leave it idle for a completion latency each k-block. The two
// differ by up to a few percent either way, and lockstep is no further from
// the H200's measurements (docs/sim.md, "Lockstep warpgroups").
//
// Replayed inside a region: mbarrier waits and plain arrivals (local and
// remote), __syncwarp, wgmma fence / mma / commit / wait, a spin
// (spin_cycles, the hold of --hold-kblock): each skips a
// follower's call after counting it (Warp::count_region_call) and counts
// the leader's. A follower that calls anything else there is reported
// (model.lockstep_unreplayed, from the warp's issue check), and so is a
// follower whose region made other calls than its leader's
// (model.lockstep_diverged): the region was not converged.
//
// Invariants: a leader acts for 4 warps exactly between its begin and end
// (Warp::acts_for); a follower is a follower exactly between its begin and
// its wake-up at end; region n of a follower pairs with region n of its
// leader; every region's state is dropped at reset().
#pragma once

#include <source_location>

#include "engine/warp.h"

namespace sk::models::sm90::api {

using Loc = std::source_location;

// Called by every warp of a warpgroup around a converged region.
void warpgroup_converged_begin(const Loc& loc);
void warpgroup_converged_end(const Loc& loc);

// Whether timing runs use lockstep (default true; false: every warp
// simulated). Kept across reset().
void set_lockstep(bool on);

// Forgets every region (from api::reset()).
void reset_lockstep();

// api_wgmma.cc: a follower's wgmma op numbering follows its leader's (the
// ops the leader issued for it), for wgmma_warpgroup_op.
void follow_wgmma_stream(const sim::Warp& follower, const sim::Warp& leader);

}  // namespace sk::models::sm90::api
