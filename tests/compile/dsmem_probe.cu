// Compile-only probe of the cluster and DSMEM intrinsics
// (kernels/arch/sm100/device/cluster.h), shared by the SM90 and SM100 device
// layers: one kernel that reaches each of them, so that the PTX of either
// architecture can be checked for every instruction and ptxas validates the
// operands. Never launched; the control flow only has to keep every call live.
#include "kernels/arch/sm100/device/all.h"

namespace {

struct ProbeSmem {
  uint64_t full;
  uint64_t empty;
  uint32_t words[32];
  uint64_t wide[32];
  uint32_t counter;
};

}  // namespace

__global__ void __cluster_dims__(2, 1, 1) dsmem_probe(uint32_t* out) {
  using namespace sk::arch;
  __shared__ ProbeSmem smem;
  const uint32_t rank = cluster_ctarank();
  const uint32_t peer = rank ^ 1;
  const uint32_t lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbarrier_init(&smem.full, 1);
    mbarrier_init(&smem.empty, 1);
    smem.counter = 0;
    fence_mbarrier_init();
  }
  cluster_sync();
  // Push into the peer and signal at cluster scope, both ways.
  st_shared_cluster(&smem.words[lane], peer, lane + rank);
  st_shared_cluster(&smem.wide[lane], peer, static_cast<uint64_t>(lane) << 33);
  if (threadIdx.x == 0) {
    mbarrier_arrive_cluster_release(&smem.full, peer);
    fence_acq_rel_cluster();
    mbarrier_arrive_cluster(&smem.empty, peer);
  }
  while (!mbarrier_try_wait_parity_cluster(&smem.full, 0)) {
  }
  while (!mbarrier_try_wait_parity(&smem.empty, 0)) {
  }
  const uint32_t mine = smem.words[lane];
  const uint32_t theirs = ld_shared_cluster(&smem.words[lane], peer);
  const uint64_t wide = ld_shared_cluster(&smem.wide[lane], peer);
  const uint32_t ticket = atom_add_shared_cluster(&smem.counter, 0, 1);
  red_add_shared_cluster(&smem.counter, 0, 2);
  cluster_sync();
  out[blockIdx.x * 32 + lane] = mine + theirs + static_cast<uint32_t>(wide >> 33) + ticket +
                                smem.counter;
}
