// sm90_mutant_matmul.h: the SM90 matmul of the seeded-bug corpus, one mutation
// point per bug, written at the mbarrier level (PipelineState and intrinsics)
// so that waits, counts and byte announcements can be mutated.
//
// Sm90Mutant<Sm90Bug::kNone> is a correct Hopper matmul with the production
// kernel's structure (kernels/matmul/sm90_matmul.h): warpgroup 0's first warp
// loads A and B tiles by TMA into a 3-stage ring, warpgroups 1 and 2 each
// compute 64 rows of the 128 x 128 tile with wgmma and store them. Every other
// value changes exactly one thing, marked `if constexpr (B == ...)`. The same
// source runs in the model (verify cases, corpus_sm90.*) and on the H200
// (hw/h200/seeded_bugs.cu, under compute-sanitizer).
#pragma once

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "kernels/core/pipeline_state.h"
#include "kernels/pipeline/mbarrier_backend.h"
#include "kernels/pipeline/payloads.h"

namespace sk::corpus {

enum class Sm90Bug {
  kNone, kEarlyRelease, kNoFullWait, kExpectTxLow, kExpectTxHigh, kParityFixed,
  kEmptyCountLow, kStoreUnbounded, kEmptyNotInitialised, kNoLastWgmmaWait, kNoWgmmaFence,
};

template <Sm90Bug B>
struct Sm90Mutant {
  static constexpr int BM = 128, BN = 128, BK = 64, S = 3, kConsumerWarps = 8;
  static constexpr uint32_t kThreads = 384;
  static constexpr uint32_t kStageBytes = (BM + BN) * BK * 2;
  using Payload = StandardPayload<bf16_t, BM, BN, BK, S>;
  using Acc = LaneArray<float, BN / 2>;
  struct Smem {
    typename Payload::Storage tiles;
    typename MbarrierBackend<S>::Storage bars;
  };
  static constexpr uint32_t kSmemBytes = sizeof(Smem) + 1024;
  struct Params {
    arch::TensorMap a, b;  // K-major, box {64, 128}, 128B swizzle
    bf16_t* d;
    uint32_t m, n, k, ldd;
  };

  SK_DEVICE static void run(const Params& p) {
    Smem& s = smem();
    const uint32_t warp = arch::warp_idx();
    if (warp == 0) {
      if (auto lane = elect_one()) {
        for (int i = 0; i < S; ++i) {
          arch::mbarrier_init(&s.bars.full[i], 1);
          if constexpr (B != Sm90Bug::kEmptyNotInitialised)
            arch::mbarrier_init(&s.bars.empty[i], B == Sm90Bug::kEmptyCountLow ? 4 : kConsumerWarps);
          arch::annotate_barrier(&s.bars.full[i], "input.full", i);
          arch::annotate_barrier(&s.bars.empty[i], "input.empty", i);
        }
        arch::fence_mbarrier_init();
      }
    }
    arch::cta_sync();
    const uint32_t tiles_m = ceil_div<uint32_t>(p.m, BM);
    const uint32_t tiles = tiles_m * ceil_div<uint32_t>(p.n, BN), kb_count = ceil_div<uint32_t>(p.k, BK);
    if (warp < 4) {
      arch::warpgroup_reg_dealloc<40>();
      arch::annotate_role(warp == 0 ? "load" : "idle");
      if (warp == 0) produce(p, s, tiles, tiles_m, kb_count);
    } else {
      arch::warpgroup_reg_alloc<232>();
      arch::annotate_role("mma");
      consume(p, s, warp / 4 - 1, warp % 4, tiles, tiles_m, kb_count);
    }
  }

 private:
  SK_DEVICE static Smem& smem() {
    uint8_t* base = arch::dynamic_smem();
    return *reinterpret_cast<Smem*>(base + ((1024 - (arch::smem_addr(base) & 1023)) & 1023));
  }
  SK_DEVICE static void wait(uint64_t* bar, uint32_t parity) {
    while (!arch::mbarrier_try_wait_parity(bar, parity)) {
    }
  }

  SK_DEVICE static void produce(const Params& p, Smem& s, uint32_t tiles, uint32_t tiles_m,
                                uint32_t kb_count) {
    PipelineState<S> st;
    for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
      for (uint32_t kb = 0; kb < kb_count; ++kb, st.advance()) {
        const uint32_t i = st.index();
        wait(&s.bars.empty[i], (st.lap() & 1) ^ 1);
        if (auto lane = elect_one()) {
          const uint32_t bytes = B == Sm90Bug::kExpectTxLow    ? BM * BK * 2
                                 : B == Sm90Bug::kExpectTxHigh ? kStageBytes + 1024
                                                               : kStageBytes;
          arch::mbarrier_arrive_expect_tx(&s.bars.full[i], bytes);
          arch::tma_load_2d(s.tiles.a[i], &p.a, &s.bars.full[i], static_cast<int32_t>(kb * BK),
                            static_cast<int32_t>(t % tiles_m * BM));
          arch::tma_load_2d(s.tiles.b[i], &p.b, &s.bars.full[i], static_cast<int32_t>(kb * BK),
                            static_cast<int32_t>(t / tiles_m * BN));
        }
      }
    }
    for (int i = 0; i < S; ++i, st.advance()) wait(&s.bars.empty[st.index()], (st.lap() & 1) ^ 1);
  }

  SK_DEVICE static void consume(const Params& p, Smem& s, uint32_t half, uint32_t quarter,
                                uint32_t tiles, uint32_t tiles_m, uint32_t kb_count) {
    PipelineState<S> st;
    for (uint32_t t = arch::cta_idx(); t < tiles; t += arch::num_ctas()) {
      Acc acc;
      for (uint32_t kb = 0; kb < kb_count; ++kb, st.advance()) {
        const uint32_t i = st.index();
        if constexpr (B != Sm90Bug::kNoFullWait)
          wait(&s.bars.full[i], B == Sm90Bug::kParityFixed ? 0 : st.lap() & 1);
        const uint32_t a0 = arch::smem_addr(s.tiles.a[i]) + half * 64 * BK * 2;
        const uint32_t b0 = arch::smem_addr(s.tiles.b[i]);
        if constexpr (B == Sm90Bug::kEarlyRelease) {
          if (auto lane = elect_one()) arch::mbarrier_arrive(&s.bars.empty[i]);
        }
        // kNoWgmmaFence: no fence after the last k-block's wait_group.
        if (B != Sm90Bug::kNoWgmmaFence || kb == 0) arch::wgmma_fence();
        for (int k = 0; k < BK / 16; ++k)
          arch::wgmma_m64n128k16_bf16_ss(acc, arch::make_smem_desc_sw128(a0 + 32 * k),
                                         arch::make_smem_desc_sw128(b0 + 32 * k), kb > 0 || k > 0);
        arch::wgmma_commit_group();
        // kNoLastWgmmaWait: the warp's last group is never waited for.
        const bool last = t + arch::num_ctas() >= tiles && kb + 1 == kb_count;
        if (B != Sm90Bug::kNoLastWgmmaWait || !last) arch::wgmma_wait_group<0>();
        if constexpr (B != Sm90Bug::kEarlyRelease) {
          if (auto lane = elect_one()) arch::mbarrier_arrive(&s.bars.empty[i]);
        }
      }
      store(p, acc, t % tiles_m * BM + half * 64 + 16 * quarter, t / tiles_m * BN);
    }
  }

  SK_DEVICE static void store(const Params& p, const Acc& acc, uint32_t row0, uint32_t col0) {
    for_each_lane([&](uint32_t l) {
      const float* r = acc.lane(l);
      for (int j = 0; j < BN / 8; ++j)
        for (int h = 0; h < 2; ++h) {
          const uint32_t row = row0 + l / 4 + 8 * h;
          const uint32_t col = col0 + 8 * j + 2 * (l % 4);
          const bool row_ok = B == Sm90Bug::kStoreUnbounded || row < p.m;
          if (!row_ok || col >= p.n) continue;
          bf16_t* out = p.d + static_cast<uint64_t>(row) * p.ldd + col;
          const bf16_t lo = to_bf16(r[4 * j + 2 * h]), hi = to_bf16(r[4 * j + 2 * h + 1]);
          if (col + 1 < p.n)
            arch::st_global_b32(out, static_cast<uint32_t>(lo.bits) |
                                         static_cast<uint32_t>(hi.bits) << 16);
          else
            arch::st_global_b16(out, lo.bits);
        }
    });
    arch::account_global_store(32 * BN);
  }
};

}  // namespace sk::corpus
