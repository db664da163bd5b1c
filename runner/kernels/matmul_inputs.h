// matmul_inputs.h: the operands of a 16-bit matmul request and their FP64
// reference, kept for every simulation that runs on the same data.
//
// A request's operands depend on its shape, pitches, layouts, element type
// and operand seed (MatmulRequest::operand_seed), not on its schedule. The
// power-limited clocks simulate one request more than once, and sim verify
// runs many schedules of one data seed, each in a process forked from the
// CLI: the first draws the operands and computes the reference once, the
// others copy the bytes and reuse the reference.
//
// Invariants: draw_matmul_operands gives exactly the bytes allocate_matmul
// (matmul_host.h) draws into the model's memory for the same request;
// matmul_inputs hands back the shared inputs only for a request of the same
// data, so a run never checks its output against another problem's reference.
#pragma once

#include <cstdint>
#include <vector>

#include "runner/kernels/matmul_reference.h"
#include "runner/kernels/sm100_matmul_run.h"

namespace sk::sim {

// The bytes of A and B (padding included) that one request's simulations
// share: the power-limited clocks simulate a request more than once, and its
// seed gives the same operands each time, so the first simulation draws them
// and the others copy them.
struct MatmulOperandBytes {
  std::vector<uint8_t> a, b;
};

// The operands of a request and their FP64 reference, shared by every
// simulation that runs on the same data.
struct MatmulInputs {
  MatmulOperandBytes operands;
  MatmulReferenceCache reference;
};

// The bytes allocate_matmul(gpu, q) draws into A and B in functional mode,
// drawn on the host alone (no model): the same generator, seed and order.
MatmulOperandBytes draw_matmul_operands(const MatmulRequest& q);

// Draws q's operands and computes their reference once in this process, so
// that the simulations it forks afterwards (sim verify's schedules, all on
// one data seed) find them in matmul_inputs instead of each drawing and
// computing its own; the child processes read the parent's pages
// copy-on-write. Replaces what an earlier call shared.
void share_matmul_inputs(const MatmulRequest& q);

// The inputs for q's simulations: those share_matmul_inputs left when they
// were drawn for q's data (shape, pitches, layouts, element type and operand
// seed), else `own` (empty until the first simulation fills it).
MatmulInputs& matmul_inputs(const MatmulRequest& q, MatmulInputs& own);

}  // namespace sk::sim
