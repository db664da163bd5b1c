// tma.h (SM100 device build): tensor-map (TMA) bulk copies and their fences.
//
// Invariants: a TensorMap lives in global, constant or kernel-parameter memory
// (never shared) and is 64-byte aligned. Shared-memory tiles are aligned as the
// map's swizzle mode requires. A tiled map is used only by the tiled loads and
// stores, an im2col map only by tma_load_im2col_4d. A load signals completion
// by complete_tx on `bar`, which must have the byte count announced (expect_tx)
// in the same phase.
// A store is tracked by bulk groups: commit, then wait before the source tile is
// overwritten (.read) or before the result must be visible (full wait). Writes
// made by threads to a tile that a TMA store reads need fence_proxy_async_shared()
// first, since TMA runs in the async proxy. A map the kernel changes
// (tensormap_replace_*) lives in global memory; the writer then runs
// fence_proxy_tensormap_release() and the thread issuing the TMA runs
// fence_proxy_tensormap_acquire(map) before using it, and no TMA that reads the
// map may be in flight while it changes.
#pragma once

#include <cuda.h>

#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/core/platform.h"

namespace sk::arch {

using TensorMap = CUtensorMap;

SK_DEVICE void prefetch_tensormap(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];"
               :
               : "l"(reinterpret_cast<uint64_t>(map))
               : "memory");
}

SK_DEVICE void tma_load_2d(void* smem_dst, const TensorMap* map, uint64_t* bar,
                           int32_t c0, int32_t c1) {
  // .shared::cluster is the only destination space the tensor load accepts; a
  // .shared::cta address of the executing CTA is a valid .shared::cluster one.
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::smem_addr(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// A rank-3 tiled map's box at (c0, c1) of plane c2 (a batch's matrix).
SK_DEVICE void tma_load_3d(void* smem_dst, const TensorMap* map, uint64_t* bar, int32_t c0,
                           int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// im2col load (conv2d fprop as implicit GEMM): `map` is an im2col map of a
// 4-D NHWC tensor; loads a column of pixels starting at (n, h, w), channels
// from c, each shifted by the filter tap offsets (off_w, off_h), which PTX
// takes as 16-bit operands.
SK_DEVICE void tma_load_im2col_4d(void* smem_dst, const TensorMap* map, uint64_t* bar, int32_t c,
                                  int32_t w, int32_t h, int32_t n, uint16_t off_w,
                                  uint16_t off_h) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};"
      :
      : "r"(detail::smem_addr(smem_dst)), "l"(reinterpret_cast<uint64_t>(map)),
        "r"(detail::smem_addr(bar)), "r"(c), "r"(w), "r"(h), "r"(n), "h"(off_w), "h"(off_h)
      : "memory");
}

SK_DEVICE void tma_store_2d(const TensorMap* map, const void* smem_src, int32_t c0,
                            int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3}], [%1];"
      :
      : "l"(reinterpret_cast<uint64_t>(map)), "r"(detail::smem_addr(smem_src)),
        "r"(c0), "r"(c1)
      : "memory");
}

SK_DEVICE void tma_store_3d(const TensorMap* map, const void* smem_src, int32_t c0, int32_t c1,
                            int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
      " [%0, {%2, %3, %4}], [%1];"
      :
      : "l"(reinterpret_cast<uint64_t>(map)), "r"(detail::smem_addr(smem_src)),
        "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

SK_DEVICE void tensormap_replace_global_address(TensorMap* map, uint64_t address) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
               :
               : "l"(reinterpret_cast<uint64_t>(map)), "l"(address)
               : "memory");
}

template <int Dim>
SK_DEVICE void tensormap_replace_global_dim(TensorMap* map, uint32_t size) {
  static_assert(Dim >= 0 && Dim < 5, "tensor maps have at most 5 dimensions");
  asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], %1, %2;"
               :
               : "l"(reinterpret_cast<uint64_t>(map)), "n"(Dim), "r"(size)
               : "memory");
}

SK_DEVICE void fence_proxy_tensormap_release() {
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" : : : "memory");
}

SK_DEVICE void fence_proxy_tensormap_acquire(const TensorMap* map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
               :
               : "l"(reinterpret_cast<uint64_t>(map))
               : "memory");
}

SK_DEVICE void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" : : : "memory");
}

template <int N>
SK_DEVICE void bulk_wait_group_read() {
  static_assert(N >= 0, "bulk group count must be non-negative");
  asm volatile("cp.async.bulk.wait_group.read %0;" : : "n"(N) : "memory");
}

template <int N>
SK_DEVICE void bulk_wait_group() {
  static_assert(N >= 0, "bulk group count must be non-negative");
  asm volatile("cp.async.bulk.wait_group %0;" : : "n"(N) : "memory");
}

SK_DEVICE void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
}

// Generic-proxy writes to global memory (st.global) before it are visible to
// a later TMA load of the same bytes (PTX 9.7.13.4); the shared::cta form
// above does not cover global memory.
SK_DEVICE void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;" : : : "memory");
}

// Both state spaces.
SK_DEVICE void fence_proxy_async() { asm volatile("fence.proxy.async;" : : : "memory"); }

}  // namespace sk::arch
