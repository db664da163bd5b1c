#include "runner/kernels/sm100_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/intervals.h"
#include "runner/kernels/role_stats.h"

namespace sk::sim {

void summarize_sm100(models::sm100::Gpu& gpu, double flops, RunResult& r, double peak_factor,
                     AccumulatorWait acc_wait) {
  const auto& p = gpu.params();
  Engine& eng = gpu.engine();
  Cycle end = 0;
  for (const auto& w : eng.warps()) end = std::max(end, w->done() ? w->end_cycle() : eng.now());
  r.cycles = std::max<Cycle>(end, 1);
  // The time is the clock log's: each segment's cycles at its clock (one
  // segment unless the model changed the SM clock, models/sm100/sm_clock.h);
  // clock_ghz is then the launch's average clock.
  const double kernel_ns = gpu.sm_clock().ns_at(r.cycles);
  r.clock_ghz = static_cast<double>(r.cycles) / kernel_ns;
  r.predicted_time_us = kernel_ns / 1e3;
  r.tflops = flops / (r.predicted_time_us * 1e-6) / 1e12;
  r.peak_tflops = 8192.0 * peak_factor * p.num_sms * p.clock_ghz * 1e9 / 1e12;
  r.peak_fraction = r.tflops / r.peak_tflops;

  // More CTAs than SMs (CLC grids): each CTA's warps hold their slots only
  // part of the time.
  const int started = [&] {
    int n = 0;
    for (int c = 0; c < gpu.num_ctas(); ++c) n += gpu.started(c) ? 1 : 0;
    return n;
  }();
  r.roles = role_stats(eng, r.cycles,
                       started > gpu.sms_used() ? static_cast<double>(gpu.sms_used()) / started : 1.0);

  Cycle tma = 0, covered = 0, tc = 0;
  uint64_t bytes = 0;
  for (int c = 0; c < gpu.num_ctas(); ++c) {
    if (!gpu.started(c)) continue;  // cancelled by clusterlaunchcontrol
    auto& cta = gpu.cta(c);
    auto t = merged(cta.tma_busy), m = merged(cta.tc_busy);
    tma += total(t);
    tc += total(m);
    covered += intersection(t, m);
    bytes += cta.bytes_loaded;
  }
  r.overlap_pct = tma == 0 ? 0.0 : 100.0 * static_cast<double>(covered) / static_cast<double>(tma);
  const double cycles = static_cast<double>(r.cycles);
  const double ctas = std::max(1, gpu.sms_used());
  const double tc_util = static_cast<double>(tc) / (cycles * ctas);
  // HBM keeps its speed in time while the SM clock changes (Params::at_sm_clock):
  // its capacity over the launch is its bytes per ns (per cycle times the
  // clock, the same at every clock) times the launch's time.
  const double hbm_util =
      static_cast<double>(gpu.hbm_bytes()) / (p.hbm_bytes_per_cycle * p.clock_ghz * kernel_ns);
  const double ingest_util =
      static_cast<double>(bytes) / (p.sm_ingest_bytes_per_cycle * cycles * ctas);
  uint64_t hits = 0, boxes = 0;
  for (int c = 0; c < gpu.num_ctas(); ++c)
    if (gpu.started(c)) hits += gpu.cta(c).l2_hits;
  boxes = gpu.l2().lookups();
  r.l2_hit_pct = boxes == 0 ? 0.0 : 100.0 * static_cast<double>(hits) / static_cast<double>(boxes);
  r.hbm_bytes = gpu.hbm_bytes();
  r.smem_fill_bytes = bytes;
  r.tma_l2_read_bytes = gpu.tma_l2_read_bytes();
  r.tma_l2_copy_bytes = gpu.tma_l2_copy_bytes();
  r.dsmem_bytes = gpu.dsmem_bytes();
  r.hbm_util_pct = 100.0 * hbm_util;
  r.hbm_peak_gbs = p.hbm_bytes_per_cycle * p.clock_ghz;
  // A cluster launch keeps only the SMs its clusters fit on (clusters of 4
  // on 120 of an H100's 132): the waves are over those.
  set_waves(r, static_cast<uint32_t>(gpu.cluster_size() > 1 ? gpu.sms_used() : p.num_sms));
  r.tensor_util_pct = 100.0 * tc_util;
  // The first resource near saturation names the class; with none, the MMA
  // warp's dominant stall says whether loads or the accumulator (acc_wait)
  // hold it back.
  double mma_full = 0, mma_acc = 0;
  for (const auto& role : r.roles)
    if (role.name == "mma")
      for (const auto& [cause, pct] : role.stalls) {
        if (cause == "full_stage") mma_full = pct;
        if (cause == "accumulator") mma_acc = pct;
      }
  // Each name comes with the figure that makes it the bottleneck.
  if (tc_util >= 0.8) {
    r.bottleneck = "tensor_core";
    r.bottleneck_detail = fmt::format("tensor cores {:.0f}% busy (>= 80%)", 100 * tc_util);
  } else if (hbm_util >= 0.8) {
    r.bottleneck = "hbm_bandwidth";
    r.bottleneck_detail = fmt::format("HBM at {:.0f}% of {:.0f} GB/s (>= 80%)", 100 * hbm_util,
                                      r.hbm_peak_gbs);
  } else if (ingest_util >= 0.8) {
    r.bottleneck = "sm_ingest";
    r.bottleneck_detail = fmt::format(
        "TMA loads arrive at {:.0f}% of the {:.0f} B/cycle an SM takes in (>= 80%)",
        100 * ingest_util, p.sm_ingest_bytes_per_cycle);
  } else if (mma_acc > mma_full) {
    const bool wgmma = acc_wait == AccumulatorWait::kTensorCore;
    r.bottleneck = wgmma ? "wgmma_wait" : "epilogue";
    r.bottleneck_detail = fmt::format(
        "{} {:.0f}% of the time (more than for loads, {:.0f}%); no resource at 80%",
        wgmma ? "the MMA warpgroups wait on their own wgmma groups"
              : "the MMA warp waits for the epilogue to free an accumulator",
        mma_acc, mma_full);
  } else {
    r.bottleneck = "load_latency";
    r.bottleneck_detail = fmt::format(
        "the MMA warps wait for loaded stages {:.0f}% of the time (more than for their "
        "accumulator, {:.0f}%); no resource at 80%",
        mma_full, mma_acc);
  }

  r.findings = eng.findings();
  r.events = eng.events();
  if (const Observer* o = eng.observer()) r.sync_digest = o->order_digest();
  settle_incomplete(r, eng.limit_reason());
}

}  // namespace sk::sim
