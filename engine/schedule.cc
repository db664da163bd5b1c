#include "engine/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace sk::sim {
namespace {
constexpr Cycle kMagnitudes[3] = {400, 4000, 40};
constexpr int kChangePoints = 3;
constexpr uint64_t kChangeWindow = 4000;  // warp operations
constexpr Cycle kPctStep = 64;            // cycles per priority rank per op
}  // namespace

void Schedule::reset(uint64_t seed) {
  seed_ = seed;
  strategy_ = seed == 0         ? Strategy::kNominal
              : seed % 3 == 1   ? Strategy::kRandom
              : seed % 3 == 2   ? Strategy::kPct
                                : Strategy::kExhaustive;
  setup();
}

void Schedule::set_warps(int warps_per_cta) {
  warps_ = std::max(1, std::min(warps_per_cta, 32));
  setup();
}

void Schedule::setup() {
  rng_.seed(seed_ * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  ops_ = 0;
  rank_.assign(static_cast<size_t>(actors()), 0);
  change_points_.clear();
  mask_ = 0;
  magnitude_ = 0;
  if (strategy_ == Strategy::kPct) {
    std::iota(rank_.begin(), rank_.end(), 0);
    std::shuffle(rank_.begin(), rank_.end(), rng_);
    for (int i = 0; i < kChangePoints; ++i) change_points_.push_back(rng_() % kChangeWindow);
    std::sort(change_points_.begin(), change_points_.end());
  } else if (strategy_ == Strategy::kExhaustive) {
    const uint64_t index = seed_ / 3;
    const uint64_t masks = uint64_t{1} << actors();
    mask_ = index % masks;
    magnitude_ = kMagnitudes[(index / masks) % 3];
  }
}

std::string Schedule::describe() const {
  switch (strategy_) {
    case Strategy::kNominal: return "nominal schedule";
    case Strategy::kRandom: return fmt::format("random perturbation (seed {})", seed_);
    case Strategy::kPct: return fmt::format("PCT priorities, {} change points (seed {})", kChangePoints, seed_);
    default: {
      std::string slowed;
      for (int a = 0; a < actors(); ++a) {
        if ((mask_ >> a & 1) == 0) continue;
        if (!slowed.empty()) slowed += ", ";
        slowed += a == 0 ? std::string("TMA") : a == 1 ? std::string("tensor core")
                  : a == 2 ? std::string("barrier signalling")
                           : fmt::format("warp {}", a - kAgents);
      }
      return fmt::format("exhaustive: slowed {{{}}} by {} cycles (seed {})",
                         slowed.empty() ? "none" : slowed, magnitude_, seed_);
    }
  }
}

Cycle Schedule::perturbed_warp_delay(int warp_in_cta) {
  switch (strategy_) {
    case Strategy::kNominal: return 0;
    case Strategy::kRandom: return rng_() % 16 == 0 ? 1 + rng_() % 512 : 0;
    case Strategy::kPct: {
      const int me = warp_actor(warp_in_cta);
      while (!change_points_.empty() && ops_ >= change_points_.front()) {
        change_points_.erase(change_points_.begin());
        // The running actor drops to the lowest priority.
        const int old = rank_[me];
        for (int& r : rank_)
          if (r > old) --r;
        rank_[me] = actors() - 1;
      }
      ++ops_;
      return static_cast<Cycle>(rank_[me]) * kPctStep;
    }
    default: return (mask_ >> warp_actor(warp_in_cta) & 1) ? magnitude_ : 0;
  }
}

Cycle Schedule::perturbed_agent_delay(Agent a, Cycle base) {
  const int actor = static_cast<int>(a);
  switch (strategy_) {
    case Strategy::kNominal: return 0;
    case Strategy::kRandom: return rng_() % 4 == 0 ? (base + 1) * (rng_() % 3000) / 1000 : 0;
    case Strategy::kPct: return (base + 16) * static_cast<Cycle>(rank_[actor]) / actors() * 2;
    default: return (mask_ >> actor & 1) ? magnitude_ : 0;
  }
}

}  // namespace sk::sim
