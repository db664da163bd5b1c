// split_k_reduce.h: the reduction of a K-split cluster's accumulators through
// distributed shared memory (the SM90 matmul with Params::split_k > 1).
//
// The S CTAs of a cluster (S = 2, 3, 4 or 8; rank r computes K range r of S)
// hold partial accumulators of one output tile. Consumer warp q (0-7: its
// warpgroup * 4 + its quarter, 16 rows of the tile) is owned by CTA
// owner(q) = floor(q * S / 8), which writes those rows of D; CTA o owns the
// warps from first(o) = ceil(o * 8 / S) up to first(o + 1) (8 / S each, or
// 3, 3, 2 with S = 3). Reduce-scatter: warp q of every other CTA stores its FP32
// accumulators into one of the owner's slots (st.shared::cluster.v4, each
// lane its own registers) and, after __syncwarp, its elected lane arrives on
// the owner's full barrier for q with a cluster-scope release, which
// publishes every lane's stores (the CTA-scope arrive would not: D8 in
// research/verify.md). The owner's warp q waits there (acquire at cluster
// scope) for the S - 1 senders, adds the slots to its accumulators in rank
// order and hands each slot back with a CTA-scope remote arrive on its
// sender's free barrier for q (the slot was only read, so that scope is
// enough). A sender stores into its slot again, for its next tile, only after
// that arrive; its warp writes nothing of that tile to D.
//
// Invariants: a slot is written only after its owner has read the previous
// tile's values from it (free barrier) and read only after its writer's
// release (full barrier); a full barrier completes once per tile with S - 1
// arrivals, a free barrier once per tile with one; the kernel initialises
// the barriers before the cluster barrier that publishes them, and every CTA
// meets the cluster barrier after its last arrive before it exits.
#pragma once

#include "kernels/arch/sm90.h"
#include "kernels/core/lanes.h"

namespace sk {

// Seeded bugs of the verifier's corpus (ClusterBug::kSplit*, sm90_matmul.h);
// kNone is the reduction.
enum class SplitKBug {
  kNone,
  kFreeBeforeRead,
  kCtaScopeFull,
  kFullCountsAll,
  kCtaScopeWait,
  kNoSyncBeforeFull,
  kFirstByFloor,  // first(o) rounded down: right for S = 2, 4, 8, not for 3
};

inline constexpr uint32_t kSplitKWarps = 8;  // consumer warps of a CTA
// The slots an owner needs: its warps times the other ranks (4 x 1 for S = 2,
// 3 x 2 for 3, 2 x 3 for 4, 1 x 7 for 8).
SK_HOST_DEVICE constexpr uint32_t split_k_slots(uint32_t splits) {
  return ((kSplitKWarps + splits - 1) / splits) * (splits - 1);
}
// Slots for every split (7), and for S = 2 alone (4: 24 KiB fewer with the
// 128-column tile, a stage more).
inline constexpr uint32_t kSplitKSlots = 7, kSplitKSlotsOfTwo = 4;

// Whether S CTAs split the consumer warps with `slots` slots (S = 2, 3, 4, 8
// with 7; 2 with 4; for the hosts' refusals as for the kernel).
SK_HOST_DEVICE constexpr bool split_k_fits(uint32_t splits, uint32_t slots = kSplitKSlots) {
  return splits >= 2 && splits <= kSplitKWarps && split_k_slots(splits) <= slots;
}

// Acc: the consumer warp's accumulators (LaneArray<float, R>, R a multiple
// of 4); Slots: how many the storage holds (split_k_fits(S, Slots) for the
// launch's S, which the host checks).
template <class Acc, uint32_t Slots = kSplitKSlots>
struct SplitKReduce {
  static constexpr int kRegs = Acc::kRegs;
  static constexpr uint32_t kWarps = kSplitKWarps;
  static constexpr uint32_t kSlots = Slots;
  static_assert(kRegs % 4 == 0, "the slots move 16 bytes a store");
  static_assert(Slots >= split_k_slots(2) && Slots <= kSplitKSlots, "4 to 7 slots");

  struct Storage {
    // [slot][register / 4][lane][4]: a store's 32 lanes write 512 contiguous
    // bytes, without bank conflicts.
    alignas(16) float slot[kSlots][kRegs / 4][32][4];
    uint64_t full[kWarps];                      // this CTA's owned warps (first(o + 1) - first(o) used)
    uint64_t free[kWarps];                      // per sending warp q
  };

  Storage* s;
  uint32_t splits, rank;

  SK_DEVICE uint32_t owner(uint32_t q) const { return q * splits / kWarps; }
  // The first warp that CTA o owns (the smallest q with owner(q) == o).
  template <SplitKBug Bug = SplitKBug::kNone>
  SK_DEVICE uint32_t first(uint32_t o) const {
    if constexpr (Bug == SplitKBug::kFirstByFloor) return o * kWarps / splits;
    return (o * kWarps + splits - 1) / splits;
  }

  // Lane: one (inside elect_one()); the caller then fences the inits at
  // cluster scope and meets the cluster barrier before any use.
  template <SplitKBug Bug = SplitKBug::kNone>
  SK_DEVICE static void init(Storage* s, uint32_t splits) {
    for (uint32_t i = 0; i < kWarps; ++i) {
      arch::mbarrier_init(&s->full[i], Bug == SplitKBug::kFullCountsAll ? splits : splits - 1);
      arch::mbarrier_init(&s->free[i], 1);
      arch::annotate_barrier(&s->full[i], "split_k.full", static_cast<int>(i));
      arch::annotate_barrier(&s->free[i], "split_k.free", static_cast<int>(i));
    }
  }

  // Warp q's slot in its owner from CTA `from` (the owner's warps of q's
  // rows take S - 1 slots each, one per other rank in rank order).
  template <SplitKBug Bug = SplitKBug::kNone>
  SK_DEVICE float* slot(uint32_t q, uint32_t from) const {
    const uint32_t o = owner(q);
    const uint32_t i = (q - first<Bug>(o)) * (splits - 1) + (from < o ? from : from - 1);
    // Byte arithmetic within Storage: the seeded kFirstByFloor reaches i = 7,
    // past the slots and over the barriers, as the device would.
    return reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(s->slot) + i * sizeof(s->slot[0]));
  }

  // Warp q's part of tile number `n` (0, 1, ... in the CTA's walk): on the
  // owner the other ranks' accumulators are added to `sum` (which the caller
  // set to acc); elsewhere acc is sent. Returns whether this warp writes the
  // rows. `sum` is not acc's registers: the wgmma that accumulate into acc
  // must not see them written on a path that differs between warps.
  template <SplitKBug Bug = SplitKBug::kNone>
  SK_DEVICE bool reduce(const Acc& acc, Acc& sum, uint32_t q, uint32_t n) const {
    const uint32_t o = owner(q);
    if (o != rank) {
      send<Bug>(acc, q, n);
      return false;
    }
    const uint32_t local = q - first<Bug>(o);
    if constexpr (Bug == SplitKBug::kCtaScopeWait) {
      while (!arch::mbarrier_try_wait_parity(&s->full[local], n & 1)) {
      }
    } else {
      while (!arch::mbarrier_try_wait_parity_cluster(&s->full[local], n & 1)) {
      }
    }
    if constexpr (Bug == SplitKBug::kFreeBeforeRead) hand_back(q);
    for (uint32_t from = 0; from < splits; ++from) {
      if (from == rank) continue;
      const float* in = slot<Bug>(q, from);
      for_each_lane([&](uint32_t l) {
        float* r = sum.lane(l);
        SK_UNROLL
        for (int j = 0; j < kRegs; j += 4) {
          uint32_t v[4];
          arch::ld_shared_b128(in + (j / 4 * 32 + l) * 4, v);
          SK_UNROLL
          for (int i = 0; i < 4; ++i) r[j + i] += bit_cast_f32(v[i]);
        }
      });
      // What the lanes did, for the model's timing (nothing on the device).
      arch::account_smem_loads(kRegs / 4);
      arch::account_alu(kRegs, 0);
    }
    arch::sync_warp();  // every lane's reads before the slots go back
    if constexpr (Bug != SplitKBug::kFreeBeforeRead) hand_back(q);
    return true;
  }

 private:
  // Each sender's slot of warp q back to it (a CTA-scope remote arrive: the
  // owner only read it).
  SK_DEVICE void hand_back(uint32_t q) const {
    if (auto lane = elect_one())
      for (uint32_t from = 0; from < splits; ++from)
        if (from != rank) arch::mbarrier_arrive_cluster(&s->free[q], from);
  }

  SK_DEVICE static float bit_cast_f32(uint32_t v) {
    float f;
    __builtin_memcpy(&f, &v, 4);
    return f;
  }
  SK_DEVICE static uint32_t bit_cast_u32(float f) {
    uint32_t v;
    __builtin_memcpy(&v, &f, 4);
    return v;
  }

  template <SplitKBug Bug>
  SK_DEVICE void send(const Acc& acc, uint32_t q, uint32_t n) const {
    const uint32_t o = owner(q);
    // The owner has read this slot's previous tile (passes at once for n = 0).
    while (!arch::mbarrier_try_wait_parity(&s->free[q], (n & 1) ^ 1)) {
    }
    float* out = slot<Bug>(q, rank);
    for_each_lane([&](uint32_t l) {
      const float* r = acc.lane(l);
      SK_UNROLL
      for (int j = 0; j < kRegs; j += 4) {
        const uint32_t v[4] = {bit_cast_u32(r[j]), bit_cast_u32(r[j + 1]), bit_cast_u32(r[j + 2]),
                               bit_cast_u32(r[j + 3])};
        arch::st_shared_cluster_v4(out + (j / 4 * 32 + l) * 4, o, v);
      }
    });
    arch::account_dsmem_stores(o, 32 * kRegs * 4, kRegs / 4);
    // Every lane's stores before the elected lane's release.
    if constexpr (Bug != SplitKBug::kNoSyncBeforeFull) arch::sync_warp();
    if (auto lane = elect_one()) {
      if constexpr (Bug == SplitKBug::kCtaScopeFull)
        arch::mbarrier_arrive_cluster(&s->full[q - first<Bug>(o)], o);
      else
        arch::mbarrier_arrive_cluster_release(&s->full[q - first<Bug>(o)], o);
    }
  }
};

}  // namespace sk
