// estimate.h: how long a simulation will take, before it runs.
//
// The events of a timing run follow the family's EventModel (family.h): the
// model does a fixed amount of work per output tile and per k-step of each
// tile, whatever the shape, so events = tiles x (per_tile + per_kstep x
// ceil(K / tile_k)). Wall time is events over the simulator's event rate on
// the architecture (timing mode), plus, in functional mode, the FLOPs over the
// host's rate for the model's MMAs and the reference. Both rates were measured
// on the reference machine (2 cores; docs/sim.md "Estimates and progress").
//
// Invariants: a pure function of the arch space and the request (the same
// inputs, the same estimate); never negative; 0 events only for an empty
// problem.
#pragma once

#include <cstdint>
#include <string>

#include "runner/family/family.h"

namespace sk::sim {

struct RunEstimate {
  double tiles = 0;
  double events = 0;  // of the timing run (a functional run takes about as many)
  double wall_s = 0;  // on the reference machine
};

// The estimate for `q` (its GEMM view m, n, k, tile_n, arch, variant and
// mode) on `space`.
RunEstimate estimate_run(const ArchSpace& space, const MatmulRequest& q, double flops);

// Runs estimated past this many seconds are announced before they start.
constexpr double kAnnounceWallS = 30;

// "estimate: 2.1e+09 events, about 47 min ...": the one line printed before
// a long run; names the wall limit when the run would reach it.
std::string estimate_line(const RunEstimate& e, double wall_limit_s);

}  // namespace sk::sim
