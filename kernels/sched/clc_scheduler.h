// clc_scheduler.h: a tile scheduler on cluster launch control (SM100 CLC).
//
// The kernel is launched with one CTA per output tile; the hardware runs as
// many as fit and a running CTA takes over the tiles of CTAs that have not
// started: CTA c first works on tile c (its own blockIdx.x), then each next
// item comes from clusterlaunchcontrol.try_cancel, whose response names a
// cancelled CTA whose tile this CTA now owns. Tiles are rasterised along M,
// then N, then the batch, as in StaticPersistentScheduler, and the scheduler warp publishes the same
// WorkInfo items; the first failed request (no CTA left to cancel) yields the
// final item with valid = 0, which stops every role.
//
// Throttle: the load warp signals (LoadSignal::tile_started) each time it
// starts a tile, and the scheduler waits for that signal before each
// try_cancel, so a CTA claims a tile only once the previous one is being
// loaded (as CUTLASS's and Modular's CLC throttle pipelines do).
//
// Pairs (the 2-SM kernel, clusters of two, launched with one cluster per 2 x 1
// block of tiles; PairTag constructor): the leader's scheduler issues the
// multicast try_cancel, whose response cancels a whole pending pair and lands
// in both CTAs; each CTA posts expect_tx on its own response barrier, decodes
// the same response into its rank's tile of the block
// (kernels/sched/cluster_shape.h), and the peer then tells the leader it has
// read it (a remote arrive on the leader's `consumed` barrier), which the
// leader waits for before its next request overwrites the peer's copy.
//
// Invariants: one try_cancel in flight per CTA, issued by one lane after
// arrive.expect_tx(16) on the response barrier; the response is decoded only
// after the wait on that barrier, and fence.proxy.async orders the decoding
// reads before the next try_cancel rewrites it. Every valid item is followed
// by exactly one throttle signal and one try_cancel, so no signal is left
// unconsumed and no request is issued after a failure. Neither object may be
// copied: they hold pipeline handles pointing into themselves.
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/platform.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/tile_pipeline.h"
#include "kernels/sched/cluster_shape.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace sk {

class ClcScheduler {
  struct NoPayload {  // the throttle carries no data, only the signal
    SK_DEVICE uint32_t stage(uint32_t i) const { return i; }
  };

 public:
  static constexpr int kThrottleStages = 2;
  static constexpr uint32_t kResponseBytes = 16;
  using Throttle = TilePipeline<NoPayload, kThrottleStages>;

  struct Storage {
    alignas(16) uint8_t response[kResponseBytes];
    uint64_t response_bar;  // complete_tx of the response; one arrival (the issuer)
    uint64_t consumed_bar;  // pairs, leader: the peer has read the response (one arrival)
    MbarrierBackend<kThrottleStages>::Storage throttle;
  };
  struct PairTag {};

  // Initialises the barriers. Lane: one, with the kernel's other barrier
  // initialisation (before fence_mbarrier_init and the CTA barrier).
  SK_DEVICE static void init(Storage* s, arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    arch::mbarrier_init(&s->response_bar, 1);
    arch::annotate_barrier(&s->response_bar, "clc.response", -1);
    arch::mbarrier_init(&s->consumed_bar, 1);
    arch::annotate_barrier(&s->consumed_bar, "clc.consumed", -1);
    Throttle::init(&s->throttle, 1, 1, "clc_throttle");
  }

  SK_DEVICE ClcScheduler(uint32_t tiles_m, uint32_t tiles_n, uint32_t batches, Storage* s)
      : tiles_m_(tiles_m), tiles_n_(tiles_n), batches_(batches), s_(s), throttle_(&s->throttle, NoPayload{}),
        started_(throttle_.consumer()) {}
  // A CTA pair's scheduler (either CTA; see above). Call inside a launch with
  // clusters of two.
  SK_DEVICE ClcScheduler(uint32_t tiles_m, uint32_t tiles_n, uint32_t batches, Storage* s, PairTag)
      : ClcScheduler(tiles_m, tiles_n, batches, s) {
    pair_ = true;
    rank_ = arch::cluster_ctarank();
  }
  ClcScheduler(const ClcScheduler&) = delete;
  ClcScheduler& operator=(const ClcScheduler&) = delete;

  // The next item of this CTA. Lane: warp (the scheduler warp).
  SK_DEVICE WorkInfo next(arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    if (first_) {
      first_ = false;
      return tile(arch::cta_idx());
    }
    auto signal = started_.acquire();  // the load warp started the previous item
    std::move(signal).release();
    const bool leads = !pair_ || rank_ % 2 == 0;
    if (pair_ && leads && requests_ > 0) {
      // The peer has read the previous response (its copy is ours to rewrite).
      while (!arch::mbarrier_try_wait_parity(&s_->consumed_bar, (requests_ - 1) & 1)) {
      }
    }
    if (auto lane = elect_one()) {
      arch::mbarrier_arrive_expect_tx(&s_->response_bar, kResponseBytes);
      if (!pair_)
        arch::clc_try_cancel(s_->response, &s_->response_bar);
      else if (leads)
        arch::clc_try_cancel_multicast(s_->response, &s_->response_bar);
    }
    while (!arch::mbarrier_try_wait_parity(&s_->response_bar, parity_)) {
    }
    parity_ ^= 1;
    ++requests_;
    const bool canceled = arch::clc_is_canceled(s_->response);
    const uint32_t cta = canceled ? arch::clc_first_ctaid_x(s_->response) : 0;
    arch::fence_proxy_async_shared();
    if (pair_ && !leads && canceled)
      if (auto lane = elect_one()) arch::mbarrier_arrive_cluster(&s_->consumed_bar, rank_ & ~1u);
    return canceled ? tile(cta) : WorkInfo{0, 0, 0, 0};
  }

  // The load warp's side of the throttle.
  class LoadSignal {
   public:
    SK_DEVICE explicit LoadSignal(Storage* s)
        : pipe_(&s->throttle, NoPayload{}), producer_(pipe_.producer()) {}
    LoadSignal(const LoadSignal&) = delete;
    LoadSignal& operator=(const LoadSignal&) = delete;
    // The load warp starts a tile. Lane: warp.
    SK_DEVICE void tile_started(arch::CallSite site = arch::CallSite::current()) {
      const arch::Caller caller(site);
      auto stage = producer_.acquire();
      std::move(stage).release();
    }

   private:
    Throttle pipe_;
    Throttle::Producer producer_;
  };

 private:
  // The work of CTA `t` of the grid: its tile, or in a pair its rank's tile of
  // its cluster's block.
  SK_DEVICE WorkInfo tile(uint32_t t) const {
    if (pair_)
      return cluster_tile_work(t / 2, tiles_m_, tiles_n_, batches_, 1, ClusterShape{2, 1}, rank_);
    return tile_work(t, tiles_m_, tiles_n_, batches_);
  }

  uint32_t tiles_m_, tiles_n_, batches_;
  Storage* s_;
  Throttle throttle_;
  Throttle::Consumer started_;
  bool first_ = true;
  uint32_t parity_ = 0;
  bool pair_ = false;
  uint32_t rank_ = 0;
  uint32_t requests_ = 0;  // try_cancel responses this CTA has decoded
};

}  // namespace sk
