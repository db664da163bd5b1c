// tmem_tile_writer.h: output TileIO for SM100: TMEM -> registers -> SMEM ->
// global memory by TMA store.
//
// Each epilogue warp owns one quarter of the 128 TMEM lanes (warp w may only
// touch lanes [32(w%4), 32(w%4)+32)), i.e. 32 rows of the tile. For every
// chunk of 32 columns it loads 32 x 32 FP32 accumulators (tcgen05.ld
// 32x32b.x32: lane l gets row l), converts them, writes them into a per-warp
// staging box in the swizzled layout the TMA store expects, and stores the
// box. The TMA store clips rows and columns outside the matrix, which is how
// edge tiles are masked; chunks that start past the edge are skipped.
//
// Ordering per chunk: wait until the previous store has finished reading the
// staging box (bulk wait_group.read), write it (generic proxy), make the writes
// visible to the async proxy (fence.proxy.async) on every lane, then one lane
// issues the store. flush() waits for all stores before the CTA exits.
//
// Rank is D's tensor map's: 2 (one matrix) or 3 (a batch of matrices; the
// store names the tile's matrix as the box's plane). With rank 2 the batch
// callers pass is always 0 (see tma_tile_loader.h).
#pragma once

#include "kernels/arch/sm100.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/numeric.h"
#include "kernels/core/platform.h"
#include "kernels/core/swizzle.h"

namespace sk {

template <class OutT, int BN, int Rank = 2>
class TmemTileWriter {
  static_assert(Rank == 2 || Rank == 3, "D's tensor map has rank 2 or 3");

 public:
  static constexpr uint32_t kChunk = 32;
  static constexpr uint32_t kRowBytes = kChunk * sizeof(OutT);  // 128 (F32) or 64 (BF16)
  static constexpr uint32_t kStagingBytes = 32 * kRowBytes;
  static_assert(BN % kChunk == 0, "tile N must be a multiple of 32");

  // staging: kStagingBytes of this warp's SMEM, aligned to 1024 bytes.
  SK_DEVICE TmemTileWriter(const arch::TensorMap* c_map, void* staging, uint32_t m, uint32_t n)
      : map_(c_map), staging_(static_cast<uint8_t*>(staging)), m_(m), n_(n) {}

  // Lane: warp. tmem_col: first column of the accumulator; quarter: warp % 4;
  // the tile starts at (m0, n0) of matrix `batch`. With `residual` (the
  // tile's C, [128][BN] row-major in SMEM), stores acc + beta * C instead.
  SK_DEVICE void write(uint32_t tmem_base, uint32_t tmem_col, uint32_t quarter, uint32_t m0,
                       uint32_t n0, int32_t batch, const OutT* residual = nullptr,
                       float beta = 0.0f, arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t row0 = m0 + 32 * quarter;
    if (row0 >= m_) return;  // this warp's rows are all past the edge
    for (uint32_t c = 0; c < BN / kChunk; ++c) {
      const uint32_t col0 = n0 + c * kChunk;
      if (col0 >= n_) break;
      LaneArray<uint32_t, 32> acc;
      arch::tcgen05_ld_32x32b_x32(tmem_base + ((32 * quarter) << 16) + tmem_col + c * kChunk, acc);
      arch::tcgen05_wait_ld();
      if (residual != nullptr) {
        const OutT* rows = residual + (32 * quarter) * BN + c * kChunk;
        for_each_lane([&](uint32_t l) { add_residual(acc.lane(l), rows + l * BN, beta); });
      }
      store_chunk(acc, row0, col0, batch);
    }
  }

  // Lane: warp. Stores a tile whose FP32 accumulators are in registers (lane
  // l holds row 32 * quarter + l, BN columns), as write() does from TMEM.
  SK_DEVICE void write_registers(const LaneArray<float, BN>& regs, uint32_t quarter, uint32_t m0,
                                 uint32_t n0, int32_t batch,
                                 arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    const uint32_t row0 = m0 + 32 * quarter;
    if (row0 >= m_) return;
    for (uint32_t c = 0; c < BN / kChunk; ++c) {
      const uint32_t col0 = n0 + c * kChunk;
      if (col0 >= n_) break;
      LaneArray<uint32_t, 32> acc;
      for_each_lane([&](uint32_t l) { memcpy(acc.lane(l), regs.lane(l) + c * kChunk, 4 * kChunk); });
      store_chunk(acc, row0, col0, batch);
    }
  }

  // Lane: warp. Waits until every store has completed.
  SK_DEVICE void flush(arch::CallSite site = arch::CallSite::current()) const {
    const arch::Caller caller(site);
    if (auto lane = elect_one()) arch::bulk_wait_group<0>();
    arch::sync_warp();
  }

 private:
  // acc[i] += beta * c[i] for the 32 columns of one row, reading C 16 bytes at
  // a time from shared memory.
  SK_DEVICE static void add_residual(uint32_t* acc, const OutT* c, float beta) {
    constexpr uint32_t kPerVec = 16 / sizeof(OutT);
    for (uint32_t v = 0; v < kChunk / kPerVec; ++v) {
      uint32_t words[4];
      arch::ld_shared_b128(c + v * kPerVec, words);
      OutT in[kPerVec];
      memcpy(in, words, 16);
      for (uint32_t e = 0; e < kPerVec; ++e) {
        float a;
        memcpy(&a, &acc[v * kPerVec + e], 4);
        if constexpr (sizeof(OutT) == 4)
          a += beta * in[e];
        else
          a += beta * to_float(in[e]);
        memcpy(&acc[v * kPerVec + e], &a, 4);
      }
    }
  }

  // One 32 x 32 box: staging (once the previous store has read it), then the
  // TMA store.
  SK_DEVICE void store_chunk(const LaneArray<uint32_t, 32>& acc, uint32_t row0, uint32_t col0,
                             int32_t batch) const {
    if (auto lane = elect_one()) arch::bulk_wait_group_read<0>();
    arch::sync_warp();
    for_each_lane([&](uint32_t l) { stage_row(acc.lane(l), l); });
    arch::fence_proxy_async_shared();
    arch::sync_warp();
    if (auto lane = elect_one()) {
      if constexpr (Rank == 3)
        arch::tma_store_3d(map_, staging_, static_cast<int32_t>(col0), static_cast<int32_t>(row0),
                           batch);
      else
        arch::tma_store_2d(map_, staging_, static_cast<int32_t>(col0), static_cast<int32_t>(row0));
      arch::bulk_commit_group();
    }
  }

  // Writes lane l's 32 accumulators as row l of the staging box, 16 bytes at a
  // time, at the swizzled positions (span = one row of the box).
  SK_DEVICE void stage_row(const uint32_t* acc, uint32_t l) const {
    constexpr uint32_t kPerVec = 16 / sizeof(OutT);
    for (uint32_t v = 0; v < kChunk / kPerVec; ++v) {
      OutT out[kPerVec];
      for (uint32_t e = 0; e < kPerVec; ++e) out[e] = from_accumulator<OutT>(acc[v * kPerVec + e]);
      uint32_t words[4];
      memcpy(words, out, 16);
      const uint32_t off = swizzle_offset<kRowBytes>(l * kRowBytes + v * 16);
      arch::st_shared_b128(staging_ + off, words);
    }
  }

  const arch::TensorMap* map_;
  uint8_t* staging_;
  uint32_t m_, n_;
};

}  // namespace sk
