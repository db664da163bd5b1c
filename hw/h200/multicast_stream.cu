// multicast_stream.cu: what a cluster and its TMA multicast do to the load
// path of a clustered matmul, measured apart from the tensor cores
// (docs/hardware.md, "Multicast's share of the L2" and "What a cluster costs
// the load path, measured apart").
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
//     whole A and B boxes itself (no multicast): the control. Its consumer
//     still releases through the cluster (mbarrier.arrive.shared::cluster
//     on its own CTA's barrier), as a clustered kernel's does.
//   own_local: own, releasing with a local arrive (what a cluster launch
//     costs without the remote release);
//   own_order1x1: own_local with the tiles handed out as without a cluster
//     (what the cluster's placement costs without its tile order);
//   own_remote (1x1 only): no cluster, releasing through the cluster path
//     to itself (what the remote release costs alone);
//   own_smid: no cluster, the tiles handed out as the cluster shape's order
//     would with the SM id for the CTA's place (%smid / size the cluster,
//     %smid % size the rank): SMs 2i and 2i+1 take the tiles that a cluster
//     of two places on them (what a cluster's tiles on neighbouring SMs cost
//     without a cluster launch);
//   own_smid_far: as own_smid with SMs i and i + 66 (of 132) taking a
//     cluster block's tiles: the same order on SMs far apart.
// A last launch of each configuration counts the k-blocks its consumers
// took; one short of the tiles' (an SM id past the grid) exits 2.
// A consumer thread waits for each stage, holds it `compute` cycles (0: the
// loads alone; the tensor core's k-block time: a matmul whose wgmma costs
// exactly that; or that time spread by a quarter, column jitter), spinning
// on clock64 or sleeping in short __nanosleep steps (column hold: spin,
// sleep), and releases it.
// Output (CSV): time, SM clock, SM cycles per k-block, the bytes that land
// in shared memory per ns (fill) and the bytes the loads ask of L2 per ns
// (requested: a multicast box once). If the L2 serves a multicast box once,
// multicast's fill rate exceeds the control's where the control is held by
// the L2's rate; if the fill rate is the same, the limit is on the bytes
// delivered, not on those read.
// Every CUDA call is checked (one line and exit 2 on an error); times are
// medians of five timed launches after warm-ups (bench_common.cuh).
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/multicast_stream.cu -lcuda -o multicast_stream
// Run: multicast_stream   (CSV on stdout); multicast_stream stamps: 4096^3,
// 128 x 128, 4 stages, 1x1 and clusters of two, the medians of each stamped
// CTA's k-block, issue-to-full, producer wait, release-to-issue and consumer
// wait (SM cycles); multicast_stream only 4096x4096x4096,128,4,520,0,spin,2x1,own_local
// runs that one configuration (its CSV row's first columns), e.g. under
// Nsight Compute; multicast_stream holds: without a cluster, 128 x 128 tiles
// with 4 and 6 stages, spun holds of 0-520 cycles, on 4096^3 and on
// 1024x2048x4096 warm (every stage from L2), timed and stamped
// (docs/hardware.md, "The consumer's loop without memory");
// hw/h200/run_multicast.sh builds, runs and compares it.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
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
  // Each hold is compute + u, u uniform over [-jitter, jitter] from a hash
  // of the CTA and the k-block: the spread of a tensor core's k-block.
  uint32_t jitter;
  // 1: the consumer sleeps through its hold (__nanosleep in short steps, as
  // a warp waiting on its wgmma sleeps) instead of spinning on clock64.
  uint32_t sleep;
  // Controls (multicast 0 only): 0 as a clustered kernel releases, 1 local
  // release, 2 local release and the 1x1 tile order, 3 remote release
  // without a cluster, 4 no cluster and the cluster's order by SM id, 5 the
  // same with a block's tiles on SMs half the grid apart.
  uint32_t control;
  unsigned long long* taken;  // k-blocks consumed (the check launch)
  // Per k-block stamps of the first kStampCtas CTAs' first kStampBlocks
  // k-blocks (the stamped launch): producer before and after its wait for
  // the empty stage, consumer on seeing the stage full and on releasing it.
  unsigned long long* stamps;
  __host__ __device__ sk::ClusterShape shape() const { return {cluster_m, cluster_n}; }
  // The cluster the CTAs are launched in.
  __host__ __device__ sk::ClusterShape launched() const {
    return control >= 4 ? sk::ClusterShape{1, 1} : shape();
  }
  // The cluster shape that hands out the tiles.
  __host__ __device__ sk::ClusterShape order() const {
    return control == 2 ? sk::ClusterShape{1, 1} : shape();
  }
  __host__ __device__ bool remote_release() const {
    return control == 3 || (control == 0 && shape().size() > 1);
  }
  // Whether the cluster's rows share A and its columns B (by multicast).
  __host__ __device__ bool share_a() const { return multicast && cluster_n > 1; }
  __host__ __device__ bool share_b() const { return multicast && cluster_m > 1; }
  // The rows of A's and B's boxes that each CTA loads.
  __host__ __device__ uint32_t a_rows() const { return share_a() ? 128 / cluster_n : 128; }
  __host__ __device__ uint32_t b_rows() const { return share_b() ? tile_n / cluster_m : tile_n; }
};

constexpr uint32_t kStampCtas = 4, kStampBlocks = 512;

__device__ __forceinline__ void stamp(const Cfg& c, uint32_t it, uint32_t which) {
  if (c.stamps != nullptr && blockIdx.x < kStampCtas && it < kStampBlocks)
    c.stamps[(blockIdx.x * kStampBlocks + it) * 4 + which] = clk();
}

// Thread 0 loads, thread 32 consumes (two warps, both meet the cluster
// barriers). Launched with cluster dimension cluster_m * cluster_n.
__global__ void __launch_bounds__(64, 1)
    cluster_loads(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, Cfg c) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[8], empty[8];
  uint8_t* base = sk::bench::smem_align_1024(smem);
  const sk::ClusterShape cs = c.launched();
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
  const sk::ClusterShape os = c.order();
  uint32_t place = blockIdx.x, orank = os.size() > 1 ? rank : 0;
  if (c.control >= 4) {
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    const uint32_t half = gridDim.x / os.size();
    place = c.control == 5 ? (smid % half) * os.size() + smid / half : smid;
    orank = place % os.size();
  }
  const bool remote = c.remote_release();
  const uint64_t blocks = sk::cluster_blocks(c.tiles_m, c.tiles_n, 1, os);
  const uint32_t clusters = gridDim.x / os.size(), cluster = place / os.size();
  uint32_t it = 0;
  if (threadIdx.x == 0) {
    for (uint64_t t = cluster; t < blocks; t += clusters) {
      const sk::WorkInfo w = sk::cluster_tile_work(t, c.tiles_m, c.tiles_n, 1, 1, os, orank);
      for (uint32_t kb = 0; kb < c.kblocks; ++kb, ++it) {
        const uint32_t s = it % c.stages;
        stamp(c, it, 0);
        if (it >= c.stages) wait_phase(&empty[s], ((it / c.stages) - 1) & 1);
        stamp(c, it, 1);
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
        stamp(c, it, 2);
        uint64_t hold = c.compute;
        if (c.jitter != 0) {
          const uint64_t h = (static_cast<uint64_t>(blockIdx.x) * 0x9E3779B97F4A7C15ull) ^ (it * 0xD1B54A32D192ED03ull);
          hold = hold - c.jitter + ((h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull >> 40) % (2 * c.jitter + 1);
        }
        const uint64_t t0 = clk();
        while (clk() - t0 < hold)
          if (c.sleep != 0) __nanosleep(20);
        stamp(c, it, 3);
        for (uint32_t r = 0; r < cs.size(); ++r)
          if (release_to & (1u << r)) {
            if (remote) sk::arch::mbarrier_arrive_cluster(&empty[s], r);
            else sk::arch::mbarrier_arrive(&empty[s]);
          }
      }
    if (c.taken != nullptr) atomicAdd(c.taken, static_cast<unsigned long long>(it));
  }
  // No CTA leaves while a peer may still load into it or arrive on it.
  if (clustered) sk::arch::cluster_sync();
}

// The consumer's holds per 128 columns of tile N: none (the loads alone),
// the tensor core's k-block time, and that time spread by a quarter.
// Each with the hold spun on clock64 (0) or slept through (1).
constexpr uint32_t kHolds[4][3] = {{0, 0, 0}, {520, 0, 0}, {520, 130, 0}, {520, 0, 1}};

// Medians over the stamped CTAs' k-blocks past the first laps, SM cycles.
void print_stamps(const std::vector<unsigned long long>& st, uint32_t stages, const char* head) {
  for (uint32_t cta = 0; cta < kStampCtas; ++cta) {
    auto at = [&](uint32_t it, uint32_t w) { return static_cast<double>(st[(cta * kStampBlocks + it) * 4 + w]); };
    std::vector<double> kb, tma, wait, trip, idle;
    for (uint32_t it = 32; it < kStampBlocks; ++it) {
      if (at(it, 2) == 0 || at(it - 1, 2) == 0) continue;  // past the CTA's last tile
      kb.push_back(at(it, 2) - at(it - 1, 2));
      tma.push_back(at(it, 2) - at(it, 1));
      wait.push_back(at(it, 1) - at(it, 0));
      trip.push_back(at(it, 1) - at(it - stages, 3));
      idle.push_back(at(it, 2) - at(it - 1, 3));
    }
    auto med = [](std::vector<double> v) { return v.empty() ? 0.0 : sk::bench::median(std::move(v)); };
    std::printf("%s,%u,%.0f,%.0f,%.0f,%.0f,%.0f\n", head, cta, med(kb), med(tma), med(wait), med(trip), med(idle));
  }
}

struct Shape {
  uint32_t m, n, k;
};
struct Cl {
  uint32_t m, n, multicast, control;
};
struct TileCfg {
  uint32_t tile_n, stages;
};
// What one run measures: every shape x tile x cluster x hold. warm: one copy
// of the operands, so that a launch finds them in L2 where they fit (else
// enough copies that it does not).
struct Plan {
  std::vector<Shape> shapes;
  std::vector<TileCfg> tiles;
  std::vector<Cl> clusters;
  std::vector<std::array<uint32_t, 3>> holds;
  bool warm = false;
};

// The default run: the three matmul shapes, every cluster mode and control,
// the holds of kHolds; stamped, only 4096^3 128 x 128 with 4 stages, the
// unspread holds and the launch and release controls of clusters of two.
Plan default_plan(bool stamped) {
  Plan p;
  p.shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 8192}};
  p.tiles = {{128, 4}, {128, 6}, {256, 4}};
  p.clusters = {{1, 1, 0, 0}, {2, 1, 1, 0}, {1, 2, 1, 0}, {2, 1, 0, 0}, {1, 2, 0, 0}, {2, 2, 1, 0},
                {2, 1, 0, 1}, {1, 2, 0, 1}, {2, 1, 0, 2}, {1, 2, 0, 2}, {1, 1, 0, 3},
                {2, 1, 0, 4}, {1, 2, 0, 4}, {2, 1, 0, 5}, {1, 2, 0, 5}};
  for (const auto& h : kHolds) p.holds.push_back({h[0], h[1], h[2]});
  if (stamped) {
    p.shapes.resize(1);
    p.tiles.resize(1);
    std::erase_if(p.clusters, [](const Cl& c) { return c.control > 1 || c.m * c.n > 2; });
    std::erase_if(p.holds, [](const std::array<uint32_t, 3>& h) { return h[1] != 0; });
  }
  return p;
}

// `holds`: how a held stage's loads answer a longer hold, without a cluster:
// 128 x 128 tiles with 4 and 6 stages, spun holds of 0 to 520 cycles, on
// 4096^3 (operands rotated, much of each stage from HBM) and on
// 1024x2048x4096 warm (24 MiB of operands, one wave of 128 CTAs, every stage
// from L2 once the launches before have run).
Plan hold_plan(const Shape& shape, bool warm) {
  Plan p;
  p.shapes = {shape};
  p.tiles = {{128, 4}, {128, 6}};
  p.clusters = {{1, 1, 0, 0}};
  for (uint32_t h : {0u, 130u, 260u, 390u, 520u}) p.holds.push_back({h, 0, 0});
  p.warm = warm;
  return p;
}

void run(const Plan& plan, bool stamped, const char* only) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (stamped)
    std::printf("shape,tile_n,stages,compute,jitter,hold,cluster,mode,cta,kblock,issue_to_full,producer_wait,"
                "release_to_issue,consumer_wait\n");
  else
    std::printf("shape,tile_n,stages,compute,jitter,hold,cluster,mode,ctas,us,mhz,kblock_cycles,fill_bytes_per_ns,"
                "requested_bytes_per_ns\n");
  unsigned long long* stamps = nullptr;
  CK(cudaMalloc(&stamps, sizeof(*stamps) * kStampCtas * kStampBlocks * 4));
  const char* const modes[] = {"own", "own_local", "own_order1x1", "own_remote", "own_smid", "own_smid_far"};
  unsigned long long* taken = nullptr;
  CK(cudaMalloc(&taken, sizeof(*taken)));
  for (const Shape& s : plan.shapes) {
    // Enough copies that consecutive launches do not find the last one's
    // operands in L2 (as gemm_bench rotates its inputs), unless warm.
    const uint64_t set = 2ull * s.k * (s.m + s.n);
    const int sets =
        plan.warm ? 1 : std::max(1, std::min(8, static_cast<int>(3 * 64e6 / static_cast<double>(set) + 0.999)));
    std::vector<void*> bufs(sets);
    for (void*& p : bufs) {
      CK(cudaMalloc(&p, set));
      CK(cudaMemset(p, 0x3c, set));
    }
    for (const TileCfg tc : plan.tiles)
      for (const Cl& cl : plan.clusters)
        for (const std::array<uint32_t, 3>& cj : plan.holds) {
          const uint32_t compute = cj[0] * (tc.tile_n / 128), jitter = cj[1] * (tc.tile_n / 128);
          const char* hold = cj[2] != 0 ? "sleep" : "spin";
          const char* mode = cl.multicast ? "multicast" : modes[cl.control];
          // The configuration as its CSV row's first columns name it.
          char name[160];
          std::snprintf(name, sizeof(name), "%ux%ux%u,%u,%u,%u,%u,%s,%ux%u,%s", s.m, s.n, s.k, tc.tile_n,
                        tc.stages, compute, jitter, hold, cl.m, cl.n, mode);
          if (only != nullptr && std::string_view(name) != only) continue;
          const uint32_t size = cl.control >= 4 ? 1 : cl.m * cl.n;
          Cfg c{s.m / 128, s.n / tc.tile_n, s.k / 64, tc.tile_n, tc.stages, compute, cl.m, cl.n, cl.multicast, jitter, cj[2], cl.control, nullptr, nullptr};
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
          // The check launch: every k-block of every tile consumed once.
          CK(cudaMemset(taken, 0, sizeof(*taken)));
          Cfg counted = c;
          counted.taken = taken;
          CK(cudaLaunchKernelEx(&l.cfg, cluster_loads, ma[0], mb[0], counted));
          CK(cudaDeviceSynchronize());
          unsigned long long got = 0;
          CK(cudaMemcpy(&got, taken, sizeof(got), cudaMemcpyDeviceToHost));
          const unsigned long long want = static_cast<unsigned long long>(c.tiles_m) * c.tiles_n * c.kblocks;
          if (got != want) {
            std::fprintf(stderr, "%s: %s: %llu k-blocks consumed, want %llu\n", kProg, name, got, want);
            std::exit(2);
          }
          if (stamped) {
            std::vector<unsigned long long> st(kStampCtas * kStampBlocks * 4, 0);
            CK(cudaMemset(stamps, 0, sizeof(*stamps) * st.size()));
            Cfg stamping = c;
            stamping.stamps = stamps;
            CK(cudaLaunchKernelEx(&l.cfg, cluster_loads, ma[0], mb[0], stamping));
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(st.data(), stamps, sizeof(*stamps) * st.size(), cudaMemcpyDeviceToHost));
            print_stamps(st, tc.stages, name);
            continue;
          }
          const double us = ms * 1e3;
          const double tiles = static_cast<double>(c.tiles_m) * c.tiles_n;
          const double fill = tiles * c.kblocks * (128 + tc.tile_n) * 128;
          // Each CTA asks L2 for the rows it loads: a multicast box once for
          // the cluster_n (A) or cluster_m (B) CTAs it lands in.
          const double requested = tiles * c.kblocks * 128.0 * (c.a_rows() + c.b_rows());
          const uint32_t osize = c.order().size();
          const uint64_t blocks = sk::cluster_blocks(c.tiles_m, c.tiles_n, 1, c.order());
          const double per_cta = static_cast<double>((blocks + fit / osize - 1) / (fit / osize)) * c.kblocks;
          std::printf("%s,%d,%.1f,%.0f,%.0f,%.1f,%.1f\n", name, fit, us, mhz,
                      us * mhz / per_cta, fill / (us * 1e3), requested / (us * 1e3));
          std::fflush(stdout);
        }
    for (void* p : bufs) CK(cudaFree(p));
  }
  CK(cudaFree(taken));
  CK(cudaFree(stamps));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc >= 2 ? argv[1] : "";
  const bool stamped = argc == 2 && mode == "stamps";
  const bool one = argc == 3 && mode == "only";
  const bool holds = argc == 2 && mode == "holds";
  if (argc > 1 && !stamped && !one && !holds) {
    std::fprintf(stderr, "%s: usage: multicast_stream [stamps | holds | only SHAPE,TILE_N,STAGES,HOLD,SPREAD,spin|sleep,CLUSTER,MODE]\n",
                 kProg);
    return 2;
  }
  if (holds) {
    // Timed rows, then the stamped ones, for each of the two shapes.
    for (const auto& [shape, warm] : {std::pair{Shape{4096, 4096, 4096}, false}, std::pair{Shape{1024, 2048, 4096}, true}})
      for (bool st : {false, true}) run(hold_plan(shape, warm), st, nullptr);
    return 0;
  }
  run(default_plan(stamped), stamped, one ? argv[2] : nullptr);
  return 0;
}
