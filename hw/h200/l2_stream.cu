// l2_stream.cu: how fast the L2 feeds TMA boxes to the SMs, measured apart
// from the tensor cores, for the SM90 model's load path (docs/hardware.md,
// "The L2's rate, measured apart").
//
// 1. share: SMs stream 16 KiB boxes (64 BF16 x 128 rows, 128B swizzle), one
//    thread each, one box per mbarrier, `inflight` loads outstanding; the
//    CTAs come in groups of `share` that read the same sequence of boxes (one
//    group per CTA: share 1; every CTA the same boxes: share = SMs). Each
//    group cycles over its own 8 boxes, so everything after the first pass
//    hits in L2. Run on every SM, then on half, a quarter, 9 and one of them
//    (a CTA per SM), with boxes of 16 KiB of consecutive bytes and with boxes
//    whose rows are 8 KiB apart (as a matmul's are).
//    Output: payload bytes per ns and per SM cycle of the SMs running.
//    share_hbm: the same stream from HBM (each CTA its own boxes, read once).
//    pairs: two boxes per mbarrier, from one tensor map or from two.
// 2. pitch: the same stream (share 1) from a tensor whose rows are `pitch`
//    bytes apart, so that a box's 128-byte rows start where a matrix of that
//    row pitch puts them (5008 bytes: every other row starts at 16 mod 32);
//    L2-resident (8 boxes a CTA) and from HBM, with the driver's L2
//    promotion off and at 256 B.
// 3. gemm: the producer of the SM90 matmul without its tensor cores: one CTA
//    per SM walks the output tiles in the kernel's order (tile_work, along M,
//    or in bands of `group` columns), and for each k-block loads A's 128 x 64
//    box and B's tile_n x 64 box into a ring of `stages` stages; a consumer
//    warp waits for each stage, holds it `compute` cycles (0: loads alone;
//    the tensor core's k-block time: a matmul whose wgmma costs exactly that)
//    and releases it. Output: time, SM clock, SM cycles per k-block and the
//    payload bytes per ns of all SMs together.
//    gemm_ctas: the loads alone of the large shapes with 132, 66, 33 and 16
//    CTAs, which tells a limit of the whole L2 from one of an SM.
//    gemm_skew: shapes of run_l2_walk.sh with each CTA starting its k-blocks
//    1 or 5 k-blocks past the one before it (k_skew), so that the CTAs that
//    share a box ask for it at different times: what the L2's serving of
//    simultaneous requests once is worth.
// 4. decode: the same loads for M = 1 (decode-sized GEMMs) against M = 128,
//    with variants of A's box that tell a line read by many SMs at once from
//    the box's out-of-bounds rows (run_decode).
// 5. oob (section 5 lives in l2_oob.cuh): boxes whose rows lie partly past
//    the tensor's last row, alone (run_oob): what the zero-filled rows cost,
//    per SM and for all SMs;
//    oob_sms: the same from chosen SMs (even or odd ids, either half);
//    oob_depth: by boxes in flight per SM (1-8) and SMs loading (8-132);
//    first_load: a launch's first stage alone, by CTAs, operands in L2 or not.
//    (gemm_shape M N K [TILE_N STAGES [K_SKEW]]: section 3's loads on that
//    one shape, every configuration or that one.)
// 6. stores: a matmul's output stored from 132 SMs in the wgmma fragment
//    layout, 4 and 16 bytes a lane, into 35 MB (L2 holds it) and 0.3-1.1 GB.
// 7. tma_stores: the TMA-store epilogue's 2 KiB boxes alone from 1 or 8 warps
//    per SM on 1-132 SMs, into 32 MiB or 1 GiB of D (run_tma_stores).
// 8. ring_trip: the stage ring alone (a stage's A and B boxes loaded and
//    released at once), 1 or 2 stages, on 1-132 SMs, boxes shared or each
//    CTA's own: the round trip and each load's latency by the SMs loading.
// 9. reuse (sections 9-11 live in l2_sides.cuh): what of a matmul's A stays in
//    L2 from one wave to the next. Every
//    SM reads, pass after pass, one 128-row block of a tensor of 128 rows per
//    SM (K = 64 x kblocks, the row block all its k-blocks, as a tile reads A),
//    the block moving `rotate` SMs on each pass (0: always its own; 8: as
//    A's blocks move between the waves of a 124-row-block matmul on 132 SMs;
//    67: across the GPU). Footprints 8-132 MiB: where the rate falls from
//    L2's to HBM's is the capacity that A's reuse gets.
// 10. halves: which SMs share a half of L2. For each SM s, the CTA on SM 0
//    reads 4 MiB that nothing read before (from HBM), then the CTA on SM s
//    reads the same 4 MiB (every other CTA exits at once). The second read's
//    time tells whether SM s found SM 0's lines on its own side (H200: 170-183
//    us against 214-229). Under Nsight Compute (hw/h200/run_l2_halves.sh)
//    the first read's sectors that cross between the L2 partitions show how
//    many lines are homed in the far half (the replay refetches between the
//    kernels, so the second read's counters do not count).
// 11. smids: the SM (%smid) each CTA of a one-CTA-per-SM launch runs on, by
//    block index, over five launches (the model runs CTA c on SM c, so a
//    table by SM that the model reads must be by block index).
// Every CUDA call is checked (one line and exit 2 on an error); times are
// medians of timed launches after warm-ups (bench_common.cuh).
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/l2_stream.cu -lcuda -o l2_stream
// Run: l2_stream [share|share_hbm|pairs|pitch|gemm|gemm_ctas|gemm_skew|decode|oob|oob_sms|oob_depth|first_load|stores|gemm_shape M N K [TILE_N STAGES [K_SKEW]]|tma_stores|ring_trip|reuse|halves|smids|all]   (CSV on stdout, sections marked)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "hw/h200/store_path.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/sched/static_persistent_scheduler.h"

namespace {

constexpr const char* kProg = "l2_stream";
#define CK(x) sk::bench::check_cuda((x), kProg, #x, __FILE__, __LINE__)

using sk::bench::clk;
using sk::bench::smem_align_1024;
using sk::bench::wait_phase;

// Thread 0's stream of `loads` 16 KiB boxes (64 x 128 BF16) of `map` into a
// ring of `inflight` buffers, one mbarrier each: load i goes to the buffer
// i % inflight once its last box has landed, at coords(i) = {column, row};
// then waits for the last boxes. Sections 1, 2, 5 and 9 differ only in coords.
struct BoxAt {
  int32_t col, row;
};
template <class Coords>
__device__ void stream_boxes(const CUtensorMap& map, uint32_t inflight, uint32_t loads, Coords coords) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t bars[16];
  uint8_t* base = smem_align_1024(smem);
  for (uint32_t s = 0; s < inflight; ++s) sk::arch::mbarrier_init(&bars[s], 1);
  sk::arch::fence_mbarrier_init();
  for (uint32_t i = 0; i < loads; ++i) {
    const uint32_t s = i % inflight;
    if (i >= inflight) wait_phase(&bars[s], ((i / inflight) - 1) & 1);
    sk::arch::mbarrier_arrive_expect_tx(&bars[s], 128 * 128);
    const BoxAt at = coords(i);
    sk::arch::tma_load_2d(base + s * 128 * 128, &map, &bars[s], at.col, at.row);
  }
  for (uint32_t i = loads; i < loads + inflight; ++i)
    if (i >= inflight) wait_phase(&bars[i % inflight], ((i / inflight) - 1) & 1);
}

// 1 and 2: CTA c reads boxes first + (c / share) * ring + (i % ring), i < loads.
__global__ void share_stream(const __grid_constant__ CUtensorMap map, uint32_t share, uint32_t ring,
                             uint32_t inflight, uint32_t loads, uint32_t first_box = 0) {
  if (threadIdx.x != 0) return;
  const uint32_t first = first_box + (blockIdx.x / share) * ring;
  stream_boxes(map, inflight, loads, [=](uint32_t i) {
    return BoxAt{0, static_cast<int32_t>((first + i % ring) * 128)};
  });
}

// 1c: as share_stream, with `boxes` boxes of 16 KiB per stage on one barrier,
// box b of a stage from map b when `two_maps` (else all from `a`); CTA c's
// stage i reads row block (c / share) * ring * boxes + (i % ring) * boxes + b.
__global__ void pair_stream(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                            uint32_t two_maps, uint32_t boxes, uint32_t share, uint32_t ring, uint32_t stages,
                            uint32_t loads) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t bars[16];
  if (threadIdx.x != 0) return;
  uint8_t* base = smem_align_1024(smem);
  for (uint32_t s = 0; s < stages; ++s) sk::arch::mbarrier_init(&bars[s], 1);
  sk::arch::fence_mbarrier_init();
  const uint32_t first = (blockIdx.x / share) * ring * boxes;
  for (uint32_t i = 0; i < loads; ++i) {
    const uint32_t s = i % stages;
    if (i >= stages) wait_phase(&bars[s], ((i / stages) - 1) & 1);
    sk::arch::mbarrier_arrive_expect_tx(&bars[s], boxes * 16384);
    for (uint32_t x = 0; x < boxes; ++x)
      sk::arch::tma_load_2d(base + (s * boxes + x) * 16384, two_maps && x == 1 ? &b : &a, &bars[s], 0,
                            static_cast<int32_t>((first + (i % ring) * boxes + x) * 128));
  }
  for (uint32_t i = loads; i < loads + stages; ++i)
    if (i >= stages) wait_phase(&bars[i % stages], ((i / stages) - 1) & 1);
}

// 7: every warp stores `boxes` boxes of 64 x 16 BF16 (2 KiB, 128B swizzle)
// from two staging buffers of its own by TMA, as the matmul's TMA-store
// epilogue does (kernels/io/wgmma_tile_writer.h: wait until the store of two
// boxes ago has read its buffer, fence, store, commit), walking a region of
// `region_rows` rows of D (`cols` columns) box after box; the buffers' bytes
// are whatever shared memory holds (only the rate is measured).
__global__ void tma_store_stream(const __grid_constant__ CUtensorMap map, uint32_t cols, uint32_t region_rows,
                                 uint32_t boxes) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* staging = smem_align_1024(smem) + (threadIdx.x / 32) * 4096;
  const uint32_t warps = blockDim.x / 32, lane = threadIdx.x % 32;
  const uint32_t col_blocks = cols / 64, row_blocks = region_rows / 16;
  uint64_t g = (static_cast<uint64_t>(blockIdx.x) * warps + threadIdx.x / 32) * boxes;
  for (uint32_t i = 0; i < boxes; ++i, ++g) {
    if (lane == 0) sk::arch::bulk_wait_group_read<1>();
    __syncwarp();
    sk::arch::fence_proxy_async_shared();
    __syncwarp();
    if (lane == 0) {
      sk::arch::tma_store_2d(&map, staging + (i & 1) * 2048, static_cast<int32_t>(g % col_blocks * 64),
                             static_cast<int32_t>(g / col_blocks % row_blocks * 16));
      sk::arch::bulk_commit_group();
    }
  }
  if (lane == 0) sk::arch::bulk_wait_group<0>();
}

// 8: the matmul's stage ring and nothing else: thread 0 loads A's and B's
// 128 x 64 boxes of k-block kb (32 KiB) into stage kb % stages, thread 32
// waits for each stage and releases it at once. CTA c reads A's row block
// a_row + c * a_step * 128 and B's b_row + c * b_step * 128 (step 0: every CTA
// the same boxes at about the same time; 1: its own rows, pages of its own).
// Each load's latency, from the producer's issue to the consumer seeing the
// stage full, is summed into lat[0] (and the loads counted in lat[1]).
__global__ void __launch_bounds__(64, 1)
    ring_trip(const __grid_constant__ CUtensorMap m, uint32_t a_row, uint32_t b_row, uint32_t a_step,
              uint32_t b_step, uint32_t kblocks, uint32_t stages, unsigned long long* lat) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[8], empty[8];
  __shared__ uint64_t issued[8];
  uint8_t* base = smem_align_1024(smem);
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < stages; ++s) {
      sk::arch::mbarrier_init(&full[s], 1);
      sk::arch::mbarrier_init(&empty[s], 1);
    }
    sk::arch::fence_mbarrier_init();
  }
  __syncthreads();
  const int32_t ar = static_cast<int32_t>(a_row + blockIdx.x * a_step * 128);
  const int32_t br = static_cast<int32_t>(b_row + blockIdx.x * b_step * 128);
  if (threadIdx.x == 0) {
    for (uint32_t kb = 0; kb < kblocks; ++kb) {
      const uint32_t s = kb % stages;
      if (kb >= stages) wait_phase(&empty[s], ((kb / stages) - 1) & 1);
      issued[s] = clk();
      sk::arch::mbarrier_arrive_expect_tx(&full[s], 2 * 16384);
      uint8_t* dst = base + s * 2 * 16384;
      sk::arch::tma_load_2d(dst, &m, &full[s], static_cast<int32_t>(kb * 64), ar);
      sk::arch::tma_load_2d(dst + 16384, &m, &full[s], static_cast<int32_t>(kb * 64), br);
    }
  } else if (threadIdx.x == 32) {
    unsigned long long sum = 0;
    for (uint32_t kb = 0; kb < kblocks; ++kb) {
      const uint32_t s = kb % stages;
      wait_phase(&full[s], (kb / stages) & 1);
      sum += clk() - issued[s];
      sk::arch::mbarrier_arrive(&empty[s]);
    }
    atomicAdd(&lat[0], sum);
    atomicAdd(&lat[1], static_cast<unsigned long long>(kblocks));
  }
}

struct GemmCfg {
  uint32_t tiles_m, tiles_n, kblocks, tile_n, stages, group, compute;
  // Section 4 only (kAVariants): A's box rows (128: the kernel's box; 1: one
  // row; 0: no A load) and the skew of A's k-block (CTA c loads A's k-block
  // (kb + c * a_skew) mod kblocks, so that CTAs at the same step read
  // different lines of A).
  uint32_t a_rows = 128, a_skew = 0;
  // Section 3 (gemm_skew): CTA c walks its k-blocks from (c * k_skew) mod
  // kblocks on, A's and B's alike, so that CTAs sharing a box do not ask
  // for it at the same step (0: every CTA from k-block 0, the kernel's).
  uint32_t k_skew = 0;
};

// 3: thread 0 loads, thread 32 consumes. kAVariants: A's box as c.a_rows and
// c.a_skew say (section 4); without it the loads are the kernel's.
template <bool kAVariants>
__global__ void __launch_bounds__(64, 1)
    gemm_loads(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, GemmCfg c) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[8], empty[8];
  uint8_t* base = smem_align_1024(smem);
  const uint32_t a_rows = kAVariants ? c.a_rows : 128;
  const uint32_t stage_bytes = a_rows * 128 + c.tile_n * 128;
  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < c.stages; ++s) {
      sk::arch::mbarrier_init(&full[s], 1);
      sk::arch::mbarrier_init(&empty[s], 1);
    }
    sk::arch::fence_mbarrier_init();
  }
  __syncthreads();
  const uint32_t tiles = c.tiles_m * c.tiles_n;
  uint32_t it = 0;
  if (threadIdx.x == 0) {
    for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const sk::WorkInfo w = sk::tile_work(t, c.tiles_m, c.tiles_n, 1, c.group);
      for (uint32_t kb = 0; kb < c.kblocks; ++kb, ++it) {
        const uint32_t s = it % c.stages;
        if (it >= c.stages) wait_phase(&empty[s], ((it / c.stages) - 1) & 1);
        sk::arch::mbarrier_arrive_expect_tx(&full[s], stage_bytes);
        uint8_t* dst = base + s * stage_bytes;
        const uint32_t kk = kAVariants || c.k_skew == 0 ? kb : (kb + blockIdx.x * c.k_skew) % c.kblocks;
        if (!kAVariants) {
          sk::arch::tma_load_2d(dst, &a, &full[s], static_cast<int32_t>(kk * 64), w.m_tile * 128);
        } else if (a_rows != 0) {
          const uint32_t kb_a = (kb + blockIdx.x * c.a_skew) % c.kblocks;
          sk::arch::tma_load_2d(dst, &a, &full[s], static_cast<int32_t>(kb_a * 64), w.m_tile * 128);
        }
        sk::arch::tma_load_2d(dst + 128 * 128, &b, &full[s], static_cast<int32_t>(kk * 64),
                              w.n_tile * static_cast<int32_t>(c.tile_n));
      }
    }
  } else if (threadIdx.x == 32) {
    for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x)
      for (uint32_t kb = 0; kb < c.kblocks; ++kb, ++it) {
        const uint32_t s = it % c.stages;
        wait_phase(&full[s], (it / c.stages) & 1);
        const uint64_t t0 = clk();
        while (clk() - t0 < c.compute) {
        }
        sk::arch::mbarrier_arrive(&empty[s]);
      }
  }
}

// A 2-D BF16 map: dims {cols, rows}, rows `pitch` bytes apart, box {64, box_rows}.
CUtensorMap map2d(void* base, uint64_t cols, uint64_t rows, uint64_t pitch, uint32_t box_rows,
                  CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {pitch};
  const cuuint32_t box[2] = {64, box_rows}, es[2] = {1, 1};
  if (sk::bench::encode_fn(kProg)(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promo,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: tensor map encoding failed (pitch %llu)\n", kProg,
                 static_cast<unsigned long long>(pitch));
    std::exit(2);
  }
  return m;
}

// Enough copies of an M x N x K problem's A and B (BF16, rows `ld`
// elements apart, B right after A) that consecutive launches do not find
// the last one's in L2 (as gemm_bench rotates its inputs); map(i, rows of A's
// box, rows of B's box) gives copy i's maps.
struct OperandSets {
  uint32_t m, n, k;
  uint64_t ld;
  std::vector<void*> bufs;
  OperandSets(uint32_t m_, uint32_t n_, uint32_t k_, uint64_t ld_) : m(m_), n(n_), k(k_), ld(ld_) {
    const uint64_t set = 2 * ld * (uint64_t{m} + n);
    const int sets = std::max(1, std::min(8, static_cast<int>(3 * 64e6 / static_cast<double>(set) + 0.999)));
    for (int i = 0; i < sets; ++i) {
      void* p = nullptr;
      CK(cudaMalloc(&p, set));
      CK(cudaMemset(p, 0x3c, set));
      bufs.push_back(p);
    }
  }
  ~OperandSets() {
    for (void* p : bufs) CK(cudaFree(p));
  }
  OperandSets(const OperandSets&) = delete;
  OperandSets& operator=(const OperandSets&) = delete;
  int count() const { return static_cast<int>(bufs.size()); }
  CUtensorMap a(int i, uint32_t box_rows) const { return map2d(bufs[i], k, m, 2 * ld, box_rows); }
  CUtensorMap b(int i, uint32_t box_rows) const {
    return map2d(static_cast<uint8_t*>(bufs[i]) + 2 * ld * m, k, n, 2 * ld, box_rows);
  }
};

int g_sms = 0;

// Times `launch` (median of 5 after warm-ups); returns {us, mhz}.
template <class Launch>
std::pair<double, double> timed(Launch&& launch) {
  double mhz = 0;
  const float ms = sk::bench::time_median(
      5, [&](int i) { launch(i); CK(cudaGetLastError()); }, [] { CK(cudaDeviceSynchronize()); }, mhz, kProg);
  return {ms * 1e3, mhz};
}

void run_share(void* buf) {
  std::printf("section,share\nrow_pitch,ctas,share,inflight,ring_boxes,footprint_mib,us,mhz,bytes_per_ns,"
              "bytes_per_sm_cycle\n");
  const uint32_t ring = 8, loads = 2048;
  // Row pitch 128: a box is 16 KiB of consecutive bytes; 8192: its 128-byte
  // rows 8 KiB apart, as a matmul's A and B boxes are.
  for (uint64_t pitch : {128ull, 8192ull}) {
    const CUtensorMap m = map2d(buf, 64, (1ull << 30) / pitch, pitch, 128);
    for (int ctas : {g_sms, g_sms / 2, g_sms / 4, 9, 1})
      for (uint32_t share : {1u, 2u, 4u, 8u, 16u, 33u, 66u, 132u}) {
        if (share > static_cast<uint32_t>(ctas)) continue;
        for (uint32_t inflight : {1u, 2u, 4u, 6u, 8u}) {
          if (ctas != g_sms && inflight != 4 && inflight != 8) continue;
          const int smem = 8 * 16384 + 1024;  // more than half the SM's: one CTA per SM
          CK(cudaFuncSetAttribute(share_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          auto [us, mhz] = timed([&](int) { share_stream<<<ctas, 32, smem>>>(m, share, ring, inflight, loads); });
          const double bytes = 16384.0 * loads * ctas;
          const uint32_t groups = (ctas + share - 1) / share;
          std::printf("%llu,%d,%u,%u,%u,%.1f,%.1f,%.0f,%.1f,%.2f\n", static_cast<unsigned long long>(pitch), ctas,
                      share, inflight, ring, groups * ring * 16384.0 / (1 << 20), us, mhz, bytes / (us * 1e3),
                      bytes / (us * mhz) / ctas);
        }
      }
  }
}

// 1b: the same stream from HBM: each CTA reads its own run of boxes once
// (1 GiB in all, more than L2 holds), on few SMs, so that HBM is not the limit.
void run_share_hbm(void* buf) {
  std::printf("section,share_hbm\nctas,inflight,loads,us,mhz,bytes_per_ns,bytes_per_sm_cycle\n");
  const CUtensorMap m = map2d(buf, 64, (1ull << 30) / 128, 128, 128);
  for (int ctas : {1, 9, 16, 33})
    for (uint32_t inflight : {2u, 4u, 8u}) {
      const uint32_t loads = std::min<uint32_t>(2048, static_cast<uint32_t>((1u << 30) / 16384 / ctas));
      const int smem = 8 * 16384 + 1024;
      CK(cudaFuncSetAttribute(share_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      // Where four launches' boxes fit in 1 GiB, launch i reads the (i % 4)-th
      // region, so that no launch finds the last one's boxes in L2.
      const uint32_t region = static_cast<uint32_t>(ctas) * loads;
      auto [us, mhz] = timed([&](int i) {
        share_stream<<<ctas, 32, smem>>>(m, 1, loads, inflight, loads, 4 * region <= 65536 ? (i % 4) * region : 0);
      });
      const double bytes = 16384.0 * loads * ctas;
      std::printf("%d,%u,%u,%.1f,%.0f,%.1f,%.2f\n", ctas, inflight, loads, us, mhz, bytes / (us * 1e3),
                  bytes / (us * mhz) / ctas);
    }
}

void run_pairs(void* buf) {
  std::printf("section,pairs\nboxes_per_stage,two_maps,ctas,share,stages,us,mhz,bytes_per_ns,bytes_per_sm_cycle\n");
  const uint64_t rows = (1ull << 29) / 128;  // two maps over separate halves of 1 GiB
  const CUtensorMap a = map2d(buf, 64, rows, 128, 128);
  const CUtensorMap b = map2d(static_cast<uint8_t*>(buf) + (1ull << 29), 64, rows, 128, 128);
  const uint32_t ring = 8, loads = 1024;
  for (int mode = 0; mode < 3; ++mode) {  // 1 box a stage; 2 of one map; 2 of two maps
    const uint32_t boxes = mode == 0 ? 1 : 2, two = mode == 2 ? 1 : 0;
    for (int ctas : {1, 9, 33, g_sms})
      for (uint32_t stages : {2u, 4u}) {
        const uint32_t share = ctas == g_sms ? 2 : 1;
        const int smem = 8 * 16384 + 1024;
        CK(cudaFuncSetAttribute(pair_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto [us, mhz] = timed([&](int) { pair_stream<<<ctas, 32, smem>>>(a, b, two, boxes, share, ring, stages, loads); });
        const double bytes = 16384.0 * boxes * loads * ctas;
        std::printf("%u,%u,%d,%u,%u,%.1f,%.0f,%.1f,%.2f\n", boxes, two, ctas, share, stages, us, mhz,
                    bytes / (us * 1e3), bytes / (us * mhz) / ctas);
      }
  }
}

void run_pitch(void* buf, uint64_t buf_bytes) {
  std::printf("section,pitch\npitch,pitch_mod_128,promotion,where,inflight,us,mhz,bytes_per_ns,bytes_per_sm_cycle\n");
  for (uint64_t pitch : {4992ull, 5008ull, 5024ull, 5040ull, 5056ull, 5120ull, 6144ull, 6160ull})
    for (int promo : {0, 256})
      for (int hbm : {0, 1})
        for (uint32_t inflight : {2u, 6u}) {
          const uint64_t rows = buf_bytes / pitch;
          const CUtensorMap m = map2d(buf, 64, rows, pitch, 128,
                                      promo == 0 ? CU_TENSOR_MAP_L2_PROMOTION_NONE : CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
          // L2: 8 boxes a CTA again and again; HBM: each CTA its own run of boxes, read once.
          const uint32_t ring = hbm ? static_cast<uint32_t>(rows / 128 / g_sms) : 8;
          const uint32_t loads = hbm ? ring : 2048;
          const int smem = static_cast<int>(inflight * 16384 + 1024);
          CK(cudaFuncSetAttribute(share_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          auto [us, mhz] = timed([&](int) { share_stream<<<g_sms, 32, smem>>>(m, 1, ring, inflight, loads); });
          const double bytes = 16384.0 * loads * g_sms;
          std::printf("%llu,%llu,%d,%s,%u,%.1f,%.0f,%.1f,%.2f\n", static_cast<unsigned long long>(pitch),
                      static_cast<unsigned long long>(pitch % 128), promo, hbm ? "hbm" : "l2", inflight, us, mhz,
                      bytes / (us * 1e3), bytes / (us * mhz) / g_sms);
        }
}

struct GemmShape {
  uint32_t m, n, k;
};

// What run_gemm measures: the section's name; `ctas` non-empty: the loads
// alone (compute 0, group 1) of the large shapes with that many CTAs (else
// one CTA per SM, every configuration); `shapes` non-empty: these instead of
// the section's list; `configs` non-empty: these {tile_n, stages} alone (as
// Nsight Compute profiles one, run_l2_walk.sh); `k_skews` other than {0}:
// each of them, in a column of its own (GemmCfg::k_skew).
struct GemmRun {
  const char* section = "gemm";
  std::vector<int> ctas;
  std::vector<GemmShape> shapes;
  std::vector<std::pair<uint32_t, uint32_t>> configs;
  std::vector<uint32_t> k_skews = {0};
};

void run_gemm(const GemmRun& run) {
  const bool skews = run.k_skews.size() > 1 || run.k_skews[0] != 0;
  std::printf("section,%s\nshape,tile_n,stages,group,compute,ctas,%sus,mhz,kblock_cycles,bytes_per_ns\n", run.section,
              skews ? "k_skew," : "");
  const bool by_ctas = !run.ctas.empty();
  const std::vector<GemmShape> all = {{2048, 2048, 8192}, {4096, 4096, 4096}, {8192, 8192, 8192},
                                      {2496, 2496, 2496}, {2504, 2504, 2504}, {3072, 3072, 3072},
                                      {3080, 3080, 3080}, {384, 384, 10048},  {576, 448, 12672}};
  for (const GemmShape& s : run.shapes.empty() ? all : run.shapes) {
    if (by_ctas && !(s.m == 4096 || (s.m == 2048 && s.k == 8192))) continue;
    const OperandSets ops(s.m, s.n, s.k, (s.k + 7) / 8 * 8);
    const int sets = ops.count();
    std::vector<CUtensorMap> maps_a, maps_b128, maps_b256;
    for (int i = 0; i < sets; ++i) {
      maps_a.push_back(ops.a(i, 128));
      maps_b128.push_back(ops.b(i, 128));
      maps_b256.push_back(ops.b(i, 256));
    }
    const bool big = s.m == 4096 || s.m == 8192;
    for (uint32_t tile_n : {128u, 256u})
      for (uint32_t stages = 2; stages <= (tile_n == 128 ? 6u : 4u); ++stages)
        for (uint32_t group : {1u, 8u}) {
          if (group != 1 && (!big || by_ctas || skews)) continue;
          if (!run.configs.empty() &&
              std::find(run.configs.begin(), run.configs.end(), std::pair{tile_n, stages}) == run.configs.end())
            continue;
          if (by_ctas && stages != 4 && stages != (tile_n == 128 ? 6u : 3u)) continue;
          for (int ctas : by_ctas ? run.ctas : std::vector<int>{g_sms})
            for (uint32_t compute : {0u, tile_n == 128 ? 520u : 1040u})
              for (uint32_t k_skew : run.k_skews) {
                if (by_ctas && compute != 0) continue;
                GemmCfg c{(s.m + 127) / 128, (s.n + tile_n - 1) / tile_n, (s.k + 63) / 64, tile_n, stages, group,
                          compute};
                c.k_skew = k_skew;
                const int smem = static_cast<int>(stages * (128 + tile_n) * 128 + 1024);
                CK(cudaFuncSetAttribute(gemm_loads<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                auto [us, mhz] = timed([&](int i) {
                  const int at = i % sets;
                  gemm_loads<false><<<ctas, 64, smem>>>(maps_a[at], tile_n == 128 ? maps_b128[at] : maps_b256[at], c);
                });
                const uint32_t tiles = c.tiles_m * c.tiles_n, per_cta = (tiles + ctas - 1) / ctas;
                const double bytes = static_cast<double>(tiles) * c.kblocks * (128 + tile_n) * 128;
                std::printf("%ux%ux%u,%u,%u,%u,%u,%d,", s.m, s.n, s.k, tile_n, stages, group, compute, ctas);
                if (skews) std::printf("%u,", k_skew);
                std::printf("%.1f,%.0f,%.0f,%.1f\n", us, mhz, us * mhz / (static_cast<double>(per_cta) * c.kblocks),
                            bytes / (us * 1e3));
              }
        }
  }
}

// 4: the decode shapes (M = 1: one row of A, so every A box is one 128-byte
// row and 127 rows out of bounds) against M = 128, the loads alone and held
// for the tensor core's k-block, one CTA per output tile up to one per SM.
// For M = 1 the variants tell which part of A's box costs: the kernel's box
// (a_rows 128), the same with each CTA on a different k-block of A at a time
// (a_skew 1: no line read by many SMs at once), a box of A's one row
// (a_rows 1: nothing out of bounds) and no A at all (a_rows 0).
void run_decode() {
  std::printf("section,decode\nshape,tile_n,stages,compute,a_rows,a_skew,ctas,us,mhz,kblock_cycles,b_bytes_per_ns\n");
  struct Shape {
    uint32_t m, n, k;
  };
  const Shape shapes[] = {{1, 4096, 4096},   {128, 4096, 4096},   {1, 8192, 8192},  {128, 8192, 8192},
                          {1, 12288, 4096},  {128, 12288, 4096},  {1, 57344, 8192}, {128, 57344, 8192}};
  for (const Shape& s : shapes) {
    const OperandSets ops(s.m, s.n, s.k, s.k);
    const int sets = ops.count();
    std::vector<CUtensorMap> a128, a1, b128, b256;
    for (int i = 0; i < sets; ++i) {
      a128.push_back(ops.a(i, 128));
      a1.push_back(ops.a(i, 1));
      b128.push_back(ops.b(i, 128));
      b256.push_back(ops.b(i, 256));
    }
    struct Variant {
      uint32_t rows, skew;
    };
    const std::vector<Variant> variants =
        s.m == 1 ? std::vector<Variant>{{128, 0}, {128, 1}, {1, 0}, {0, 0}} : std::vector<Variant>{{128, 0}};
    for (uint32_t tile_n : {128u, 256u})
      for (uint32_t stages : {2u, 4u, 6u}) {
        if (tile_n == 256 && stages == 6) continue;
        for (uint32_t compute : {0u, tile_n == 128 ? 520u : 1040u})
          for (const Variant& v : variants) {
            GemmCfg c{1, (s.n + tile_n - 1) / tile_n, (s.k + 63) / 64, tile_n, stages, 1, compute, v.rows, v.skew};
            const int ctas = static_cast<int>(std::min<uint32_t>(c.tiles_n, static_cast<uint32_t>(g_sms)));
            const int smem = static_cast<int>(stages * (128 + tile_n) * 128 + 1024);
            CK(cudaFuncSetAttribute(gemm_loads<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            auto [us, mhz] = timed([&](int i) {
              const int at = i % sets;
              gemm_loads<true><<<ctas, 64, smem>>>(v.rows == 1 ? a1[at] : a128[at],
                                                   tile_n == 128 ? b128[at] : b256[at], c);
            });
            const uint32_t per_cta = (c.tiles_n + ctas - 1) / ctas;
            const double b_bytes = static_cast<double>(s.n) * s.k * 2;
            std::printf("%ux%ux%u,%u,%u,%u,%u,%u,%d,%.1f,%.0f,%.0f,%.1f\n", s.m, s.n, s.k, tile_n, stages, compute,
                        v.rows, v.skew, ctas, us, mhz, us * mhz / (static_cast<double>(per_cta) * c.kblocks),
                        b_bytes / (us * 1e3));
          }
      }
  }
}

// 6: stores of a matmul's output larger than L2 (store_path.cuh's
// print_output_footprint: 132 CTAs, 8 / 64 / 256 tiles of 128 x 128 each,
// 4-byte and 16-byte forms, fresh lines), beside the reference rows of 8 tiles.
void run_stores() {
  sk::bench::store_path::Buffers b{nullptr, nullptr, nullptr, nullptr, 5, kProg};
  CK(cudaMalloc(&b.times, 128 * sizeof(uint64_t)));
  CK(cudaMalloc(&b.sink, sizeof(float)));
  CK(cudaMalloc(&b.store, sk::bench::store_path::kStoreBufBytes));
  std::printf("section,stores\n%s\n", sk::bench::store_path::kFragmentStoresHeader);
  sk::bench::store_path::print_output_footprint(b);
  CK(cudaFree(b.store));
  CK(cudaFree(b.sink));
  CK(cudaFree(b.times));
}

// 7: the TMA-store epilogue's stores alone: 1 or 8 warps per CTA (the matmul
// has 8 storing warps) on 1-132 SMs, into 32 MiB of D (L2 holds it, the same
// lines again and again) or 1 GiB (fresh lines, written back to HBM).
// Output: bytes per SM cycle of each SM and TB/s of all together.
void run_tma_stores(void* buf) {
  std::printf("section,tma_stores\nwarps,ctas,region_mib,boxes_per_warp,us,mhz,bytes_per_sm_cycle,tb_per_s\n");
  const uint32_t cols = 8192;  // 16 KiB rows
  for (uint32_t region_mib : {32u, 1024u}) {
    const uint32_t rows = static_cast<uint32_t>((uint64_t{region_mib} << 20) / (2 * cols));
    const CUtensorMap m = map2d(buf, cols, rows, 2 * cols, 16, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    for (uint32_t warps : {1u, 8u})
      for (int ctas : {1, 16, 33, 66, g_sms}) {
        // At least 64 MiB a launch, and 256 boxes a warp.
        const uint32_t boxes =
            std::max<uint32_t>(256, static_cast<uint32_t>((64u << 20) / 2048 / (static_cast<uint32_t>(ctas) * warps)));
        const int smem = static_cast<int>(warps * 4096 + 1024);
        CK(cudaFuncSetAttribute(tma_store_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto [us, mhz] = timed([&](int) { tma_store_stream<<<ctas, 32 * warps, smem>>>(m, cols, rows, boxes); });
        const double bytes = 2048.0 * boxes * warps * ctas;
        std::printf("%u,%d,%u,%u,%.1f,%.0f,%.2f,%.3f\n", warps, ctas, region_mib, boxes, us, mhz,
                    bytes / (us * mhz) / ctas, bytes / (us * 1e6));
      }
  }
}

// 8: ring_trip: the stage ring's round trip and each load's latency by the
// number of CTAs loading (1-132, one per SM), with A's and B's boxes shared
// by every CTA or each CTA's own, rows 8 KiB or 32 KiB apart (K = 4096 or
// 16384: a box's 128 rows span 1 MiB or 4 MiB, half a 2 MiB page or two),
// 1 or 2 stages, nothing between a stage's arrival and its release. Every
// launch reads rows that no launch read in the last 192 MiB of reads, or as
// far back as the 2 GiB buffer allows (HBM).
void run_ring_trip(void* buf, uint64_t buf_bytes) {
  std::printf("section,ring_trip\nk,sharing,ctas,stages,us,mhz,kblock_cycles,load_latency_cycles\n");
  unsigned long long* lat = nullptr;
  CK(cudaMalloc(&lat, 2 * sizeof(unsigned long long)));
  struct Sharing {
    const char* name;
    uint32_t a_step, b_step;
  };
  const Sharing sharings[] = {{"own", 1, 1}, {"a_shared", 0, 1}, {"all_shared", 0, 0}};
  for (uint32_t k : {4096u, 16384u}) {
    const uint64_t pitch = 2ull * k, rows = buf_bytes / pitch;
    const CUtensorMap m = map2d(buf, k, rows, pitch, 128);
    for (const Sharing& sh : sharings)
      for (int ctas : {1, 2, 4, 8, 16, 33, 66, g_sms})
        for (uint32_t stages : {1u, 2u}) {
          const uint64_t a_rows = 128ull * (1 + (ctas - 1) * sh.a_step), b_rows = 128ull * (1 + (ctas - 1) * sh.b_step);
          // A launch reads a_rows + b_rows rows of the tensor; consecutive
          // launches take sets of rows in turn, so that at least 192 MiB of
          // reads lie between two launches of one set (as many sets as the
          // buffer holds).
          const uint64_t set_rows = (a_rows + b_rows + 1023) / 1024 * 1024;
          if (set_rows > rows) continue;  // a launch's rows do not fit in the buffer
          const uint64_t read_bytes = (a_rows + b_rows) * pitch;
          const uint64_t sets = std::clamp<uint64_t>((192ull << 20) / read_bytes + 1, 1, rows / set_rows);
          const int smem = static_cast<int>(stages * 2 * 16384 + 1024);
          CK(cudaFuncSetAttribute(ring_trip, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          CK(cudaMemset(lat, 0, 2 * sizeof(unsigned long long)));
          uint64_t launch = 0;  // warm-ups and timed launches alike: each its own set in turn
          auto [us, mhz] = timed([&](int) {
            const uint32_t a0 = static_cast<uint32_t>((launch++ % sets) * set_rows);
            ring_trip<<<ctas, 64, smem>>>(m, a0, static_cast<uint32_t>(a0 + a_rows), sh.a_step, sh.b_step, k / 64,
                                          stages, lat);
          });
          unsigned long long h[2];
          CK(cudaMemcpy(h, lat, sizeof(h), cudaMemcpyDeviceToHost));
          std::printf("%u,%s,%d,%u,%.1f,%.0f,%.0f,%.0f\n", k, sh.name, ctas, stages, us, mhz, us * mhz / (k / 64),
                      static_cast<double>(h[0]) / static_cast<double>(h[1]));
        }
  }
  CK(cudaFree(lat));
}

#include "hw/h200/l2_oob.cuh"    // section 5, in this namespace
#include "hw/h200/l2_sides.cuh"  // sections 9-11, in this namespace

}  // namespace

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "all";
  if (std::strcmp(what, "gemm_shape") == 0) {  // gemm_shape M N K [TILE_N STAGES [K_SKEW]]: section gemm on that shape
    unsigned m = 0, n = 0, k = 0, tile_n = 0, stages = 0, k_skew = 0;
    const bool one = argc >= 7;
    if ((argc != 5 && argc != 7 && argc != 8) || std::sscanf(argv[2], "%u", &m) != 1 ||
        std::sscanf(argv[3], "%u", &n) != 1 || std::sscanf(argv[4], "%u", &k) != 1 || m == 0 || n == 0 || k == 0 ||
        (one && (std::sscanf(argv[5], "%u", &tile_n) != 1 || std::sscanf(argv[6], "%u", &stages) != 1 ||
                 (tile_n != 128 && tile_n != 256) || stages < 2 || stages > (tile_n == 128 ? 6u : 4u))) ||
        (argc == 8 && std::sscanf(argv[7], "%u", &k_skew) != 1)) {
      std::fprintf(stderr, "%s: gemm_shape needs M N K (whole numbers >= 1), then optionally TILE_N (128, 256) "
                   "and STAGES (2-6, 2-4 for 256), then optionally K_SKEW (>= 0)\n", kProg);
      return 2;
    }
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    GemmRun run{.section = "gemm_shape", .shapes = {{m, n, k}}, .k_skews = {k_skew}};
    if (one) run.configs = {{tile_n, stages}};
    run_gemm(run);
    return 0;
  }
  const bool all = std::strcmp(what, "all") == 0;
  if (!all && std::strcmp(what, "share") != 0 && std::strcmp(what, "share_hbm") != 0 &&
      std::strcmp(what, "pairs") != 0 && std::strcmp(what, "gemm_ctas") != 0 &&
      std::strcmp(what, "pitch") != 0 && std::strcmp(what, "gemm") != 0 && std::strcmp(what, "gemm_skew") != 0 && std::strcmp(what, "decode") != 0 &&
      std::strcmp(what, "oob") != 0 && std::strcmp(what, "oob_sms") != 0 && std::strcmp(what, "oob_depth") != 0 &&
      std::strcmp(what, "first_load") != 0 &&
      std::strcmp(what, "stores") != 0 && std::strcmp(what, "tma_stores") != 0 &&
      std::strcmp(what, "ring_trip") != 0 && std::strcmp(what, "reuse") != 0 &&
      std::strcmp(what, "halves") != 0 && std::strcmp(what, "smids") != 0) {
    std::fprintf(stderr, "%s: unknown section '%s' (share, share_hbm, pairs, pitch, gemm, gemm_ctas, gemm_skew, decode, oob, oob_sms, oob_depth, first_load, stores, tma_stores, ring_trip, reuse, halves, smids or all)\n",
                 kProg, what);
    return 2;
  }
  CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  const uint64_t buf_bytes = 2ull << 30;
  void* buf = nullptr;
  CK(cudaMalloc(&buf, buf_bytes));
  CK(cudaMemset(buf, 0x3c, buf_bytes));
  if (all || std::strcmp(what, "share") == 0) run_share(buf);
  if (all || std::strcmp(what, "share_hbm") == 0) run_share_hbm(buf);
  if (all || std::strcmp(what, "pairs") == 0) run_pairs(buf);
  if (all || std::strcmp(what, "pitch") == 0) run_pitch(buf, buf_bytes);
  if (all || std::strcmp(what, "oob") == 0) run_oob(buf);
  if (all || std::strcmp(what, "oob_sms") == 0) run_oob_sms(buf);
  if (all || std::strcmp(what, "oob_depth") == 0) run_oob_depth(buf);
  if (all || std::strcmp(what, "first_load") == 0) run_first_load(buf);
  if (all || std::strcmp(what, "tma_stores") == 0) run_tma_stores(buf);
  if (all || std::strcmp(what, "ring_trip") == 0) run_ring_trip(buf, buf_bytes);
  if (all || std::strcmp(what, "reuse") == 0) run_reuse(buf);
  if (all || std::strcmp(what, "halves") == 0) run_halves(buf);
  if (all || std::strcmp(what, "smids") == 0) run_smids();
  CK(cudaFree(buf));
  if (all || std::strcmp(what, "stores") == 0) run_stores();
  if (all || std::strcmp(what, "gemm") == 0) run_gemm({});
  if (all || std::strcmp(what, "gemm_ctas") == 0)
    run_gemm({.section = "gemm_ctas", .ctas = {g_sms, g_sms / 2, g_sms / 4, 16}});
  if (all || std::strcmp(what, "gemm_skew") == 0)
    run_gemm({.section = "gemm_skew",
              .shapes = {{256, 67584, 2624}, {512, 33792, 2624}, {896, 14656, 2624}, {2048, 8448, 2624},
                         {4096, 4224, 2624}, {8448, 2048, 2624}, {4096, 4096, 4096}},
              .configs = {{128, 4}, {128, 6}, {256, 4}},
              .k_skews = {0, 1, 5}});
  if (all || std::strcmp(what, "decode") == 0) run_decode();
  return 0;
}
