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
// in SM cycles of the SM the warp ran on.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/matmul/sm90_matmul.h"

namespace sk::bench::matmul_stamps {

constexpr uint32_t kMaxCtas = 256, kWgs = 2, kMaxTiles = 64;
constexpr size_t kWords = size_t{kMaxCtas} * kWgs * kMaxTiles * kMmPoints;
__device__ unsigned long long g_stamps[kWords];

struct ClockProbe {
  __device__ static void mark(MatmulPoint point, uint64_t tile) {
    if (threadIdx.x < 128 || threadIdx.x % 128 != 0) return;  // lane 0 of warps 4 and 8
    const uint32_t wg = threadIdx.x / 128 - 1;
    const uint64_t local = (tile - blockIdx.x) / gridDim.x;
    if (blockIdx.x >= kMaxCtas || local >= kMaxTiles) return;
    g_stamps[((static_cast<size_t>(blockIdx.x) * kWgs + wg) * kMaxTiles + local) * kMmPoints + point] = clock64();
  }
};

inline void clear(const char* prog) {
  void* p = nullptr;
  check_cuda(cudaGetSymbolAddress(&p, g_stamps), prog, "cudaGetSymbolAddress", __FILE__, __LINE__);
  check_cuda(cudaMemset(p, 0, kWords * 8), prog, "cudaMemset", __FILE__, __LINE__);
}

// Prints the section for a launch of `grid` CTAs; `label` names the
// configuration (shape,tile_n,stages,epilogue).
inline void print(const char* label, uint32_t grid, const char* prog) {
  std::vector<unsigned long long> h(kWords);
  check_cuda(cudaMemcpyFromSymbol(h.data(), g_stamps, kWords * 8), prog, "cudaMemcpyFromSymbol", __FILE__,
             __LINE__);
  auto at = [&](uint32_t cta, uint32_t wg, uint32_t t, int pt) {
    return static_cast<double>(h[((static_cast<size_t>(cta) * kWgs + wg) * kMaxTiles + t) * kMmPoints + pt]);
  };
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
  if (phase[0].empty()) {
    std::printf("%s,median,-,0,-,-,-,-,-\n", label);
    return;
  }
  std::printf("%s,median,-,%zu,%.0f,%.0f,%.0f,%.0f,%.0f\n", label, phase[0].size(), median(phase[0]),
              median(phase[1]), median(phase[2]), median(phase[3]), median(phase[4]));
}

}  // namespace sk::bench::matmul_stamps
