// gpc_probe.cu: the GPU's GPC layout and the bandwidth of a GPC's path to L2.
//
// 1. Which SMs share a GPC. A thread block cluster runs on one GPC, so every
//    cluster of a launch names SMs of one GPC; launches of many clusters of 16,
//    8 and 4 CTAs (one CTA per SM, each held a varying time so that clusters
//    land on changing SM sets) join SMs into groups (union-find). The groups
//    are the GPCs; each line of the "gpc" output lists one.
// 2. How fast SMs store to and load from L2, alone and sharing their GPC.
//    One CTA per SM (256 threads, like the matmul's two consumer warpgroups)
//    stores 64 KiB (st.global.v4, coalesced, then a fence) or loads 1 MiB of
//    an L2-resident buffer (ld.global.cg.v4, 8 in flight per thread); "fragment"
//    stores the 64 KiB in the matmul epilogue's layout (below); the CTAs of the selected SMs
//    start together (a grid barrier) and each reports its SM cycles. Runs:
//    every SM; the SMs of one GPC alone, for each GPC; one SM alone; one SM of
//    every TPC (tpc_one); both SMs of the first half of each GPC's TPCs
//    (tpc_pairs: as many SMs per GPC as tpc_one, two per TPC).
//    Output rows: kind,run,smid,gpc,gpc_active,bytes,cycles,ns.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a hw/h200/gpc_probe.cu -o gpc_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

namespace {

constexpr int kHoldSmem = 200 * 1024;  // one CTA per SM

__device__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void cluster_probe(uint32_t* out, uint32_t salt) {
  extern __shared__ uint8_t hold[];
  if (threadIdx.x == 0) {
    out[blockIdx.x] = smid();
    hold[0] = 1;
    // Hold the SM 2-12 us, differently per cluster and launch.
    uint32_t cluster;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster));
    const uint64_t wait = 2000 + ((cluster * 2654435761u) ^ (salt * 40503u)) % 10000;
    const uint64_t t0 = globaltimer();
    while (globaltimer() - t0 < wait) {
    }
  }
}

struct Sample {
  uint32_t sm;
  uint32_t active;
  uint64_t cycles;
  uint64_t ns;
};

// Grid barrier among the CTAs whose SM is selected; the others leave at once.
__device__ bool start_together(const uint8_t* active, uint32_t n_active, uint32_t* arrived) {
  const uint32_t sm = smid();
  if (!active[sm]) return false;
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < n_active) {
    }
  }
  __syncthreads();
  return true;
}

// After the CTA's barrier: its first thread records the SM's cycles and ns
// since (c0, t0); the write to `hold` keeps the CTA's shared memory.
__device__ void report(Sample* out, uint64_t c0, uint64_t t0, uint8_t* hold) {
  if (threadIdx.x == 0) {
    hold[0] = 0;
    out[blockIdx.x] = Sample{smid(), 1, clock64() - c0, globaltimer() - t0};
  }
}

__global__ void store_probe(uint4* dst, uint32_t bytes, const uint8_t* active, uint32_t n_active,
                            uint32_t* arrived, Sample* out) {
  extern __shared__ uint8_t hold[];
  if (!start_together(active, n_active, arrived)) return;
  const uint64_t c0 = clock64(), t0 = globaltimer();
  uint4* base = dst + size_t{smid()} * (bytes / 16);
  const uint4 v{threadIdx.x, blockIdx.x, 1u, 2u};
  for (uint32_t i = threadIdx.x; i < bytes / 16; i += blockDim.x) base[i] = v;
  __threadfence();
  __syncthreads();
  report(out, c0, t0, hold);
}

// The matmul epilogue's pattern (kernels/matmul/sm90_matmul.h, store()): a
// 128 x 256 BF16 tile per CTA in the wgmma accumulator layout, 4 bytes per lane
// and instruction, 8 rows x 16 bytes per warp instruction, row stride 2048.
__global__ void fragment_store_probe(uint32_t* d, uint32_t bytes, const uint8_t* active,
                                     uint32_t n_active, uint32_t* arrived, Sample* out) {
  extern __shared__ uint8_t hold[];
  if (!start_together(active, n_active, arrived)) return;
  const uint64_t c0 = clock64(), t0 = globaltimer();
  constexpr uint32_t kLdd = 2048, kBn = 256;
  const uint32_t tile = smid(), warp = threadIdx.x / 32, l = threadIdx.x % 32;
  const uint32_t row0 = tile / (kLdd / kBn) * 128 + 64 * (warp / 4) + 16 * (warp % 4);
  const uint32_t col0 = tile % (kLdd / kBn) * kBn;
  const uint32_t reps = bytes / (128 * kBn * 2);
  for (uint32_t r = 0; r < reps; ++r)
#pragma unroll
    for (int j = 0; j < kBn / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t row = row0 + l / 4 + 8 * h, col = col0 + 8 * j + 2 * (l % 4);
        d[(size_t{row} * kLdd + col) / 2] = threadIdx.x ^ j ^ r;
      }
  __threadfence();
  __syncthreads();
  report(out, c0, t0, hold);
}

__global__ void load_probe(const uint4* src, uint32_t bytes, uint32_t buffer_vecs, const uint8_t* active,
                           uint32_t n_active, uint32_t* arrived, Sample* out, uint32_t* sink) {
  extern __shared__ uint8_t hold[];
  if (!start_together(active, n_active, arrived)) return;
  const uint64_t c0 = clock64(), t0 = globaltimer();
  const uint32_t first = (smid() * 8192u) % buffer_vecs;
  uint32_t acc = 0;
  constexpr uint32_t kUnroll = 8;  // independent loads in flight per thread
  for (uint32_t i = threadIdx.x; i < bytes / 16; i += kUnroll * blockDim.x) {
    uint4 v[kUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
      const uint4* p = src + (first + i + u * blockDim.x) % buffer_vecs;
      asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                   : "l"(p));
    }
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) acc ^= v[u].x + v[u].y + v[u].z + v[u].w;
  }
  __syncthreads();
  if (acc == 0x12345678u) sink[0] = acc;  // keeps the loads
  report(out, c0, t0, hold);
}

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void join(int a, int b) { p[find(a)] = find(b); }
};

}  // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // 1. GPCs from clusters.
  CHECK(cudaFuncSetAttribute(cluster_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kHoldSmem));
  CHECK(cudaFuncSetAttribute(cluster_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  UnionFind uf(sms);
  std::vector<int> seen(sms, 0);
  const int grid = 16 * 64;
  uint32_t* d_out;
  CHECK(cudaMalloc(&d_out, grid * sizeof(uint32_t)));
  std::vector<uint32_t> h(grid);
  uint32_t salt = 1;
  for (int size : {16, 8, 4}) {
    for (int rep = 0; rep < 40; ++rep, ++salt) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(grid);
      cfg.blockDim = dim3(32);
      cfg.dynamicSmemBytes = kHoldSmem;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = size;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      if (cudaLaunchKernelEx(&cfg, cluster_probe, d_out, salt) != cudaSuccess) {
        std::printf("# cluster size %d: launch refused\n", size);
        cudaGetLastError();
        break;
      }
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(h.data(), d_out, grid * sizeof(uint32_t), cudaMemcpyDeviceToHost));
      for (int c = 0; c < grid / size; ++c)
        for (int i = 0; i < size; ++i) {
          seen[h[c * size + i]] = 1;
          uf.join(static_cast<int>(h[c * size]), static_cast<int>(h[c * size + i]));
        }
    }
  }
  std::map<int, std::vector<int>> groups;
  for (int s = 0; s < sms; ++s)
    if (seen[s]) groups[uf.find(s)].push_back(s);
  std::vector<int> gpc_of(sms, -1);
  std::vector<std::vector<int>> gpcs;
  for (auto& [root, members] : groups) {
    for (int s : members) gpc_of[s] = static_cast<int>(gpcs.size());
    gpcs.push_back(members);
  }
  std::printf("# %zu GPCs over %d SMs (%d never in a cluster)\n", gpcs.size(), sms,
              static_cast<int>(std::count(seen.begin(), seen.end(), 0)));
  for (size_t g = 0; g < gpcs.size(); ++g) {
    std::printf("gpc,%zu,%zu,", g, gpcs[g].size());
    for (size_t i = 0; i < gpcs[g].size(); ++i) std::printf("%s%d", i ? " " : "", gpcs[g][i]);
    std::printf("\n");
  }

  // 2. Store and load bandwidth per SM, by how many SMs of its GPC run.
  auto* store = store_probe;
  auto* load = load_probe;
  auto* fragment = fragment_store_probe;
  CHECK(cudaFuncSetAttribute(fragment, cudaFuncAttributeMaxDynamicSharedMemorySize, kHoldSmem));
  CHECK(cudaFuncSetAttribute(store, cudaFuncAttributeMaxDynamicSharedMemorySize, kHoldSmem));
  CHECK(cudaFuncSetAttribute(load, cudaFuncAttributeMaxDynamicSharedMemorySize, kHoldSmem));
  const uint32_t store_bytes = 64 * 1024, load_bytes = 1024 * 1024;
  const uint32_t buffer_bytes = 32u << 20;
  uint4 *dst, *src;
  CHECK(cudaMalloc(&dst, size_t{store_bytes} * 2 * ((sms + 7) / 8 * 8)));
  CHECK(cudaMalloc(&src, buffer_bytes));
  CHECK(cudaMemset(src, 1, buffer_bytes));
  uint8_t* d_active;
  uint32_t *d_arrived, *d_sink;
  Sample* d_samples;
  CHECK(cudaMalloc(&d_active, sms));
  CHECK(cudaMalloc(&d_arrived, 4));
  CHECK(cudaMalloc(&d_sink, 4));
  CHECK(cudaMalloc(&d_samples, sms * sizeof(Sample)));
  std::vector<Sample> samples(sms);
  std::printf("kind,run,smid,gpc,gpc_active,bytes,cycles,ns\n");
  auto run = [&](const char* kind, const std::string& name, const std::vector<uint8_t>& active) {
    const uint32_t n = static_cast<uint32_t>(std::count(active.begin(), active.end(), 1));
    std::vector<int> per_gpc(gpcs.size(), 0);
    for (int s = 0; s < sms; ++s)
      if (active[s] && gpc_of[s] >= 0) ++per_gpc[gpc_of[s]];
    for (int rep = 0; rep < 3; ++rep) {
      CHECK(cudaMemcpy(d_active, active.data(), sms, cudaMemcpyHostToDevice));
      CHECK(cudaMemset(d_arrived, 0, 4));
      CHECK(cudaMemset(d_samples, 0, sms * sizeof(Sample)));
      if (kind[0] == 'f')
        fragment<<<sms, 256, kHoldSmem>>>(reinterpret_cast<uint32_t*>(dst), store_bytes, d_active, n,
                                          d_arrived, d_samples);
      else if (kind[0] == 's')
        store<<<sms, 256, kHoldSmem>>>(dst, store_bytes, d_active, n, d_arrived, d_samples);
      else
        load<<<sms, 256, kHoldSmem>>>(src, load_bytes, buffer_bytes / 16, d_active, n, d_arrived,
                                     d_samples, d_sink);
      CHECK(cudaDeviceSynchronize());
      if (rep == 0) continue;  // warm-up
      CHECK(cudaMemcpy(samples.data(), d_samples, sms * sizeof(Sample), cudaMemcpyDeviceToHost));
      for (const Sample& x : samples)
        if (x.active)
          std::printf("%s,%s,%u,%d,%d,%u,%llu,%llu\n", kind, name.c_str(), x.sm, gpc_of[x.sm],
                      gpc_of[x.sm] >= 0 ? per_gpc[gpc_of[x.sm]] : 0,
                      kind[0] == 'l' ? load_bytes : store_bytes, (unsigned long long)x.cycles,
                      (unsigned long long)x.ns);
    }
  };
  for (const char* kind : {"store", "fragment", "load"}) {
    run(kind, "all", std::vector<uint8_t>(sms, 1));
    for (size_t g = 0; g < gpcs.size(); ++g) {
      std::vector<uint8_t> a(sms, 0);
      for (int s : gpcs[g]) a[s] = 1;
      run(kind, "gpc" + std::to_string(g), a);
    }
    std::vector<uint8_t> one(sms, 0);
    one[gpcs[0][0]] = 1;
    run(kind, "one", one);
    // A TPC's path or the GPC's: one SM of every TPC (SMs 2t and 2t + 1
    // share a TPC) across the GPU, against both SMs of the first half of each
    // GPC's TPCs, as many SMs per GPC.
    std::vector<uint8_t> tpc_one(sms, 0), tpc_pairs(sms, 0);
    for (int s = 0; s < sms; s += 2) tpc_one[s] = 1;
    for (const auto& g : gpcs)
      for (size_t i = 0; i < g.size() / 2; ++i) tpc_pairs[g[i]] = 1;
    run(kind, "tpc_one", tpc_one);
    run(kind, "tpc_pairs", tpc_pairs);
  }
  return 0;
}
