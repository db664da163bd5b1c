// sm100_matmul_config_run.h: one configuration of the SM100 structured
// matmul run in the model (run_sm100_matmul_config<C>): the operands and
// their tensor maps (B's boxes are half the tile's rows for a 2-SM
// configuration, whose CTAs each load half), the launch (runner/kernels/
// sm100_launch.h) and, in functional mode, the check against the FP64
// reference (operands drawn and reference computed once for all the
// launch's simulations). Shared by the
// translation units that instantiate the 1-SM and the 2-SM configuration
// tables (sm100_matmul_run.cc, sm100_pair_matmul_run.cc).
#pragma once

#include "kernels/matmul/sm100_matmul.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/input_sets.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/sm100_launch.h"
#include "runner/kernels/sm100_matmul_run.h"

namespace sk::sim {

template <class C>
RunResult run_sm100_matmul_config(const MatmulRequest& q) {
  using OutT = typename C::OutT;
  // Every simulation of q (the power-limited clocks' probes) runs on the
  // same inputs: they are drawn once, the reference is computed once (or
  // both were shared before this process was forked), and each output is
  // checked against it.
  MatmulInputs own;
  MatmulInputs& in = matmul_inputs(q, own);
  return simulate_sm100<C, Sm100Matmul<C>>(
      q, {"matmul", C::name(), 2.0 * q.m * q.n * q.k * q.batch},
      [&](models::sm100::Gpu& gpu, auto& p) {
        const MatmulBuffers buf = allocate_matmul<OutT>(gpu, q, &in.operands);
        fail_encode(encode_operand_map(p.a, buf.a, q.k, q.m, buf.lda, buf.stride_a, q.batch,
                                       C::BK, C::BM, q.a_mn_major));
        // A pair's CTAs each load half of B's tile rows.
        fail_encode(encode_operand_map(p.b, buf.b, q.k, q.n, buf.ldb, buf.stride_b, q.batch,
                                       C::BK, C::BN / C::kCtaGroup, q.b_mn_major));
        p.layouts = OperandLayouts{q.a_mn_major ? 1u : 0u, q.b_mn_major ? 1u : 0u};
        fail_encode(encode_output_map<C>(p.c, buf.d, q.n, q.m, buf.ldc, buf.stride_d, q.batch));
        if (q.input_sets > 0) {
          const models::sm100::TensorMapModel* maps[] = {&p.a, &p.b};
          sk::runner::preload_input_sets(gpu, maps, uint64_t{buf.ldc} * sizeof(OutT) * q.m * q.batch,
                                         q.input_sets);
        }
        p.m = q.m;
        p.n = q.n;
        p.k = q.k;
        p.batches = q.batch;
        return buf;
      },
      [&](models::sm100::Gpu& gpu, const MatmulBuffers& buf, RunStatus status) {
        return check_run<OutT>(gpu, q, buf, status, &in.reference);
      });
}


}  // namespace sk::sim
