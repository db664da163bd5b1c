// mbarrier_backend.h: the pipeline's synchronization mechanism on NVIDIA
// (SM90, SM100): a full and an empty mbarrier per stage.
//
// Protocol (kernels/pipeline/tile_pipeline.h) and mechanism (this file) are
// separate, so the same ring logic runs on atomic counters on AMD.
//
// Mapping of laps onto mbarrier phases, for a stage used for the L-th time
// (L = PipelineState::lap()):
//   * the consumer waits for the L-th completion of full[stage]: parity L & 1;
//   * the producer waits for the consumer's release of lap L-1, i.e. the
//     (L-1)-th completion of empty[stage]: parity (L & 1) ^ 1. For L = 0 that
//     is parity 1, which a freshly initialised mbarrier reports as complete,
//     so the first lap never blocks.
// A parity backend cannot see two laps of skew; the model can, because the
// pipeline state keeps the full lap.
//
// Clusters: with a peer mask (bit r: rank r of the cluster), a consumer's
// release arrives on the empty barrier of the same stage in every CTA of the
// mask, because those CTAs' producers multicast into this CTA's stage; each
// empty barrier then counts the consumer arrivals of every CTA that releases
// to it. Mask 0: this CTA only. The remote arrives release at CTA scope
// (mbarrier_arrive_cluster), which orders the consumer's completed reads of
// the stage before the peer's refill but publishes no writes: enough to hand
// back a stage that was only read, not to signal data (D8, docs/verify.md).
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/arch/sm100.h"
#include "kernels/core/label.h"
#include "kernels/core/platform.h"

namespace sk {

template <int Stages>
class MbarrierBackend {
 public:
  struct Storage {
    uint64_t full[Stages];
    uint64_t empty[Stages];
  };

  SK_DEVICE explicit MbarrierBackend(Storage* s, uint16_t empty_peers = 0)
      : s_(s), empty_peers_(empty_peers) {}

  // Initialises every barrier. Lane: one (call inside sk::elect_one()); the
  // caller then runs fence_mbarrier_init and a CTA barrier before any use.
  // `name` labels the barriers in reports ("input" -> "input.full[2]").
  SK_DEVICE static void init(Storage* s, uint32_t producer_arrivals, uint32_t consumer_arrivals,
                             const char* name, arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    for (int i = 0; i < Stages; ++i) {
      arch::mbarrier_init(&s->full[i], producer_arrivals);
      arch::mbarrier_init(&s->empty[i], consumer_arrivals);
      annotate(&s->full[i], name, ".full", i);
      annotate(&s->empty[i], name, ".empty", i);
    }
  }

  // Lane: warp (every lane waits, so every lane observes the acquire).
  SK_DEVICE void wait_full(uint32_t stage, uint32_t lap,
                           arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::annotate_wait_phase(&s_->full[stage], lap);
    wait(&s_->full[stage], lap & 1);
  }
  SK_DEVICE void wait_empty(uint32_t stage, uint32_t lap,
                            arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    // Lap L waits for the consumers' release of lap L - 1 (phase -1, the
    // state before any, passes at once).
    arch::annotate_wait_phase(&s_->empty[stage], static_cast<int64_t>(lap) - 1);
    wait(&s_->empty[stage], (lap & 1) ^ 1);
  }
  // Lane: one. A plain arrive (release semantics) by the calling lane.
  SK_DEVICE void arrive_full(uint32_t stage, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::mbarrier_arrive(&s_->full[stage]);
  }
  // The ranks a consumer's release arrives on (0: this CTA alone).
  SK_DEVICE uint16_t empty_peers() const { return empty_peers_; }
  // Lane: one. The release of a CTA without peers: its own empty barrier.
  SK_DEVICE void arrive_empty_local(uint32_t stage,
                                    arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::mbarrier_arrive(&s_->empty[stage]);
  }
  SK_DEVICE void arrive_empty(uint32_t stage,
                              arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if (empty_peers_ == 0) {
      arch::mbarrier_arrive(&s_->empty[stage]);
      return;
    }
    for (uint32_t r = 0; r < 16; ++r)
      if ((empty_peers_ >> r) & 1u) arch::mbarrier_arrive_cluster(&s_->empty[stage], r);
  }
  // Lane: one. Producer arrive that also announces `bytes` of async delivery.
  SK_DEVICE void arrive_full_expect_tx(uint32_t stage, uint32_t bytes,
                                       arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::mbarrier_arrive_expect_tx(&s_->full[stage], bytes);
  }

  SK_DEVICE uint64_t* full_barrier(uint32_t stage) const { return &s_->full[stage]; }
  SK_DEVICE uint64_t* empty_barrier(uint32_t stage) const { return &s_->empty[stage]; }

 private:
  SK_DEVICE static void wait(uint64_t* bar, uint32_t parity) {
    while (!arch::mbarrier_try_wait_parity(bar, parity)) {
    }
  }
  SK_DEVICE static void annotate(uint64_t* bar, const char* name, const char* which, int i) {
    arch::annotate_barrier(bar, join_label(name, which).text, i);
  }

  Storage* s_;
  uint16_t empty_peers_;
};

}  // namespace sk
