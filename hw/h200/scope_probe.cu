// scope_probe.cu: what a release at cluster scope and a DSMEM access cost on
// Hopper (the numbers behind cluster_release_latency and dsmem_load_latency
// in models/sm90/params.json). Plain nvcc, one GPU:
//   nvcc -std=c++20 -O3 -I. -arch=sm_90a hw/h200/scope_probe.cu -o scope_probe
// a. mbarrier ping-pong between thread 0 of the two CTAs of a cluster, 1000
//    round trips after 10 of warm-up, one way = round trip / 2, with the
//    remote arrive at CTA scope (sk::arch::mbarrier_arrive_cluster), with
//    .release.cluster (mbarrier_arrive_cluster_release), and at CTA scope
//    after fence.acq_rel.cluster (fence_acq_rel_cluster): the cost of the
//    memory barrier a release at cluster scope puts before the arrive;
// b. 1000 dependent loads through a table in the peer's shared memory
//    (mapa + ld.shared::cluster: ld_shared_cluster), through the CTA's own
//    (ld.shared), and 1000 dependent atom.shared::cluster.add on the peer:
//    cycles per access, issue to the value.
// c. a global store before an arrive (the matmul's stamps before its stage
//    release): thread 0 of rank 0, 1000 times after 10 of warm-up, stores
//    clock64 to global memory (or not), arrives on its own barrier (count 1)
//    through one of the matmul's forms: mbarrier.arrive on the CTA's address
//    (.release.cta), mbarrier.arrive.shared::cluster through mapa to its own
//    rank (the clustered pipeline's release, also .release.cta), or that with
//    .release.cluster; cycles from before the store until the arrive
//    instruction returns, and until the phase is seen complete.
// Output: CSV rows what,param,value,unit (cycles of clock64), three runs.
// Invariants: each launch is one cluster of 2 CTAs of 32 threads; every CTA
// initialises its barrier before the cluster barrier and none exits before
// the closing one (no access to an exited peer).
#include <cstdint>
#include <cstdio>

#include "kernels/arch/sm100/device/all.h"

namespace {

__device__ __forceinline__ uint64_t clk() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

constexpr int kIters = 1010, kWarmup = 10, kChain = 1000, kTable = 64;
enum Arrive { kCta = 0, kReleaseCluster = 1, kFenceThenCta = 2 };

// out[mode]: one-way cycles; for mode kCta also out[3..5]: the DSMEM load,
// the local load and the DSMEM atomic, cycles each.
template <int Mode>
__global__ void __cluster_dims__(2, 1, 1) probe(uint64_t* out) {
  __shared__ uint64_t bar;
  __shared__ uint32_t table[kTable];
  const uint32_t rank = sk::arch::cluster_ctarank();
  if (threadIdx.x == 0) {
    sk::arch::mbarrier_init(&bar, 1);
    sk::arch::fence_mbarrier_init();
    for (int i = 0; i < kTable; ++i) table[i] = static_cast<uint32_t>((i + 1) % kTable);
  }
  sk::arch::cluster_sync();
  if (threadIdx.x == 0) {
    auto arrive = [&] {
      if (Mode == kReleaseCluster) {
        sk::arch::mbarrier_arrive_cluster_release(&bar, rank ^ 1);
      } else {
        if (Mode == kFenceThenCta) sk::arch::fence_acq_rel_cluster();
        sk::arch::mbarrier_arrive_cluster(&bar, rank ^ 1);
      }
    };
    uint64_t total = 0;
    for (int i = 0; i < kIters; ++i) {
      const uint64_t t0 = clk();
      if (rank == 0) {
        arrive();
        while (!sk::arch::mbarrier_try_wait_parity(&bar, i & 1)) {
        }
      } else {
        while (!sk::arch::mbarrier_try_wait_parity(&bar, i & 1)) {
        }
        arrive();
      }
      if (i >= kWarmup) total += clk() - t0;
    }
    if (rank == 0) out[Mode] = total / (kIters - kWarmup) / 2;
    if (Mode == kCta && rank == 0) {
      uint32_t x = 1;
      uint64_t t0 = clk();
      for (int i = 0; i < kChain; ++i) x = sk::arch::ld_shared_cluster(&table[x], 1);
      out[3] = (clk() - t0) / kChain;
      t0 = clk();
      for (int i = 0; i < kChain; ++i) x = sk::arch::ld_shared(&table[x]);
      out[4] = (clk() - t0) / kChain;
      t0 = clk();
      for (int i = 0; i < kChain; ++i)
        x = sk::arch::atom_add_shared_cluster(&table[x % kTable], 1, 0) % kTable;
      out[5] = (clk() - t0) / kChain + (x == 12345);  // keeps x live
    }
  }
  sk::arch::cluster_sync();
}

// c. out[0] = cycles to the arrive's return, out[1] = to the phase seen
// complete, means over the iterations after the warm-up.
enum StoreArrive { kLocal = 0, kClusterPath = 1, kClusterRelease = 2 };
template <int Mode, bool Store>
__global__ void __cluster_dims__(2, 1, 1) store_arrive(uint64_t* out, uint64_t* sink) {
  __shared__ uint64_t bar;
  const uint32_t rank = sk::arch::cluster_ctarank();
  if (threadIdx.x == 0) {
    sk::arch::mbarrier_init(&bar, 1);
    sk::arch::fence_mbarrier_init();
  }
  sk::arch::cluster_sync();
  if (threadIdx.x == 0 && rank == 0) {
    uint64_t issued = 0, complete = 0;
    for (int i = 0; i < kIters; ++i) {
      const uint64_t t0 = clk();
      if (Store) sink[i] = t0;
      if (Mode == kLocal) sk::arch::mbarrier_arrive(&bar);
      if (Mode == kClusterPath) sk::arch::mbarrier_arrive_cluster(&bar, rank);
      if (Mode == kClusterRelease) sk::arch::mbarrier_arrive_cluster_release(&bar, rank);
      const uint64_t t1 = clk();
      while (!sk::arch::mbarrier_try_wait_parity(&bar, i & 1)) {
      }
      const uint64_t t2 = clk();
      if (i >= kWarmup) {
        issued += t1 - t0;
        complete += t2 - t0;
      }
    }
    out[0] = issued / (kIters - kWarmup);
    out[1] = complete / (kIters - kWarmup);
  }
  sk::arch::cluster_sync();
}

template <int Mode, bool Store>
bool store_arrive_row(uint64_t* out, uint64_t* sink, const char* name, int run) {
  store_arrive<Mode, Store><<<2, 32>>>(out, sink);
  uint64_t h[2] = {};
  const cudaError_t e = cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("error,run %d,%s,\n", run, cudaGetErrorString(e));
    return false;
  }
  std::printf("%s%s to arrive returned,run %d,%llu,cycles\n", Store ? "store+" : "", name, run,
              static_cast<unsigned long long>(h[0]));
  std::printf("%s%s to phase complete,run %d,%llu,cycles\n", Store ? "store+" : "", name, run,
              static_cast<unsigned long long>(h[1]));
  return true;
}

}  // namespace

int main() {
  uint64_t* out = nullptr;
  if (cudaMalloc(&out, 6 * sizeof(uint64_t)) != cudaSuccess) {
    std::printf("error,cudaMalloc,failed,\n");
    return 1;
  }
  std::printf("what,param,value,unit\n");
  for (int run = 0; run < 3; ++run) {
    probe<kCta><<<2, 32>>>(out);
    probe<kReleaseCluster><<<2, 32>>>(out);
    probe<kFenceThenCta><<<2, 32>>>(out);
    uint64_t h[6] = {};
    const cudaError_t e = cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      std::printf("error,run %d,%s,\n", run, cudaGetErrorString(e));
      return 1;
    }
    const char* names[6] = {"one_way cta_arrive",       "one_way release_cluster_arrive",
                            "one_way fence_acq_rel_cluster+cta_arrive",
                            "ld.shared::cluster",       "ld.shared",
                            "atom.shared::cluster.add"};
    for (int i = 0; i < 6; ++i)
      std::printf("%s,run %d,%llu,cycles\n", names[i], run, static_cast<unsigned long long>(h[i]));
  }
  uint64_t* sink = nullptr;
  if (cudaMalloc(&sink, kIters * sizeof(uint64_t)) != cudaSuccess) {
    std::printf("error,cudaMalloc,failed,\n");
    return 1;
  }
  for (int run = 0; run < 3; ++run) {
    const bool ok = store_arrive_row<kLocal, false>(out, sink, "local_arrive", run) &&
                    store_arrive_row<kLocal, true>(out, sink, "local_arrive", run) &&
                    store_arrive_row<kClusterPath, false>(out, sink, "cluster_path_arrive", run) &&
                    store_arrive_row<kClusterPath, true>(out, sink, "cluster_path_arrive", run) &&
                    store_arrive_row<kClusterRelease, false>(out, sink, "release_cluster_arrive", run) &&
                    store_arrive_row<kClusterRelease, true>(out, sink, "release_cluster_arrive", run);
    if (!ok) return 1;
  }
  return 0;
}
