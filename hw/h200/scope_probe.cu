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
  return 0;
}
