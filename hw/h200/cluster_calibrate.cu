// cluster_calibrate.cu: thread-block cluster microbenchmarks on one Hopper GPU,
// for the SM90 matmul's cluster mode (kernels/matmul/sm90_matmul.h,
// kernels/sched/cluster_shape.h) and its timing model.
//
//   cluster_calibrate   (prints CSV lines what,param,value,unit; a few seconds)
//
// Times are clock64 (SM cycles) read by the measuring thread; each figure is
// the median over its iterations after 10 warm-up ones (1000 iterations for
// the barriers, 200 for TMA), one launch each. Samples are kept in shared
// memory during the measured loop and copied out after it: a global store
// before a release at cluster scope makes the release wait for it (the
// "global_sink" rows show that cost). The board's name and UUID come first
// (cudaGetDeviceProperties).
//
// a. Co-residency. cudaOccupancyMaxActiveClusters for clusters of 1, 2, 4 and
//    8 CTAs with the matmul's launch footprint (384 threads, the dynamic SMEM
//    of Sm90MatmulConfig<256, 4>): asked of the matmul kernel itself and of
//    the spin kernel below (same threads and SMEM). Then, per size, a launch
//    of exactly max_active_clusters x size CTAs of the spin kernel, each
//    holding its SM about 50 us (globaltimer) and recording %smid, %clusterid
//    and its start and end times: the distinct SMs that ran a CTA, the SMs
//    that never did, and whether every CTA was resident at once (the latest
//    start before the earliest end). docs/results/h200_gpc_probe_2026-11-22.csv
//    saw SMs 124-131 never run clusters of 4, 8 or 16 on board K.
// b. mbarrier ping-pong, 1000 round trips. Two parties, each waiting on its
//    own barrier (count 1) and arriving on the other's:
//      cross_cta: thread 0 of each CTA of a cluster of 2; the arrive is
//        sk::arch::mbarrier_arrive_cluster_release: mapa then
//        mbarrier.arrive.release.cluster.shared::cluster on the peer's
//        barrier (release_cluster), or sk::arch::mbarrier_arrive_cluster:
//        mapa then mbarrier.arrive.shared::cluster.b64 with the default
//        semantics, release at CTA scope (CUTLASS's ClusterBarrier::arrive
//        form, the kernels': release_cta);
//      one_cta: lane 0 of warps 0 and 1 of one CTA, local arrives
//        (sk::arch::mbarrier_arrive); and the same with either remote form
//        to the CTA's own rank (the path the matmul's consumers take for
//        their own CTA's empty barrier).
//    Waits are sk::arch::mbarrier_try_wait_parity (the kernels' wait, with a
//    suspend-time hint) or, for comparison, a test_wait spin. Party 0 times
//    each round trip; one-way latency = round trip / 2. global_sink: party 0
//    stores each sample to global memory inside the loop, before its next
//    arrive.
// c. barrier.cluster (sk::arch::cluster_sync: arrive.release + wait.acquire;
//    and barrier.cluster.arrive.relaxed + wait for comparison) for clusters
//    of 1, 2 and 4, with 1 warp and with 12 warps (384 threads) per CTA:
//    thread 0 of rank 0 stamps clock64 after each of 1000 syncs; cycles per
//    sync = the median stamp difference.
// d. TMA round trip, issue (expect_tx, then the load) to the phase flip
//    observed by try_wait, of one 2-D BF16 box (64 columns x 128 rows = 16
//    KiB or x 64 rows = 8 KiB, 128B swizzle), the same box every iteration so
//    that it is L2-resident:
//      plain single_cta: one CTA, loads back to back (calibrate.cu's figure);
//      plain cluster2: rank 0 of a cluster of 2 loads into its own SMEM;
//      multicast cluster2: rank 0 loads the box with .multicast::cluster to
//        both CTAs (mask 0b11);
//      split_multicast cluster2: each rank loads half the box's rows and
//        multicasts them to both (the matmul's pattern for a 2x1 or 1x2
//        cluster), each CTA expecting the whole box.
//    In the cluster modes both CTAs meet a cluster barrier before each
//    iteration and time from leaving it: the issuing CTA's figure is issue to
//    flip, the receiving CTA's barrier exit to flip (the two exits differ by
//    the barrier's skew; the clocks of two SMs are not comparable). The
//    globaltimer (ns) gives a cross-SM figure: rank 0's issue to rank 1's
//    flip, at the timer's resolution (also printed).
// e. DSMEM store rate: st.shared::cluster.v4 from every lane of a sending warp
//    (the K split's reduce-scatter store, kernels/matmul/split_k_reduce.h),
//    `reps` x 8 KiB per sending warp, then __syncwarp and the elected lane's
//    mbarrier.arrive.release.cluster on the receiver's barrier; the receiving
//    warp waits there (try_wait acquire at cluster scope) and times from its
//    cluster barrier's exit to the phase flip, 200 iterations (10 warm-up):
//      to_one: ranks 1..S-1 send with W warps each to rank 0 (warp 0 waits
//        for all (S - 1) W arrivals): one SM receiving, S - 1 sending;
//      from_one: rank 0 sends with W warps, warp w to rank 1 + w % (S - 1)
//        (rank 1's warp 0 times its arrivals): one SM sending;
//      reduce: the K split's pattern, 8 warps per CTA, warp q's rows owned by
//        rank q S / 8, each other rank's warp q sending to that owner; rank
//        0's warp 0 (an owner) times its S - 1 arrivals.
//    reps = 0 is the release-arrive-and-wait alone; the rate is the bytes
//    the receiver's SM got over (cycles - that).
// Every CUDA call is checked; a wait that exceeds ~2^31 cycles sets an error
// flag and the program exits 3 (a hang) after printing what it has.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/matmul/sm90_matmul.h"

namespace {

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "cluster_calibrate: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), \
                   __LINE__);                                                                 \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

using MatmulCfg = sk::Sm90MatmulConfig<256, 4>;
constexpr int kMatmulThreads = MatmulCfg::kThreads;  // 384
constexpr uint32_t kMatmulSmem = MatmulCfg::kSmemBytes;
constexpr int kWarm = 10;
constexpr uint64_t kWaitLimit = 1ull << 31;  // cycles before a wait counts as hung

using sk::bench::clk;
__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  return t;
}
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ uint32_t cluster_id() {
  uint32_t c;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(c));
  return c;
}

// Waits for the phase of `parity` (try_wait, or a test_wait spin); false
// and *err set after kWaitLimit cycles.
template <bool Spin>
__device__ bool wait_phase(uint64_t* bar, uint32_t parity, uint32_t* err) {
  const uint64_t t0 = clk();
  while (!(Spin ? sk::arch::mbarrier_test_wait_parity(bar, parity)
                : sk::arch::mbarrier_try_wait_parity(bar, parity))) {
    if (clk() - t0 > kWaitLimit) {
      atomicOr(err, 1u);
      return false;
    }
  }
  return true;
}

// The matmul kernel as gemm_bench instantiates it (for its occupancy only).
__global__ void __launch_bounds__(384, 1) matmul_kernel(
    const __grid_constant__ typename sk::Sm90Matmul<MatmulCfg>::Params p) {
  sk::Sm90Matmul<MatmulCfg>::run(p);
}

// ---------------------------------------------------------------- a. co-residency
struct SpinRecord {
  uint32_t smid, cluster, rank, pad;
  uint64_t start_ns, end_ns;
};

__global__ void __launch_bounds__(384, 1) spin_kernel(SpinRecord* rec, uint64_t hold_ns) {
  extern __shared__ __align__(1024) uint8_t smem[];
  if (threadIdx.x != 0) return;
  const uint64_t t0 = gtimer();
  const uint64_t c0 = clk();
  // globaltimer bounds the hold; clock64 too, in case the timer stalls.
  while (gtimer() - t0 < hold_ns && clk() - c0 < 40 * hold_ns) {
  }
  smem[0] = 1;  // the SMEM stays allocated either way; keep the symbol used
  rec[blockIdx.x] = SpinRecord{smid(), cluster_id(), sk::arch::cluster_ctarank(), smem[0], t0, gtimer()};
}

// ---------------------------------------------------------------- b. ping-pong
constexpr int kIters = 1010;  // barrier iterations (10 warm-up)

enum ArriveKind { kLocal = 0, kReleaseCluster = 1, kReleaseCta = 2 };

// CrossCta: parties are thread 0 of ranks 0 and 1 of a cluster of 2 (32
// threads each); else lane 0 of warps 0 and 1 of one CTA (64 threads).
// Arrive: kLocal mbarrier_arrive; kReleaseCluster
// sk::arch::mbarrier_arrive_cluster_release, kReleaseCta
// sk::arch::mbarrier_arrive_cluster (to the peer rank, or the own rank when
// !CrossCta). GlobalSink: samples go to global memory inside the loop (else
// to shared memory, copied out after).
template <bool CrossCta, int Arrive, bool Spin, bool GlobalSink = false>
__global__ void pingpong(uint64_t* out, uint32_t* info, uint32_t* err, int iters) {
  __shared__ uint64_t bars[2];
  __shared__ uint64_t samples[kIters];
  const uint32_t rank = sk::arch::cluster_ctarank();
  const uint32_t party = CrossCta ? rank : threadIdx.x / 32;
  if (threadIdx.x == 0) {
    sk::arch::mbarrier_init(&bars[0], 1);
    sk::arch::mbarrier_init(&bars[1], 1);
    sk::arch::fence_mbarrier_init();
  }
  if (CrossCta)
    sk::arch::cluster_sync();
  else
    __syncthreads();
  uint64_t* mine = CrossCta ? &bars[0] : &bars[party];
  uint64_t* theirs = CrossCta ? &bars[0] : &bars[party ^ 1];
  const uint32_t their_rank = CrossCta ? rank ^ 1 : rank;
  auto arrive = [&] {
    if (Arrive == kReleaseCluster)
      sk::arch::mbarrier_arrive_cluster_release(theirs, their_rank);
    else if (Arrive == kReleaseCta)
      sk::arch::mbarrier_arrive_cluster(theirs, their_rank);
    else
      sk::arch::mbarrier_arrive(theirs);
  };
  if (threadIdx.x % 32 == 0 && party < 2) {
    info[party] = smid();
    int done = 0;
    for (int i = 0; i < iters && i < kIters; ++i, done = i) {
      const uint64_t t0 = clk();
      if (party == 0) {
        arrive();
        if (!wait_phase<Spin>(mine, i & 1, err)) break;
        if (GlobalSink)
          out[i] = clk() - t0;
        else
          samples[i] = clk() - t0;
      } else {
        if (!wait_phase<Spin>(mine, i & 1, err)) break;
        arrive();
      }
    }
    if (!GlobalSink && party == 0)
      for (int i = 0; i < done; ++i) out[i] = samples[i];
  }
  __syncwarp();
  // No CTA leaves while its peer may still arrive on its barrier.
  if (CrossCta)
    sk::arch::cluster_sync();
  else
    __syncthreads();
}

// ---------------------------------------------------------------- c. cluster_sync
// Relaxed: barrier.cluster.arrive.relaxed + wait (no release/acquire).
template <bool Relaxed>
__global__ void cluster_sync_loop(uint64_t* out, int iters) {
  __shared__ uint64_t stamps[kIters];
  const bool stamp = threadIdx.x == 0 && sk::arch::cluster_ctarank() == 0;
  sk::arch::cluster_sync();
  for (int i = 0; i < iters && i < kIters; ++i) {
    if (Relaxed) {
      asm volatile("barrier.cluster.arrive.relaxed.aligned;" : : : "memory");
      asm volatile("barrier.cluster.wait.aligned;" : : : "memory");
    } else {
      sk::arch::cluster_sync();
    }
    if (stamp) stamps[i] = clk();
  }
  if (stamp)
    for (int i = 0; i < iters && i < kIters; ++i) out[i] = stamps[i];
  sk::arch::cluster_sync();
}

// ---------------------------------------------------------------- d. TMA
constexpr int kTmaIters = 210;  // TMA iterations (10 warm-up)
enum TmaMode { kPlainSingle = 0, kPlainCluster = 1, kMulticast = 2, kSplitMulticast = 3 };

// out[rank * iters + i]: cycles; ns[2 * (rank * iters + i)]: globaltimer at
// the start and at the flip. box_bytes: the whole box each CTA receives;
// `map`'s box is half of it in kSplitMulticast.
template <int Mode>
__global__ void tma_round_trip(const __grid_constant__ CUtensorMap map, uint32_t box_bytes,
                               uint32_t half_rows, uint64_t* out, uint64_t* ns, uint32_t* info,
                               uint32_t* err, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t bar;
  __shared__ uint64_t cycles[kTmaIters], starts[kTmaIters], flips[kTmaIters];
  constexpr bool kCluster = Mode != kPlainSingle;
  const uint32_t rank = kCluster ? sk::arch::cluster_ctarank() : 0;
  uint8_t* dst = sk::bench::smem_align_1024(smem);
  if (threadIdx.x == 0) {
    sk::arch::mbarrier_init(&bar, 1);
    sk::arch::fence_mbarrier_init();
    info[rank] = smid();
  }
  if (kCluster)
    sk::arch::cluster_sync();
  else
    __syncthreads();
  bool failed = false;
  for (int i = 0; i < iters && i < kTmaIters; ++i) {
    // Both CTAs have observed the last phase before the next load lands.
    if (kCluster) sk::arch::cluster_sync();
    if (threadIdx.x == 0 && !failed) {
      const uint64_t g0 = gtimer();
      const uint64_t t0 = clk();
      const bool receives = Mode == kMulticast || Mode == kSplitMulticast || rank == 0;
      if (receives) {
        sk::arch::mbarrier_arrive_expect_tx(&bar, box_bytes);
        if (Mode == kPlainSingle || Mode == kPlainCluster) {
          sk::arch::tma_load_2d(dst, &map, &bar, 0, 0);
        } else if (Mode == kMulticast) {
          if (rank == 0) sk::arch::tma_load_2d_multicast(dst, &map, &bar, 0, 0, 0b11);
        } else {
          sk::arch::tma_load_2d_multicast(dst + rank * (box_bytes / 2), &map, &bar, 0,
                                          static_cast<int32_t>(rank * half_rows), 0b11);
        }
        failed = !wait_phase<false>(&bar, i & 1, err);
      }
      const uint64_t t1 = clk();
      const uint64_t g1 = gtimer();
      cycles[i] = t1 - t0;
      starts[i] = g0;
      flips[i] = g1;
    }
    __syncwarp();
  }
  if (threadIdx.x == 0)
    for (int i = 0; i < iters && i < kTmaIters; ++i) {
      out[rank * iters + i] = cycles[i];
      ns[2 * (rank * iters + i)] = starts[i];
      ns[2 * (rank * iters + i) + 1] = flips[i];
    }
  if (kCluster) sk::arch::cluster_sync();
}

// The smallest nonzero step of %globaltimer seen by one thread.
__global__ void timer_resolution(uint64_t* out) {
  uint64_t best = ~0ull, last = gtimer();
  for (int i = 0; i < 100000; ++i) {
    const uint64_t t = gtimer();
    if (t != last) {
      if (t - last < best) best = t - last;
      last = t;
    }
  }
  *out = best;
}

// ---------------------------------------------------------------- e. DSMEM stores
constexpr uint32_t kSlotBytes = 8192;  // one consumer warp's 16 x 128 FP32 rows
constexpr uint32_t kSlots = 7;
constexpr uint32_t kDsmemSmem = kSlots * kSlotBytes + 8 * 8;
constexpr int kDsmemIters = 200;
enum DsmemMode { kToOne = 0, kReduce = 1, kFromOne = 2 };

// out[i]: the timing warp's cycles from its cluster barrier's exit to the
// flip (rank 0's warp 0; rank 1's for kFromOne).
template <int Mode>
__global__ void dsmem_store_rate(uint64_t* out, uint32_t* err, int send_warps, int reps) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t stamps[kDsmemIters];
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kSlots * kSlotBytes);
  const uint32_t rank = sk::arch::cluster_ctarank(), size = sk::arch::cluster_num_ctas();
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  auto owner = [&](uint32_t q) { return q * size / 8; };
  if (threadIdx.x == 0) {
    uint32_t arrivals = Mode == kToOne ? (size - 1) * send_warps : size - 1;
    if (Mode == kFromOne) {
      arrivals = 0;
      for (int w = 0; w < send_warps; ++w) arrivals += 1 + w % (size - 1) == rank ? 1 : 0;
      if (arrivals == 0) arrivals = 1;  // rank 0's, never used
    }
    for (int i = 0; i < 8; ++i) sk::arch::mbarrier_init(&full[i], arrivals);
    sk::arch::fence_mbarrier_init();
  }
  sk::arch::cluster_sync();
  for (int it = 0; it < kDsmemIters; ++it) {
    sk::arch::cluster_sync();
    const uint64_t t0 = clk();
    bool sends = false, times = false;
    uint32_t to = 0, slot = 0, bar = 0;
    if (Mode == kToOne) {
      sends = rank != 0 && warp < static_cast<uint32_t>(send_warps);
      slot = (rank - 1 + warp) % kSlots;
      times = rank == 0 && warp == 0;
    } else if (Mode == kFromOne) {
      sends = rank == 0 && warp < static_cast<uint32_t>(send_warps);
      to = 1 + warp % (size - 1);
      slot = warp % kSlots;
      times = rank == 1 && warp == 0;
    } else {
      const uint32_t o = owner(warp), first = o * 8 / size;
      sends = o != rank;
      to = o;
      bar = warp - first;
      slot = (warp - first) * (size - 1) + (rank < o ? rank : rank - 1);
      times = rank == 0 && warp == 0;
    }
    if (sends) {
      uint8_t* base = smem + slot * kSlotBytes;
      for (int r = 0; r < reps; ++r)
        for (uint32_t j = 0; j < kSlotBytes / 512; ++j) {
          const uint32_t v[4] = {lane, j, static_cast<uint32_t>(r), rank};
          sk::arch::st_shared_cluster_v4(base + (j * 32 + lane) * 16, to, v);
        }
      __syncwarp();
      if (lane == 0) sk::arch::mbarrier_arrive_cluster_release(&full[bar], to);
    }
    if (times) {
      const uint64_t w0 = clk();
      while (!sk::arch::mbarrier_try_wait_parity_cluster(&full[0], it & 1))
        if (clk() - w0 > kWaitLimit) {
          atomicOr(err, 1u);
          break;
        }
      if (lane == 0) stamps[it] = clk() - t0;
    }
    __syncwarp();
  }
  sk::arch::cluster_sync();
  if (rank == (Mode == kFromOne ? 1u : 0u) && threadIdx.x == 0)
    for (int i = 0; i < kDsmemIters; ++i) out[i] = stamps[i];
}

// ---------------------------------------------------------------- host
// A launch of `grid` CTAs in clusters of `size` (1: a cluster of one).
template <class... Kargs, class... Args>
cudaError_t launch(void (*kernel)(Kargs...), int grid, int threads, uint32_t smem, int size,
                   Args... args) {
  const sk::bench::ClusterLaunch l(static_cast<uint32_t>(grid), static_cast<uint32_t>(threads), smem,
                                   static_cast<uint32_t>(size));
  return cudaLaunchKernelEx(&l.cfg, kernel, static_cast<Kargs>(args)...);
}

template <class Kernel>
int max_active_clusters(Kernel kernel, int threads, uint32_t smem, int size) {
  const sk::bench::ClusterLaunch l(static_cast<uint32_t>(size), static_cast<uint32_t>(threads), smem,
                                   static_cast<uint32_t>(size));
  int n = 0;
  CK(cudaOccupancyMaxActiveClusters(&n, kernel, &l.cfg));
  return n;
}

std::vector<uint64_t> fetch(const uint64_t* dev, size_t from, size_t n) {
  std::vector<uint64_t> h(n);
  CK(cudaMemcpy(h.data(), dev + from, n * 8, cudaMemcpyDeviceToHost));
  return h;
}

// The median of samples [kWarm, n) of dev[from ...].
uint64_t median_samples(const uint64_t* dev, size_t from, int n) {
  std::vector<uint64_t> h = fetch(dev, from, static_cast<size_t>(n));
  return sk::bench::median(std::vector<uint64_t>(h.begin() + kWarm, h.end()));
}

uint32_t* g_err = nullptr;

// 3 (a hang) if a wait timed out in the last launch.
void check_err(const char* what) {
  uint32_t e = 0;
  CK(cudaMemcpy(&e, g_err, 4, cudaMemcpyDeviceToHost));
  if (e != 0) {
    std::printf("error,%s,wait exceeded 2^31 cycles,\n", what);
    std::fflush(stdout);
    std::exit(3);
  }
}

void row(const char* what, const std::string& param, double value, const char* unit) {
  std::printf("%s,%s,%.1f,%s\n", what, param.c_str(), value, unit);
}
void row(const char* what, const std::string& param, long long value, const char* unit) {
  std::printf("%s,%s,%lld,%s\n", what, param.c_str(), value, unit);
}
void row(const char* what, const std::string& param, const std::string& value, const char* unit) {
  std::printf("%s,%s,%s,%s\n", what, param.c_str(), value.c_str(), unit);
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  char uuid[64];
  const auto* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  std::snprintf(uuid, sizeof uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
  std::printf("what,param,value,unit\n");
  row("board", "name", std::string(prop.name), "");
  row("board", "uuid", std::string(uuid), "");
  row("board", "sms", static_cast<long long>(sms), "count");
  row("board", "clock_khz", static_cast<long long>(clock_khz), "kHz");
  row("board", "cc", std::to_string(prop.major) + "." + std::to_string(prop.minor), "");

  uint64_t *out, *ns;
  uint32_t* info;
  CK(cudaMalloc(&out, 4096 * 8));
  CK(cudaMalloc(&ns, 8192 * 8));
  CK(cudaMalloc(&info, 64 * 4));
  CK(cudaMalloc(&g_err, 4));
  CK(cudaMemset(g_err, 0, 4));

  // a. co-residency.
  CK(cudaFuncSetAttribute(matmul_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(kMatmulSmem)));
  CK(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(kMatmulSmem)));
  row("matmul_footprint", "threads", static_cast<long long>(kMatmulThreads), "threads");
  row("matmul_footprint", "dynamic_smem Sm90MatmulConfig<256,4>", static_cast<long long>(kMatmulSmem),
      "bytes");
  int blocks_per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, matmul_kernel, kMatmulThreads,
                                                   kMatmulSmem));
  row("max_active_blocks_per_sm", "matmul_kernel", static_cast<long long>(blocks_per_sm), "ctas");
  cudaFuncAttributes fa{};
  CK(cudaFuncGetAttributes(&fa, matmul_kernel));
  row("matmul_kernel_regs", "per_thread", static_cast<long long>(fa.numRegs), "registers");
  SpinRecord* rec;
  CK(cudaMalloc(&rec, 1024 * sizeof(SpinRecord)));
  for (int size : {1, 2, 4, 8}) {
    const std::string p = "size=" + std::to_string(size);
    const int mm = max_active_clusters(matmul_kernel, kMatmulThreads, kMatmulSmem, size);
    const int sp = max_active_clusters(spin_kernel, kMatmulThreads, kMatmulSmem, size);
    row("max_active_clusters", p + " matmul_kernel", static_cast<long long>(mm), "clusters");
    row("max_active_clusters", p + " spin_kernel", static_cast<long long>(sp), "clusters");
    row("max_active_ctas", p + " matmul_kernel", static_cast<long long>(mm * size), "ctas");
    if (sp < 1) continue;
    const int grid = sp * size;
    // A warm-up launch, then the recorded one.
    for (int rep = 0; rep < 2; ++rep) {
      CK(launch(spin_kernel, grid, kMatmulThreads, kMatmulSmem, size, rec, uint64_t{50000}));
      CK(cudaDeviceSynchronize());
    }
    std::vector<SpinRecord> h(static_cast<size_t>(grid));
    CK(cudaMemcpy(h.data(), rec, h.size() * sizeof(SpinRecord), cudaMemcpyDeviceToHost));
    std::vector<int> ran(static_cast<size_t>(sms), 0);
    uint64_t latest_start = 0, earliest_end = ~0ull;
    std::vector<uint64_t> held;
    bool distinct_in_cluster = true;
    for (int b = 0; b < grid; ++b) {
      if (h[b].smid < ran.size()) ran[h[b].smid] += 1;
      latest_start = std::max(latest_start, h[b].start_ns);
      earliest_end = std::min(earliest_end, h[b].end_ns);
      held.push_back(h[b].end_ns - h[b].start_ns);
      if (b % size != 0 && h[b].smid == h[b - b % size].smid) distinct_in_cluster = false;
    }
    const long long distinct = std::count_if(ran.begin(), ran.end(), [](int x) { return x > 0; });
    const long long twice = std::count_if(ran.begin(), ran.end(), [](int x) { return x > 1; });
    std::string never;
    for (int s = 0; s < sms; ++s)
      if (ran[s] == 0) never += (never.empty() ? "" : " ") + std::to_string(s);
    const std::string q = p + " grid=" + std::to_string(grid);
    row("spin_distinct_sms", q, distinct, "sms");
    row("spin_sms_with_two_ctas", q, twice, "sms");
    row("spin_never_ran", q, never.empty() ? std::string("none") : never, "smid");
    row("spin_all_resident_at_once", q, static_cast<long long>(latest_start < earliest_end ? 1 : 0),
        "bool");
    row("spin_start_skew", q, static_cast<double>(latest_start - std::min_element(h.begin(), h.end(),
        [](const SpinRecord& x, const SpinRecord& y) { return x.start_ns < y.start_ns; })->start_ns) / 1e3,
        "us");
    row("spin_hold_median", q, static_cast<double>(sk::bench::median(held)) / 1e3, "us");
    row("spin_cluster_ctas_on_distinct_sms", q, static_cast<long long>(distinct_in_cluster ? 1 : 0),
        "bool");
  }

  // b. ping-pong.
  auto pp = [&](const char* name, auto kernel, int size, int threads) {
    CK(cudaMemset(out, 0, kIters * 8));
    CK(launch(kernel, size, threads, 0, size, out, info, g_err, kIters));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    check_err(name);
    const uint64_t rt = median_samples(out, 0, kIters);
    uint32_t where[2];
    CK(cudaMemcpy(where, info, 8, cudaMemcpyDeviceToHost));
    row("mbarrier_pingpong_round_trip", name, static_cast<long long>(rt), "cycles");
    row("mbarrier_pingpong_one_way", name, static_cast<double>(rt) / 2, "cycles");
    row("mbarrier_pingpong_smids", name, std::to_string(where[0]) + " " + std::to_string(where[1]), "smid");
  };
  pp("cross_cta remote_arrive release_cluster try_wait", pingpong<true, kReleaseCluster, false>, 2, 32);
  pp("cross_cta remote_arrive release_cluster test_wait_spin", pingpong<true, kReleaseCluster, true>, 2, 32);
  pp("cross_cta remote_arrive release_cluster try_wait global_sink",
     pingpong<true, kReleaseCluster, false, true>, 2, 32);
  pp("cross_cta remote_arrive release_cta try_wait", pingpong<true, kReleaseCta, false>, 2, 32);
  pp("cross_cta remote_arrive release_cta try_wait global_sink", pingpong<true, kReleaseCta, false, true>,
     2, 32);
  pp("one_cta two_warps local_arrive try_wait", pingpong<false, kLocal, false>, 1, 64);
  pp("one_cta two_warps local_arrive test_wait_spin", pingpong<false, kLocal, true>, 1, 64);
  pp("one_cta two_warps local_arrive try_wait global_sink", pingpong<false, kLocal, false, true>, 1, 64);
  pp("one_cta two_warps own_rank_arrive release_cluster try_wait", pingpong<false, kReleaseCluster, false>,
     1, 64);
  pp("one_cta two_warps own_rank_arrive release_cluster try_wait global_sink",
     pingpong<false, kReleaseCluster, false, true>, 1, 64);
  pp("one_cta two_warps own_rank_arrive release_cta try_wait", pingpong<false, kReleaseCta, false>, 1, 64);

  // c. cluster_sync.
  for (int relaxed : {0, 1})
    for (int size : {1, 2, 4})
      for (int warps : {1, 12}) {
        CK(launch(relaxed ? cluster_sync_loop<true> : cluster_sync_loop<false>, size, 32 * warps, 0, size,
                  out, kIters));
        CK(cudaDeviceSynchronize());
        std::vector<uint64_t> h = fetch(out, 0, kIters), d;
        for (int i = kWarm; i < kIters; ++i) d.push_back(h[i] - h[i - 1]);
        row(relaxed ? "cluster_barrier_relaxed" : "cluster_sync",
            "size=" + std::to_string(size) + " warps_per_cta=" + std::to_string(warps),
            static_cast<long long>(sk::bench::median(d)), "cycles_per_sync");
      }

  // d. TMA round trips.
  void* t;
  CK(cudaMalloc(&t, 1 << 20));
  CK(cudaMemset(t, 0x3c, 1 << 20));
  const uint64_t rows = (1 << 20) / 128;
  uint64_t* res;
  CK(cudaMalloc(&res, 8));
  timer_resolution<<<1, 1>>>(res);
  CK(cudaDeviceSynchronize());
  uint64_t resolution = 0;
  CK(cudaMemcpy(&resolution, res, 8, cudaMemcpyDeviceToHost));
  row("globaltimer_resolution", "smallest_step", static_cast<long long>(resolution), "ns");
  const uint32_t smem = 16384 + 1024;
  auto tma = [&](const char* name, auto kernel, int size, uint32_t box_rows, bool split) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    const uint32_t bytes = box_rows * 128;
    const CUtensorMap m = sk::bench::bf16_rows_map(t, rows, split ? box_rows / 2 : box_rows, "cluster_calibrate");
    CK(launch(kernel, size, 32, smem, size, m, bytes, box_rows / 2, out, ns, info, g_err, kTmaIters));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    check_err(name);
    const std::string p = std::string(name) + " " + std::to_string(bytes) + "B";
    // Rank 1 of the plain cluster mode loads nothing (no figure).
    const int timed = std::string(name).rfind("plain cluster2", 0) == 0 ? 1 : size;
    for (int r = 0; r < timed; ++r) {
      const char* role = size == 1 ? "" : r == 0 ? " rank0" : " rank1";
      row("tma_round_trip", p + role, static_cast<long long>(median_samples(out, r * kTmaIters, kTmaIters)),
          "cycles");
    }
    if (size == 2) {
      if (timed == 2) {
        const std::vector<uint64_t> g = fetch(ns, 0, 4 * kTmaIters);
        std::vector<long long> cross;
        for (int i = kWarm; i < kTmaIters; ++i)
          cross.push_back(static_cast<long long>(g[2 * (kTmaIters + i) + 1]) -
                          static_cast<long long>(g[2 * i]));
        row("tma_issue_rank0_to_flip_rank1", p, sk::bench::median(cross), "ns");
      }
      uint32_t where[2];
      CK(cudaMemcpy(where, info, 8, cudaMemcpyDeviceToHost));
      row("tma_smids", p, std::to_string(where[0]) + " " + std::to_string(where[1]), "smid");
    }
  };
  for (uint32_t box_rows : {128u, 64u}) {
    tma("plain single_cta", tma_round_trip<kPlainSingle>, 1, box_rows, false);
    tma("plain cluster2 (rank0 loads; rank1 idle)", tma_round_trip<kPlainCluster>, 2, box_rows, false);
    tma("multicast cluster2 (rank0 issues to both)", tma_round_trip<kMulticast>, 2, box_rows, false);
    tma("split_multicast cluster2 (each rank issues half to both)", tma_round_trip<kSplitMulticast>, 2,
        box_rows, true);
  }

  // e. DSMEM store rate.
  CK(cudaFuncSetAttribute(dsmem_store_rate<kToOne>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(kDsmemSmem)));
  CK(cudaFuncSetAttribute(dsmem_store_rate<kReduce>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(kDsmemSmem)));
  CK(cudaFuncSetAttribute(dsmem_store_rate<kFromOne>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(kDsmemSmem)));
  auto dsmem = [&](const char* name, auto kernel, int size, int warps, int reps, long long bytes_in) {
    CK(cudaMemset(out, 0, kDsmemIters * 8));
    CK(launch(kernel, size, 256, kDsmemSmem, size, out, g_err, warps, reps));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    check_err(name);
    const std::string p = std::string(name) + " size=" + std::to_string(size) + " send_warps=" +
                          std::to_string(warps) + " reps=" + std::to_string(reps) + " bytes_in=" +
                          std::to_string(bytes_in);
    row("dsmem_store_exchange", p, static_cast<long long>(median_samples(out, 0, kDsmemIters)), "cycles");
  };
  for (int size : {2, 4, 8})
    for (int warps : {1, 2, 4, 8})
      for (int reps : {0, 1, 8})
        dsmem("to_one", dsmem_store_rate<kToOne>, size, warps, reps,
              static_cast<long long>(size - 1) * warps * reps * kSlotBytes);
  for (int size : {2, 4, 8})
    for (int warps : {size - 1, 2 * (size - 1)})
      for (int reps : {0, 1, 8})
        if (warps <= 8)
            dsmem("from_one", dsmem_store_rate<kFromOne>, size, warps, reps,
                static_cast<long long>(warps / (size - 1)) * reps * kSlotBytes);
  for (int size : {2, 4, 8})
    for (int reps : {0, 1, 8})
      dsmem("reduce", dsmem_store_rate<kReduce>, size, 8, reps,
            static_cast<long long>(size - 1) * (8 / size) * reps * kSlotBytes);
  return 0;
}
