// matmul_stamps.cuh: gemm_bench --stamp-tiles, the SM90 matmul's tile phases
// on the GPU. The kernel is built with ClockProbe, which reads %clock64 at
// the consumer's MatmulPoints (kernels/matmul/sm90_matmul.h) for the first
// warp of each consumer warpgroup of every CTA, for a CTA's first kMaxTiles
// tiles; `sim run --kernel matmul --arch sm90 --stamp-tiles` reads the same
// points in the model (runner/kernels/matmul_stamps.h).
//
// Printed per launch (section matmul_tile_stamps): CTA 0's tiles one per row,
// then the medians over every CTA's tiles that have a next one (the last
// tile of each CTA left out, its epilogue drains into the launch's end):
//   first_wait  tile start -> its first stage acquired
//   mainloop    first stage -> the last k-block's wgmma complete
//   epilogue    -> the tile's stores issued
//   to_next     -> the next tile's start
//   period      tile start -> the next tile's start
// in SM cycles of the SM the warp ran on; then a row "all" with the medians
// of the first three over every tile (the last ones and one-tile CTAs too),
// and a row "clock" with the SM clock each phase ran at, from %globaltimer
// read beside every clock64 stamp (GHz: median over all tiles of the
// main loop's cycles over its nanoseconds, and of first_wait + epilogue's)
// and the launch's span in ns (the first tile start to the last tile's
// stores issued, over every CTA). %globaltimer ticks in steps of up to 32 ns,
// so the clocks of phases shorter than a few microseconds are rough. Then
// rows "spread", one per tile index t of the CTAs' first 8: the 10th, 50th
// and 90th percentile over the CTAs of their t-th main loop's end (ns after
// the first tile start), the median epilogue (cycles) and the CTAs counted,
// so that it shows whether the CTAs store together or apart; rows "wgstart",
// CTA 0's two warpgroups' points per tile (the first 16) in SM cycles after
// warpgroup 0's first tile start, to see whether they keep in step; and rows
// "lead", one per CTA: its SM (%smid) and how far its 4th and 8th main loops
// end before the median CTA's (ns). Before it, section matmul_kblock_stamps:
// the stage round trip from the k-blocks' points (KblockPoint) of the first
// 8 CTAs' third and fourth tiles, or their first and second in a launch of
// at most two tiles a CTA (runner/report/kblock_trip.h, which the model's
// --stamp-tiles uses too).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/matmul/sm90_matmul.h"
#include "runner/report/kblock_trip.h"

namespace sk::bench::matmul_stamps {

constexpr uint32_t kMaxCtas = 256, kWgs = 2, kMaxTiles = 64;
constexpr size_t kWords = size_t{kMaxCtas} * kWgs * kMaxTiles * kMmPoints;
__device__ unsigned long long g_stamps[kWords];
__device__ unsigned long long g_ns[kWords];  // %globaltimer beside each stamp
__device__ unsigned g_smid[kMaxCtas];         // the SM each CTA ran on
// The k-blocks' points (KblockPoint) of the first kKbCtas CTAs' tiles
// g_kb_first_tile to g_kb_first_tile + kKbTiles - 1 (set_kblock_tiles below),
// k-blocks below kKbMax: role 0 the producer (thread 0), 1 and 2 the
// consumer warpgroups (threads 128 and 256).
constexpr uint32_t kKbCtas = 8, kKbRoles = 3, kKbTiles = 2, kKbMax = 128;
__device__ uint32_t g_kb_first_tile = 2;
constexpr size_t kKbWords = size_t{kKbCtas} * kKbRoles * kKbTiles * kKbMax * kKbPoints;
__device__ unsigned long long g_kb[kKbWords];
// Where point `point` of k-block kb of CTA c's stamped tile t (0 or 1) by
// `role` lies in g_kb.
__host__ __device__ constexpr size_t kb_index(uint32_t c, uint32_t role, uint64_t t, uint32_t kb, uint32_t point) {
  return (((static_cast<size_t>(c) * kKbRoles + role) * kKbTiles + t) * kKbMax + kb) * kKbPoints + point;
}

// Where point `point` of warpgroup wg's local tile t of CTA `cta` lies in
// g_stamps and g_ns.
__host__ __device__ constexpr size_t tile_index(uint32_t cta, uint32_t wg, uint64_t t, uint32_t point) {
  return ((static_cast<size_t>(cta) * kWgs + wg) * kMaxTiles + t) * kMmPoints + point;
}

// A tile point: clock64 at `clock`, %globaltimer beside it at `ns`.
__device__ __forceinline__ void stamp_tile(unsigned long long* clock, unsigned long long* ns) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *clock = clock64();
  *ns = t;
}

struct ClockProbe {
  // A role's recorder for one tile: where its k-blocks' stamps go, or
  // nothing (not a stamped thread, CTA or tile). Decided once per tile, so a
  // k-block's point costs one predicated store.
  // The consumer's recorder also stamps its tile's kMmFirstFull (at kb 0's
  // kKbFull) where mark() would, through `first` (null: not stamped).
  struct Kblocks {
    unsigned long long* at = nullptr;
    unsigned long long* first = nullptr;
    unsigned long long* first_ns = nullptr;
    __device__ void mark(KblockPoint point, uint32_t kb) const {
      if (at != nullptr && kb < kKbMax) at[kb * kKbPoints + point] = clock64();
      if (first != nullptr && kb == 0 && point == kKbFull) stamp_tile(first, first_ns);
    }
  };
  __device__ static Kblocks kblocks(uint64_t /*tile*/, uint64_t nth) {
    Kblocks r;
    if (threadIdx.x % 128 != 0) return r;  // only threads 0, 128 and 256 stamp
    if (threadIdx.x >= 128 && threadIdx.x % 128 == 0 && blockIdx.x < kMaxCtas && nth < kMaxTiles) {
      const size_t i = tile_index(blockIdx.x, threadIdx.x / 128 - 1, nth, kMmFirstFull);
      r.first = &g_stamps[i];
      r.first_ns = &g_ns[i];
    }
    const uint32_t role = threadIdx.x == 0 ? 0 : threadIdx.x == 128 ? 1 : threadIdx.x == 256 ? 2 : kKbRoles;
    const uint32_t first = g_kb_first_tile;
    if (role < kKbRoles && blockIdx.x < kKbCtas && nth >= first && nth < first + kKbTiles)
      r.at = &g_kb[kb_index(blockIdx.x, role, nth - first, 0, 0)];
    return r;
  }
  __device__ static void mark(MatmulPoint point, uint64_t /*tile*/, uint64_t local) {
    if (threadIdx.x < 128 || threadIdx.x % 128 != 0) return;  // lane 0 of warps 4 and 8
    const uint32_t wg = threadIdx.x / 128 - 1;
    if (blockIdx.x >= kMaxCtas || local >= kMaxTiles) return;
    const size_t at = tile_index(blockIdx.x, wg, local, point);
    stamp_tile(&g_stamps[at], &g_ns[at]);
    if (local == 0 && point == kMmTileStart && wg == 0) {
      unsigned smid;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
      g_smid[blockIdx.x] = smid;
    }
  }
};

// ClockProbe's tile points without its k-block points: each tile's start,
// first full stage (a stamp in k-block 0 only), main loop done and stores
// issued. A control for what the k-block points cost a launch.
struct TileClockProbe {
  struct Kblocks {
    ClockProbe::Kblocks tile;  // `at` cleared: only kb 0's first-full stamp
    __device__ void mark(KblockPoint point, uint32_t kb) const {
      if (kb == 0) tile.mark(point, kb);
    }
  };
  __device__ static Kblocks kblocks(uint64_t tile, uint64_t nth) {
    Kblocks r{ClockProbe::kblocks(tile, nth)};
    r.tile.at = nullptr;
    return r;
  }
  __device__ static void mark(MatmulPoint point, uint64_t tile, uint64_t nth) {
    ClockProbe::mark(point, tile, nth);
  }
};

inline void clear(const char* prog) {
  void* p = nullptr;
  check_cuda(cudaGetSymbolAddress(&p, g_stamps), prog, "cudaGetSymbolAddress", __FILE__, __LINE__);
  check_cuda(cudaMemset(p, 0, kWords * 8), prog, "cudaMemset", __FILE__, __LINE__);
  check_cuda(cudaGetSymbolAddress(&p, g_ns), prog, "cudaGetSymbolAddress", __FILE__, __LINE__);
  check_cuda(cudaMemset(p, 0, kWords * 8), prog, "cudaMemset", __FILE__, __LINE__);
  check_cuda(cudaGetSymbolAddress(&p, g_kb), prog, "cudaGetSymbolAddress", __FILE__, __LINE__);
  check_cuda(cudaMemset(p, 0, kKbWords * 8), prog, "cudaMemset", __FILE__, __LINE__);
}

// Which tiles the k-block points take, for a launch whose CTA 0 walks
// `cta0_tiles` tiles (sk::report::kblock_first_tile, as the model's).
inline void set_kblock_tiles(uint64_t cta0_tiles, const char* prog) {
  const uint32_t first = sk::report::kblock_first_tile(cta0_tiles);
  check_cuda(cudaMemcpyToSymbol(g_kb_first_tile, &first, sizeof first), prog, "cudaMemcpyToSymbol", __FILE__,
             __LINE__);
}

// Prints the section for a launch of `grid` CTAs; `label` names the
// configuration (shape,tile_n,stages,epilogue); with `stages` and
// `k_blocks` (a tile's), also the section matmul_kblock_stamps: the stage
// round trip of the first CTAs' stamped tiles (set_kblock_tiles)
// (runner/report/kblock_trip.h) in the columns samples, kblock,
// issue_to_full, hold, release_to_issue, consumer_wait.
inline void print(const char* label, uint32_t grid, const char* prog, uint32_t stages = 0,
                  uint32_t k_blocks = 0) {
  if (stages > 0) {
    std::vector<unsigned long long> kb(kKbWords);
    check_cuda(cudaMemcpyFromSymbol(kb.data(), g_kb, kKbWords * 8), prog, "cudaMemcpyFromSymbol", __FILE__,
               __LINE__);
    auto at = [&kb](uint32_t c, uint32_t role, uint32_t t, uint32_t k, uint32_t point) -> uint64_t {
      return k < kKbMax ? kb[kb_index(c, role, t, k, point)] : 0;
    };
    const sk::report::KblockTrip trip = sk::report::kblock_trip(at, std::min(grid, kKbCtas), kKbTiles,
                                                                std::min(k_blocks, kKbMax), stages);
    std::printf("section,matmul_kblock_stamps\nconfig,samples,kblock,issue_to_full,hold,release_to_issue,"
                "consumer_wait\n%s,%d,%.0f,%.0f,%.0f,%.0f,%.0f\n",
                label, trip.samples, trip.kblock, trip.issue_to_full, trip.hold, trip.release_to_issue,
                trip.consumer_wait);
  }
  std::vector<unsigned long long> h(kWords), hn(kWords);
  check_cuda(cudaMemcpyFromSymbol(h.data(), g_stamps, kWords * 8), prog, "cudaMemcpyFromSymbol", __FILE__,
             __LINE__);
  check_cuda(cudaMemcpyFromSymbol(hn.data(), g_ns, kWords * 8), prog, "cudaMemcpyFromSymbol", __FILE__,
             __LINE__);
  auto at = [&](uint32_t cta, uint32_t wg, uint32_t t, int pt) { return static_cast<double>(h[tile_index(cta, wg, t, pt)]); };
  auto ns = [&](uint32_t cta, uint32_t wg, uint32_t t, int pt) { return static_cast<double>(hn[tile_index(cta, wg, t, pt)]); };
  // Every tile stamped to its stores: the first three phases, the clocks and the span.
  std::vector<double> whole[3], ghz_main, ghz_rest;
  double first_ns = 0, last_ns = 0;
  for (uint32_t cta = 0; cta < std::min(grid, kMaxCtas); ++cta)
    for (uint32_t wg = 0; wg < kWgs; ++wg)
      for (uint32_t t = 0; t < kMaxTiles && at(cta, wg, t, kMmTileStored) != 0; ++t) {
        const double s = at(cta, wg, t, kMmTileStart), f = at(cta, wg, t, kMmFirstFull);
        const double m = at(cta, wg, t, kMmMainloopDone), e = at(cta, wg, t, kMmTileStored);
        whole[0].push_back(f - s);
        whole[1].push_back(m - f);
        whole[2].push_back(e - m);
        const double sn = ns(cta, wg, t, kMmTileStart), fn = ns(cta, wg, t, kMmFirstFull);
        const double mn = ns(cta, wg, t, kMmMainloopDone), en = ns(cta, wg, t, kMmTileStored);
        if (mn > fn) ghz_main.push_back((m - f) / (mn - fn));
        if ((fn - sn) + (en - mn) > 0) ghz_rest.push_back(((f - s) + (e - m)) / ((fn - sn) + (en - mn)));
        first_ns = first_ns == 0 ? sn : std::min(first_ns, sn);
        last_ns = std::max(last_ns, en);
      }
  std::printf("section,matmul_tile_stamps\nconfig,cta,wg,tile,first_wait,mainloop,epilogue,to_next,period\n");
  std::vector<double> phase[5];
  for (uint32_t cta = 0; cta < std::min(grid, kMaxCtas); ++cta)
    for (uint32_t wg = 0; wg < kWgs; ++wg)
      for (uint32_t t = 0; t + 1 < kMaxTiles; ++t) {
        if (at(cta, wg, t + 1, kMmTileStart) == 0 || at(cta, wg, t, kMmTileStored) == 0) break;
        const double s = at(cta, wg, t, kMmTileStart), f = at(cta, wg, t, kMmFirstFull);
        const double m = at(cta, wg, t, kMmMainloopDone), e = at(cta, wg, t, kMmTileStored);
        const double n = at(cta, wg, t + 1, kMmTileStart);
        const double v[5] = {f - s, m - f, e - m, n - e, n - s};
        for (int i = 0; i < 5; ++i) phase[i].push_back(v[i]);
        if (cta == 0)
          std::printf("%s,%u,%u,%u,%.0f,%.0f,%.0f,%.0f,%.0f\n", label, cta, wg, t, v[0], v[1], v[2], v[3], v[4]);
      }
  if (phase[0].empty())
    std::printf("%s,median,-,0,-,-,-,-,-\n", label);
  else
    std::printf("%s,median,-,%zu,%.0f,%.0f,%.0f,%.0f,%.0f\n", label, phase[0].size(), median(phase[0]),
                median(phase[1]), median(phase[2]), median(phase[3]), median(phase[4]));
  if (whole[0].empty()) return;
  std::printf("%s,all,-,%zu,%.0f,%.0f,%.0f,-,-\n", label, whole[0].size(), median(whole[0]), median(whole[1]),
              median(whole[2]));
  // clock: the main loop's GHz, the rest's GHz and the span in ns in the phase columns.
  std::printf("%s,clock,-,%zu,%.3f,%.3f,%.0f,-,-\n", label, whole[0].size(),
              ghz_main.empty() ? 0.0 : median(ghz_main), ghz_rest.empty() ? 0.0 : median(ghz_rest),
              last_ns - first_ns);
  // How far apart the CTAs' epilogues lie: for each CTA's t-th tile (the
  // first 8), over the CTAs (warpgroup 0), the 10th, 50th and 90th percentile
  // of its main loop's end in ns after the launch's first tile start, the
  // median epilogue in SM cycles and the CTAs counted.
  for (uint32_t t = 0; t < 8; ++t) {
    std::vector<double> end_ns, epi;
    for (uint32_t cta = 0; cta < std::min(grid, kMaxCtas); ++cta)
      if (at(cta, 0, t, kMmTileStored) != 0) {
        end_ns.push_back(ns(cta, 0, t, kMmMainloopDone) - first_ns);
        epi.push_back(at(cta, 0, t, kMmTileStored) - at(cta, 0, t, kMmMainloopDone));
      }
    if (end_ns.empty()) break;
    std::sort(end_ns.begin(), end_ns.end());
    auto pct = [&end_ns](double q) { return end_ns[static_cast<size_t>(q * (end_ns.size() - 1) + 0.5)]; };
    std::printf("%s,spread,-,%u,%.0f,%.0f,%.0f,%.0f,%zu\n", label, t, pct(0.1), pct(0.5), pct(0.9),
                median(epi), end_ns.size());
  }
  // CTA 0's two warpgroups side by side: per warpgroup and tile (the first
  // 16), its four points in SM cycles after warpgroup 0's first tile start.
  const double t0 = at(0, 0, 0, kMmTileStart);
  for (uint32_t wg = 0; wg < kWgs; ++wg)
    for (uint32_t t = 0; t < 16 && at(0, wg, t, kMmTileStored) != 0; ++t)
      std::printf("%s,wgstart,%u,%u,%.0f,%.0f,%.0f,%.0f,-\n", label, wg, t, at(0, wg, t, kMmTileStart) - t0,
                  at(0, wg, t, kMmFirstFull) - t0, at(0, wg, t, kMmMainloopDone) - t0,
                  at(0, wg, t, kMmTileStored) - t0);
  // Which CTAs lead: per CTA, its SM and how far its 4th and 8th main loops
  // end before the median CTA's (ns; 0 where it has no such tile).
  std::vector<unsigned> smid(kMaxCtas);
  check_cuda(cudaMemcpyFromSymbol(smid.data(), g_smid, kMaxCtas * sizeof(unsigned)), prog,
             "cudaMemcpyFromSymbol", __FILE__, __LINE__);
  double med_end[2] = {0, 0};
  const uint32_t at_tile[2] = {3, 7};
  for (int i = 0; i < 2; ++i) {
    std::vector<double> e;
    for (uint32_t cta = 0; cta < std::min(grid, kMaxCtas); ++cta)
      if (at(cta, 0, at_tile[i], kMmMainloopDone) != 0) e.push_back(ns(cta, 0, at_tile[i], kMmMainloopDone));
    med_end[i] = e.empty() ? 0 : median(e);
  }
  for (uint32_t cta = 0; cta < std::min(grid, kMaxCtas); ++cta) {
    double lead[2];
    for (int i = 0; i < 2; ++i)
      lead[i] = at(cta, 0, at_tile[i], kMmMainloopDone) != 0 ? med_end[i] - ns(cta, 0, at_tile[i], kMmMainloopDone) : 0;
    std::printf("%s,lead,-,%u,%u,%.0f,%.0f,-,-\n", label, cta, smid[cta], lead[0], lead[1]);
  }
}

// gemm_bench --hold-kblock: no stamps; every consumer thread spins
// g_hold_cycles SM cycles after its k-block's wgmma wait, before the stage's
// release, so each stage is held that much longer. How a launch's time
// answers a longer hold says how much slack its stage ring has (a ring with
// slack absorbs it; one that limits adds it to every k-block), measured by
// launch times, which no stamp perturbs.
__constant__ uint32_t g_hold_cycles;
struct HoldProbe {
  struct Kblocks {
    __device__ void mark(KblockPoint point, uint32_t /*kb*/) const {
      if (point != kKbWaited) return;
      const long long t0 = clock64();
      while (clock64() - t0 < static_cast<long long>(g_hold_cycles)) {
      }
    }
  };
  __device__ static Kblocks kblocks(uint64_t /*tile*/, uint64_t /*nth*/) { return {}; }
  __device__ static void mark(MatmulPoint, uint64_t /*tile*/, uint64_t /*nth*/) {}
};

}  // namespace sk::bench::matmul_stamps
