// multicast_stream.cu: what a TMA multicast saves the load path of a
// clustered matmul, measured apart from the tensor cores (docs/hardware.md,
// "Multicast's share of the L2").
//
// The producer of the SM90 matmul in clusters, without its tensor cores (as
// l2_stream.cu's section gemm is without clusters): one CTA per SM, in
// clusters of cluster_m x cluster_n CTAs along M and N; each cluster walks
// blocks of cluster_m x cluster_n output tiles in the kernel's order
// (kernels/sched/cluster_shape.h) and, for each k-block, every CTA fills a
// stage of its ring with A's 128 x 64 box and B's tile_n x 64 box. Modes:
//   multicast: as the matmul does (kernels/matmul/sm90_matmul.h): the
//     cluster_n CTAs of a row share A, each loads 128 / cluster_n of its rows
//     and multicasts them to the row; B likewise down a column, tile_n /
//     cluster_m rows each. A stage is released to a producer by the consumers
//     of every CTA its loads land in (remote arrives).
//   own: the same cluster launch, tiles and ring, but every CTA loads its
//     whole A and B boxes itself (no multicast): the control.
// A consumer thread waits for each stage, holds it `compute` cycles (0: the
// loads alone; the tensor core's k-block time: a matmul whose wgmma costs
// exactly that) and releases it.
// Output (CSV): time, SM clock, SM cycles per k-block, the bytes that land
// in shared memory per ns (fill) and the bytes the loads ask of L2 per ns
// (requested: a multicast box once). If the L2 serves a multicast box once,
// multicast's fill rate exceeds the control's where the control is held by
// the L2's rate; if the fill rate is the same, the limit is on the bytes
// delivered, not on those read.
// Every CUDA call is checked (one line and exit 2 on an error); times are
// medians of five timed launches after warm-ups (bench_common.cuh).
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/multicast_stream.cu -lcuda -o multicast_stream
// Run: multicast_stream   (CSV on stdout); hw/h200/run_multicast.sh builds,
// runs and compares it.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/sched/cluster_shape.h"

namespace {

constexpr const char* kProg = "multicast_stream";
#define CK(x) sk::bench::check_cuda((x), kProg, #x, __FILE__, __LINE__)

using sk::bench::clk;
using sk::bench::wait_phase;

struct Cfg {
  uint32_t tiles_m, tiles_n, kblocks, tile_n, stages, compute, cluster_m, cluster_n, multicast;
  __host__ __device__ sk::ClusterShape shape() const { return {cluster_m, cluster_n}; }
  // Whether the cluster's rows share A and its columns B (by multicast).
  __host__ __device__ bool share_a() const { return multicast && cluster_n > 1; }
  __host__ __device__ bool share_b() const { return multicast && cluster_m > 1; }
  // The rows of A's and B's boxes that each CTA loads.
  __host__ __device__ uint32_t a_rows() const { return share_a() ? 128 / cluster_n : 128; }
  __host__ __device__ uint32_t b_rows() const { return share_b() ? tile_n / cluster_m : tile_n; }
};

// Thread 0 loads, thread 32 consumes (two warps, both meet the cluster
// barriers). Launched with cluster dimension cluster_m * cluster_n.
__global__ void __launch_bounds__(64, 1)
    cluster_loads(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, Cfg c) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[8], empty[8];
  uint8_t* base = smem + ((1024 - (sk::arch::smem_addr(smem) & 1023)) & 1023);
  const sk::ClusterShape cs = c.shape();
  const bool clustered = cs.size() > 1;
  const uint32_t rank = clustered ? sk::arch::cluster_ctarank() : 0;
  const bool share_a = c.share_a(), share_b = c.share_b();
  // Each stage's producer hears from the consumers of every CTA its loads
  // land in: with multicast its row (A) and its column (B), itself once;
  // each consumer releases its stage to those producers.
  const uint32_t releasers = c.multicast ? cs.releasers() : 1;
  const uint16_t release_to = c.multicast ? cs.release_peers(rank) : static_cast<uint16_t>(1u << rank);
  const uint32_t stage_bytes = 128 * 128 + c.tile_n * 128;
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < c.stages; ++s) {
      sk::arch::mbarrier_init(&full[s], 1);
      sk::arch::mbarrier_init(&empty[s], releasers);
    }
    sk::arch::fence_mbarrier_init();
  }
  if (clustered) sk::arch::cluster_sync(); else __syncthreads();
  const uint32_t rm = cs.rank_m(rank), rn = cs.rank_n(rank);
  const uint32_t a_rows = c.a_rows(), b_rows = c.b_rows();
  const uint64_t blocks = sk::cluster_blocks(c.tiles_m, c.tiles_n, 1, cs);
  const uint32_t clusters = gridDim.x / cs.size(), cluster = blockIdx.x / cs.size();
  uint32_t it = 0;
  if (threadIdx.x == 0) {
    for (uint64_t t = cluster; t < blocks; t += clusters) {
      const sk::WorkInfo w = sk::cluster_tile_work(t, c.tiles_m, c.tiles_n, 1, 1, cs, rank);
      for (uint32_t kb = 0; kb < c.kblocks; ++kb, ++it) {
        const uint32_t s = it % c.stages;
        if (it >= c.stages) wait_phase(&empty[s], ((it / c.stages) - 1) & 1);
        sk::arch::mbarrier_arrive_expect_tx(&full[s], stage_bytes);
        uint8_t* dst = base + s * stage_bytes;
        const int32_t k0 = static_cast<int32_t>(kb * 64);
        const int32_t a_row = w.m_tile * 128 + static_cast<int32_t>(share_a ? rn * a_rows : 0);
        const int32_t b_row = w.n_tile * static_cast<int32_t>(c.tile_n) + static_cast<int32_t>(share_b ? rm * b_rows : 0);
        uint8_t* a_dst = dst + (share_a ? rn * a_rows * 128 : 0);
        uint8_t* b_dst = dst + 128 * 128 + (share_b ? rm * b_rows * 128 : 0);
        if (share_a) sk::arch::tma_load_2d_multicast(a_dst, &a, &full[s], k0, a_row, cs.a_peers(rank));
        else sk::arch::tma_load_2d(a_dst, &a, &full[s], k0, a_row);
        if (share_b) sk::arch::tma_load_2d_multicast(b_dst, &b, &full[s], k0, b_row, cs.b_peers(rank));
        else sk::arch::tma_load_2d(b_dst, &b, &full[s], k0, b_row);
      }
    }
  } else if (threadIdx.x == 32) {
    for (uint64_t t = cluster; t < blocks; t += clusters)
      for (uint32_t kb = 0; kb < c.kblocks; ++kb, ++it) {
        const uint32_t s = it % c.stages;
        wait_phase(&full[s], (it / c.stages) & 1);
        const uint64_t t0 = clk();
        while (clk() - t0 < c.compute) {
        }
        for (uint32_t r = 0; r < cs.size(); ++r)
          if (release_to & (1u << r)) {
            if (clustered) sk::arch::mbarrier_arrive_cluster(&empty[s], r);
            else sk::arch::mbarrier_arrive(&empty[s]);
          }
      }
  }
  // No CTA leaves while a peer may still load into it or arrive on it.
  if (clustered) sk::arch::cluster_sync();
}

void run() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("shape,tile_n,stages,compute,cluster,mode,ctas,us,mhz,kblock_cycles,fill_bytes_per_ns,"
              "requested_bytes_per_ns\n");
  struct Shape {
    uint32_t m, n, k;
  };
  const Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 8192}};
  struct Cl {
    uint32_t m, n, multicast;
  };
  const Cl clusters[] = {{1, 1, 0}, {2, 1, 1}, {1, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 2, 1}};
  for (const Shape& s : shapes) {
    // Enough copies that consecutive launches do not find the last one's
    // operands in L2 (as gemm_bench rotates its inputs).
    const uint64_t set = 2ull * s.k * (s.m + s.n);
    const int sets = std::max(1, std::min(8, static_cast<int>(3 * 64e6 / static_cast<double>(set) + 0.999)));
    std::vector<void*> bufs(sets);
    for (void*& p : bufs) {
      CK(cudaMalloc(&p, set));
      CK(cudaMemset(p, 0x3c, set));
    }
    struct TileCfg {
      uint32_t tile_n, stages;
    };
    for (const TileCfg tc : {TileCfg{128, 4}, TileCfg{128, 6}, TileCfg{256, 4}})
      for (const Cl& cl : clusters)
        for (uint32_t compute : {0u, tc.tile_n == 128 ? 520u : 1040u}) {
          const uint32_t size = cl.m * cl.n;
          Cfg c{s.m / 128, s.n / tc.tile_n, s.k / 64, tc.tile_n, tc.stages, compute, cl.m, cl.n, cl.multicast};
          std::vector<CUtensorMap> ma, mb;
          for (void* p : bufs) {
            ma.push_back(sk::bench::bf16_map(p, s.k, s.m, c.a_rows(), kProg));
            mb.push_back(sk::bench::bf16_map(static_cast<uint8_t*>(p) + 2ull * s.k * s.m, s.k, s.n, c.b_rows(), kProg));
          }
          const int smem = static_cast<int>(tc.stages * (128 + tc.tile_n) * 128 + 1024);
          CK(cudaFuncSetAttribute(cluster_loads, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          // As many whole clusters as fit at once: one CTA per SM.
          int fitting = 0;
          {
            sk::bench::ClusterLaunch probe(static_cast<uint32_t>(sms / size * size), 64, smem, size);
            CK(cudaOccupancyMaxActiveClusters(&fitting, cluster_loads, &probe.cfg));
          }
          const int fit = std::min(sms / static_cast<int>(size), fitting) * static_cast<int>(size);
          sk::bench::ClusterLaunch l(static_cast<uint32_t>(fit), 64, smem, size);
          double mhz = 0;
          const float ms = sk::bench::time_median(
              5,
              [&](int i) {
                const int at = i % sets;
                CK(cudaLaunchKernelEx(&l.cfg, cluster_loads, ma[at], mb[at], c));
              },
              [] { CK(cudaDeviceSynchronize()); }, mhz, kProg);
          const double us = ms * 1e3;
          const double tiles = static_cast<double>(c.tiles_m) * c.tiles_n;
          const double fill = tiles * c.kblocks * (128 + tc.tile_n) * 128;
          // Each CTA asks L2 for the rows it loads: a multicast box once for
          // the cluster_n (A) or cluster_m (B) CTAs it lands in.
          const double requested = tiles * c.kblocks * 128.0 * (c.a_rows() + c.b_rows());
          const uint64_t blocks = sk::cluster_blocks(c.tiles_m, c.tiles_n, 1, c.shape());
          const double per_cta = static_cast<double>((blocks + fit / size - 1) / (fit / size)) * c.kblocks;
          std::printf("%ux%ux%u,%u,%u,%u,%ux%u,%s,%d,%.1f,%.0f,%.0f,%.1f,%.1f\n", s.m, s.n, s.k, tc.tile_n,
                      tc.stages, compute, cl.m, cl.n, cl.multicast ? "multicast" : "own", fit, us, mhz,
                      us * mhz / per_cta, fill / (us * 1e3), requested / (us * 1e3));
          std::fflush(stdout);
        }
    for (void* p : bufs) CK(cudaFree(p));
  }
}

}  // namespace

int main() {
  run();
  return 0;
}
