// schedule.h: schedule perturbation for exploring interleavings.
//
// A run is a pure function of its seed. Seed 0 is the nominal schedule (the
// timing model unperturbed). Any other seed selects a strategy and its
// parameters, so `sim run --seed S` replays exactly the schedule that
// `sim verify` explored under seed S:
//   seed % 3 == 1  random:     occasional extra delays before warp operations
//                              and stretched async latencies;
//   seed % 3 == 2  PCT-style:  random priorities over actors (warps of a CTA,
//                              TMA engine, tensor core, barrier signalling);
//                              lower priority means larger delays, and at 3
//                              random change points the running warp drops to
//                              the lowest priority;
//   seed % 3 == 0  exhaustive: schedule index seed / 3 enumerates every subset
//                              of slowed actors (2^actors masks), then three
//                              delay magnitudes; for small configurations
//                              consecutive seeds cover all of them.
// Perturbations only add delay, so every perturbed schedule is one the
// hardware could also produce with slower components.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/finding.h"

namespace sk::sim {

enum class Agent : int { kTma = 0, kTensorCore = 1, kSignal = 2 };
inline constexpr int kAgents = 3;

class Schedule {
 public:
  void reset(uint64_t seed);
  // Called at launch: the number of warps per CTA fixes the actor set.
  void set_warps(int warps_per_cta);

  uint64_t seed() const { return seed_; }
  std::string describe() const;

  // Extra cycles before the next operation of warp `warp_in_cta`.
  Cycle warp_delay(int warp_in_cta) {
    return strategy_ == Strategy::kNominal ? 0 : perturbed_warp_delay(warp_in_cta);
  }
  // Extra cycles added to an async latency of `base` cycles.
  Cycle agent_delay(Agent a, Cycle base) {
    return strategy_ == Strategy::kNominal ? 0 : perturbed_agent_delay(a, base);
  }

  // Number of exhaustive schedules (masks x magnitudes) for this launch.
  uint64_t exhaustive_space() const { return (uint64_t{1} << actors()) * 3; }

 private:
  enum class Strategy { kNominal, kRandom, kPct, kExhaustive };
  int actors() const { return kAgents + warps_; }
  int warp_actor(int w) const { return kAgents + w % warps_; }
  void setup();
  Cycle perturbed_warp_delay(int warp_in_cta);
  Cycle perturbed_agent_delay(Agent a, Cycle base);

  uint64_t seed_ = 0;
  Strategy strategy_ = Strategy::kNominal;
  int warps_ = 1;
  std::mt19937_64 rng_;
  // PCT: rank per actor (0 = highest priority), change points over warp ops.
  std::vector<int> rank_;
  std::vector<uint64_t> change_points_;
  uint64_t ops_ = 0;
  // Exhaustive: slowed actors and the delay they get.
  uint64_t mask_ = 0;
  Cycle magnitude_ = 0;
};

}  // namespace sk::sim
