// run_result.h: the outcome of one simulated kernel run, and its JSON form.
//
// The same JSON document is (a) what a simulation child process hands back to
// the CLI and (b) the `sim run --json` summary whose fields are a contract
// (DESIGN.md section 5). Field names here are that contract.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/finding.h"

namespace sk::sim {

struct RoleStats {
  std::string name;
  double busy_pct = 0;   // share of the kernel's time the role's warps were not blocked
  double stall_pct = 0;  // share spent blocked on barriers or waiting for async ops
  // stall_pct split by cause (full_stage, empty_stage, accumulator, scheduler, residual,
  // tmem_load, tmem_store, tma_store, barrier, other), causes with no time left out.
  std::vector<std::pair<std::string, double>> stalls;
};

struct CheckResult {
  bool ran = false;
  bool passed = false;
  double max_abs_err = 0;
  double max_rel_err = 0;
  // The largest error over its element's allowed bound (check_element): a
  // passing check is below 1. 0 when the check has no per-element bound.
  double max_tolerance_fraction = 0;
  std::string reference;
  std::string detail;  // first mismatch, when failed
};

struct RunResult {
  std::string kernel, arch, status;  // status: completed | deadlock | livelock | limit
  // limit and livelock: what stopped the run, max_cycles or wall ("" else).
  std::string limit;
  uint32_t m = 0, n = 0, k = 0;
  uint32_t batch = 1;  // GEMMs of this shape in the launch (--batch)
  std::string config_name;
  std::string scheduler;  // matmul: static | clc (empty: not applicable)
  uint32_t tile_m = 0, tile_n = 0, tile_k = 0, stages = 0, ctas = 0;
  std::string out_dtype;
  // matmul: the leading dimensions of A, B and D in elements (0: not
  // reported) and whether --pad-rows widened A's and B's rows.
  uint32_t lda = 0, ldb = 0, ldd = 0;
  bool padded = false;
  // block-scaled and blockwise FP8: the pitches are the defaults, which pad
  // a packed row TMA cannot load (not 16-byte) without being asked to (the
  // plain matmul refuses it instead); `padded` is then true too.
  bool padded_default = false;
  // matmul: A M-contiguous (--layout-a col), B N-contiguous (--layout-b row).
  bool a_mn_major = false, b_mn_major = false;
  uint64_t cycles = 0;
  double clock_ghz = 0, peak_tflops = 0;  // clock_ghz: the SM clock the run predicts
  double power_w = 0;  // predicted average board power (0: not modelled for the arch)
  // SM90: the clocks of the launch's two phases (models/sm100/phase_clock.h);
  // clock_ghz is then their average, cycles over time. 0: one clock.
  double tensor_phase_ghz = 0, rest_phase_ghz = 0;
  uint64_t tensor_phase_cycles = 0;
  double predicted_time_us = 0, tflops = 0, peak_fraction = 0, overlap_pct = 0;
  // tensor_core | hbm_bandwidth | sm_ingest | epilogue | load_latency, and on
  // AMD lds_latency | synchronization
  std::string bottleneck;
  std::string bottleneck_detail;  // the figure that makes it the bottleneck
  double tensor_util_pct = 0, hbm_util_pct = 0, l2_hit_pct = 0;
  uint64_t hbm_bytes = 0;
  // NVIDIA: bytes TMA loads wrote into shared memory, and read out of L2 for
  // them; they differ by what multicast saved (a box read once for every CTA
  // of a cluster it lands in). 0: not modelled (MI300X).
  uint64_t smem_fill_bytes = 0, tma_l2_read_bytes = 0;
  // NVIDIA: bytes of multicast copies past the first that the L2's rate
  // still carried (the model's tma_multicast_l2_share of each copy).
  uint64_t tma_l2_copy_bytes = 0;
  // NVIDIA clusters: bytes ld/st/atom/red.shared::cluster moved between the
  // cluster's SMs (the K split's reduction); 0 when none.
  uint64_t dsmem_bytes = 0;
  // Functional runs: the race detector's digest of the synchronization order
  // this schedule established (engine/observer.h, order_digest); the
  // explorer counts distinct values. 0: none (timing runs).
  uint64_t sync_digest = 0;
  // Occupancy: the tiles of the launch over the SMs (CUs) that run them, one
  // CTA per SM at a time and tile_ctas CTAs per tile (the K split's S, else
  // 1): waves = tiles / (SMs / tile_ctas), and the last wave's share of the
  // tiles a wave holds (100 when the tiles fill every wave).
  uint32_t tile_ctas = 1;
  // With the K split of the last wave only (--split-tail): the tiles split,
  // the rest one CTA each (waves then counts the split rounds at 1 /
  // tile_ctas of a tile's time); 0: every tile alike.
  uint64_t split_tiles = 0;
  uint32_t sms = 0;
  uint64_t tiles = 0;
  double waves = 0, tail_wave_pct = 0;
  // Roofline: the family's compulsory bytes, its arithmetic intensity (FLOP
  // per compulsory byte) against the machine balance (peak FLOP/s over peak
  // HBM bytes/s), and the rate the roofline allows. 0: not computed.
  double hbm_peak_gbs = 0, compulsory_bytes = 0, intensity = 0, machine_balance = 0,
         roofline_tflops = 0;
  // AMD: LDS instructions and the extra cycles their bank conflicts cost.
  uint64_t lds_instructions = 0, lds_bank_conflict_cycles = 0;
  std::vector<RoleStats> roles;
  std::vector<Finding> findings;
  uint64_t seed = 0, events = 0;
  double wall_s = 0;
  // Simulations behind this result: the clock search's (a window counts as
  // one) and the one with the run's files (host_timing.simulations).
  int simulations = 1;
  bool functional = false;
  CheckResult check;
  // --trace or --timeline files that could not be written, one line each.
  std::vector<std::string> output_errors;
  // A family's probe summary (attention on sm90 with --stamp-tiles:
  // runner/kernels/attention_stamps.h), "stamps" in the JSON; empty: none.
  boost::json::object stamps;
};

// Ends the summary of a run that did not complete: records what stopped it
// (`limit_reason`, "" unless a limit did) and clears every rate and share of
// time (predicted time, TFLOP/s, peak fraction, power, overlap, utilization,
// bottleneck), which would be meaningless over a truncated or stuck run.
// Counts (cycles, events, bytes, roles' time split) stay.
void settle_incomplete(RunResult& r, const std::string& limit_reason);

// The occupancy figures of r (tiles of r.tile_m x r.tile_n over `sms`).
void set_waves(RunResult& r, uint32_t sms);
// The same for a kernel whose work units are not the GEMM view's tiles.
void set_waves(RunResult& r, uint64_t tiles, uint32_t sms);
// The roofline figures of r for `flops` over `compulsory_bytes` (needs
// r.peak_tflops and r.hbm_peak_gbs).
void set_roofline(RunResult& r, double flops, double compulsory_bytes);

boost::json::object to_json(const RunResult& r);
boost::json::object finding_to_json(const Finding& f);
Finding finding_from_json(const boost::json::value& v);  // the inverse of finding_to_json
RunResult run_result_from_json(const boost::json::value& v);

}  // namespace sk::sim
