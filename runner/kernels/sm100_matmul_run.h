// sm100_matmul_run.h: host side of the SM100 structured matmul in the model.
//
// Builds the problem (random BF16 inputs in padded, 16-byte aligned rows, as
// TMA requires; the padding holds NaNs that must never be read), encodes the
// tensor maps, launches Sm100Matmul<Cfg> on the simulated B200 (grid
// min(tiles, SMs) with the static persistent scheduler, one CTA per tile with
// the CLC scheduler), and in
// functional mode checks D against an independent FP64 reference GEMM,
// including that nothing outside D was written. Must run inside a simulation
// process (see engine/isolate.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/result/run_result.h"

namespace sk::sim {

struct MatmulRequest {
  std::string arch = "sm100";  // sm100, sm90 or mi300x (runner/kernels/matmul_dispatch.h picks the model)
  std::string amd_kernel = "pingpong";  // mi300x: pingpong or wave_specialized
  uint32_t m = 0, n = 0, k = 0;
  // Independent GEMMs of this shape (--batch): A, B and D each hold `batch`
  // matrices one after another, m (n) rows of lda (ldb, ldd) elements apart.
  uint32_t batch = 1;
  uint32_t tile_n = 256;
  // --arch sm90: 128, or 192 / 256 with the consumers split along N
  // (kernels/matmul/sm90_matmul.h, Sm90MatmulConfig's BM_); the others 128.
  uint32_t tile_m = 128;
  uint32_t stages = 4;
  bool out_f32 = false;
  bool clc = false;  // --scheduler clc: cluster launch control instead of static
  int num_sms = 0;   // SMs of the modelled GPU (0: params.json); for small tests
  bool functional = false;
  // The schedule (engine/schedule.h; 0: the nominal one) and, unless
  // data_seed is set, the random operands. sim verify sets data_seed to its
  // first seed, so that every schedule runs on the same data (drawn once,
  // runner/kernels/matmul_inputs.h); --data-seed replays one of them.
  uint64_t seed = 0;
  std::optional<uint64_t> data_seed;
  uint64_t operand_seed() const { return data_seed.value_or(seed); }
  uint64_t max_cycles = 4'000'000'000ull;
  // Wall-clock seconds after which the simulation stops itself with status
  // limit (engine/engine.h); 0: no limit. The CLI's --wall-limit.
  double wall_limit_s = 0;
  std::string trace_path;  // empty: no trace
  std::vector<int> trace_sms;  // SMs the trace covers (empty: all)
  // --timeline: an SVG of CTAs' roles over [from, to) cycles (to 0: end), one
  // block per entry of timeline_ctas: a CTA id, or kTimelineBusiest /
  // kTimelineSlowest, chosen after the run (runner/report/timeline_svg.h).
  static constexpr int kTimelineBusiest = -1, kTimelineSlowest = -2;
  std::string timeline_path;
  std::vector<int> timeline_ctas{0};
  uint64_t timeline_from = 0, timeline_to = 0;
  // Report progress on stderr for long runs: a line rewritten in place on a
  // terminal, else a line every few seconds; with the estimated events
  // (runner/family/estimate.h) it gives an ETA.
  // Leading dimensions in elements (rows of A and B are K long, of D N): 0
  // takes the smallest pitch whose rows start on 16 bytes (leading_dims() in
  // matmul_host.h); the CLI gives them explicitly (--lda, --ldb, --ldd) and
  // `padded` says --pad-rows rounded A's and B's up to what the loads need.
  uint32_t lda = 0, ldb = 0, ldd = 0;
  bool padded = false;
  // The matmul's A and B are IEEE F16 instead of BF16 (--in-dtype f16).
  bool in_f16 = false;
  // Operand layouts (--layout-a col, --layout-b row): A stored M-contiguous
  // (K rows of lda >= M elements) instead of K-contiguous, B N-contiguous (K
  // rows of ldb >= N) instead of K-contiguous.
  bool a_mn_major = false, b_mn_major = false;
  // Tile order (--tile-group, sm90): 1 walks the output tiles along M; G > 1
  // in bands of G tile columns (tile_work in
  // kernels/sched/static_persistent_scheduler.h).
  uint32_t tile_group = 1;
  // sm90, sm100: the measurement rotates over this many input sets (--input-sets;
  // runner/kernels/input_sets.h): the L2 starts with what the launches
  // since this set's last use left of it. 0: a lone launch, L2 empty.
  uint32_t input_sets = 0;
  // Thread-block cluster (--cluster MxN). sm90: cluster_m x cluster_n CTAs
  // share A across the cluster's N and B across its M by TMA multicast
  // (kernels/sched/cluster_shape.h); sm100: 2 x 1 runs the 2-SM kernel (a
  // pair of CTAs per 256 x tile_n tile, tcgen05 cta_group::2); 1 x 1: no
  // cluster.
  uint32_t cluster_m = 1, cluster_n = 1;
  // sm90 (--split-k S): each tile's K split over a cluster of S CTAs (2, 3,
  // 4 or 8), their accumulators reduced through DSMEM
  // (kernels/matmul/split_k_reduce.h); 1: no split. With split_tail
  // (--split-tail) only the last wave's tiles are split (sm90_split_from).
  uint32_t split_k = 1;
  bool split_tail = false;
  // SM90 epilogue (--epilogue): D from registers by st.global (false) or
  // staged in SMEM and stored by TMA (true; kernels/io/wgmma_tile_writer.h).
  bool tma_epilogue = false;
  // The SM90 matmul's ping-pong schedule (--pingpong): each consumer
  // warpgroup takes every other tile whole (Sm90MatmulConfig::kPingPong).
  bool pingpong = false;
  // sm90: record the kernel's probe points (runner/kernels/matmul_stamps.h)
  // into RunResult::stamps.
  bool stamp_tiles = false;
  // sm90: each consumer warp holds every stage this many SM cycles longer
  // (a spin after its k-block's wgmma wait, before the release), as
  // hw/h200/gemm_bench --hold-kblock does: how much slack the stage ring has.
  uint32_t hold_kblock = 0;
  // sm90: simulate every consumer warp through the main loop; a timing run
  // otherwise simulates it once per warpgroup (models/sm90/lockstep.h). The
  // CLI's --per-warp.
  bool per_warp = false;
  bool progress = false;
  bool progress_terminal = true;
  double estimate_events = 0;
  // sm90: run the SMs at these clocks (GHz), the tensor phase at the first
  // and the rest at the second (models/sm100/phase_clock.h); equal, as with
  // locked clocks. 0: the power-limited clocks of models/sm100/power.h.
  double sm_clock_ghz = 0, rest_clock_ghz = 0;
};
// The leading dimensions (elements) of A, B and D for q: q.lda, q.ldb and
// q.ldd where given, else the smallest pitch >= the row's length (K for a
// K-major operand, M or N for an MN-major one, N for D) whose rows start on
// 16 bytes (the default of runs that do not come from the CLI).
struct LeadingDims {
  uint32_t lda = 0, ldb = 0, ldd = 0;
};
// The elements of one stored row of A and of B: K, or M (N) when MN-major.
inline uint32_t a_row_length(const MatmulRequest& q) { return q.a_mn_major ? q.m : q.k; }
inline uint32_t b_row_length(const MatmulRequest& q) { return q.b_mn_major ? q.n : q.k; }
// The stored rows of one matrix of A and of B: M (N), or K when MN-major.
inline uint32_t a_stored_rows(const MatmulRequest& q) { return q.a_mn_major ? q.k : q.m; }
inline uint32_t b_stored_rows(const MatmulRequest& q) { return q.b_mn_major ? q.k : q.n; }
inline LeadingDims leading_dims(const MatmulRequest& q, uint32_t out_bytes) {
  auto up = [](uint32_t v, uint32_t m) { return (v + m - 1) / m * m; };
  return {q.lda != 0 ? q.lda : up(a_row_length(q), 8), q.ldb != 0 ? q.ldb : up(b_row_length(q), 8),
          q.ldd != 0 ? q.ldd : up(q.n, 16 / out_bytes)};
}


// An entry of MatmulRequest::timeline_ctas as the command line gives it: the
// CTA's number, "busiest" or "slowest".
std::string timeline_cta_text(int entry);

// Empty when the request can be built, else a one-line reason (bad input).
std::string validate_sm100_matmul(const MatmulRequest& req);

RunResult run_sm100_matmul(const MatmulRequest& req);

// Tile widths and stage counts the dispatcher instantiates.
std::string sm100_matmul_configs_help();

// One compiled configuration: its runner (null when it does not fit) and
// its shared memory per CTA.
struct Sm100ConfigEntry {
  RunResult (*run)(const MatmulRequest&) = nullptr;
  uint32_t smem_bytes = 0;
};
// The 2-SM configuration of q's tile, stages and types (--cluster 2x1;
// sm100_pair_matmul_run.cc).
Sm100ConfigEntry sm100_pair_matmul_entry(const MatmulRequest& q);

}  // namespace sk::sim
