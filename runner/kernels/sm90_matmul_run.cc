// sm90_matmul_run.cc: see sm90_matmul_run.h.
#include "runner/kernels/sm90_matmul_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

#include "kernels/matmul/sm90_matmul.h"
#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "models/sm100/power.h"
#include "runner/kernels/power_clocks.h"
#include "engine/sysc_reset.h"
#include "models/sm90/lockstep.h"
#include "runner/kernels/input_sets.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/matmul_stamps.h"
#include "runner/kernels/sm100_summary.h"
#include "runner/kernels/sm90_launch.h"
#include "traces/sim_trace_export.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

// The launch's output tiles (tile M x tile N, every batch).
uint64_t output_tiles(const MatmulRequest& q) {
  return ceil_div<uint64_t>(q.m, q.tile_m) * ceil_div<uint64_t>(q.n, q.tile_n) * q.batch;
}

// What the power model needs of a finished launch, or of one stopped at its
// max_cycles (the clock search's window, power_clocks.h): there the bytes TMA
// brought that the tensor cores consumed (each CTA's producer runs about
// S - 1 stages ahead of them) and the FLOPs of those k-blocks.
models::sm100::KernelActivity activity(const MatmulRequest& q, const RunResult& r) {
  models::sm100::KernelActivity a;
  a.flops = 2.0 * q.m * q.n * q.k * q.batch;
  // Every k-block of every tile brings a tile M x 64 A tile (A's M rows
  // where it is shorter, sm90_a_loaded_rows) and a BN x 64 B box
  // (out-of-bounds parts zero-filled, full bytes).
  const uint32_t a_rows = sm90_a_loaded_rows(q.m, q.cluster_n, q.a_mn_major ? 1 : 0, q.tile_m);
  const double stage = (static_cast<double>(a_rows) + q.tile_n) * 64 * 2;
  a.tma_bytes = static_cast<double>(output_tiles(q) * ceil_div<uint64_t>(q.k, 64)) * stage;
  if (r.status != "completed" && a.tma_bytes > 0) {
    const double ahead = static_cast<double>(r.ctas) * (q.stages - 1) * stage;
    const double done = std::max(0.0, static_cast<double>(r.smem_fill_bytes) - ahead) / a.tma_bytes;
    a.flops *= done;
    a.tma_bytes *= done;
  }
  a.hbm_bytes = static_cast<double>(r.hbm_bytes);
  a.cycles = r.cycles;
  a.tensor_cycles = r.tensor_phase_cycles;
  a.active_sms = static_cast<int>(r.ctas);
  return a;
}

// The clock search's first window (power_clocks.h): the launch's first
// 200,000 cycles or two tiles per CTA if longer (the start-up's loads from a
// cold L2 weigh on a shorter one), when that is at most 40 % of the launch
// (estimated: each CTA's tiles, a tile at least its k-blocks at the tensor
// core's rate and its output at the store stream's ~7 bytes per cycle);
// 0 (the whole launch) otherwise.
uint64_t clock_window(const MatmulRequest& q, uint64_t grid) {
  if (grid == 0) return 0;
  const uint64_t tiles = output_tiles(q);
  const double k_block = 8.0 * models::sm90::extras().wgmma_ii_per_n * q.tile_n * q.tile_m / 128.0;
  const double tile =
      static_cast<double>(ceil_div<uint64_t>(q.k, 64)) * k_block + q.tile_m * q.tile_n * 2 / 7.0;
  // A K split's cluster of S CTAs works one tile, each CTA 1/S of its
  // k-blocks; with --split-tail the tiles before split_from one CTA each.
  const uint64_t split = std::max<uint32_t>(q.split_k, 1);
  const uint64_t from = sm90_split_from(tiles, grid, q.split_k, q.split_tail);
  const double launch = static_cast<double>(from / grid) * tile +
                        static_cast<double>(ceil_div(tiles - from, std::max<uint64_t>(grid / split, 1))) *
                            tile / static_cast<double>(split);
  return window_if_short(launch, std::max(200'000.0, 5'000 + 2 * tile));
}

// One launch with the tensor phase at `f.tensor_ghz` and the rest at
// `f.rest_ghz` (models/sm100/phase_clock.h); the operands kept in
// `operands` and the reference kept in `reference` serve every launch of q.
template <int BN, int S, bool F16, bool Tma, int Split, bool PingPong, int BM, bool NoCluster>
RunResult run_config(const MatmulRequest& q, models::sm100::LaunchClocks f,
                     MatmulOperandBytes& operands, MatmulReferenceCache& reference) {
  using C = Sm90MatmulConfig<BN, S, F16, Tma, Split, PingPong, BM, NoCluster>;
  if (!C::runs_launch(q.cluster_m, q.cluster_n, q.split_k))
    throw std::runtime_error(fmt::format("the {} instance runs no {}x{} cluster with a K split of {}",
                                         NoCluster ? "cluster-free" : "clustered", q.cluster_m,
                                         q.cluster_n, q.split_k));
  // The probe costs nothing unless a log is installed (--stamp-tiles,
  // --hold-kblock).
  using Kernel = Sm90Matmul<C, ClusterBug::kNone, MatmulStampLog::Probe>;
  const auto t0 = std::chrono::steady_clock::now();
  Gpu gpu(models::sm90::gpu_params(), q.functional);
  start_sm90_launch(gpu, f);
  models::sm90::api::set_lockstep(!q.per_warp);
  configure_run(gpu, q, t0);
  const MatmulBuffers buf = allocate_matmul<bf16_t>(gpu, q, &operands);
  typename Kernel::Params p{};
  // In a cluster each CTA loads a slice of the shared tiles (and multicasts
  // it): A's boxes are BM / cluster_n rows (M rows where A is shorter than
  // a tile, sm90_a_box_rows), B's BN / cluster_m.
  fail_encode(encode_operand_map(p.a, buf.a, q.k, q.m, buf.lda, buf.stride_a, q.batch, 64,
                                 sm90_a_box_rows(q.m, q.cluster_n, q.a_mn_major ? 1 : 0, BM),
                                 q.a_mn_major));
  fail_encode(encode_operand_map(p.b, buf.b, q.k, q.n, buf.ldb, buf.stride_b, q.batch, 64,
                                 BN / q.cluster_m, q.b_mn_major));
  // B's last tile column where it is narrower than the tile: its own box.
  p.b_edge_rows = sm90_b_edge_rows(q.n, BN, q.cluster_m, q.b_mn_major ? 1 : 0);
  if (p.b_edge_rows != 0)
    fail_encode(encode_operand_map(p.b_edge, buf.b, q.k, q.n, buf.ldb, buf.stride_b, q.batch, 64,
                                   p.b_edge_rows, false));
  p.cluster_m = q.cluster_m;
  p.cluster_n = q.cluster_n;
  p.split_k = q.split_k;
  p.split_tail = q.split_tail ? 1 : 0;
  if constexpr (Tma) {
    // D's boxes for the TMA-store epilogue: 16 rows of 64 columns, 128B swizzle.
    const uint64_t dims[3] = {q.n, q.m, q.batch};
    const uint64_t strides[2] = {uint64_t{buf.ldc} * 2, q.batch == 1 ? 16 : buf.stride_d * 2};
    fail_encode(models::sm100::encode_tiled_3d(p.d_map, buf.d, 2, dims, strides, 64, 16,
                                               models::sm100::Swizzle::k128B));
  }
  if (q.input_sets > 0) {
    const models::sm100::TensorMapModel* maps[] = {&p.a, &p.b};
    sk::runner::preload_input_sets(gpu, maps, uint64_t{buf.ldc} * 2 * q.m * q.batch, q.input_sets);
  }
  p.layouts = OperandLayouts{q.a_mn_major ? 1u : 0u, q.b_mn_major ? 1u : 0u};
  p.d = reinterpret_cast<bf16_t*>(buf.d);
  p.m = q.m;
  p.n = q.n;
  p.k = q.k;
  p.ldd = buf.ldc;
  p.batches = q.batch;
  p.batch_stride_d = buf.stride_d;
  // 0: the kernel's own order for the shape (--tile-group auto).
  p.tile_group = q.tile_group != 0
                     ? q.tile_group
                     : sm90_auto_tile_group(q.m, q.k, static_cast<uint32_t>(gpu.params().num_sms));
  const auto races = attach_race_detector(gpu, q);
  const ClusterShape cs{q.cluster_m, q.cluster_n};
  const uint32_t cluster_ctas = cs.size() * q.split_k;
  const int grid = static_cast<int>(sm90_matmul_grid(q));
  MatmulStampLog stamps(q.stamp_tiles, q.hold_kblock);
  const MatmulStampLog::Scope stamping(q.stamp_tiles || q.hold_kblock > 0 ? &stamps : nullptr);
  const std::string err = gpu.launch(grid, C::kThreads / 32, C::kSmemBytes, [&p] { Kernel::run(p); },
                                     static_cast<int>(cluster_ctas));
  if (!err.empty()) throw std::runtime_error(err);
  const RunStatus status = gpu.run(q.max_cycles);

  RunResult r;
  r.kernel = "matmul";
  r.arch = "sm90";
  r.m = q.m;
  r.n = q.n;
  r.k = q.k;
  r.batch = q.batch;
  r.config_name = fmt::format("sm90_matmul_{}_{}x{}x64_s{}_bf16out{}{}", F16 ? "f16" : "bf16", BM, BN, S,
                              p.tile_group > 1 ? fmt::format("_g{}", p.tile_group) : "",
                              cs.size() > 1 ? fmt::format("_c{}x{}", q.cluster_m, q.cluster_n) : "") +
                  (q.split_k > 1 ? fmt::format("_splitk{}{}", q.split_k, q.split_tail ? "tail" : "") : "") +
                  (Tma ? "_tmastore" : "") +
                  (PingPong ? "_pingpong" : "");
  r.tile_m = BM;
  r.tile_n = BN;
  r.tile_k = 64;
  r.stages = S;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = run_status_name(status);
  r.tile_ctas = std::max<uint32_t>(q.split_k, 1);  // the K split's cluster computes one tile
  if (q.split_tail) {  // only the tiles from split_from
    const uint64_t tiles = output_tiles(q);
    r.split_tiles = tiles - sm90_split_from(tiles, static_cast<uint64_t>(grid), q.split_k, true);
  }
  const double flops = 2.0 * q.m * q.n * q.k * q.batch;
  summarize_sm100(gpu, flops, r, 1.0, AccumulatorWait::kTensorCore);
  // The summary's time is the clock log's: each phase's cycles at its clock.
  finish_sm90_launch(gpu, flops, f, r, [&q](const RunResult& x) { return activity(q, x); });
  settle_incomplete(r, gpu.engine().limit_reason());
  if (q.stamp_tiles)
    r.stamps = stamps.to_json(static_cast<uint32_t>(grid) / cluster_ctas, static_cast<uint32_t>(S),
                              static_cast<uint32_t>((q.k + 63) / 64));
  r.check = check_run<bf16_t>(gpu, q, buf, status, &reference);
  r.output_errors = write_run_files(gpu, q, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

using Runner = RunResult (*)(const MatmulRequest&, models::sm100::LaunchClocks,
                             MatmulOperandBytes&, MatmulReferenceCache&);
template <int BN, int S, bool F16, bool Tma, int Split, bool PingPong, int BM, bool NoCluster>
constexpr Runner runner() {
  if constexpr (kSm90MatmulFits<BN, S, Tma, Split, BM>)
    return &run_config<BN, S, F16, Tma, Split, PingPong, BM, NoCluster>;
  else
    return nullptr;
}
template <int BN, bool F16, bool Tma, int Split = 0, bool PingPong = false, int BM = 128,
          bool NoCluster = false>
Runner by_stages(uint32_t s) {
  switch (s) {
    case 2: return runner<BN, 2, F16, Tma, Split, PingPong, BM, NoCluster>();
    case 3: return runner<BN, 3, F16, Tma, Split, PingPong, BM, NoCluster>();
    case 4: return runner<BN, 4, F16, Tma, Split, PingPong, BM, NoCluster>();
    case 5: return runner<BN, 5, F16, Tma, Split, PingPong, BM, NoCluster>();
    case 6: return runner<BN, 6, F16, Tma, Split, PingPong, BM, NoCluster>();
    default: return nullptr;
  }
}
// The cooperative schedule's instance for the launch: the one without a
// cluster for 1 x 1 (as the device hosts pick; Sm90MatmulConfig's
// NoCluster_), else the one that takes the cluster from its parameters.
template <int BN, bool F16, bool Tma>
Runner cooperative(const MatmulRequest& q) {
  return q.cluster_m * q.cluster_n == 1 ? by_stages<BN, F16, Tma, 0, false, 128, true>(q.stages)
                                        : by_stages<BN, F16, Tma>(q.stages);
}
// The K split's slots (sm90_split_slots): 4 for S = 2, 7 for the others;
// with the 128-column tile, and the 192-column one for S = 2 (its 48 KiB of
// slots beside 40 KiB stages; a 256-column tile's would leave room for two).
template <bool F16, bool Tma>
Runner by_tile(const MatmulRequest& q) {
  if (q.split_k > 1) {
    if (q.split_k == 2)
      return q.tile_n == 128   ? by_stages<128, F16, Tma, kSplitKSlotsOfTwo>(q.stages)
             : q.tile_n == 192 ? by_stages<192, F16, Tma, kSplitKSlotsOfTwo>(q.stages)
                               : nullptr;
    return q.tile_n == 128 ? by_stages<128, F16, Tma, kSplitKSlots>(q.stages) : nullptr;
  }
  // The consumers split along N: 192 or 256 x 128, no TMA-store epilogue
  // (validate_sm90_matmul says why not otherwise).
  if (q.tile_m != 128) {
    if constexpr (Tma) return nullptr;
    if (q.tile_n != 128) return nullptr;
    return q.tile_m == 192   ? by_stages<128, F16, false, 0, false, 192>(q.stages)
           : q.tile_m == 256 ? by_stages<128, F16, false, 0, false, 256>(q.stages)
                             : nullptr;
  }
  // The ping-pong schedule: 128 x 128, BF16 (validate_sm90_matmul says why not otherwise).
  if (q.pingpong) {
    if constexpr (!F16)
      return q.tile_n == 128 ? by_stages<128, false, Tma, 0, true>(q.stages) : nullptr;
    return nullptr;
  }
  return q.tile_n == 256   ? cooperative<256, F16, Tma>(q)
         : q.tile_n == 192 ? cooperative<192, F16, Tma>(q)
         : q.tile_n == 128 ? cooperative<128, F16, Tma>(q)
                           : nullptr;
}
template <bool Tma>
Runner by_type(const MatmulRequest& q) {
  return q.in_f16 ? by_tile<true, Tma>(q) : by_tile<false, Tma>(q);
}
Runner lookup(const MatmulRequest& q) { return q.tma_epilogue ? by_type<true>(q) : by_type<false>(q); }
}  // namespace

uint64_t sm90_matmul_grid(const MatmulRequest& q) {
  const ClusterShape cs{q.cluster_m, q.cluster_n};
  const uint64_t blocks =
      cluster_blocks(ceil_div<uint32_t>(q.m, q.tile_m), ceil_div<uint32_t>(q.n, q.tile_n), q.batch, cs);
  const uint32_t ctas = cs.size() * std::max<uint32_t>(q.split_k, 1);  // a cluster's
  const int fit = Gpu::max_active_clusters(models::sm90::gpu_params(), static_cast<int>(ctas));
  return std::min<uint64_t>(blocks, static_cast<uint64_t>(std::max(fit, 0))) * ctas;
}

std::string sm90_matmul_configs_help() {
  return "tile 128x{128,192,256}x64, stages 2-6 (as many as fit in 227 KB: 5 for N=192, 4 for "
         "N=256); with the consumers split along N, {192,256}x128x64 (5 and 4 stages at most)";
}

std::string validate_sm90_matmul(const MatmulRequest& q) {
  if (q.tile_n != 128 && q.tile_n != 192 && q.tile_n != 256)
    return fmt::format("--arch sm90: tile N {} is not supported ({})", q.tile_n, sm90_matmul_configs_help());
  if (q.stages < 2 || q.stages > 6)
    return fmt::format("--arch sm90: --stages {} is outside 2-6", q.stages);
  if (q.tile_m != 128) {
    if (q.tile_m != 192 && q.tile_m != 256)
      return fmt::format("--tile-m {}: the SM90 matmul's tile M is 128, 192 or 256", q.tile_m);
    if (q.tile_n != 128)
      return fmt::format("--tile-m {}: the consumers split a {}-row tile along N, 64 columns each: "
                         "use --tile-n 128 (got {})",
                         q.tile_m, q.tile_m, q.tile_n);
    if (q.pingpong || q.split_k > 1 || q.cluster_m * q.cluster_n > 1 || q.tma_epilogue)
      return fmt::format("--tile-m {} runs without --pingpong, --split-k, --cluster or --epilogue tma",
                         q.tile_m);
  }
  if (q.pingpong) {
    if (q.tile_n != 128)
      return fmt::format("--pingpong: each warpgroup holds a whole 128x128 tile (128 "
                         "accumulator registers a thread); --tile-n {} does not fit, use 128",
                         q.tile_n);
    if (q.split_k > 1 || q.cluster_m * q.cluster_n > 1)
      return "--pingpong runs without a cluster or a K split (leave --cluster 1x1, "
             "--split-k 1)";
    if (q.in_f16) return "--pingpong is built for BF16 inputs only (--in-dtype bf16)";
  }
  if (q.split_k > 1) {
    const uint32_t s = q.split_k;
    if (!split_k_fits(s))
      return fmt::format("--split-k {}: the K split takes a cluster of 2, 3, 4 or 8 CTAs (its "
                         "reduction's slots hold no other share of the 8 consumer warps)",
                         s);
    if (q.cluster_m * q.cluster_n > 1)
      return fmt::format("--split-k {} with --cluster {}x{}: a K split's cluster is its own (no "
                         "multicast); leave --cluster at 1x1",
                         s, q.cluster_m, q.cluster_n);
    if (q.tile_n != 128 && (q.tile_n != 192 || s != 2))
      return fmt::format("--split-k {}: the K split runs with tile N 128, or 192 with --split-k 2 "
                         "(--tile-n {} has no room for its slots)",
                         s, q.tile_n);
    if (ceil_div<uint32_t>(q.k, 64) < s)
      return fmt::format("--split-k {}: K = {} has {} k-block(s) of 64, fewer than the {} CTAs "
                         "that would split it",
                         s, q.k, ceil_div<uint32_t>(q.k, 64), s);
    if (models::sm100::Gpu::max_active_clusters(models::sm90::gpu_params(), static_cast<int>(s)) < 1)
      return fmt::format("--split-k {}: no GPC of the modelled GPU holds a cluster of {} CTAs", s, s);
  }
  if (lookup(q) == nullptr)
    return fmt::format(
        "--arch sm90: {} stages of a {}x{}x64 tile do not fit in 227 KB of shared memory{}", q.stages,
        q.tile_m, q.tile_n,
        q.split_k > 1 ? fmt::format(" beside the K split's {} KiB of slots", sm90_split_slots(q.split_k) *
                                                                              q.tile_n / 2 * 32 * 4 / 1024)
                      : "");
  if (q.out_f32) return "--arch sm90: the SM90 matmul writes BF16 only (--out-dtype bf16)";
  {
    const uint32_t cm = q.cluster_m, cn = q.cluster_n;
    auto pow2 = [](uint32_t v) { return v >= 1 && v <= 8 && (v & (v - 1)) == 0; };
    if (!pow2(cm) || !pow2(cn) || cm * cn > 8)
      return fmt::format("--cluster {}x{}: each side must be 1, 2, 4 or 8 and the cluster at most 8 "
                         "CTAs (the portable cluster size)",
                         cm, cn);
    if (cm * cn > 1 && (q.a_mn_major || q.b_mn_major))
      return fmt::format("--cluster {}x{}: the clustered SM90 matmul takes K-major operands only "
                         "(--layout-a row, --layout-b col)",
                         cm, cn);
    if (cm * cn > 1 &&
        models::sm100::Gpu::max_active_clusters(models::sm90::gpu_params(),
                                                static_cast<int>(cm * cn)) < 1)
      return fmt::format("--cluster {}x{}: no GPC of the modelled GPU holds a cluster of {} CTAs",
                         cm, cn, cm * cn);
  }
  const uint64_t grid = sm90_matmul_grid(q);
  for (const int cta : q.timeline_path.empty() ? std::vector<int>{} : q.timeline_ctas)
    if (cta >= 0 && static_cast<uint64_t>(cta) >= grid)
      return fmt::format("--timeline-cta {} does not exist: this launch has {} CTAs (0-{})", cta,
                         grid, grid - 1);
  if (q.functional && uint64_t{q.m} * q.n * q.k * q.batch > (1ull << 33))
    return "--functional is limited to M*N*K*batch <= 2^33 (it computes real products); use "
           "timing mode for larger shapes";
  return "";
}

RunResult run_sm90_matmul(const MatmulRequest& q) {
  const std::string err = validate_sm90_matmul(q);
  if (!err.empty()) throw std::invalid_argument(err);
  const Runner run = lookup(q);
  MatmulInputs own;
  MatmulInputs& in = matmul_inputs(q, own);
  return run_power_limited(
      q, models::sm90::gpu_params().power, models::sm90::gpu_params().clock_ghz,
      [&](const MatmulRequest& x, models::sm100::LaunchClocks f) {
        return run(x, f, in.operands, in.reference);
      },
      [&q](const RunResult& r) { return activity(q, r); }, clock_window(q, sm90_matmul_grid(q)));
}

}  // namespace sk::sim
