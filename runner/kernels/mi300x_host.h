// mi300x_host.h: one CDNA3 matmul launch on the MI300X model, from problem
// setup to summary, for any kernel type with the CDNA3 matmul interface
// (Params = Cdna3MatmulParams, kWaves, kLdsBytes, run(p)): the shipped
// kernels (sim run --arch mi300x) and the seeded-bug mutants of the corpus
// (verify/corpus/amd_cases.cc) go through the same code.
//
// The problem: random BF16 A and B at the request's pitches with NaN
// padding, each K-major (rows of K) or MN-major (K rows of M or N, as
// Cfg::kLayouts says; the caller picks the Cfg of the request's layouts), a
// NaN-poisoned D (matmul_host.h), a persistent grid of min(tiles, CUs). In
// functional mode the race detector is attached and D is checked against the
// FP64 reference. A launch the model refuses with a finding (LDS over
// capacity) returns status "launch_failed" with that finding; one refused
// without a finding throws.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "kernels/core/math.h"
#include "kernels/matmul/cdna3_config.h"
#include "models/mi300x/gpu.h"
#include "models/mi300x/params.h"
#include "runner/kernels/matmul_host.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// The timing summary of a finished launch (mi300x_matmul_run.cc): time and
// rate against the BF16 MFMA peak, matrix-core utilization, HBM use, cache
// hits, LDS bank conflicts, the roles and the bottleneck.
void summarize_mi300x(models::mi300x::Gpu& gpu, double flops, RunResult& r);

template <class Kernel, class Cfg>
RunResult run_cdna3_kernel(const MatmulRequest& q, const std::string& name) {
  const auto t0 = std::chrono::steady_clock::now();
  models::mi300x::Gpu gpu(models::mi300x::Params::builtin(), q.functional);
  gpu.engine().trace().set_enabled(!q.trace_path.empty() || !q.timeline_path.empty());
  // --trace-sms names CUs here, and --timeline-cta workgroups (workgroup w
  // starts on CU w).
  gpu.set_trace_cus(traced_sms(q));
  if (q.progress)
    gpu.engine().set_progress_reporter(
        {t0, q.progress_terminal, q.estimate_events, gpu.params().clock_ghz});
  set_wall_limit(gpu.engine(), q, t0);
  gpu.engine().schedule().reset(q.seed);
  if ((Cfg::kLayouts.a_mn_major != 0) != q.a_mn_major ||
      (Cfg::kLayouts.b_mn_major != 0) != q.b_mn_major)
    throw std::invalid_argument("run_cdna3_kernel: the configuration's operand layouts are not "
                                "the request's");
  // The operands and reference sim verify shared before forking, if any.
  MatmulInputs own;
  MatmulInputs& in = matmul_inputs(q, own);
  const MatmulBuffers buf = allocate_matmul<bf16_t>(gpu, q, &in.operands);
  Cdna3MatmulParams p{};
  p.a = reinterpret_cast<const uint16_t*>(buf.a);
  p.b = reinterpret_cast<const uint16_t*>(buf.b);
  p.d = reinterpret_cast<bf16_t*>(buf.d);
  p.m = q.m;
  p.n = q.n;
  p.k = q.k;
  p.lda = buf.lda;
  p.ldb = buf.ldb;
  p.ldd = buf.ldc;
  p.batches = q.batch;
  p.stride_a = buf.stride_a;
  p.stride_b = buf.stride_b;
  p.stride_d = buf.stride_d;
  const auto races = attach_race_detector(gpu, q);
  const uint32_t tiles =
      ceil_div<uint32_t>(q.m, Cfg::kBM) * ceil_div<uint32_t>(q.n, Cfg::kBN) * q.batch;
  const int grid = static_cast<int>(std::min<uint32_t>(tiles, gpu.params().num_cus));
  const std::string err =
      gpu.launch(grid, Kernel::kWaves, Kernel::kLdsBytes, [&p] { Kernel::run(p); });
  if (!err.empty() && gpu.engine().findings().empty()) throw std::runtime_error(err);
  const RunStatus status = err.empty() ? gpu.run(q.max_cycles) : RunStatus::kCompleted;

  RunResult r;
  r.kernel = "matmul";
  r.arch = "mi300x";
  r.m = q.m;
  r.n = q.n;
  r.k = q.k;
  r.batch = q.batch;
  r.config_name = fmt::format("cdna3_{}_{}_{}x{}x{}_s{}_bf16out", name, Cfg::kF16 ? "f16" : "bf16", Cfg::kBM, Cfg::kBN,
                              Cfg::kBK, Cfg::kStages);
  r.scheduler = "static";
  r.tile_m = Cfg::kBM;
  r.tile_n = Cfg::kBN;
  r.tile_k = Cfg::kBK;
  r.stages = Cfg::kStages;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = err.empty() ? run_status_name(status) : "launch_failed";
  summarize_mi300x(gpu, 2.0 * q.m * q.n * q.k * q.batch, r);
  if (err.empty()) r.check = check_run<bf16_t>(gpu, q, buf, status, &in.reference);
  r.output_errors = write_run_files(gpu, q, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace sk::sim
