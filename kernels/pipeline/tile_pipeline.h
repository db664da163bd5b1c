// tile_pipeline.h: the stage ring between a producer role and a consumer role.
//
//   TilePipeline<Payload, Stages, Backend>
//     producer().acquire() -> ProducerStage   waits until the stage is empty
//     consumer().acquire() -> ConsumerStage   waits until the stage is full
//
// The Payload says *what* a stage holds (A and B tiles, scale factors, a TMEM
// accumulator, a work item); the pipeline only says *when* it may be touched.
// The Backend is the mechanism (mbarriers on NVIDIA, kernels/pipeline/
// mbarrier_backend.h; atomic counters on AMD, kernels/pipeline/counter_backend.h).
// Backend interface: Storage, Backend(Storage*), static init(storage,
// producer_arrivals, consumer_arrivals, name), wait_full/wait_empty(stage,
// lap), arrive_full/arrive_empty(stage); the mbarrier backend adds
// arrive_full_expect_tx and the barrier addresses.
//
// acquire() moves the role's ring position on, so a role may hold several
// stages at once (a producer that issues the next stage's loads before it
// releases the previous one); it releases them in acquisition order.
// Stage handles are move-only and [[nodiscard]]; each must be consumed by
// exactly one release:
//   * release():        the calling lane arrives on the stage's barrier (call
//                        inside sk::elect_one(), after the stage's data is
//                        written or read);
//   * release_async():  only gives the handle up: the arrive was already made or
//                        is attached to an async operation (arrive.expect_tx +
//                        TMA complete_tx for a load, tcgen05.commit for MMAs).
// A handle destroyed unreleased is reported by the model (stage.unreleased); on
// the device it would leave the peer role waiting forever. Releasing a handle
// twice (through a moved-from handle) is reported as stage.double_release and
// otherwise ignored.
//
// Call sites: every function that synchronizes takes its caller's line as a
// defaulted arch::CallSite, so a finding in the model names the kernel's line
// and the chain through the pipeline and its backend (kernels/arch/model/
// site.h); a handle keeps the line that acquired it for its reports.
//
// Lane conventions: acquire() and release*() are called by the whole warp;
// expect_bytes() and the arrive inside release() are single-lane operations
// that the handle performs under sk::elect_one() itself.
#pragma once

#include "kernels/arch/lanes.h"
#include "kernels/core/lanes.h"
#include "kernels/core/pipeline_state.h"
#include "kernels/core/platform.h"

namespace sk {

// The NVIDIA default; kernels that use it include
// kernels/pipeline/mbarrier_backend.h. Declared here only, so the protocol
// compiles on AMD (kernels/pipeline/counter_backend.h) without the mbarrier
// intrinsics.
template <int Stages>
class MbarrierBackend;

template <class Payload, int Stages, class Backend = MbarrierBackend<Stages>>
class TilePipeline {
 public:
  static constexpr int kStages = Stages;
  using Storage = typename Backend::Storage;
  using State = PipelineState<Stages>;

  SK_DEVICE TilePipeline(Storage* barriers, Payload payload)
      : backend_(barriers), payload_(payload) {}
  // A backend built by the kernel (the mbarrier backend with a cluster's
  // release peers).
  SK_DEVICE TilePipeline(Backend backend, Payload payload)
      : backend_(backend), payload_(payload) {}

  // Initialises the barriers (lane: one; then fence and CTA barrier).
  SK_DEVICE static void init(Storage* barriers, uint32_t producer_arrivals,
                             uint32_t consumer_arrivals, const char* name,
                             arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    Backend::init(barriers, producer_arrivals, consumer_arrivals, name);
  }

  // A stage handle: common to both roles; Role picks which barrier it signals.
  template <bool kProducer>
  class [[nodiscard]] StageHandle {
   public:
    SK_DEVICE StageHandle(const TilePipeline* p, uint32_t stage, uint32_t lap, arch::CallSite site)
        : pipe_(p), stage_(stage), lap_(lap), live_(true), site_(site) {}
    SK_DEVICE StageHandle(StageHandle&& o) noexcept
        : pipe_(o.pipe_), stage_(o.stage_), lap_(o.lap_), live_(o.live_), site_(o.site_) {
      o.live_ = false;
    }
    StageHandle(const StageHandle&) = delete;
    StageHandle& operator=(const StageHandle&) = delete;
    // Takes over o's stage, for a handle kept across loop iterations (a
    // producer that releases the previous stage after issuing the next one's
    // loads). The target must already be released: overwriting a live
    // handle would drop its stage, and is reported as unreleased.
    SK_DEVICE StageHandle& operator=(StageHandle&& o) noexcept {
      if (live_) unreleased();
      pipe_ = o.pipe_;
      stage_ = o.stage_;
      lap_ = o.lap_;
      live_ = o.live_;
      site_ = o.site_;
      o.live_ = false;
      return *this;
    }
    SK_DEVICE ~StageHandle() {
      if (live_) unreleased();
    }

    SK_DEVICE uint32_t stage() const { return stage_; }
    SK_DEVICE uint32_t lap() const { return lap_; }
    SK_DEVICE decltype(auto) tiles() const { return pipe_->payload_.stage(stage_); }
    SK_DEVICE uint64_t* full_barrier() const { return pipe_->backend_.full_barrier(stage_); }
    SK_DEVICE uint64_t* empty_barrier() const { return pipe_->backend_.empty_barrier(stage_); }

    // Producer only. Lane: one (call inside sk::elect_one()). Arrives on the
    // full barrier and announces the bytes the stage's async loads deliver.
    SK_DEVICE void expect_bytes(uint32_t bytes, arch::CallSite site = arch::CallSite::current()) const {
      static_assert(kProducer, "only the producer announces transaction bytes");
      const arch::Caller caller(site);
      pipe_->backend_.arrive_full_expect_tx(stage_, bytes);
    }

    // Arrives (one elected lane) on the barrier the peer role waits on.
    SK_DEVICE void release(arch::CallSite site = arch::CallSite::current()) && {
      const arch::Caller caller(site);
      if (!live_) return double_release();
      if constexpr (!kProducer && requires { pipe_->backend_.empty_peers(); }) {
        // The peer mask is the same in every lane: test it before electing,
        // so a CTA without peers releases with one predicated arrive and no
        // branch on the elected lane in the consumer's loop.
        if (pipe_->backend_.empty_peers() == 0) {
          if (auto lane = elect_one()) pipe_->backend_.arrive_empty_local(stage_);
          return finish();
        }
      }
      if (auto lane = elect_one()) {
        if constexpr (kProducer)
          pipe_->backend_.arrive_full(stage_);
        else
          pipe_->backend_.arrive_empty(stage_);
      }
      finish();
    }
    // Gives the handle up only; the arrive comes from expect_bytes() or an
    // async operation already attached to this stage's barrier.
    SK_DEVICE void release_async(arch::CallSite site = arch::CallSite::current()) && {
      const arch::Caller caller(site);
      if (!live_) return double_release();
      finish();
    }

   private:
    SK_DEVICE void double_release() const {
      arch::report_double_release(kProducer ? "producer stage handle" : "consumer stage handle");
    }
    // Reported at the line that acquired the handle.
    SK_DEVICE void unreleased() const {
      const arch::Caller caller(site_);
      arch::report_unreleased(kProducer ? "producer stage handle" : "consumer stage handle");
    }
    SK_DEVICE void finish() { live_ = false; }
    const TilePipeline* pipe_;
    uint32_t stage_, lap_;
    bool live_;
    arch::CallSite site_;  // where the stage was acquired
  };
  using ProducerStage = StageHandle<true>;
  using ConsumerStage = StageHandle<false>;

  class Producer {
   public:
    SK_DEVICE explicit Producer(const TilePipeline* p) : pipe_(p) {}
    // Waits until the next stage is free. Lane: warp.
    SK_DEVICE ProducerStage acquire(arch::CallSite site = arch::CallSite::current()) {
      const arch::Caller caller(site);
      pipe_->backend_.wait_empty(state_.index(), state_.lap());
      ProducerStage st(pipe_, state_.index(), state_.lap(), site);
      state_.advance();
      return st;
    }
    // Waits until the consumer has released every stage, so the CTA may exit
    // without async arrivals still targeting its barriers. Lane: warp.
    SK_DEVICE void drain(arch::CallSite site = arch::CallSite::current()) {
      const arch::Caller caller(site);
      for (int i = 0; i < Stages; ++i) {
        pipe_->backend_.wait_empty(state_.index(), state_.lap());
        state_.advance();
      }
    }
    SK_DEVICE const State& state() const { return state_; }

   private:
    const TilePipeline* pipe_;
    State state_;
  };

  class Consumer {
   public:
    SK_DEVICE explicit Consumer(const TilePipeline* p) : pipe_(p) {}
    // Waits until the next stage is full. Lane: warp.
    SK_DEVICE ConsumerStage acquire(arch::CallSite site = arch::CallSite::current()) {
      const arch::Caller caller(site);
      pipe_->backend_.wait_full(state_.index(), state_.lap());
      ConsumerStage st(pipe_, state_.index(), state_.lap(), site);
      state_.advance();
      return st;
    }
    // Passes over the next n stages without touching them: another consumer
    // of the same ring takes them (the SM90 ping-pong's other warpgroup).
    SK_DEVICE void skip(uint32_t n) { state_.advance(n); }
    SK_DEVICE const State& state() const { return state_; }

   private:
    const TilePipeline* pipe_;
    State state_;
  };

  SK_DEVICE Producer producer() const { return Producer(this); }
  SK_DEVICE Consumer consumer() const { return Consumer(this); }
  SK_DEVICE const Payload& payload() const { return payload_; }

 private:
  Backend backend_;
  Payload payload_;
};

}  // namespace sk
