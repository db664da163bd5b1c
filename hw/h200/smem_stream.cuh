// smem_stream.cuh: one warp streaming bulk copies (cp.async.bulk) of an
// L2-resident buffer into its CTA's shared memory, for the microbenchmarks
// that time something beside the loads' writes into shared memory
// (epilogue_beside.cuh; wgmma_group.cu section wgmma_loads).
//
// Invariants: every copy issued has landed when stream_into_smem returns
// (the CTA may exit); the source offsets stay inside kSrcBytes.
#pragma once

#include <cstdint>

#include "kernels/arch/sm90.h"

namespace sk::bench::smem_stream {

constexpr uint32_t kChunkBytes = 16384;        // one bulk copy
constexpr uint32_t kRing = 4;                  // chunks in the shared-memory ring
constexpr uint32_t kSrcBytes = 16u << 20;      // L2-resident source

__device__ __forceinline__ void bulk_copy(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

// One warp keeps two 16 KiB bulk copies of the L2-resident `src` in flight
// through a ring of kRing chunks at `ring` (full barriers `bars`, initialised
// with count 1) until `running` reaches 0, then drains; returns the bytes
// that landed before it stopped (lane 0 issues; every lane waits).
__device__ __forceinline__ uint64_t stream_into_smem(uint8_t* ring, uint64_t* bars, volatile uint32_t* running,
                                                     const uint8_t* src) {
  uint64_t loaded = 0;
  uint32_t issued = 0, done = 0;
  const uint32_t lane = threadIdx.x % 32;
  auto wait = [&] {
    const uint32_t slot = done % kRing;
    while (!sk::arch::mbarrier_try_wait_parity(&bars[slot], (done / kRing) & 1)) {
    }
    ++done;
  };
  while (*running != 0) {
    while (issued - done < 2) {
      const uint32_t slot = issued % kRing;
      if (lane == 0) {
        sk::arch::mbarrier_arrive_expect_tx(&bars[slot], kChunkBytes);
        const uint64_t off =
            (uint64_t{blockIdx.x} * 7919u * kChunkBytes + uint64_t{issued} * kChunkBytes) % kSrcBytes;
        bulk_copy(sk::arch::smem_addr(ring + slot * kChunkBytes), src + off, kChunkBytes,
                  sk::arch::smem_addr(&bars[slot]));
      }
      __syncwarp();
      ++issued;
    }
    wait();
    loaded += kChunkBytes;
  }
  while (done < issued) wait();  // every copy lands before the CTA exits
  return loaded;
}

}  // namespace sk::bench::smem_stream
