// wgmma_tile_writer.h: output TileIO for SM90: wgmma accumulators (registers)
// -> SMEM -> global memory by TMA store.
//
// A consumer warp of the SM90 matmul holds 16 rows of its warpgroup's 64 in
// the wgmma accumulator layout (kernels/arch/sm90/device/wgmma.h: lane l has
// rows l / 4 and l / 4 + 8, columns 8 j + 2 (l % 4) and the next, for every
// j). For every chunk of 64 columns it converts them to BF16, writes them as
// a 16 x 64 box into one of its two staging buffers in the 128B-swizzled
// layout the TMA store reads (each lane's 4-byte writes fall in 32 different
// banks), and stores the box; the TMA store clips rows and columns past the
// matrix. The stores run while the warp goes on (to the next chunk and the
// next tile's main loop), unlike st.global from registers, which holds the
// warp until the SM has issued every store.
//
// Ordering per chunk: wait until the store issued two chunks ago has read
// its buffer (bulk wait_group.read 1), write it (generic proxy), make the
// writes visible to the async proxy (fence.proxy.async.shared::cta) on every
// lane, then one lane issues the store and commits it. flush() waits for
// every store to complete before the warp exits.
//
// Invariants: each buffer is 2 KiB at a 1024-byte aligned SMEM address;
// D's map is rank 3 ({N, M, batches}, 2-byte elements, box {64, 16, 1},
// 128B swizzle).
#pragma once

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/numeric.h"
#include "kernels/core/platform.h"
#include "kernels/core/swizzle.h"

namespace sk {

template <int BN>
class WgmmaTileWriter {
 public:
  static constexpr uint32_t kCols = 64, kRows = 16;
  static constexpr uint32_t kBoxBytes = kCols * kRows * 2;  // one staging buffer
  // A chunk's latency in dependent FP32-pipe steps (alu_chain_step, 4.47
  // cycles) for the model: on an H100 a 128 x 256 tile's epilogue takes
  // 4,600-4,700 cycles (four chunks per warp), a 128 x 128 one's 2,600
  // (two), whatever the other SMs do (gemm_bench --stamp-tiles; docs/
  // hardware.md, "A tile's phases, stamped"), where the stores alone take
  // 528 cycles a box (l2_stream tma_stores).
  static constexpr uint32_t kChunkChain = 255;
  static_assert(BN % kCols == 0, "tile N must be a multiple of 64");

  // staging: 2 x kBoxBytes of this warp's SMEM, 1024-byte aligned.
  SK_DEVICE WgmmaTileWriter(const arch::TensorMap* d_map, uint8_t* staging, uint32_t m, uint32_t n)
      : map_(d_map), staging_(staging), m_(m), n_(n) {}

  // Lane: warp. The warp's 16 rows start at row0 of matrix `batch`, its
  // columns at col0.
  SK_DEVICE void write(const LaneArray<float, BN / 2>& acc, uint32_t row0, uint32_t col0,
                       int32_t batch, arch::CallSite site = arch::CallSite::current()) {
    const arch::Caller caller(site);
    if (row0 >= m_) return;
    // Unrolled, so that every accumulator index is a constant and the
    // accumulators stay in registers.
    SK_UNROLL
    for (uint32_t c = 0; c < BN / kCols; ++c) {
      if (col0 + c * kCols >= n_) break;
      uint8_t* box = staging_ + (chunk_ & 1) * kBoxBytes;
      if (auto lane = elect_one()) arch::bulk_wait_group_read<1>();
      arch::sync_warp();
      for_each_lane([&](uint32_t l) {
        const float* r = acc.lane(l) + 4 * (kCols / 8) * c;
        SK_UNROLL
        for (uint32_t j = 0; j < kCols / 8; ++j) {
          SK_UNROLL
          for (uint32_t h = 0; h < 2; ++h) {
            const uint32_t row = l / 4 + 8 * h, col = 8 * j + 2 * (l % 4);
            const bf16_t lo = to_bf16(r[4 * j + 2 * h]), hi = to_bf16(r[4 * j + 2 * h + 1]);
            const uint32_t word =
                static_cast<uint32_t>(lo.bits) | static_cast<uint32_t>(hi.bits) << 16;
            arch::st_shared(reinterpret_cast<uint32_t*>(box + swizzle_offset<128>(row * 128 + col * 2)),
                            word);
          }
        }
      });
      // 16 st.shared.b32 and 32 conversions per lane (the model's time for
      // what for_each_lane does not run in timing mode), and the chunk's
      // latency: kChunkChain dependent steps.
      arch::account_alu(48, 0, 0, kChunkChain);
      arch::fence_proxy_async_shared();
      arch::sync_warp();
      if (auto lane = elect_one()) {
        arch::tma_store_3d(map_, box, static_cast<int32_t>(col0 + c * kCols),
                           static_cast<int32_t>(row0), batch);
        arch::bulk_commit_group();
      }
      ++chunk_;
    }
  }

  // Lane: warp. Every store has completed (before the warp exits).
  SK_DEVICE void flush(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if (auto lane = elect_one()) arch::bulk_wait_group<0>();
    arch::sync_warp();
  }

 private:
  const arch::TensorMap* map_;
  uint8_t* staging_;
  uint32_t m_, n_;
  uint32_t chunk_ = 0;  // chunks stored so far: picks the buffer
};

}  // namespace sk
