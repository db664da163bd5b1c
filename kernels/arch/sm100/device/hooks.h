// hooks.h (SM100 device build): instrumentation hooks that only the model acts on.
//
// Invariant: on the device these compile to nothing, so kernels may call them on
// any path (including hot loops) without changing the generated code; the
// string arguments are never read here, so no string constant reaches the PTX.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

// Names the role (producer, MMA issuer, epilogue, ...) of the calling warp, so
// the model can attribute events and check role-specific rules.
SK_DEVICE void annotate_role(const char* /*role*/) {}

// Declares that a resource (TMEM columns, an armed barrier) is still held at
// this point; the model turns that into a diagnostic at kernel exit.
SK_DEVICE void report_unreleased(const char* /*what*/) {}

// Declares that a stage handle was released a second time.
SK_DEVICE void report_double_release(const char* /*what*/) {}

}  // namespace sk::arch

namespace sk::arch {

// Names an mbarrier ("input.full", index 2) for the model's reports.
SK_DEVICE void annotate_barrier(uint64_t* /*bar*/, const char* /*name*/, int /*index*/) {}
// The phase the warp's next wait on an mbarrier is for (the model checks it).
SK_DEVICE void annotate_wait_phase(uint64_t* /*bar*/, int64_t /*phase*/) {}

// The cost of a warp's per-lane shared-memory traffic, which the model's
// timing mode does not run lane by lane: `instructions` st.shared::cluster
// moving `bytes` into CTA `cta_rank` of the cluster, or ld.shared of the
// CTA's own.
SK_DEVICE void account_dsmem_stores(uint32_t /*cta_rank*/, uint32_t /*bytes*/,
                                    uint32_t /*instructions*/) {}
SK_DEVICE void account_smem_loads(uint32_t /*instructions*/) {}

}  // namespace sk::arch
