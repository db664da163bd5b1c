#include "runner/kernels/mi300x_matmul_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kernels/matmul/cdna3_pingpong_matmul.h"
#include "kernels/matmul/cdna3_wave_specialized_matmul.h"
#include "models/mi300x/params.h"
#include "engine/intervals.h"
#include "runner/kernels/mi300x_host.h"
#include "runner/kernels/role_stats.h"

namespace sk::sim {
namespace {
using models::mi300x::Gpu;


}  // namespace

void summarize_mi300x(Gpu& gpu, double flops, RunResult& r) {
  const auto& p = gpu.params();
  Engine& eng = gpu.engine();
  // A run that did not complete is summarized up to where it stopped.
  r.cycles = std::max<Cycle>(r.status == "completed" ? gpu.end_cycle() : eng.now(), 1);
  r.clock_ghz = p.clock_ghz;
  r.predicted_time_us = static_cast<double>(r.cycles) / (p.clock_ghz * 1e3);
  r.tflops = flops / (r.predicted_time_us * 1e-6) / 1e12;
  r.peak_tflops = p.peak_bf16_flop_per_cycle_per_cu * p.num_cus * p.clock_ghz * 1e9 / 1e12;
  r.peak_fraction = r.tflops / r.peak_tflops;
  r.roles = role_stats(eng, r.cycles);

  const double cycles = static_cast<double>(r.cycles);
  // Overlap: the share of each CU's LDS DMA time during which at least one
  // of its matrix cores was busy.
  Cycle simd_busy = 0, dma = 0, covered = 0;
  for (const auto& cu : gpu.cu_stats()) {
    simd_busy += cu.simd_busy_cycles();
    dma += cu.dma_cycles();
    covered += cu.covered_cycles();
    r.lds_instructions += cu.lds_instructions;
    r.lds_bank_conflict_cycles += cu.lds_bank_conflict_cycles;
  }
  const double tc_util =
      static_cast<double>(simd_busy) / (cycles * std::max(1, gpu.cus_used()) * p.simds_per_cu);
  const double hbm_util = static_cast<double>(gpu.hbm_bytes()) / (p.hbm_bytes_per_cycle * cycles);
  const uint64_t lookups = gpu.cache_hits() + gpu.cache_misses();
  r.l2_hit_pct = lookups == 0 ? 0.0 : 100.0 * gpu.cache_hits() / static_cast<double>(lookups);
  r.hbm_bytes = gpu.hbm_bytes();
  r.hbm_util_pct = 100.0 * hbm_util;
  r.hbm_peak_gbs = p.hbm_bytes_per_cycle * p.clock_ghz;
  set_waves(r, static_cast<uint32_t>(p.num_cus));
  r.tensor_util_pct = 100.0 * tc_util;
  r.overlap_pct = dma == 0 ? 0.0 : 100.0 * static_cast<double>(covered) / static_cast<double>(dma);
  // With no resource near saturation, what the MFMA waves wait for most:
  // stage data (full stages, vmcnt), their LDS operands, or the other waves
  // (empty stages, barriers).
  double data_wait = 0, operand_wait = 0, sync_wait = 0;
  int mfma_roles = 0;  // the shares add over roles; the detail gives their mean
  for (const auto& role : r.roles)
    if (role.name != "loader" && ++mfma_roles > 0)
      for (const auto& [cause, pct] : role.stalls)
        (cause == "full_stage" || cause == "memory_wait" ? data_wait
         : cause == "operand_wait"                       ? operand_wait
                                                         : sync_wait) += pct;
  r.bottleneck = tc_util >= 0.8                                      ? "tensor_core"
                 : hbm_util >= 0.8                                   ? "hbm_bandwidth"
                 : operand_wait >= std::max(data_wait, sync_wait)    ? "lds_latency"
                 : data_wait >= sync_wait                            ? "load_latency"
                                                                     : "synchronization";
  r.bottleneck_detail =
      tc_util >= 0.8 ? fmt::format("matrix cores {:.0f}% busy (>= 80%)", 100 * tc_util)
      : hbm_util >= 0.8
          ? fmt::format("HBM at {:.0f}% of its bandwidth (>= 80%)", 100 * hbm_util)
          : fmt::format("the MFMA waves wait {:.0f}% of the time for LDS operands, {:.0f}% for "
                        "stage data, {:.0f}% for other waves; no resource at 80%",
                        operand_wait / std::max(1, mfma_roles), data_wait / std::max(1, mfma_roles),
                        sync_wait / std::max(1, mfma_roles));
  r.findings = eng.findings();
  r.events = eng.events();
  if (const Observer* o = eng.observer()) r.sync_digest = o->order_digest();
  settle_incomplete(r, eng.limit_reason());
}

namespace {
constexpr uint32_t kTileM = 128, kTileN = 128, kTileK = 32;


template <int S, bool F16, OperandLayouts L>
RunResult run_kernel(const MatmulRequest& q) {
  using Cfg = Cdna3MatmulConfig<kTileM, kTileN, kTileK, S, F16, L>;
  if (q.amd_kernel == "wave_specialized")
    return run_cdna3_kernel<Cdna3WaveSpecializedMatmul<Cfg>, Cfg>(q, "wave_specialized");
  return run_cdna3_kernel<Cdna3PingPongMatmul<Cfg>, Cfg>(q, "pingpong");
}
// The operand layouts are compile-time (the loaders' DMA offsets and the
// MFMA operand reads): one instantiation per pair, chosen here once.
template <int S, bool F16>
RunResult run_layouts(const MatmulRequest& q) {
  if (q.a_mn_major && q.b_mn_major) return run_kernel<S, F16, OperandLayouts{1, 1}>(q);
  if (q.a_mn_major) return run_kernel<S, F16, OperandLayouts{1, 0}>(q);
  if (q.b_mn_major) return run_kernel<S, F16, OperandLayouts{0, 1}>(q);
  return run_kernel<S, F16, OperandLayouts{}>(q);
}
template <int S>
RunResult run_stages(const MatmulRequest& q) {
  return q.in_f16 ? run_layouts<S, true>(q) : run_layouts<S, false>(q);
}
}  // namespace

std::string mi300x_matmul_configs_help() {
  return "tile 128x128x32, stages 2-3 (LDS 64 KiB), kernels pingpong (8 waves) and "
         "wave_specialized (2 loader + 4 MFMA waves)";
}

std::string validate_mi300x_matmul(const MatmulRequest& q) {
  if (q.amd_kernel != "pingpong" && q.amd_kernel != "wave_specialized")
    return fmt::format("--amd-kernel must be pingpong or wave_specialized, got '{}'", q.amd_kernel);
  if (q.tile_n != kTileN)
    return fmt::format("--arch mi300x: tile N {} is not supported ({})", q.tile_n,
                       mi300x_matmul_configs_help());
  if (q.stages < 2 || q.stages > 3)
    return fmt::format("--arch mi300x: --stages {} is outside 2-3 (three 16 KiB stages fill the "
                       "64 KiB of LDS)",
                       q.stages);
  if (q.out_f32) return "--arch mi300x: the CDNA3 matmuls write BF16 only (--out-dtype bf16)";
  if (q.clc) return "--scheduler clc needs --arch sm100 (cluster launch control is Blackwell's)";
  // A K-major operand's DMA dwords are K pairs; an MN-major one's are pairs
  // of M (N), whose pitch rule is validate_leading_dims'.
  if (q.k % 2 != 0 && !(q.a_mn_major && q.b_mn_major))
    return fmt::format("--arch mi300x: K = {} must be even (LDS DMA moves pairs of BF16 "
                       "elements along K of a K-major operand; odd K needs --layout-a col "
                       "--layout-b row)",
                       q.k);
  const LeadingDims ld = leading_dims(q, 2);
  if (uint64_t{a_stored_rows(q)} * std::max(ld.lda, round_up(a_row_length(q), 8u)) * 2 >=
          (1ull << 32) ||
      uint64_t{b_stored_rows(q)} * std::max(ld.ldb, round_up(b_row_length(q), 8u)) * 2 >=
          (1ull << 32))
    return "--arch mi300x: A and B must each be under 4 GiB (buffer descriptors hold 32-bit sizes)";
  const uint64_t grid = std::min<uint64_t>(
      uint64_t{(q.m + kTileM - 1) / kTileM} * ((q.n + kTileN - 1) / kTileN) * q.batch,
      static_cast<uint64_t>(models::mi300x::Params::builtin().num_cus));
  for (const int cta : q.timeline_path.empty() ? std::vector<int>{} : q.timeline_ctas)
    if (cta >= 0 && static_cast<uint64_t>(cta) >= grid)
      return fmt::format("--timeline-cta {} does not exist: this launch has {} workgroups (0-{})",
                         cta, grid, grid - 1);
  if (q.functional && uint64_t{q.m} * q.n * q.k * q.batch > (1ull << 33))
    return "--functional is limited to M*N*K*batch <= 2^33 (it computes real products); use "
           "timing mode for larger shapes";
  return "";
}

RunResult run_mi300x_matmul(const MatmulRequest& q) {
  const std::string err = validate_mi300x_matmul(q);
  if (!err.empty()) throw std::invalid_argument(err);
  return q.stages == 2 ? run_stages<2>(q) : run_stages<3>(q);
}

}  // namespace sk::sim
