// gemm_bench.cu: the SM90 structured matmul on a real Hopper GPU, checked
// against cuBLAS and timed against it in the same run.
//
//   gemm_bench --m M --n N --k K [--batch L] [--tile-group G|auto] [--stages 2-6] [--tile-n 128|192|256]
//              [--tile-m 192|256]
//              [--cluster MxN | --clusters LIST] [--runs 20] [--all]
//              (--all: 128x128 with 2-6 stages, 128x192 and 128x256 with 2-4; with
//              --split-k 2, 128x128 with 2-6 and 128x192 with 2-4; with 3, 4, 8,
//              128x128 with 2-5; as many as fit)
//
// --batch L runs L independent GEMMs of the shape in one launch (the kernel's
// rank-3 tensor maps; A, B and D each hold their L matrices one after
// another), checked and timed against cublasGemmStridedBatchedEx; the shape
// column then reads MxNxKxL.
// --layout-a col stores A M-contiguous (K rows of M), --layout-b row stores B
// N-contiguous (K rows of N); the kernel loads them as MN-major tiles and
// wgmma reads them transposed; cuBLAS gets the matching op flags. The shape
// column then ends in _ca (A col-major), _rb (B row-major) or both.
// --tile-group G walks the output tiles in bands of G tile columns
// (kernels/sched/static_persistent_scheduler.h); the shape column then ends
// in _gG. --tile-group auto takes the kernel's own order for the shape
// (sm90_auto_tile_group in kernels/matmul/sm90_matmul.h), and the column
// names the group it chose.
// --cluster MxN runs the kernel in thread-block clusters of M CTAs along M
// and N along N (M, N in {1, 2, 4}, M * N <= 4; default 1x1, no cluster;
// kernels/sched/cluster_shape.h): launched with cudaLaunchKernelEx and
// cluster dimension {M * N, 1, 1}, A's map with boxes of 128 / N rows and B's
// of tile_n / M rows (each CTA loads its slice of the shared tile and
// multicasts it), a persistent grid of min(cluster blocks, the clusters
// cudaOccupancyMaxActiveClusters allows at once) x M * N CTAs. The shape
// column then ends in _cMxN.
// --ctas N launches at most N persistent CTAs (default one per SM, at most one
// per tile; not with --cluster): each walks its share of the tiles in turn, as
// on a GPU of N SMs; the shape column then ends in _nN.
// --cluster-launch-only launches the clusters as --cluster says but runs the
// kernel as without one (its Params name a 1x1 cluster: the 1x1 tile order,
// no multicast, local releases), the shape column then ending in _cMxN_lo:
// what the cluster launch itself costs. (No tile stamps then: the clock
// probe takes the launch's clusters for the kernel's.)
// --clustered-instance runs a launch without a cluster (1x1, no K split) on
// the instance that takes its cluster from its parameters instead of the one
// whose cluster shape is the constant 1x1 (Sm90MatmulConfig's NoCluster_,
// what 1x1 runs by default): what folding the cluster away gains. 128-row
// cooperative tiles only (the ping-pong schedule and the split along N have
// the one instance, without a cluster); the shape column is unchanged.
// --stamp-tiles also runs each configuration once more built
// with hw/h200/matmul_stamps.cuh's clock probe and prints its tile phases,
// the clocks they ran at and the launch's span (section matmul_tile_stamps)
// after the configuration's line, then a line "stamped_launch,CONFIG,US":
// the stamped launch's own time (CUDA events), to hold against the timed
// median. --stamp-tile-points does the same with TileClockProbe (the tile
// points only, no k-block points).
// --hold-kblock LIST (SM cycles, comma-separated, e.g. 0,100,200) also times
// each configuration built with matmul_stamps.cuh's HoldProbe once per value:
// every consumer thread spins that many cycles after each k-block's wgmma
// wait, before the release; a line "hold_kblock,CONFIG,HOLD,US,MHZ" each
// (the median of --runs launches and their SM clock). 0 is the probe's own
// cost. How the time answers the hold is the ring's slack, read without stamps.
// --sets N times over N input sets in turn instead of the default
// min(8, ceil(192 MB / a set's bytes)): 1 finds every launch's operands in L2
// where they fit, 64 none of a small problem's (the model's --input-sets
// reads the same rotation, runner/kernels/input_sets.h); the shape column then
// ends in _sN.
// --pingpong runs the ping-pong schedule (Sm90MatmulConfig's PingPong: each
// consumer warpgroup takes every other tile whole, 128 x 128), tile N 128
// only (--all: its stage counts 2-6), no cluster or K split; the shape column
// then ends in _pp.
// --tile-m 192|256: the consumer warpgroups split the tile along N
// (Sm90MatmulConfig's BM_: each takes every row and 64 of the 128 columns,
// BM / 64 m64n64k16 per K step), tile N 128 (--all: the stage counts that
// fit), no cluster, K split, ping-pong or TMA-store epilogue; the shape
// column then ends in _m192 or _m256.
// --tma-epilogue stores D through SMEM by TMA (Sm90MatmulConfig's TmaEpilogue,
// kernels/io/wgmma_tile_writer.h) instead of st.global from registers; the
// shape column then ends in _et. --clusters LIST (comma-separated, e.g.
// 1x1,2x1,1x2) runs each cluster shape in turn, with --all every
// configuration for each. 1x1 is the plain <<<grid, 384, smem>>> launch of
// min(tiles, SMs) CTAs. Clusters need K-major A and B (no --layout-a col or
// --layout-b row).
//
// --split-k LIST (comma-separated, of 1, 2, 3, 4, 8; default 1) also runs the
// kernel with each tile's K split over a cluster of S CTAs, reduced through
// DSMEM (kernels/matmul/split_k_reduce.h; tile N 128, or 192 with S = 2,
// whose slots take 4 of the 7 that the other splits need; --cluster, --ctas,
// --stamp-tiles and --hold-kblock are refused with it); the shape column then
// ends in _kS. --split-tail splits only the last wave's tiles
// (Params::split_tail, sm90_split_from), each CTA taking the waves before it
// whole: the column ends in _kSt.
//
// Inputs are random BF16 in [-1, 1) (a device hash of the index, new per
// seed), rows padded to a 16-byte pitch as TMA requires. D is poisoned with
// NaN before the checked run; the check is ||D - D_cublas|| / ||D_cublas||
// over every element (NaN fails). Timing: CUDA events around each launch, 3
// warm-up launches, the median of --runs launches, rotating over enough input
// sets that they do not fit in L2 together. Prints one CSV line per
// configuration: shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz.
// sm_mhz (cublas_mhz) is the mean SM clock over our (cuBLAS's) timed launches: a probe kernel reads
// %clock64 and %globaltimer on every SM just before the first and just after
// the last timed launch, and the clock ticks per nanosecond are taken per SM
// (median over SMs). Long, dense kernels run below the boost clock when the
// board reaches its power limit; this column shows it.
// Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or a CUDA error
// (bad usage: one line on stderr).
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "hw/h200/matmul_stamps.cuh"
#include "kernels/matmul/sm90_matmul.h"

namespace {

#define CHECK_CUDA(x)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "gemm_bench: %s: %s (%s:%d)\n", #x, cudaGetErrorString(e_),    \
                   __FILE__, __LINE__);                                                   \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)
#define CHECK_CUBLAS(x)                                                                   \
  do {                                                                                    \
    cublasStatus_t s_ = (x);                                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                    \
      std::fprintf(stderr, "gemm_bench: %s: cuBLAS status %d\n", #x, static_cast<int>(s_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

__global__ void fill_random(uint16_t* p, uint64_t rows, uint64_t ld, uint64_t cols, uint64_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < rows * ld;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float u = sk::bench::random_unit(i, seed) * 2.0f - 1.0f;
    p[i] = (i % ld) < cols ? sk::to_bf16(u).bits : uint16_t{0x7fc0};  // padding: NaN
  }
}

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() { return sk::bench::encode_fn("gemm_bench"); }

// `batch` BF16 operands of `rows` GEMM rows (M or N) each, packed one after
// another, 128B swizzle: K-major, dims {k, rows, batch} and box {64,
// box_rows, 1}; MN-major, dims {rows, k, batch} (K rows ld apart) and box
// {64, 64, 1}, one 128-byte span of rows (the kernel loads box_rows / 64).
CUtensorMap make_map(const void* base, uint64_t rows, uint64_t k, uint64_t ld, uint32_t box_rows,
                     uint64_t batch, bool mn_major = false) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {mn_major ? rows : k, mn_major ? k : rows, batch};
  const cuuint64_t strides[2] = {ld * 2, (mn_major ? k : rows) * ld * 2};
  const cuuint32_t box[3] = {64, mn_major ? 64u : box_rows, 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  CUresult r = encode_fn()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(base), dims,
                           strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "gemm_bench: cuTensorMapEncodeTiled failed (%d)\n", static_cast<int>(r));
    std::exit(2);
  }
  return map;
}

// D's map for the TMA-store epilogue: `batch` BF16 matrices of m rows of n
// columns, ldd apart, dims {n, m, batch}, box {64, 16, 1}, 128B swizzle
// (kernels/io/wgmma_tile_writer.h).
CUtensorMap make_d_map(void* d, uint64_t m, uint64_t n, uint64_t ldd, uint64_t batch) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {n, m, batch};
  const cuuint64_t strides[2] = {ldd * 2, m * ldd * 2};
  const cuuint32_t box[3] = {64, 16, 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  CUresult r = encode_fn()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, d, dims, strides, box,
                           elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "gemm_bench: cuTensorMapEncodeTiled (D) failed (%d)\n", static_cast<int>(r));
    std::exit(2);
  }
  return map;
}

struct Problem {
  uint32_t m, n, k, lda, ldb, ldd;
  uint32_t batch;
  uint32_t tile_group;  // the kernel's tile order (Params::tile_group)
  sk::ClusterShape cluster;  // CTAs of a cluster along M and N (1 x 1: no cluster)
  bool tma_epilogue = false;  // D staged in SMEM and stored by TMA (the config's TmaEpilogue)
  uint32_t max_ctas = 0;      // --ctas: at most this many persistent CTAs (0: one per SM)
  // --stamp-tiles: also a launch of the kernel with ClockProbe (1), or with
  // TileClockProbe (2, --stamp-tile-points).
  int stamp = 0;
  bool launch_only = false;   // --cluster-launch-only: clusters launched, the kernel told 1x1
  bool clustered_instance = false;  // --clustered-instance: 1x1 on the instance that takes a cluster
  uint32_t split = 1;         // --split-k: each tile's K over a cluster of this many CTAs
  bool split_tail = false;    // --split-tail: only the last wave's tiles split
  bool pingpong = false;      // --pingpong: the ping-pong schedule (tile N 128)
  uint32_t tile_m = 128;      // --tile-m 192|256: the consumers split the tile along N (tile N 128)
  std::vector<uint32_t> holds;  // --hold-kblock: extra SM cycles each consumer holds a stage
  bool a_col, b_row;  // A M-contiguous, B N-contiguous
  int sets;
  bool sets_forced = false;  // --sets: the rotation given, not the default
  std::vector<uint16_t*> a, b;
  uint16_t* d;
  uint16_t* d_ref;
};

template <class Cfg, class Probe = sk::NoMatmulProbe>
__global__ void __launch_bounds__(384, 1) sm90_matmul_kernel(
    const __grid_constant__ typename sk::Sm90Matmul<Cfg>::Params p) {
  sk::Sm90Matmul<Cfg, sk::ClusterBug::kNone, Probe>::run(p);
}

using sk::bench::median;

// The median of `runs` timed launches after 3 warm-ups; `mhz` gets the mean
// SM clock over the timed launches.
template <class Launch>
float time_median(int runs, int sets, Launch&& launch, double& mhz) {
  return sk::bench::time_median(
      runs, [&launch, sets](int i) { launch(i % sets); },
      [] { CHECK_CUDA(cudaDeviceSynchronize()); }, mhz, "gemm_bench");
}

double rel_error(const Problem& pr) {
  const size_t count = size_t{pr.m} * pr.ldd * pr.batch;
  std::vector<uint16_t> d(count), r(count);
  CHECK_CUDA(cudaMemcpy(d.data(), pr.d, count * 2, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(r.data(), pr.d_ref, count * 2, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (uint64_t i = 0; i < uint64_t{pr.m} * pr.batch; ++i)  // the batch's rows, one after another
    for (uint32_t j = 0; j < pr.n; ++j) {
      const size_t at = size_t{i} * pr.ldd + j;
      const double x = sk::to_float(sk::bf16_t{d[at]}), y = sk::to_float(sk::bf16_t{r[at]});
      if (std::isnan(x)) return INFINITY;  // unwritten (poisoned) or NaN output
      num += (x - y) * (x - y);
      den += y * y;
    }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// The CSV's shape column: MxNxK, or MxNxKxL for a batch of L.
std::string shape(const Problem& pr) {
  std::string s = std::to_string(pr.m) + "x" + std::to_string(pr.n) + "x" + std::to_string(pr.k);
  if (pr.batch > 1) s += "x" + std::to_string(pr.batch);
  return s + (pr.a_col ? "_ca" : "") + (pr.b_row ? "_rb" : "") +
         (pr.tile_group > 1 ? "_g" + std::to_string(pr.tile_group) : "") +
         (pr.cluster.size() > 1
              ? "_c" + std::to_string(pr.cluster.m) + "x" + std::to_string(pr.cluster.n)
              : "") +
         (pr.launch_only && pr.cluster.size() > 1 ? "_lo" : "") + (pr.pingpong ? "_pp" : "") +
         (pr.tile_m != 128 ? "_m" + std::to_string(pr.tile_m) : "") +
         (pr.tma_epilogue ? "_et" : "") +
         (pr.max_ctas > 0 ? "_n" + std::to_string(pr.max_ctas) : "") +
         (pr.split > 1 ? "_k" + std::to_string(pr.split) + (pr.split_tail ? "t" : "") : "") +
         (pr.sets_forced ? "_s" + std::to_string(pr.sets) : "");
}

// Split: the K split's slots (0: no split; sm90_split_slots). NoCluster:
// the instance without a cluster (Sm90MatmulConfig's NoCluster_).
template <int BN, int S, bool Tma, int Split = 0, bool PingPong = false, int BM = 128,
          bool NoCluster = false>
int run_epilogue(Problem& pr, cublasHandle_t h, int runs, float cublas_ms, double cublas_mhz) {
  using Cfg = sk::Sm90MatmulConfig<BN, S, false, Tma, Split, PingPong, BM, NoCluster>;
  using K = sk::Sm90Matmul<Cfg>;
  auto kernel = sm90_matmul_kernel<Cfg>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(Cfg::kSmemBytes)));
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // The kernel's cluster shape (its tile walk, multicast and releases) and
  // the launch's: the same unless --cluster-launch-only, which launches the
  // clusters but runs the kernel as without one.
  const sk::ClusterShape cs = pr.launch_only ? sk::ClusterShape{1, 1} : pr.cluster;
  if (!Cfg::runs_launch(cs.m, cs.n, Split ? pr.split : 1)) {
    std::fprintf(stderr, "gemm_bench: the cluster-free instance picked for a %ux%u cluster\n", cs.m, cs.n);
    std::exit(2);
  }
  const uint32_t csize = pr.cluster.size() * (Split ? pr.split : 1);
  const uint32_t tiles_m = (pr.m + BM - 1) / BM, tiles_n = (pr.n + BN - 1) / BN;
  const uint32_t tiles = tiles_m * tiles_n * pr.batch;
  int grid = static_cast<int>(std::min<uint32_t>(tiles, static_cast<uint32_t>(sms)));
  if (pr.max_ctas > 0) grid = std::min(grid, static_cast<int>(pr.max_ctas));
  // A cluster launch: 1-D grid in clusters of csize CTAs.
  sk::bench::ClusterLaunch launch_cfg(csize, Cfg::kThreads, Cfg::kSmemBytes, csize);
  cudaLaunchConfig_t& cfg = launch_cfg.cfg;
  if (csize > 1) {
    // Persistent clusters: one per block of the cluster grid, capped at the
    // clusters that can be resident at once.
    int max_clusters = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveClusters(&max_clusters, kernel, &cfg));
    if (max_clusters < 1) {
      std::fprintf(stderr, "gemm_bench: no cluster of %ux%u fits (tile_n %d, %d stages)\n", cs.m,
                   cs.n, BN, S);
      std::exit(2);
    }
    const uint64_t blocks = sk::cluster_blocks(tiles_m, tiles_n, pr.batch, cs);
    grid = static_cast<int>(std::min<uint64_t>(blocks, static_cast<uint64_t>(max_clusters)) * csize);
    cfg.gridDim = dim3(static_cast<uint32_t>(grid));
  }
  std::vector<typename K::Params> params(pr.sets);
  for (int s = 0; s < pr.sets; ++s) {
    params[s].a = make_map(pr.a[s], pr.m, pr.k, pr.lda, sk::sm90_a_box_rows(pr.m, cs.n, pr.a_col ? 1 : 0, BM),
                           pr.batch, pr.a_col);
    params[s].b = make_map(pr.b[s], pr.n, pr.k, pr.ldb, BN / cs.m, pr.batch, pr.b_row);
    // B's last tile column where it is narrower than the tile: its own box.
    params[s].b_edge_rows = sk::sm90_b_edge_rows(pr.n, BN, cs.m, pr.b_row ? 1 : 0);
    if (params[s].b_edge_rows != 0)
      params[s].b_edge = make_map(pr.b[s], pr.n, pr.k, pr.ldb, params[s].b_edge_rows, pr.batch);
    params[s].layouts = sk::OperandLayouts{pr.a_col ? 1u : 0u, pr.b_row ? 1u : 0u};
    params[s].d = reinterpret_cast<sk::bf16_t*>(pr.d);
    params[s].m = pr.m;
    params[s].n = pr.n;
    params[s].k = pr.k;
    params[s].ldd = pr.ldd;
    params[s].batches = pr.batch;
    params[s].batch_stride_d = uint64_t{pr.m} * pr.ldd;
    params[s].tile_group = pr.tile_group;
    params[s].cluster_m = cs.m;
    params[s].cluster_n = cs.n;
    params[s].split_k = Split ? pr.split : 1;
    params[s].split_tail = Split && pr.split_tail ? 1 : 0;
    if constexpr (Tma) {
      params[s].d_map = make_d_map(pr.d, pr.m, pr.n, pr.ldd, pr.batch);
    }
  }
  // A build of the kernel (the plain one or a probe's) on input set s: the
  // plain launch without a cluster, cudaLaunchKernelEx with one.
  auto launch_build = [&](auto build, int s) {
    if (csize == 1) {
      build<<<grid, Cfg::kThreads, Cfg::kSmemBytes>>>(params[s]);
      return;
    }
    CHECK_CUDA(cudaLaunchKernelEx(&cfg, build, params[s]));
  };
  auto launch = [&](int s) { launch_build(kernel, s); };
  // Checked run on input set 0, D poisoned first.
  CHECK_CUDA(cudaMemset(pr.d, 0xff, size_t{pr.m} * pr.ldd * 2 * pr.batch));
  launch(0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  const double err = rel_error(pr);
  double mhz = 0;
  const float ms = time_median(runs, pr.sets, launch, mhz);
  const double flops = 2.0 * pr.m * pr.n * pr.k * pr.batch;
  const bool ok = err < 1e-2;
  std::printf("%s,%d,%d,%.2f,%.1f,%.2f,%.1f,%.2e,%s,%.0f,%.0f\n", shape(pr).c_str(), BN, S,
              ms * 1e3, flops / (ms * 1e-3) / 1e12, cublas_ms * 1e3,
              flops / (cublas_ms * 1e-3) / 1e12, err, ok ? "ok" : "MISMATCH", mhz, cublas_mhz);
  if (pr.stamp && !pr.launch_only && !Split) {  // the probe reads the tile walk of the launch's clusters
    // The same launch built with the clock probe, after the timed ones, on
    // the input set a next timed launch would take (its operands as far out
    // of L2 as a timed launch's).
    auto stamped = pr.stamp == 2 ? sm90_matmul_kernel<Cfg, sk::bench::matmul_stamps::TileClockProbe>
                                 : sm90_matmul_kernel<Cfg, sk::bench::matmul_stamps::ClockProbe>;
    CHECK_CUDA(cudaFuncSetAttribute(stamped, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(Cfg::kSmemBytes)));
    // Once to warm the variant's code (its instructions would otherwise come
    // from memory on the first tile of the one stamped launch: microseconds
    // of its first epilogue), then the stamped launch.
    auto launch_stamped = [&](int s) { launch_build(stamped, s); };
    launch_stamped((runs + 1) % pr.sets);
    CHECK_CUDA(cudaDeviceSynchronize());
    sk::bench::matmul_stamps::clear("gemm_bench");
    {  // CTA 0's tiles: one per step of the walk over the launch's tiles (or its clusters' blocks)
      const uint64_t units = csize > 1 ? sk::cluster_blocks(tiles_m, tiles_n, pr.batch, cs) : uint64_t{tiles};
      const uint64_t step = static_cast<uint64_t>(grid) / csize;
      sk::bench::matmul_stamps::set_kblock_tiles((units + step - 1) / step, "gemm_bench");
    }
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0));
    launch_stamped(runs % pr.sets);
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    float stamped_ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&stamped_ms, e0, e1));
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    const std::string label = shape(pr) + "," + std::to_string(BN) + "," + std::to_string(S) + "," +
                              (Tma ? "tma" : "regs");
    sk::bench::matmul_stamps::print(label.c_str(), static_cast<uint32_t>(grid), "gemm_bench", S,
                                    (pr.k + 63) / 64);
    std::printf("stamped_launch,%s,%.2f\n", label.c_str(), stamped_ms * 1e3);
  }
  if (!pr.holds.empty() && !Split) {  // each stage held longer: the timed median of a launch per hold
    auto held = sm90_matmul_kernel<Cfg, sk::bench::matmul_stamps::HoldProbe>;
    CHECK_CUDA(cudaFuncSetAttribute(held, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(Cfg::kSmemBytes)));
    auto launch_held = [&](int s) { launch_build(held, s); };
    const std::string label = shape(pr) + "," + std::to_string(BN) + "," + std::to_string(S);
    for (const uint32_t h : pr.holds) {
      CHECK_CUDA(cudaMemcpyToSymbol(sk::bench::matmul_stamps::g_hold_cycles, &h, sizeof h));
      double held_mhz = 0;
      const float held_ms = time_median(runs, pr.sets, launch_held, held_mhz);
      std::printf("hold_kblock,%s,%u,%.2f,%.0f\n", label.c_str(), h, held_ms * 1e3, held_mhz);
    }
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// The 128-row tile's instance for the launch: the cooperative one without a
// cluster where the kernel runs 1x1 without a K split (--cluster-launch-only
// included: its kernel is told 1x1), unless --clustered-instance; else the
// one that takes its cluster from its parameters. (Ping-pong has the one
// instance, without a cluster: Sm90MatmulConfig::kClusters.)
template <int BN, int S, bool Tma, int Split, bool PingPong>
int run_instance(Problem& pr, cublasHandle_t h, int runs, float cublas_ms, double cublas_mhz) {
  if constexpr (Split == 0 && !PingPong)
    if ((pr.cluster.size() == 1 || pr.launch_only) && !pr.clustered_instance)
      return run_epilogue<BN, S, Tma, 0, false, 128, true>(pr, h, runs, cublas_ms, cublas_mhz);
  return run_epilogue<BN, S, Tma, Split, PingPong>(pr, h, runs, cublas_ms, cublas_mhz);
}

// The configuration with the epilogue --tma-epilogue names, or a
// does_not_fit line.
template <int BN, int S, int Split, bool PingPong = false, int BM = 128>
int run_fitting(Problem& pr, cublasHandle_t h, int runs, float cublas_ms, double cublas_mhz) {
  if constexpr (BM != 128) {  // the split along N: st.global epilogue only
    if constexpr (sk::kSm90MatmulFits<BN, S, false, Split, BM>)
      return run_epilogue<BN, S, false, Split, false, BM>(pr, h, runs, cublas_ms, cublas_mhz);
  } else if (pr.tma_epilogue) {
    if constexpr (sk::kSm90MatmulFits<BN, S, true, Split>)
      return run_instance<BN, S, true, Split, PingPong>(pr, h, runs, cublas_ms, cublas_mhz);
  } else {
    if constexpr (sk::kSm90MatmulFits<BN, S, false, Split>)
      return run_instance<BN, S, false, Split, PingPong>(pr, h, runs, cublas_ms, cublas_mhz);
  }
  std::printf("%s,%d,%d,,,,,,does_not_fit,,\n", shape(pr).c_str(), BN, S);
  return 0;
}

// The K split's slots (sm90_split_slots: 4 for S = 2, else 7) are
// instantiated with the 128-column tile, and the 192-column one for S = 2.
template <int BN, int S>
int run_config(Problem& pr, cublasHandle_t h, int runs, float cublas_ms, double cublas_mhz) {
  if (pr.tile_m != 128) {
    if constexpr (BN == 128) {
      if (pr.tile_m == 192) return run_fitting<BN, S, 0, false, 192>(pr, h, runs, cublas_ms, cublas_mhz);
      return run_fitting<BN, S, 0, false, 256>(pr, h, runs, cublas_ms, cublas_mhz);
    }
    std::printf("%s,%d,%d,,,,,,does_not_fit,,\n", shape(pr).c_str(), BN, S);
    return 0;
  }
  if (pr.pingpong) {
    if constexpr (BN == 128) return run_fitting<BN, S, 0, true>(pr, h, runs, cublas_ms, cublas_mhz);
    std::printf("%s,%d,%d,,,,,,does_not_fit,,\n", shape(pr).c_str(), BN, S);
    return 0;
  }
  if (pr.split == 1) return run_fitting<BN, S, 0>(pr, h, runs, cublas_ms, cublas_mhz);
  constexpr int kTwo = static_cast<int>(sk::kSplitKSlotsOfTwo), kAll = static_cast<int>(sk::kSplitKSlots);
  if constexpr (BN == 128 || BN == 192)
    if (pr.split == 2) return run_fitting<BN, S, kTwo>(pr, h, runs, cublas_ms, cublas_mhz);
  if constexpr (BN == 128) return run_fitting<BN, S, kAll>(pr, h, runs, cublas_ms, cublas_mhz);
  std::printf("%s,%d,%d,,,,,,does_not_fit,,\n", shape(pr).c_str(), BN, S);
  return 0;
}

template <int BN>
int by_stages(int s, Problem& pr, cublasHandle_t h, int runs, float cublas_ms, double cublas_mhz) {
  switch (s) {
    case 2: return run_config<BN, 2>(pr, h, runs, cublas_ms, cublas_mhz);
    case 3: return run_config<BN, 3>(pr, h, runs, cublas_ms, cublas_mhz);
    case 4: return run_config<BN, 4>(pr, h, runs, cublas_ms, cublas_mhz);
    case 5:
      if constexpr (BN <= 192) return run_config<BN, 5>(pr, h, runs, cublas_ms, cublas_mhz);
      break;
    case 6:
      if constexpr (BN == 128) return run_config<BN, 6>(pr, h, runs, cublas_ms, cublas_mhz);
      break;
  }
  std::printf("%s,%d,%d,,,,,,does_not_fit,,\n", shape(pr).c_str(), BN, s);
  return 0;
}

uint32_t arg(int argc, char** argv, const char* name, uint32_t def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
  return def;
}
bool flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}
const char* str_arg(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return nullptr;
}

// "MxN" with M, N in {1, 2, 4} and M * N <= 4; false otherwise.
bool parse_cluster(const std::string& s, sk::ClusterShape& c) {
  if (s.size() != 3 || s[1] != 'x') return false;
  auto dim = [](char ch) -> uint32_t { return ch == '1' ? 1 : ch == '2' ? 2 : ch == '4' ? 4 : 0; };
  c.m = dim(s[0]);
  c.n = dim(s[2]);
  return c.m != 0 && c.n != 0 && c.m * c.n <= 4;
}

}  // namespace

int main(int argc, char** argv) {
  Problem pr{};
  pr.m = arg(argc, argv, "--m", 4096);
  pr.n = arg(argc, argv, "--n", 4096);
  pr.k = arg(argc, argv, "--k", 4096);
  pr.batch = arg(argc, argv, "--batch", 1);
  pr.tile_group = arg(argc, argv, "--tile-group", 1);
  if (const char* g = str_arg(argc, argv, "--tile-group"); g != nullptr && std::strcmp(g, "auto") == 0) {
    // The kernel's own order for the shape (sm90_auto_tile_group), on this GPU's SMs.
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    pr.tile_group = sk::sm90_auto_tile_group(pr.m, pr.k, static_cast<uint32_t>(sms));
  }
  pr.tma_epilogue = flag(argc, argv, "--tma-epilogue");
  pr.pingpong = flag(argc, argv, "--pingpong");
  pr.tile_m = arg(argc, argv, "--tile-m", 128);
  pr.max_ctas = arg(argc, argv, "--ctas", 0);
  pr.stamp = flag(argc, argv, "--stamp-tile-points") ? 2 : flag(argc, argv, "--stamp-tiles") ? 1 : 0;
  pr.launch_only = flag(argc, argv, "--cluster-launch-only");
  pr.clustered_instance = flag(argc, argv, "--clustered-instance");
  if (const char* holds = str_arg(argc, argv, "--hold-kblock")) {
    for (const char* at = holds; *at != 0;) {
      char* end = nullptr;
      const unsigned long h = std::strtoul(at, &end, 10);
      if (end == at || h > 100000 || (*end != 0 && *end != ',')) {
        std::fprintf(stderr, "gemm_bench: --hold-kblock takes SM cycles 0-100000, comma-separated, got '%s'\n",
                     holds);
        return 2;
      }
      pr.holds.push_back(static_cast<uint32_t>(h));
      at = *end == ',' ? end + 1 : end;
    }
  } else if (flag(argc, argv, "--hold-kblock")) {
    std::fprintf(stderr, "gemm_bench: --hold-kblock needs a list of SM cycles\n");
    return 2;
  }
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--layout-a") == 0) pr.a_col = std::strcmp(argv[i + 1], "col") == 0;
    if (std::strcmp(argv[i], "--layout-b") == 0) pr.b_row = std::strcmp(argv[i + 1], "row") == 0;
  }
  // The cluster shapes to run (--cluster MxN, or --clusters M1xN1,M2xN2,...).
  std::vector<sk::ClusterShape> clusters;
  {
    const char* one = str_arg(argc, argv, "--cluster");
    const char* list = str_arg(argc, argv, "--clusters");
    if ((one != nullptr && list != nullptr) || (flag(argc, argv, "--cluster") && one == nullptr) ||
        (flag(argc, argv, "--clusters") && list == nullptr)) {
      std::fprintf(stderr, "gemm_bench: give one of --cluster MxN or --clusters LIST, with a value\n");
      return 2;
    }
    std::string text = list != nullptr ? list : one != nullptr ? one : "1x1";
    size_t from = 0;
    while (true) {
      const size_t comma = text.find(',', from);
      const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      sk::ClusterShape c;
      if (!parse_cluster(item, c)) {
        std::fprintf(stderr,
                     "gemm_bench: bad cluster '%s' (MxN with M, N in {1, 2, 4} and M * N <= 4)\n",
                     item.c_str());
        return 2;
      }
      clusters.push_back(c);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  for (const sk::ClusterShape& c : clusters)
    if (c.size() > 1 && pr.max_ctas > 0) {
      std::fprintf(stderr, "gemm_bench: --ctas is for launches without a cluster (not %ux%u)\n", c.m, c.n);
      return 2;
    }
  for (const sk::ClusterShape& c : clusters)
    if (c.size() > 1 && (pr.a_col || pr.b_row)) {
      std::fprintf(stderr,
                   "gemm_bench: a cluster (%ux%u) needs K-major A and B (no --layout-a col or "
                   "--layout-b row)\n",
                   c.m, c.n);
      return 2;
    }
  std::vector<uint32_t> splits{1};
  if (const char* list = str_arg(argc, argv, "--split-k")) {
    splits.clear();
    for (const char* at = list; *at != 0;) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(at, &end, 10);
      if (end == at || ((v < 1 || v > 4) && v != 8) || (*end != 0 && *end != ',')) {
        std::fprintf(stderr, "gemm_bench: --split-k takes 1, 2, 3, 4 or 8, comma-separated, got '%s'\n",
                     list);
        return 2;
      }
      splits.push_back(static_cast<uint32_t>(v));
      at = *end == ',' ? end + 1 : end;
    }
  }
  pr.split_tail = flag(argc, argv, "--split-tail");
  if (pr.split_tail && std::none_of(splits.begin(), splits.end(), [](uint32_t sp) { return sp > 1; })) {
    std::fprintf(stderr, "gemm_bench: --split-tail splits the last wave's tiles: give --split-k S\n");
    return 2;
  }
  for (const uint32_t sp : splits)
    if (sp > 1 && (clusters.size() > 1 || clusters[0].size() > 1 || pr.max_ctas > 0)) {
      std::fprintf(stderr, "gemm_bench: --split-k %u runs without --cluster and --ctas\n", sp);
      return 2;
    }
  // The stamped and held builds are built without the K split's slots: refused rather than
  // left out of the split rows in silence.
  if ((pr.stamp != 0 || !pr.holds.empty()) &&
      std::any_of(splits.begin(), splits.end(), [](uint32_t sp) { return sp > 1; })) {
    std::fprintf(stderr, "gemm_bench: %s runs without --split-k S > 1\n",
                 pr.stamp == 2 ? "--stamp-tile-points" : pr.stamp == 1 ? "--stamp-tiles" : "--hold-kblock");
    return 2;
  }
  if (pr.pingpong && (splits.size() > 1 || splits[0] > 1 || clusters.size() > 1 || clusters[0].size() > 1)) {
    std::fprintf(stderr, "gemm_bench: --pingpong runs without --cluster and --split-k\n");
    return 2;
  }
  if (pr.tile_m != 128 &&
      ((pr.tile_m != 192 && pr.tile_m != 256) || pr.pingpong || pr.tma_epilogue || splits.size() > 1 ||
       splits[0] > 1 || clusters.size() > 1 || clusters[0].size() > 1)) {
    std::fprintf(stderr,
                 "gemm_bench: --tile-m is 128, 192 or 256; 192 and 256 run without --pingpong, "
                 "--tma-epilogue, --cluster and --split-k\n");
    return 2;
  }
  if (pr.clustered_instance && (pr.pingpong || pr.tile_m != 128)) {
    std::fprintf(stderr,
                 "gemm_bench: --clustered-instance runs the cooperative 128-row tile (not --pingpong "
                 "or --tile-m 192|256, which have no clustered instance)\n");
    return 2;
  }
  for (const uint32_t sp : splits)
    if (sp > (pr.k + 63) / 64) {
      std::fprintf(stderr, "gemm_bench: --split-k %u needs at least %u k-blocks of 64 (K = %u)\n", sp,
                   sp, pr.k);
      return 2;
    }
  const uint32_t stages = arg(argc, argv, "--stages", 4),
                 tile_n = arg(argc, argv, "--tile-n", pr.tile_m != 128 ? 128 : 256);
  const int runs = static_cast<int>(arg(argc, argv, "--runs", 20));
  if (pr.m == 0 || pr.n == 0 || pr.k == 0 || pr.batch == 0 || pr.tile_group == 0 || runs < 1 || stages < 2 ||
      stages > 6 || (tile_n != 128 && tile_n != 192 && tile_n != 256)) {
    std::fprintf(stderr,
                 "gemm_bench: bad arguments (m, n, k, batch >= 1; stages 2-6; tile-n 128|192|256)\n");
    return 2;
  }
  // Stored rows: A m rows of k (K-major) or k rows of m; B likewise.
  const uint32_t a_rows = pr.a_col ? pr.k : pr.m, a_len = pr.a_col ? pr.m : pr.k;
  const uint32_t b_rows = pr.b_row ? pr.k : pr.n, b_len = pr.b_row ? pr.n : pr.k;
  pr.lda = (a_len + 7) / 8 * 8;
  pr.ldb = (b_len + 7) / 8 * 8;
  pr.ldd = (pr.n + 7) / 8 * 8;
  const double set_bytes =
      2.0 * (static_cast<double>(a_rows) * pr.lda + static_cast<double>(b_rows) * pr.ldb) * pr.batch;
  pr.sets = std::max(1, std::min(8, static_cast<int>(std::ceil(3 * 64e6 / set_bytes))));
  const uint32_t forced_sets = arg(argc, argv, "--sets", 0);
  if (forced_sets > 256) {
    std::fprintf(stderr, "gemm_bench: --sets must be 1-256, got %u\n", forced_sets);
    return 2;
  }
  if (forced_sets > 0) pr.sets = static_cast<int>(forced_sets);
  pr.sets_forced = forced_sets > 0;
  for (int s = 0; s < pr.sets; ++s) {
    uint16_t *a, *b;
    CHECK_CUDA(cudaMalloc(&a, size_t{a_rows} * pr.lda * 2 * pr.batch));
    CHECK_CUDA(cudaMalloc(&b, size_t{b_rows} * pr.ldb * 2 * pr.batch));
    fill_random<<<1024, 256>>>(a, uint64_t{a_rows} * pr.batch, pr.lda, a_len, 2 * s + 1);
    fill_random<<<1024, 256>>>(b, uint64_t{b_rows} * pr.batch, pr.ldb, b_len, 2 * s + 2);
    pr.a.push_back(a);
    pr.b.push_back(b);
  }
  CHECK_CUDA(cudaMalloc(&pr.d, size_t{pr.m} * pr.ldd * 2 * pr.batch));
  CHECK_CUDA(cudaMalloc(&pr.d_ref, size_t{pr.m} * pr.ldd * 2 * pr.batch));
  CHECK_CUDA(cudaDeviceSynchronize());

  cublasHandle_t h;
  CHECK_CUBLAS(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major D = A B^T is column-major D^T = B A^T. Seen column-major, a
  // K-major B is k x n (op T makes it n x k) and an N-contiguous one n x k
  // (op N); a K-major A is k x m (op N) and an M-contiguous one m x k (op T).
  const cublasOperation_t op_b = pr.b_row ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = pr.a_col ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto cublas = [&](int s, uint16_t* out) {
    if (pr.batch == 1) {
      CHECK_CUBLAS(cublasGemmEx(h, op_b, op_a, pr.n, pr.m, pr.k, &alpha, pr.b[s],
                                CUDA_R_16BF, pr.ldb, pr.a[s], CUDA_R_16BF, pr.lda, &beta, out,
                                CUDA_R_16BF, pr.ldd, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      return;
    }
    CHECK_CUBLAS(cublasGemmStridedBatchedEx(
        h, op_b, op_a, pr.n, pr.m, pr.k, &alpha, pr.b[s], CUDA_R_16BF, pr.ldb,
        static_cast<long long>(b_rows) * pr.ldb, pr.a[s], CUDA_R_16BF, pr.lda,
        static_cast<long long>(a_rows) * pr.lda, &beta, out, CUDA_R_16BF, pr.ldd,
        static_cast<long long>(pr.m) * pr.ldd, static_cast<int>(pr.batch), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
  };
  cublas(0, pr.d_ref);
  CHECK_CUDA(cudaDeviceSynchronize());
  double cublas_mhz = 0;
  const float cublas_ms = time_median(runs, pr.sets, [&](int s) { cublas(s, pr.d); }, cublas_mhz);

  int rc = 0;
  for (const uint32_t sp : splits)
  for (const sk::ClusterShape& c : clusters) {
    pr.cluster = c;
    pr.split = sp;
    if (sp > 1 && flag(argc, argv, "--all")) {
      // Six stages fit beside the slots of S = 2 with the register epilogue.
      for (int s = 2; s <= (sp == 2 ? 6 : 5); ++s) rc |= by_stages<128>(s, pr, h, runs, cublas_ms, cublas_mhz);
      if (sp == 2)
        for (int s = 2; s <= 4; ++s) rc |= by_stages<192>(s, pr, h, runs, cublas_ms, cublas_mhz);
    } else if (flag(argc, argv, "--all") && (pr.pingpong || pr.tile_m != 128)) {
      for (int s = 2; s <= 6; ++s) rc |= by_stages<128>(s, pr, h, runs, cublas_ms, cublas_mhz);
    } else if (flag(argc, argv, "--all")) {
      for (int s = 2; s <= 6; ++s) rc |= by_stages<128>(s, pr, h, runs, cublas_ms, cublas_mhz);
      for (int s = 2; s <= 4; ++s) rc |= by_stages<192>(s, pr, h, runs, cublas_ms, cublas_mhz);
      for (int s = 2; s <= 4; ++s) rc |= by_stages<256>(s, pr, h, runs, cublas_ms, cublas_mhz);
    } else {
      rc |= tile_n == 256   ? by_stages<256>(static_cast<int>(stages), pr, h, runs, cublas_ms, cublas_mhz)
            : tile_n == 192 ? by_stages<192>(static_cast<int>(stages), pr, h, runs, cublas_ms, cublas_mhz)
                            : by_stages<128>(static_cast<int>(stages), pr, h, runs, cublas_ms, cublas_mhz);
    }
  }
  cublasDestroy(h);
  return rc;
}
