// attention_bench.cu: the SM90 attention forward (kernels/attention/sm90_attention.h)
// on a real Hopper GPU, checked against an FP32 reference kernel and timed.
//
//   attention_bench --batch B --heads H [--kv-heads HKV] --seqlen-q SQ --seqlen-k SK
//                   --head-dim 64|128|256 [--causal] [--stages 2|3] [--runs 20] [--in-dtype f16]
//   attention_bench --sweep [--runs 20] [--in-dtype f16]   (the built-in list below, every
//                   stage count that fits)
//   attention_bench --stamp-tiles [--max-seq 2048] [--runs 20]   (clock64 at the tile points of
//                   CTA 0's tiles, the 16384-token rows at head dim 128 from 512 tokens; see
//                   stamp_tiles(); or one shape: --stamp-tiles --batch B --heads H --seqlen-q SQ
//                   --seqlen-k SK [--kv-heads HKV] [--causal], head dim 128, two stages, BF16)
//   attention_bench --stamp [--runs 20]   (clock64 at the kernel's AttentionPoints in CTA 0's
//                   first and fourth tiles, 8k non-causal BF16 at head dim 128, 64 and 256;
//                   see print_stamps())
//
// Q and O are [B, H, SQ, D], K and V [B, HKV, SK, D], BF16 (FP16 with
// --in-dtype f16) with D contiguous; LSE is FP32 [B, H, lse_stride],
// lse_stride = SQ rounded up to 4. Inputs are uniform in [-2, 2) rounded to
// the element type (a device hash of the index, one seed per tensor);
// softmax_scale = 1 / sqrt(D); --causal masks bottom-right aligned (row r
// sees keys c <= r + SK - SQ).
//
// Check: the reference kernel computes every row of every (batch, head) in
// FP32 from the same 16-bit inputs, two passes (the row's maximum score over
// its visible keys, then p = exp((s - max) * scale), the sum and P V / sum),
// LSE = max * scale + log(sum), and the largest |V| over the row's visible
// keys. O and LSE are poisoned (NaN) before the checked launch. An O element
// passes if |O - O_ref| <= 2 eps * max|V| + eps * |O_ref| (eps, the element
// type's unit roundoff: 2^-8 for BF16, 2^-11 for FP16), an LSE if
// |LSE - LSE_ref| <= 1e-3 * max(|LSE_ref|, 1); a row that sees no key must
// have O = 0 and LSE = -inf. max_o_err is the largest |O - O_ref|,
// max_lse_err the largest |LSE - LSE_ref| / max(|LSE_ref|, 1). Every row is
// checked (status "ok"); a failing configuration reads "MISMATCH".
//
// Timing: CUDA events around each launch, 3 warm-up launches, the median of
// --runs launches (one input set). tflops = 4 * B * H * SQ * SK * D / time,
// half of it when causal. sm_mhz is the mean SM clock over the timed launches
// (a probe kernel reads %clock64 and %globaltimer on every SM before and
// after them; median over SMs), as in gemm_bench.cu; it averages over the
// host's gaps between launches too. kernel_mhz is the clock inside the last
// timed launch, from CTA 0's first tile start to its last tile end
// (ClockProbe; 0 for the stamped builds).
//
// CSV: batch,heads,kv_heads,seqlen_q,seqlen_k,head_dim,causal,stages,ours_us,ours_tflops,
//      max_o_err,max_lse_err,status,sm_mhz,dtype,kernel_mhz
// Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or a CUDA
// error, 3 a launch that did not finish within 30 s (a hang).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "hw/h200/attention_reference.cuh"
#include "hw/h200/bench_common.cuh"
#include "kernels/attention/sm90_attention.h"
#include "runner/report/span_overlap.h"

namespace {

#define CHECK_CUDA(x)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "attention_bench: %s: %s (%s:%d)\n", #x, cudaGetErrorString(e_), \
                   __FILE__, __LINE__);                                                      \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

using namespace sk::bench::attention_reference;  // fill_random, reference_attention, compare

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() { return sk::bench::encode_fn("attention_bench"); }

// `matrices` BF16 (FP16) matrices of `rows` rows of d, one after another: dims
// {d, rows, matrices}, box {64, box_rows, 1}, 128B swizzle, zeros past the end.
CUtensorMap make_map(const void* base, uint64_t rows, uint64_t d, uint64_t matrices, bool f16,
                     uint32_t box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {d, rows, matrices};
  const cuuint64_t strides[2] = {d * 2, rows * d * 2};
  const cuuint32_t box[3] = {64, box_rows, 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  CUresult r = encode_fn()(&map, f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(base), dims,
                           strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "attention_bench: cuTensorMapEncodeTiled failed (%d)\n", static_cast<int>(r));
    std::exit(2);
  }
  return map;
}

template <class Cfg, class Probe>
__global__ void __launch_bounds__(384, 1) sm90_attention_kernel(
    const __grid_constant__ typename sk::Sm90Attention<Cfg, sk::AttentionBug::kNone, Probe>::Params p) {
  sk::Sm90Attention<Cfg, sk::AttentionBug::kNone, Probe>::run(p);
}

// --stamp: clock64 at the kernel's AttentionPoints of two tiles of CTA 0,
// its first (tile 0, when every CTA starts at once) and its fourth (tile
// 3 x grid), blocks 0 .. kStampBlocks - 1, stored by every consumer thread
// (a branch on the thread would be divergent and make ptxas serialize the
// wgmma in flight); the first thread of each warpgroup is read.
constexpr uint32_t kStampBlocks = 64;
// Thread-minor, so that a warp's 32 stamps fill two lines: strided per-thread
// rows made the stamped tiles 1.7x slower (a line per lane per stamp).
__device__ unsigned long long g_stamps[2][kStampBlocks][sk::kPoints][256];
__device__ unsigned long long g_block_ns[2][kStampBlocks][256];  // %globaltimer at each block start
// The first and the last CTA's tiles: %globaltimer at each tile's first block
// start and its last block end (by tile order: tile / grid).
constexpr uint32_t kMaxTilesPerCta = 64;
__device__ unsigned long long g_tile_ns[2][2][kMaxTilesPerCta];  // [cta][start, end][k]
constexpr int kTilePoints = sk::kTilePointsEnd - sk::kTileStart;
// --stamp-tiles: clock64 at the tile points of CTA 0's tiles, every consumer thread.
__device__ unsigned long long g_tile_stamps[kMaxTilesPerCta][kTilePoints][256];
// ... and %globaltimer around every CTA's epilogues: [cta][tile][warpgroup][start, end].
constexpr uint32_t kMaxCtas = 160;
__device__ unsigned long long g_store_ns[kMaxCtas][kMaxTilesPerCta][2][2];
struct StampProbe {
  __device__ static unsigned long long now_ns() {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
  }
  __device__ static void mark(sk::AttentionPoint point, uint32_t tile, uint32_t block) {
    if (point >= sk::kTileStart) {  // CTA 0's tiles (every consumer thread: see above)
      const uint32_t k = tile / gridDim.x;
      if (blockIdx.x == 0 && k < kMaxTilesPerCta)
        g_tile_stamps[k][point - sk::kTileStart][threadIdx.x - 128] = clock64();
      // Every CTA's epilogue span per warpgroup (its threads write one slot).
      if ((point == sk::kBlocksDone || point == sk::kTileStored) && k < kMaxTilesPerCta && blockIdx.x < kMaxCtas)
        g_store_ns[blockIdx.x][k][threadIdx.x / 256][point == sk::kTileStored] = now_ns();
      return;
    }
    const uint32_t cta = blockIdx.x == 0 ? 0 : blockIdx.x + 1 == gridDim.x ? 1 : 2;  // CTA-uniform
    const uint32_t k = tile / gridDim.x;
    if (cta < 2 && k < kMaxTilesPerCta) {
      if (point == sk::kBlockStart && block == 0) g_tile_ns[cta][0][k] = now_ns();
      if (point == sk::kBlockEnd) g_tile_ns[cta][1][k] = now_ns();  // the last block's stays
    }
    const uint32_t set = tile == 0 ? 0 : tile == 3 * gridDim.x ? 1 : 2;  // the same for the whole CTA
    if (set > 1 || block >= kStampBlocks) return;
    g_stamps[set][block][point][threadIdx.x - 128] = clock64();
    if (point == sk::kBlockStart) g_block_ns[set][block][threadIdx.x - 128] = now_ns();
  }
};

// The SM clock inside the timed kernel: CTA 0's first consumer thread reads
// clock64 and %globaltimer at the start of its first tile (tile 0) and at the
// end of each of its tiles (the last stays). The clock probe of
// bench_common.cuh averages over the host's gaps between launches as well,
// and reads 6-10 % high for short or light launches (docs/hardware.md).
__device__ unsigned long long g_kernel_clock[4];  // clock64, ns at the start; clock64, ns at the end
struct ClockProbe {
  __device__ static void mark(sk::AttentionPoint point, uint32_t tile, uint32_t /*block*/) {
    if (point != sk::kTileStart && point != sk::kTileStored) return;
    if (blockIdx.x != 0 || threadIdx.x != 128 || (point == sk::kTileStart && tile != 0)) return;
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    const int i = point == sk::kTileStart ? 0 : 2;
    g_kernel_clock[i] = clock64();
    g_kernel_clock[i + 1] = ns;
  }
};

using sk::bench::median;

// Waits for the device; a launch still running after 30 s is taken for a
// hang: the process exits (status 3) rather than wait for the caller's limit.
void sync_or_hang(const char* what) {
  cudaEvent_t done;
  CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventRecord(done));
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaEventQuery(done);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) CHECK_CUDA(e);
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
      std::printf("# %s did not finish within 30 s: hang\n", what);
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK_CUDA(cudaEventDestroy(done));
}

// The median of `runs` timed launches after 3 warm-ups; `mhz` gets the mean
// SM clock over the timed launches.
template <class Launch>
float time_median(int runs, Launch&& launch, double& mhz) {
  return sk::bench::time_median(
      runs, [&launch](int) { launch(); }, [] { sync_or_hang("warm-up launch"); }, mhz,
      "attention_bench");
}

// The CSV's header line (the columns are described at the top of this file).
constexpr const char* kCsvHeader =
    "batch,heads,kv_heads,seqlen_q,seqlen_k,head_dim,causal,stages,ours_us,ours_tflops,"
    "max_o_err,max_lse_err,status,sm_mhz,dtype,kernel_mhz\n";

struct Shape {
  uint32_t batch, heads, kv_heads, sq, sk, d;
  bool causal;
  bool f16 = false;  // FP16 Q, K, V and O (else BF16)
};

// One shape's device buffers and its reference result.
struct Problem {
  Shape s;
  uint32_t lse_stride;
  uint16_t *q, *k, *v, *o;
  float *lse, *o_ref, *lse_ref, *vmax;
  Stats* stats;
};

uint64_t q_rows(const Shape& s) { return uint64_t{s.batch} * s.heads * s.sq; }

Problem make_problem(const Shape& s) {
  Problem pr{};
  pr.s = s;
  pr.lse_stride = (s.sq + 3) / 4 * 4;
  const uint64_t nq = q_rows(s) * s.d, nkv = uint64_t{s.batch} * s.kv_heads * s.sk * s.d;
  CHECK_CUDA(cudaMalloc(&pr.q, nq * 2));
  CHECK_CUDA(cudaMalloc(&pr.k, nkv * 2));
  CHECK_CUDA(cudaMalloc(&pr.v, nkv * 2));
  CHECK_CUDA(cudaMalloc(&pr.o, nq * 2));
  CHECK_CUDA(cudaMalloc(&pr.lse, uint64_t{s.batch} * s.heads * pr.lse_stride * 4));
  CHECK_CUDA(cudaMalloc(&pr.o_ref, nq * 4));
  CHECK_CUDA(cudaMalloc(&pr.lse_ref, q_rows(s) * 4));
  CHECK_CUDA(cudaMalloc(&pr.vmax, q_rows(s) * 4));
  CHECK_CUDA(cudaMalloc(&pr.stats, sizeof(Stats)));
  fill_random<<<1024, 256>>>(pr.q, nq, 1, s.f16);
  fill_random<<<1024, 256>>>(pr.k, nkv, 2, s.f16);
  fill_random<<<1024, 256>>>(pr.v, nkv, 3, s.f16);
  CHECK_CUDA(cudaGetLastError());
  RefArgs a{pr.q, pr.k, pr.v, pr.o_ref, pr.lse_ref, pr.vmax, s.heads, s.kv_heads, s.sq, s.sk,
            1.0f / std::sqrt(static_cast<float>(s.d)), s.causal, s.f16};
  const dim3 grid((s.sq + kRefRows - 1) / kRefRows, s.heads, s.batch);
  auto reference = [&](auto kernel, size_t bytes) {
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    kernel<<<grid, kRefThreads, bytes>>>(a);
  };
  if (s.d == 256)
    reference(reference_attention<256>, sizeof(RefSmem<256>));
  else if (s.d == 128)
    reference(reference_attention<128>, sizeof(RefSmem<128>));
  else
    reference(reference_attention<64>, sizeof(RefSmem<64>));
  CHECK_CUDA(cudaGetLastError());
  sync_or_hang("reference");
  return pr;
}

void free_problem(Problem& pr) {
  for (void* p : {static_cast<void*>(pr.q), static_cast<void*>(pr.k), static_cast<void*>(pr.v),
                  static_cast<void*>(pr.o), static_cast<void*>(pr.lse), static_cast<void*>(pr.o_ref),
                  static_cast<void*>(pr.lse_ref), static_cast<void*>(pr.vmax), static_cast<void*>(pr.stats)})
    CHECK_CUDA(cudaFree(p));
}

template <int D, int S, class Elem, class Probe = sk::NoProbe>
int run_config(Problem& pr, int runs) {
  using Cfg = sk::Sm90AttentionConfig<D, S, Elem>;
  using K = sk::Sm90Attention<Cfg, sk::AttentionBug::kNone, Probe>;
  const Shape& s = pr.s;
  auto kernel = sm90_attention_kernel<Cfg, Probe>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(Cfg::kSmemBytes)));
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const uint32_t tiles = (s.sq + Cfg::BM - 1) / Cfg::BM * s.heads * s.batch;
  const int grid = static_cast<int>(std::min<uint32_t>(tiles, static_cast<uint32_t>(sms)));
  typename K::Params p{};
  p.q = make_map(pr.q, s.sq, D, uint64_t{s.batch} * s.heads, Cfg::kF16, Cfg::BM);
  p.k = make_map(pr.k, s.sk, D, uint64_t{s.batch} * s.kv_heads, Cfg::kF16, Cfg::BN);
  p.v = make_map(pr.v, s.sk, D, uint64_t{s.batch} * s.kv_heads, Cfg::kF16, Cfg::BN);
  p.o = reinterpret_cast<Elem*>(pr.o);
  p.lse = pr.lse;
  p.lse_stride = pr.lse_stride;
  p.batch = s.batch;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.seqlen_q = s.sq;
  p.seqlen_k = s.sk;
  p.softmax_scale = 1.0f / std::sqrt(static_cast<float>(D));
  p.causal = s.causal ? 1u : 0u;
  auto launch = [&] { kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes>>>(p); };
  // Checked launch, O and LSE poisoned (NaN) first.
  CHECK_CUDA(cudaMemset(pr.o, 0xff, q_rows(s) * D * 2));
  CHECK_CUDA(cudaMemset(pr.lse, 0xff, uint64_t{s.batch} * s.heads * pr.lse_stride * 4));
  CHECK_CUDA(cudaMemset(pr.stats, 0, sizeof(Stats)));
  static const unsigned long long zero_clock[4] = {0, 0, 0, 0};
  CHECK_CUDA(cudaMemcpyToSymbol(g_kernel_clock, zero_clock, sizeof(zero_clock)));
  launch();
  CHECK_CUDA(cudaGetLastError());
  sync_or_hang("checked launch");
  CHECK_CUDA(cudaDeviceSynchronize());
  compare<<<1024, 256>>>(pr.o, pr.lse, pr.o_ref, pr.lse_ref, pr.vmax, q_rows(s), D, s.sq, pr.lse_stride,
                         Cfg::kF16, pr.stats);
  CHECK_CUDA(cudaGetLastError());
  Stats st{};
  CHECK_CUDA(cudaMemcpy(&st, pr.stats, sizeof(Stats), cudaMemcpyDeviceToHost));
  float o_err, lse_err;
  std::memcpy(&o_err, &st.max_o_err_bits, 4);
  std::memcpy(&lse_err, &st.max_lse_err_bits, 4);
  const bool ok = st.o_fails == 0 && st.lse_fails == 0;
  double mhz = 0;
  const float ms = time_median(runs, launch, mhz);
  unsigned long long kc[4];  // the last timed launch's (0 unless Probe is ClockProbe)
  CHECK_CUDA(cudaMemcpyFromSymbol(kc, g_kernel_clock, sizeof(kc)));
  const double kernel_mhz = kc[3] > kc[1] ? 1e3 * double(kc[2] - kc[0]) / double(kc[3] - kc[1]) : 0.0;
  const double flops = 4.0 * s.batch * s.heads * s.sq * static_cast<double>(s.sk) * D * (s.causal ? 0.5 : 1.0);
  std::printf("%u,%u,%u,%u,%u,%d,%d,%d,%.2f,%.1f,%.3e,%.3e,%s,%.0f,%s,%.0f\n", s.batch, s.heads, s.kv_heads, s.sq,
              s.sk, D, s.causal ? 1 : 0, S, ms * 1e3, flops / (ms * 1e-3) / 1e12, o_err, lse_err,
              ok ? "ok" : "MISMATCH", mhz, Cfg::kF16 ? "f16" : "bf16", kernel_mhz);
  if (!ok)
    std::printf("# %llu of %llu O elements and %llu of %llu LSE rows out of tolerance\n",
                static_cast<unsigned long long>(st.o_fails),
                static_cast<unsigned long long>(q_rows(s) * D),
                static_cast<unsigned long long>(st.lse_fails),
                static_cast<unsigned long long>(q_rows(s)));
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// Whether `stages` stages fit in shared memory at head dim d.
bool fits(uint32_t d, int stages) {
  auto at = [stages](auto cfg2, auto cfg3) {
    return stages == 2 ? decltype(cfg2)::kFits : stages == 3 && decltype(cfg3)::kFits;
  };
  if (d == 256) return at(sk::Sm90AttentionConfig<256, 2>{}, sk::Sm90AttentionConfig<256, 3>{});
  if (d == 128) return at(sk::Sm90AttentionConfig<128, 2>{}, sk::Sm90AttentionConfig<128, 3>{});
  return at(sk::Sm90AttentionConfig<64, 2>{}, sk::Sm90AttentionConfig<64, 3>{});
}

template <int D, int S, class Elem>
int run_if_fits(Problem& pr, int runs) {
  if constexpr (sk::Sm90AttentionConfig<D, S, Elem>::kFits)
    return run_config<D, S, Elem, ClockProbe>(pr, runs);
  else
    return 2;
}

template <class Elem>
int run_stages(Problem& pr, int stages, int runs) {
  const Shape& s = pr.s;
  if (s.d == 256) {
    if (stages == 2) return run_if_fits<256, 2, Elem>(pr, runs);
  } else if (s.d == 128) {
    if (stages == 2) return run_if_fits<128, 2, Elem>(pr, runs);
    if (stages == 3) return run_if_fits<128, 3, Elem>(pr, runs);
  } else {
    if (stages == 2) return run_if_fits<64, 2, Elem>(pr, runs);
    if (stages == 3) return run_if_fits<64, 3, Elem>(pr, runs);
  }
  return 2;
}
int run_stages(Problem& pr, int stages, int runs) {
  return pr.s.f16 ? run_stages<sk::f16_t>(pr, stages, runs) : run_stages<sk::bf16_t>(pr, stages, runs);
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

// FlashAttention's benchmark set (16384 tokens per batch: batch * seqlen),
// head dim 128 with 16 heads, 64 with 32 and 256 with 8, non-causal and causal; ragged
// lengths (one with rows and whole tiles that see no key) and a GQA shape.
// The shape given by --batch, --heads, --kv-heads (default: --heads),
// --seqlen-q, --seqlen-k, --head-dim (default 128) and --causal, and whether
// it is one a launch can take (every extent >= 1, kv-heads dividing heads).
Shape shape_from_args(int argc, char** argv, bool f16) {
  Shape s{};
  s.batch = arg(argc, argv, "--batch", 0);
  s.heads = arg(argc, argv, "--heads", 0);
  s.kv_heads = arg(argc, argv, "--kv-heads", s.heads);
  s.sq = arg(argc, argv, "--seqlen-q", 0);
  s.sk = arg(argc, argv, "--seqlen-k", 0);
  s.d = arg(argc, argv, "--head-dim", 128);
  s.causal = flag(argc, argv, "--causal");
  s.f16 = f16;
  return s;
}
bool shape_ok(const Shape& s) {
  return s.batch != 0 && s.heads != 0 && s.kv_heads != 0 && s.heads % s.kv_heads == 0 && s.sq != 0 && s.sk != 0;
}

std::vector<Shape> sweep_shapes() {
  std::vector<Shape> v;
  for (uint32_t d : {128u, 64u, 256u})
    for (uint32_t s : {512u, 1024u, 2048u, 4096u, 8192u, 16384u})
      for (bool causal : {false, true}) {
        const uint32_t h = d == 128 ? 16 : d == 64 ? 32 : 8;  // 2048 columns of hidden state
        v.push_back({16384 / s, h, h, s, s, d, causal});
      }
  v.push_back({2, 4, 2, 1000, 1500, 128, true});
  v.push_back({1, 4, 2, 1000, 1100, 256, true});
  v.push_back({1, 8, 8, 777, 777, 64, false});
  v.push_back({1, 2, 2, 400, 100, 64, true});  // rows 0-299 see no key, tiles 0-1 read no block
  v.push_back({4, 32, 8, 4096, 4096, 128, false});
  return v;
}

// Prints stamp set `set` (0: CTA 0's first tile, 1: its fourth) of a launch
// at head dim d: every stamp, then per warpgroup the median cycles of each
// segment between the points over blocks 8 .. 55 (steady state).
void print_stamps(int d, int set) {
  static const char* names[sk::kPoints] = {"block_start", "k_ready",      "turn",    "issued",
                                           "s_ready",     "softmax_done", "pv_done", "block_end"};
  // The first thread of each consumer warpgroup: consumer threads 0 and 128.
  static unsigned long long all[kStampBlocks][sk::kPoints][256];
  CHECK_CUDA(cudaMemcpyFromSymbol(all, g_stamps, sizeof(all), set * sizeof(all)));
  static unsigned long long all_ns[kStampBlocks][256];
  CHECK_CUDA(cudaMemcpyFromSymbol(all_ns, g_block_ns, sizeof(all_ns), set * sizeof(all_ns)));
  unsigned long long h[2][kStampBlocks][sk::kPoints];
  for (int wg = 0; wg < 2; ++wg)
    for (uint32_t b = 0; b < kStampBlocks; ++b)
      for (int pt = 0; pt < sk::kPoints; ++pt) h[wg][b][pt] = all[b][pt][128 * wg];
  const char* tile = set == 0 ? "first" : "fourth";
  std::printf("# stamps,head_dim,tile,warpgroup,block,point,cycles_from_block_start\n");
  for (int wg = 0; wg < 2; ++wg)
    for (uint32_t b = 0; b < kStampBlocks; ++b)
      for (int pt = 0; pt < sk::kPoints; ++pt)
        std::printf("stamp,%d,%s,%d,%u,%s,%lld\n", d, tile, wg, b, names[pt],
                    static_cast<long long>(h[wg][b][pt] - h[wg][b][0]));
  std::printf("# summary,head_dim,tile,warpgroup,segment,median_cycles (blocks 8..55)\n");
  for (int wg = 0; wg < 2; ++wg) {
    for (int pt = 1; pt <= sk::kPoints; ++pt) {
      std::vector<double> seg;
      for (uint32_t b = 8; b < 56; ++b) {
        const unsigned long long end = pt < sk::kPoints ? h[wg][b][pt] : h[wg][b + 1][0];
        seg.push_back(static_cast<double>(static_cast<long long>(end - h[wg][b][pt - 1])));
      }
      std::printf("summary,%d,%s,%d,%s->%s,%.0f\n", d, tile, wg, names[pt - 1],
                  pt < sk::kPoints ? names[pt] : "next_block_start", median(seg));
    }
    std::vector<double> period, period_ns;
    unsigned long long ns[kStampBlocks];
    for (uint32_t b = 0; b < kStampBlocks; ++b) ns[b] = all_ns[b][128 * wg];
    for (uint32_t b = 8; b < 56; ++b) {
      period.push_back(static_cast<double>(h[wg][b + 1][0] - h[wg][b][0]));
      period_ns.push_back(static_cast<double>(ns[b + 1] - ns[b]));
    }
    std::printf("summary,%d,%s,%d,block_period,%.0f\n", d, tile, wg, median(period));
    // The same period by %globaltimer (ns), and the clock64 rate it implies.
    std::printf("summary,%d,%s,%d,block_period_ns,%.0f\n", d, tile, wg, median(period_ns));
    std::printf("summary,%d,%s,%d,clock64_mhz,%.0f\n", d, tile, wg,
                1e3 * static_cast<double>(h[wg][55][0] - h[wg][8][0]) / static_cast<double>(ns[55] - ns[8]));
  }
}

// --stamp: one launch per head dim of the 8k non-causal BF16 shape (two
// stages) with StampProbe, checked and timed as the sweep's rows are.
template <int D>
int stamp_one(uint32_t heads, int runs) {
  Shape s{2, heads, heads, 8192, 8192, D, false};
  Problem pr = make_problem(s);
  static unsigned long long zero[2][2][kMaxTilesPerCta];
  CHECK_CUDA(cudaMemcpyToSymbol(g_tile_ns, zero, sizeof(zero)));
  const int rc = run_config<D, 2, sk::bf16_t, StampProbe>(pr, runs);
  free_problem(pr);
  print_stamps(D, 0);
  print_stamps(D, 1);
  // The first and the last CTA of the (last) launch: tiles, each tile's time, the span.
  unsigned long long t[2][2][kMaxTilesPerCta];
  CHECK_CUDA(cudaMemcpyFromSymbol(t, g_tile_ns, sizeof(t)));
  for (int c = 0; c < 2; ++c) {
    uint32_t n = 0;
    while (n < kMaxTilesPerCta && t[c][0][n] != 0) ++n;
    std::printf("tiles,%d,%s,%u", D, c == 0 ? "first_cta" : "last_cta", n);
    for (uint32_t k = 0; k < n; ++k) std::printf(",%.1f", (t[c][1][k] - t[c][0][k]) / 1e3);
    std::printf(",span_us,%.1f\n", n > 0 ? (t[c][1][n - 1] - t[c][0][0]) / 1e3 : 0.0);
  }
  return rc;
}

// --stamp-tiles: the FlashAttention-set rows at head dim 128 (16 heads,
// 16384 tokens), non-causal, two stages, up to `max_seq` tokens: per tile of
// CTA 0 and consumer warpgroup, cycles from the tile's start to Q acquired,
// from there to its last P V complete (its blocks), to O and LSE stored, and
// to the next tile's start; then the medians over the tiles.
// With `shapes` given (one from the command line, head dim 128), those instead.
int stamp_tiles(int runs, uint32_t max_seq, std::vector<Shape> shapes = {}) {
  std::printf("%s", kCsvHeader);
  int rc = 0;
  if (shapes.empty())
    for (uint32_t seq = 512; seq <= max_seq; seq *= 2) shapes.push_back(Shape{16384 / seq, 16, 16, seq, seq, 128, false});
  for (const Shape& s : shapes) {
    const uint32_t seq = s.sq;
    Problem pr = make_problem(s);
    static unsigned long long zero[kMaxTilesPerCta][kTilePoints][256];
    CHECK_CUDA(cudaMemcpyToSymbol(g_tile_stamps, zero, sizeof(zero)));
    static unsigned long long zero_ns[kMaxCtas][kMaxTilesPerCta][2][2];
    CHECK_CUDA(cudaMemcpyToSymbol(g_store_ns, zero_ns, sizeof(zero_ns)));
    rc = std::max(rc, run_config<128, 2, sk::bf16_t, StampProbe>(pr, runs));
    free_problem(pr);
    static unsigned long long h[kMaxTilesPerCta][kTilePoints][256];
    CHECK_CUDA(cudaMemcpyFromSymbol(h, g_tile_stamps, sizeof(h)));
    std::printf("# tile_stamps,seqlen,warpgroup,tile,q_wait,blocks,store,to_next_tile,tile_cycles\n");
    for (int wg = 0; wg < 2; ++wg) {
      std::vector<double> seg[5];
      for (uint32_t k = 0; k < kMaxTilesPerCta && h[k][0][128 * wg] != 0; ++k) {
        const auto* t = h[k];
        const bool has_next = k + 1 < kMaxTilesPerCta && h[k + 1][0][128 * wg] != 0;
        const double q = double(t[1][128 * wg] - t[0][128 * wg]), b = double(t[2][128 * wg] - t[1][128 * wg]),
                     st = double(t[3][128 * wg] - t[2][128 * wg]),
                     nx = has_next ? double(h[k + 1][0][128 * wg] - t[3][128 * wg]) : 0.0;
        std::printf("tile_stamps,%u,%d,%u,%.0f,%.0f,%.0f,%.0f,%.0f\n", seq, wg, k, q, b, st, nx, q + b + st + nx);
        seg[0].push_back(q), seg[1].push_back(b), seg[2].push_back(st);
        if (has_next) seg[3].push_back(nx), seg[4].push_back(q + b + st + nx);
      }
      if (!seg[3].empty())
        std::printf("tile_median,%u,%d,-,%.0f,%.0f,%.0f,%.0f,%.0f\n", seq, wg, median(seg[0]), median(seg[1]),
                    median(seg[2]), median(seg[3]), median(seg[4]));
    }
    // Epilogues of all CTAs (the last launch): how many SMs store at once.
    static unsigned long long ns[kMaxCtas][kMaxTilesPerCta][2][2];
    CHECK_CUDA(cudaMemcpyFromSymbol(ns, g_store_ns, sizeof(ns)));
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // SM-level: start of WG0's, end of the later
    std::vector<double> dur;
    for (uint32_t c = 0; c < kMaxCtas; ++c)
      for (uint32_t k = 0; k < kMaxTilesPerCta && ns[c][k][0][0] != 0; ++k) {
        spans.push_back({std::min(ns[c][k][0][0], ns[c][k][1][0]), std::max(ns[c][k][0][1], ns[c][k][1][1])});
        dur.push_back(double(spans.back().second - spans.back().first));
      }
    if (!dur.empty())
      std::printf("epilogues,%u,ctas_storing_mean,%.1f,epilogue_ns_median,%.0f,epilogues,%zu\n", seq,
                  sk::report::mean_open(spans), median(dur), dur.size());
  }
  return rc;
}

int stamp(int runs) {
  std::printf("%s", kCsvHeader);
  int rc = stamp_one<128>(16, runs);
  rc |= stamp_one<64>(32, runs);
  rc |= stamp_one<256>(8, runs);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = static_cast<int>(arg(argc, argv, "--runs", 20));
  if (runs < 1) {
    std::fprintf(stderr, "attention_bench: --runs must be >= 1\n");
    return 2;
  }
  const char* dtype = "bf16";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--in-dtype") == 0) dtype = argv[i + 1];
  if (std::strcmp(dtype, "bf16") != 0 && std::strcmp(dtype, "f16") != 0) {
    std::fprintf(stderr, "attention_bench: --in-dtype %s is not bf16 or f16\n", dtype);
    return 2;
  }
  const bool f16 = std::strcmp(dtype, "f16") == 0;
  if (flag(argc, argv, "--stamp")) return stamp(runs);
  if (flag(argc, argv, "--stamp-tiles")) {
    if (arg(argc, argv, "--seqlen-q", 0) == 0) return stamp_tiles(runs, arg(argc, argv, "--max-seq", 2048));
    // One given shape, head dim 128, two stages, BF16 (the probe's instantiation).
    const Shape s = shape_from_args(argc, argv, false);
    if (!shape_ok(s) || s.d != 128) {
      std::fprintf(stderr, "attention_bench: --stamp-tiles takes a head-dim 128 shape (batch, heads, "
                           "seqlen-q, seqlen-k >= 1; kv-heads divides heads)\n");
      return 2;
    }
    return stamp_tiles(runs, 0, {s});
  }
  if (flag(argc, argv, "--sweep")) {
    std::printf("%s", kCsvHeader);
    int rc = 0;
    for (Shape s : sweep_shapes()) {
      s.f16 = f16;
      Problem pr = make_problem(s);
      for (int st = 2; st <= 3; ++st)
        if (fits(s.d, st)) rc |= run_stages(pr, st, runs);
      free_problem(pr);
    }
    return rc;
  }
  const Shape s = shape_from_args(argc, argv, f16);
  const uint32_t stages = arg(argc, argv, "--stages", 2);
  if (!shape_ok(s) || (s.d != 64 && s.d != 128 && s.d != 256) || (stages != 2 && stages != 3)) {
    std::fprintf(stderr,
                 "attention_bench: bad arguments (batch, heads, seqlen-q, seqlen-k >= 1; kv-heads "
                 "divides heads; head-dim 64|128|256; stages 2|3)\n");
    return 2;
  }
  if (!fits(s.d, static_cast<int>(stages))) {
    std::printf("%s%u,%u,%u,%u,%u,%u,%d,%u,,,,,does_not_fit,,%s,\n", kCsvHeader, s.batch, s.heads, s.kv_heads,
                s.sq, s.sk, s.d, s.causal ? 1 : 0, stages, dtype);
    return 0;
  }
  std::printf("%s", kCsvHeader);
  Problem pr = make_problem(s);
  const int rc = run_stages(pr, static_cast<int>(stages), runs);
  free_problem(pr);
  return rc;
}
