// gfx942_pipeline_probe.hip: the synchronisation pattern gfx942 kernels use,
// compiled for gfx942 so gfx942_pipeline_asm_test can check its instructions.
//
// One producer wave and one consumer wave share a ring of two LDS stages.
// Each stage has a `full` and an `empty` counter in LDS, both monotonic:
//   * producer, k-th tile (stage s = k % 2, lap = k / 2): wait until
//     empty[s] >= lap (the consumer has freed the stage `lap` times), fill the
//     stage by LDS DMA (global_load_lds_dword), wait for the DMA with
//     s_waitcnt_vmcnt<0>() (a release does not cover LDS DMA), then one lane
//     increments full[s] (release, workgroup scope);
//   * consumer: wait until full[s] >= lap + 1, read its MFMA operands from the
//     stage (ds_read), run one mfma_f32_32x32x8_bf16, then one lane
//     increments empty[s]; the MFMA has consumed the operands, so the reads
//     are complete before the release.
// Waiters spin on atomic_load_acquire with s_sleep<0>() as backoff. Kernel
// code of this shape must compile unchanged against the MI300X model, so it
// uses sk::arch only, with lane intent explicit (elect_one_begin for the one
// increment per wave).
//
// Invariants: the kernel runs with exactly two waves per workgroup (128
// work-items) and dynamic LDS of kLdsBytes; tiles holds k_tiles stages of
// kStageBytes, each an A tile (32 rows x 8 K, BF16, K contiguous) followed by
// a B tile (32 columns x 8 K, likewise); out receives one Acc16 per lane.
#include "kernels/arch/gfx942.h"

using namespace sk::arch;

namespace {

constexpr uint32_t kStages = 2;
constexpr uint32_t kTileBytes = 32 * 8 * 2;           // 32 x 8 BF16
constexpr uint32_t kStageBytes = 2 * kTileBytes;      // A and B
constexpr uint32_t kDmaBytes = kWaveSize * 4;         // one global_load_lds_dword
constexpr uint32_t kCounterBytes = 64;                // full[2], empty[2], padded
constexpr uint32_t kLdsBytes = kCounterBytes + kStages * kStageBytes;
static_assert(kStageBytes % kDmaBytes == 0, "a stage is filled by whole wave DMAs");
static_assert(kLdsBytes <= 64 * 1024, "gfx942 has 64 KiB of LDS per workgroup");

SK_DEVICE void wait_at_least(const uint32_t* counter, uint32_t target) {
  while (atomic_load_acquire(counter, Scope::kWorkgroup) < target) {
    s_sleep<0>();
  }
}

SK_DEVICE void signal(uint32_t* counter) {
  if (elect_one_begin()) {
    atomic_add(counter, 1, Scope::kWorkgroup);
  }
  lane_scope_end();
}

// Lane l's operand for the 32x32x8 MFMA in a K-contiguous 32 x 8 tile: row
// (or column) l % 32, K elements 4 * (l / 32) .. + 3, i.e. Bf16x4 number
// 2 * (l % 32) + l / 32.
SK_DEVICE Bf16x4 operand(const uint8_t* tile, uint32_t lane) {
  return ld_lds(reinterpret_cast<const Bf16x4*>(tile) + 2 * (lane % 32) + lane / 32);
}

}  // namespace

extern "C" __global__ void sk_gfx942_pipeline_probe(const uint8_t* tiles, uint32_t k_tiles,
                                                    float* out) {
  uint8_t* lds = dynamic_lds();
  uint32_t* full = reinterpret_cast<uint32_t*>(lds);
  uint32_t* empty = full + kStages;
  uint8_t* stages = lds + kCounterBytes;
  const uint32_t lane = lane_idx();

  if (wave_idx() == 0) {
    for_each_lane([&](uint32_t l) {
      if (l < 2 * kStages) st_lds(full + l, 0u);
    });
  }
  for (uint32_t s = 0; s < kStages; ++s) {
    annotate_counter(full + s, "ring.full", static_cast<int>(s));
    annotate_counter(empty + s, "ring.empty", static_cast<int>(s));
  }
  workgroup_sync();

  if (wave_idx() == 0) {
    annotate_role("producer");
    for (uint32_t k = 0; k < k_tiles; ++k) {
      const uint32_t s = k % kStages;
      wait_at_least(empty + s, k / kStages);
      uint8_t* stage = stages + s * kStageBytes;
      const uint8_t* src = tiles + static_cast<uint64_t>(k) * kStageBytes;
      for (uint32_t off = 0; off < kStageBytes; off += kDmaBytes) {
        global_load_lds_dword(stage + off, src + off + 4 * lane);
      }
      s_waitcnt_vmcnt<0>();
      signal(full + s);
    }
  } else if (wave_idx() == 1) {
    annotate_role("consumer");
    Acc16 acc{};
    for (uint32_t k = 0; k < k_tiles; ++k) {
      const uint32_t s = k % kStages;
      wait_at_least(full + s, k / kStages + 1);
      const uint8_t* stage = stages + s * kStageBytes;
      mfma_f32_32x32x8_bf16(acc, operand(stage, lane), operand(stage + kTileBytes, lane));
      signal(empty + s);
    }
    for (int r = 0; r < 16; ++r) {
      st_global(out + 16 * lane + r, acc.v[r]);
    }
  }
}
