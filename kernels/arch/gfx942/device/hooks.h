// hooks.h (gfx942 device build): instrumentation hooks that only the model
// acts on, the arch-neutral ones of kernels/arch/sm100/device/hooks.h plus the
// AMD counterpart of annotate_barrier.
//
// Invariant: on the device these compile to nothing, so kernels may call them
// on any path (including hot loops) without changing the generated code; the
// string arguments are never read here, so no string constant reaches the
// code object.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

// Names the role (producer, MMA issuer, epilogue, ...) of the calling wave, so
// the model can attribute events and check role-specific rules.
SK_DEVICE void annotate_role(const char* /*role*/) {}

// Declares that a resource (an LDS stage, a counter with pending arrivals) is
// still held at this point; the model turns that into a diagnostic at kernel
// exit.
SK_DEVICE void report_unreleased(const char* /*what*/) {}

// Declares that a stage handle was released a second time.
SK_DEVICE void report_double_release(const char* /*what*/) {}

// Names a synchronisation counter in LDS or global memory ("input.full",
// index 2) for the model's reports; the AMD analogue of annotate_barrier.
// arrivals_per_lap (0: not stated) is how many increments one lap of the
// protocol makes, one per participating wave; the model uses it to call a
// many-lane increment and a lap left short by name.
SK_DEVICE void annotate_counter(const uint32_t* /*counter*/, const char* /*name*/, int /*index*/,
                                uint32_t /*arrivals_per_lap*/ = 0) {}

}  // namespace sk::arch
