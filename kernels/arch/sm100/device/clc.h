// clc.h (SM100 device build): cluster launch control, for clusters of one CTA.
//
// A running CTA asks to cancel the launch of a not-yet-started CTA of its grid
// and takes over that CTA's work (a hardware tile scheduler).
//
// Invariants: `response` is a 16-byte aligned, 16-byte location in this CTA's
// shared memory and `bar` an initialised mbarrier there. One thread issues
// clc_try_cancel, after arrive.expect_tx(bar, 16) in the same phase: the
// response is written through the async proxy and signalled by complete_tx of
// 16 bytes on `bar`. The response may be decoded (by any thread) only after a
// wait observed that phase; before the next try_cancel overwrites it, the
// readers' generic reads are ordered before the async write with
// fence_proxy_async_shared(). clc_first_ctaid_x is meaningful only when
// clc_is_canceled returned true, and once a request has failed the CTA must
// not issue another.
#pragma once

#include "kernels/arch/sm100/device/mbarrier.h"
#include "kernels/core/platform.h"

namespace sk::arch {

SK_DEVICE void clc_try_cancel(void* response, uint64_t* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
      " [%0], [%1];"
      :
      : "r"(detail::smem_addr(response)), "r"(detail::smem_addr(bar))
      : "memory");
}

// The same for every CTA of the issuer's cluster: a whole pending cluster is
// cancelled, and the response lands at `response`'s offset in each CTA of the
// cluster, completing the barrier at `bar`'s offset in each.
SK_DEVICE void clc_try_cancel_multicast(void* response, uint64_t* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
      ".multicast::cluster::all.b128 [%0], [%1];"
      :
      : "r"(detail::smem_addr(response)), "r"(detail::smem_addr(bar))
      : "memory");
}

// Loads the response into a 128-bit register and tests whether a CTA was
// cancelled.
SK_DEVICE bool clc_is_canceled(const void* response) {
  uint32_t canceled;
  asm volatile(
      "{\n\t"
      ".reg .b128 response;\n\t"
      ".reg .pred p;\n\t"
      "ld.shared.b128 response, [%1];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(canceled)
      : "r"(detail::smem_addr(response))
      : "memory");
  return canceled != 0;
}

// The x coordinate of the cancelled CTA (its blockIdx.x).
SK_DEVICE uint32_t clc_first_ctaid_x(const void* response) {
  uint32_t ctaid;
  asm volatile(
      "{\n\t"
      ".reg .b128 response;\n\t"
      "ld.shared.b128 response, [%1];\n\t"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, response;\n\t"
      "}"
      : "=r"(ctaid)
      : "r"(detail::smem_addr(response))
      : "memory");
  return ctaid;
}

}  // namespace sk::arch
