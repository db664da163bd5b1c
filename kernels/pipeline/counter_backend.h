// counter_backend.h: the pipeline's synchronization mechanism on AMD (CDNA3):
// monotonic atomic counters in LDS, incremented by one lane per wave and
// awaited with an acquire spin (s_sleep 0 backoff, arch::wait_counter_geq).
//
// Two layouts, the same Backend interface as MbarrierBackend, so
// TilePipeline's protocol (stage handles, laps) is shared verbatim:
//
//   SplitCounterBackend<Stages, P, C>: a full and an empty counter per stage.
//     Lap L of a stage: the consumer waits until full >= (L + 1) * P (every
//     producer wave filled it L + 1 times); the producer waits until
//     empty >= L * C (every consumer wave freed it L times; lap 0 passes).
//   SingleCounterBackend<Stages, P, C>: one counter per stage that producers
//     and consumers both advance, P + C increments per lap. The producer of
//     lap L waits until count >= L * (P + C), the consumer until
//     count >= L * (P + C) + P.
//
// P and C, the producer and consumer waves that arrive per lap, are template
// parameters rather than fields: the backend is copied into every wave's
// registers, and a value written at init would not reach the others. init()
// takes TilePipeline's runtime counts for interface parity and ignores them;
// it tells the model the template counts, which are what the waits require,
// so a kernel that launches fewer waves than it counts is reported as a lap
// left short (arrival_count), not as a bare deadlock.
//
// Memory ordering: an increment is an acq_rel atomic at Scope (workgroup by
// default: counters in LDS synchronise the waves of one workgroup). A release
// covers the wave's LDS and global accesses, not LDS DMA: a producer must
// s_waitcnt_vmcnt before arriving on a stage it filled by DMA (the loader's
// contract, kernels/io/lds_tile_loader.h).
//
// Counters are 32-bit and never wrap in one launch: at most 2^32 / (P + C)
// laps per stage.
#pragma once

#include "kernels/arch/gfx942.h"
#include "kernels/arch/lanes.h"
#include "kernels/core/label.h"
#include "kernels/core/platform.h"

namespace sk {

template <int Stages, uint32_t P, uint32_t C, arch::Scope S = arch::Scope::kWorkgroup>
class SplitCounterBackend {
  static_assert(P >= 1 && C >= 1, "each side of the ring has at least one wave");

 public:
  struct Storage {
    uint32_t full[Stages];
    uint32_t empty[Stages];
  };

  SK_DEVICE explicit SplitCounterBackend(Storage* s) : s_(s) {}

  // Zeroes and names every counter. Lane: one (inside sk::elect_one()); the
  // caller then runs arch::workgroup_sync() before any use.
  SK_DEVICE static void init(Storage* s, uint32_t /*producer_arrivals*/,
                             uint32_t /*consumer_arrivals*/, const char* name,
                             arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    for (int i = 0; i < Stages; ++i) {
      arch::st_lds(&s->full[i], 0u);
      arch::st_lds(&s->empty[i], 0u);
      arch::annotate_counter(&s->full[i], join_label(name, ".full").text, i, P);
      arch::annotate_counter(&s->empty[i], join_label(name, ".empty").text, i, C);
    }
  }

  // Lane: wave.
  SK_DEVICE void wait_full(uint32_t stage, uint32_t lap,
                           arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::wait_counter_geq(&s_->full[stage], (lap + 1) * P, S);
  }
  SK_DEVICE void wait_empty(uint32_t stage, uint32_t lap,
                            arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::wait_counter_geq(&s_->empty[stage], lap * C, S);
  }
  // Lane: one.
  SK_DEVICE void arrive_full(uint32_t stage, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::atomic_add(&s_->full[stage], 1u, S);
  }
  SK_DEVICE void arrive_empty(uint32_t stage,
                              arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::atomic_add(&s_->empty[stage], 1u, S);
  }
  SK_DEVICE Storage* storage() const { return s_; }

 private:
  Storage* s_;
};

template <int Stages, uint32_t P, uint32_t C, arch::Scope S = arch::Scope::kWorkgroup>
class SingleCounterBackend {
  static_assert(P >= 1 && C >= 1, "each side of the ring has at least one wave");
  static constexpr uint32_t kPerLap = P + C;

 public:
  struct Storage {
    uint32_t count[Stages];
  };

  SK_DEVICE explicit SingleCounterBackend(Storage* s) : s_(s) {}

  // Lane: one; then arch::workgroup_sync().
  SK_DEVICE static void init(Storage* s, uint32_t /*producer_arrivals*/,
                             uint32_t /*consumer_arrivals*/, const char* name,
                             arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    for (int i = 0; i < Stages; ++i) {
      arch::st_lds(&s->count[i], 0u);
      arch::annotate_counter(&s->count[i], join_label(name, ".count").text, i, kPerLap);
    }
  }

  SK_DEVICE void wait_full(uint32_t stage, uint32_t lap,
                           arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::wait_counter_geq(&s_->count[stage], lap * kPerLap + P, S);
  }
  SK_DEVICE void wait_empty(uint32_t stage, uint32_t lap,
                            arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::wait_counter_geq(&s_->count[stage], lap * kPerLap, S);
  }
  SK_DEVICE void arrive_full(uint32_t stage, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::atomic_add(&s_->count[stage], 1u, S);
  }
  SK_DEVICE void arrive_empty(uint32_t stage,
                              arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    arch::atomic_add(&s_->count[stage], 1u, S);
  }
  SK_DEVICE Storage* storage() const { return s_; }

 private:
  Storage* s_;
};

}  // namespace sk
