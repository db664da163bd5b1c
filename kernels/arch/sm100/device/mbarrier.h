// mbarrier.h (SM100 device build): shared-memory transaction barriers.
//
// Invariants: every `bar` is a generic pointer to an 8-byte aligned uint64_t in
// this CTA's shared memory; PTX takes its 32-bit .shared::cta address. A barrier
// is initialised by one thread, made visible with fence_mbarrier_init() plus a
// CTA barrier before any other thread or the async proxy uses it, and
// invalidated before its memory is reused. Waiters track the phase parity
// themselves, so no arrive returns its state token.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

namespace detail {
SK_DEVICE uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

SK_DEVICE void mbarrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
               :
               : "r"(detail::smem_addr(bar)), "r"(count)
               : "memory");
}

SK_DEVICE void mbarrier_inval(uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];"
               :
               : "r"(detail::smem_addr(bar))
               : "memory");
}

SK_DEVICE void fence_mbarrier_init() {
  // Release at cluster scope so that TMA and tcgen05 completions (async proxy)
  // observe the initialised barrier, not only threads of this CTA.
  asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
}

SK_DEVICE void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
               :
               : "r"(detail::smem_addr(bar))
               : "memory");
}

SK_DEVICE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t tx_bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :
               : "r"(detail::smem_addr(bar)), "r"(tx_bytes)
               : "memory");
}

SK_DEVICE void mbarrier_expect_tx(uint64_t* bar, uint32_t tx_bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;"
               :
               : "r"(detail::smem_addr(bar)), "r"(tx_bytes)
               : "memory");
}

SK_DEVICE bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  // The hint (in ns) lets the hardware suspend the thread instead of spinning
  // while the phase is incomplete; the caller loops on a false result.
  constexpr uint32_t kSuspendTimeHintNs = 0x989680;
  uint32_t done;
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(done)
      : "r"(detail::smem_addr(bar)), "r"(parity), "r"(kSuspendTimeHintNs)
      : "memory");
  return done != 0;
}

// Non-blocking probe (mbarrier.test_wait.parity): has the phase with this
// parity completed?
SK_DEVICE bool mbarrier_test_wait_parity(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(done)
      : "r"(detail::smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

}  // namespace sk::arch
