// pipeline_state.h: position in a ring of `Stages` buffers.
//
// The state is one monotonic counter: index() = count % Stages is the stage,
// lap() = count / Stages is how many times this role has gone round the ring
// before. Keeping the lap (rather than a parity bit) lets each sync backend map
// it onto its own substrate: an mbarrier waits on parity lap & 1, an atomic
// counter backend waits for a threshold proportional to the lap. Producer and
// consumer both start at count 0; the backend decides what "stage free on lap
// 0" means (for mbarriers: the producer's lap-0 wait passes at once, the same
// convention CUTLASS expresses as "the producer starts at phase 1").
#pragma once

#include "kernels/core/platform.h"

namespace sk {

template <int Stages>
class PipelineState {
  static_assert(Stages >= 1, "a pipeline needs at least one stage");

 public:
  static constexpr int kStages = Stages;

  // No SK_DEVICE: a constructor defaulted on its first declaration is already
  // callable from host and device, and nvcc warns about the annotation.
  constexpr PipelineState() = default;
  SK_DEVICE constexpr explicit PipelineState(uint32_t count) : count_(count) {}

  SK_DEVICE constexpr uint32_t index() const { return count_ % Stages; }
  SK_DEVICE constexpr uint32_t lap() const { return count_ / Stages; }
  SK_DEVICE constexpr uint32_t count() const { return count_; }

  SK_DEVICE constexpr void advance(uint32_t n = 1) { count_ += n; }
  SK_DEVICE constexpr PipelineState& operator++() {
    ++count_;
    return *this;
  }

 private:
  uint32_t count_ = 0;
};

}  // namespace sk
