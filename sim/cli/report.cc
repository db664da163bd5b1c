#include "sim/cli/report.h"

#include <fmt/format.h>

#include "engine/call_site.h"

namespace sk::cli {

std::string format_text(const sim::RunResult& r) {
  std::string s;
  s += fmt::format("{} on {}: M={} N={} K={}{}  [{}; {} CTAs; {} mode]\n", r.kernel, r.arch, r.m,
                   r.n, r.k, r.batch > 1 ? fmt::format(" batch={}", r.batch) : std::string(),
                   r.config_name, r.ctas, r.functional ? "functional" : "timing");
  // Only a layout other than packed, K-contiguous A and B is worth a line.
  const uint32_t a_len = r.a_mn_major ? r.m : r.k, b_len = r.b_mn_major ? r.n : r.k;
  if (r.lda != 0 && (r.lda != a_len || r.ldb != b_len || r.padded || r.a_mn_major || r.b_mn_major)) {
    // A K-contiguous operand as rows x K; an MN-contiguous one as its K rows.
    auto operand = [](const char* name, bool mn, uint32_t rows, uint32_t k, uint32_t ld) {
      return mn ? fmt::format("{} {}-contiguous, {} rows of {}, {} apart", name,
                              name[0] == 'A' ? "M" : "N", k, rows, ld)
                : fmt::format("{} {}x{} rows {} apart", name, rows, k, ld);
    };
    s += fmt::format("  operands    {}, {}{}, D rows {} apart\n",
                     operand("A", r.a_mn_major, r.m, r.k, r.lda),
                     operand("B", r.b_mn_major, r.n, r.k, r.ldb),
                     r.padded_default ? " (rows padded to 16 bytes by default: a packed row "
                                        "is not a legal TMA pitch; --lda/--ldb choose one)"
                     : r.padded       ? " (padded by --pad-rows: a packed row is not a legal pitch "
                                        "for these loads)"
                                      : "",
                     r.ldd);
  }
  const bool completed = r.status == "completed";
  const char* by = r.limit == "wall" ? "--wall-limit" : "--max-cycles";
  if (r.status == "limit")
    s += fmt::format("  status      limit: stopped by {} at cycle {} with the kernel still running "
                     "(not a finding); raise {} for the whole run\n",
                     by, r.cycles, by);
  else if (r.status == "livelock")
    s += fmt::format("  status      livelock: stopped by {} at cycle {}, nothing synchronized in "
                     "the last half of the run (the finding below)\n",
                     by, r.cycles);
  else
    s += fmt::format("  status      {}\n", r.status);
  if (!completed) {
    // No rates over a truncated or stuck run.
    s += fmt::format("  simulated   {} cycles; no time, rate or utilization for a run that did not "
                     "complete\n",
                     r.cycles);
  } else {
    s += fmt::format(
        "  predicted   {:.2f} us ({} cycles at {:.3f} GHz), {:.1f} TFLOP/s = {:.1f}% of peak\n",
        r.predicted_time_us, r.cycles, r.clock_ghz, r.tflops, 100.0 * r.peak_fraction);
  }
  if (r.tensor_phase_ghz > 0)
    s += fmt::format("  clocks      tensor phase {:.3f} GHz ({} cycles), rest {:.3f} GHz\n", r.tensor_phase_ghz,
                     r.tensor_phase_cycles, r.rest_phase_ghz);
  if (r.power_w > 0) s += fmt::format("  power       {:.0f} W average board power at those clocks\n", r.power_w);
  const bool amd = r.arch == "mi300x";
  if (completed) {
    s += fmt::format("  overlap     {:.1f}% of {} time covered by MMA work; bottleneck: {}{}\n",
                     r.overlap_pct, amd ? "LDS DMA" : "TMA load", r.bottleneck,
                     r.bottleneck_detail.empty() ? "" : " (" + r.bottleneck_detail + ")");
    s += fmt::format("  resources   {} {:.1f}% busy, HBM {:.1f}% ({:.2f} GB), {} hits {:.1f}% of {}\n",
                     amd ? "matrix cores" : "tensor core", r.tensor_util_pct, r.hbm_util_pct,
                     r.hbm_bytes / 1e9, amd ? "cache" : "L2", r.l2_hit_pct,
                     amd ? "4 KiB blocks" : "TMA L2 lookups");
    if (r.smem_fill_bytes > r.tma_l2_read_bytes && r.tma_l2_read_bytes > 0) {
      s += fmt::format("  multicast   {:.2f} GB into shared memory from {:.2f} GB read out of L2: "
                       "{:.2f} GB ({:.0f}%) of L2 reads saved",
                       r.smem_fill_bytes / 1e9, r.tma_l2_read_bytes / 1e9,
                       (r.smem_fill_bytes - r.tma_l2_read_bytes) / 1e9,
                       100.0 * static_cast<double>(r.smem_fill_bytes - r.tma_l2_read_bytes) /
                           static_cast<double>(r.smem_fill_bytes));
      // The copies still pass the L2's rate (models/sm90/params.json,
      // tma_multicast_l2_share): a saving of lookups, not of bandwidth.
      if (r.tma_l2_copy_bytes > 0)
        s += fmt::format("; the L2's rate still carried {:.2f} GB of the copies", r.tma_l2_copy_bytes / 1e9);
      s += "\n";
    }
    if (r.dsmem_bytes > 0)
      s += fmt::format("  dsmem       {:.2f} MB between the SMs of each cluster (ld/st/atom/red."
                       "shared::cluster{})\n",
                       r.dsmem_bytes / 1e6,
                       r.tile_ctas > 1 ? ": the K split's partial accumulators" : "");
  }
  if (r.sms > 0 && r.tile_ctas > 1 && r.split_tiles > 0 && r.split_tiles < r.tiles)
    s += fmt::format("  occupancy   {} tiles of {}x{} on {} SMs: {} one CTA each, then the last {} "
                     "each split over a cluster of {} CTAs ({} tiles at a time): {:.2f} waves of a "
                     "tile's time, the last {:.0f}% full\n",
                     r.tiles, r.tile_m, r.tile_n, r.sms, r.tiles - r.split_tiles, r.split_tiles,
                     r.tile_ctas, r.sms / r.tile_ctas, r.waves, r.tail_wave_pct);
  else if (r.sms > 0 && r.tile_ctas > 1)
    s += fmt::format("  occupancy   {} tiles of {}x{}, each split over a cluster of {} CTAs, on {} "
                     "SMs ({} tiles at a time): {:.2f} waves, the last {:.0f}% full\n",
                     r.tiles, r.tile_m, r.tile_n, r.tile_ctas, r.sms, r.sms / r.tile_ctas,
                     r.waves, r.tail_wave_pct);
  else if (r.sms > 0)
    s += fmt::format("  occupancy   {} tiles of {}x{} on {} {} (one CTA each at a time): {:.2f} "
                     "waves, the last {:.0f}% full\n",
                     r.tiles, r.tile_m, r.tile_n, r.sms, amd ? "CUs" : "SMs", r.waves,
                     r.tail_wave_pct);
  if (r.compulsory_bytes > 0)
    s += fmt::format("  roofline    {:.0f} FLOP/B ({:.1f} MB compulsory) against a machine balance "
                     "of {:.0f} FLOP/B ({:.0f} TFLOP/s / {:.0f} GB/s): {}-bound, at most {:.0f} "
                     "TFLOP/s\n",
                     r.intensity, r.compulsory_bytes / 1e6, r.machine_balance, r.peak_tflops,
                     r.hbm_peak_gbs, r.intensity >= r.machine_balance ? "compute" : "memory",
                     r.roofline_tflops);
  if (r.lds_instructions > 0)
    s += fmt::format("  lds         {} instructions, {} extra cycles from bank conflicts\n",
                     r.lds_instructions, r.lds_bank_conflict_cycles);
  for (const auto& role : r.roles) {
    s += fmt::format("  role {:<10} busy {:5.1f}%  stalled {:5.1f}%", role.name, role.busy_pct,
                     role.stall_pct);
    std::string sep = ": ";
    for (const auto& [cause, pct] : role.stalls) {
      if (pct < 0.05) continue;
      s += fmt::format("{}{} {:.1f}%", sep, cause, pct);
      sep = ", ";
    }
    s += "\n";
  }
  if (r.check.ran)
    s += fmt::format("  check       {} (max abs err {:.3g}, max rel err {:.3g}{}; {}){}\n",
                     r.check.passed ? "PASSED" : "FAILED", r.check.max_abs_err, r.check.max_rel_err,
                     r.check.max_tolerance_fraction > 0
                         ? fmt::format(", worst element at {:.3g} of its tolerance",
                                       r.check.max_tolerance_fraction)
                         : std::string(),
                     r.check.reference, r.check.detail.empty() ? "" : "\n    " + r.check.detail);
  s += fmt::format("  findings    {}\n", r.findings.size());
  for (const auto& f : r.findings) {
    s += fmt::format("  [{}] {} at cycle {}", f.cls, f.rule, f.cycle);
    if (f.cta >= 0) s += fmt::format(", CTA {}", f.cta);
    if (f.warp >= 0) s += fmt::format(" warp {}", f.warp);
    if (!f.role.empty()) s += fmt::format(" ({})", f.role);
    if (!f.location.empty()) s += ", " + f.location;
    s += "\n    " + f.message + "\n";
    if (!f.chain.empty()) s += "    through " + sim::join_chain(f.chain) + "\n";
    for (const auto& d : f.details) s += "      " + d + "\n";
  }
  s += fmt::format("  seed {}  events {}  wall {:.3f} s\n", r.seed, r.events, r.wall_s);
  return s;
}

}  // namespace sk::cli
