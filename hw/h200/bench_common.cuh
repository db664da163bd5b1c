// bench_common.cuh: what the Hopper benchmarks (gemm_bench.cu, attention_bench.cu)
// and calibration programs share: the driver's tensor-map encoder, the cycle
// counter and an mbarrier phase wait for device code, and the SM clock of a run of
// launches (every SM's cycle counter and the global nanosecond timer, sampled
// before and after, and the median of the per-SM rates: long, dense kernels
// run below the boost clock when the board reaches its power limit, and this
// is how the benchmarks show it).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "kernels/arch/sm90.h"
#include "kernels/core/numeric.h"

namespace sk::bench {

// The SM's cycle counter; the memory clobber keeps the compiler from moving
// loads and stores across the read.
__device__ __forceinline__ uint64_t clk() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) : : "memory");
  return c;
}

// The first 1024-byte boundary at or after `smem` in shared memory: TMA's
// 128-byte swizzle and the wgmma descriptors take tiles at 1024-byte
// boundaries, and dynamic shared memory is not promised that alignment
// (its __align__ is a request to the compiler, not to the launch).
__device__ __forceinline__ uint8_t* smem_align_1024(uint8_t* smem) {
  return smem + ((1024 - (sk::arch::smem_addr(smem) & 1023)) & 1023);
}

// Spins until the phase of `bar` with `parity` has completed.
__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  while (!sk::arch::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Exits with status 2 and one line on a CUDA error (`prog` names the program).
inline void check_cuda(cudaError_t e, const char* prog, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s: %s (%s:%d)\n", prog, what, cudaGetErrorString(e), file, line);
  std::exit(2);
}

// cuTensorMapEncodeTiled from the driver (the runtime does not link libcuda's
// symbols directly); exits with status 2 and one line when it is missing.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn(const char* prog) {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (fn == nullptr) {
    cudaDriverEntryPointQueryResult q;
    void* p = nullptr;
    check_cuda(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                cudaEnableDefault, &q),
               prog, "cudaGetDriverEntryPointByVersion", __FILE__, __LINE__);
    if (q != cudaDriverEntryPointSuccess || p == nullptr) {
      std::fprintf(stderr, "%s: cuTensorMapEncodeTiled not found in the driver\n", prog);
      std::exit(2);
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }
  return fn;
}

// A 2-D BF16 tensor map over `rows` rows of `cols` elements (rows packed,
// 2 * cols bytes apart), boxes of 64 x box_rows, 128B swizzle. Exits with
// status 2 and one line when the driver refuses it.
inline CUtensorMap bf16_map(void* base, uint64_t cols, uint64_t rows, uint32_t box_rows, const char* prog) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {64, box_rows}, es[2] = {1, 1};
  if (encode_fn(prog)(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: tensor map encoding failed\n", prog);
    std::exit(2);
  }
  return m;
}

// The calibration programs' tiles: rows of 64 elements (128 bytes).
inline CUtensorMap bf16_rows_map(void* base, uint64_t rows, uint32_t box_rows, const char* prog) {
  return bf16_map(base, 64, rows, box_rows, prog);
}

// The launch configuration of a 1-D grid in thread-block clusters of `size`
// CTAs (cudaLaunchKernelEx, cudaOccupancyMaxActiveClusters). `cfg` points at
// `attr`, so it is neither copied nor moved.
struct ClusterLaunch {
  cudaLaunchAttribute attr{};
  cudaLaunchConfig_t cfg{};
  ClusterLaunch(uint32_t grid, uint32_t threads, size_t smem, uint32_t size) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = size;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The calibration programs' wgmma operands (calibrate.cu, wgmma_group.cu, wgmma_split.cu):
// `elems` BF16 values at `dst` in [-0.5, 0.5), a hash of the index, written by
// the block's threads together (fence and barrier are the caller's).
__device__ __forceinline__ void fill_bf16_operands(uint8_t* dst, uint32_t elems) {
  for (uint32_t i = threadIdx.x; i < elems; i += blockDim.x) {
    uint32_t x = i * 2654435761u + 12345u;
    x ^= x >> 13;
    reinterpret_cast<uint16_t*>(dst)[i] = sk::to_bf16(static_cast<float>(x & 0xffff) / 65536.0f - 0.5f).bits;
  }
}

// The wgmma calibration kernels' operands (calibrate.cu, wgmma_group.cu): A
// (64 rows) then B (`b_rows` rows), 64 BF16 a 128-byte row, filled by
// fill_bf16_operands at the 1024-aligned start of dynamic shared memory
// `smem`, made visible to the async proxy, the CTA synced; their
// shared-memory addresses.
struct WgmmaOperands {
  uint32_t a, b;
};
__device__ __forceinline__ WgmmaOperands wgmma_operands(uint8_t* smem, uint32_t b_rows) {
  uint8_t* base = smem_align_1024(smem);
  fill_bf16_operands(base, (64 + b_rows) * 64);
  sk::arch::fence_proxy_async_shared();
  __syncthreads();
  const uint32_t a = sk::arch::smem_addr(base);
  return {a, a + 64 * 128};
}

// A uniform value in [0, 1) from a hash of element index i and a seed (the
// benchmarks' random inputs, new per seed, 24 bits of the hash).
__device__ __forceinline__ float random_unit(uint64_t i, uint64_t seed) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x >> 40) / static_cast<float>(1ull << 24);
}

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One thread per block records the SM it ran on, its cycle counter and the
// global nanosecond timer.
__global__ void clock_probe(uint64_t* out) {
  uint32_t smid;
  uint64_t cycles, ns;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(cycles));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  out[3 * blockIdx.x] = smid;
  out[3 * blockIdx.x + 1] = cycles;
  out[3 * blockIdx.x + 2] = ns;
}

// Samples every SM's counters (a grid of twice the SM count, so that each SM
// is likely to hold a block) into `buf` (6 * sms words of device memory);
// returns smid -> {cycles, ns}.
inline std::vector<std::pair<uint64_t, uint64_t>> sample_clocks(uint64_t* buf, int sms, const char* prog) {
  const int blocks = 2 * sms;
  clock_probe<<<blocks, 1>>>(buf);
  check_cuda(cudaGetLastError(), prog, "clock_probe", __FILE__, __LINE__);
  std::vector<uint64_t> host(3 * static_cast<size_t>(blocks));
  check_cuda(cudaMemcpy(host.data(), buf, host.size() * 8, cudaMemcpyDeviceToHost), prog,
             "cudaMemcpy", __FILE__, __LINE__);
  std::vector<std::pair<uint64_t, uint64_t>> by_sm(static_cast<size_t>(sms), {0, 0});
  for (int b = 0; b < blocks; ++b) {
    const uint64_t sm = host[3 * b];
    if (sm < by_sm.size() && by_sm[sm].second == 0) by_sm[sm] = {host[3 * b + 1], host[3 * b + 2]};
  }
  return by_sm;
}

// The median over SMs of cycles per microsecond between two samples (0 if
// no SM was seen in both).
inline double clock_mhz(const std::vector<std::pair<uint64_t, uint64_t>>& before,
                        const std::vector<std::pair<uint64_t, uint64_t>>& after) {
  std::vector<double> mhz;
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i].second != 0 && after[i].second > before[i].second)
      mhz.push_back(1e3 * static_cast<double>(after[i].first - before[i].first) /
                    static_cast<double>(after[i].second - before[i].second));
  return mhz.empty() ? 0 : median(std::move(mhz));
}

// The median of `runs` timed launches (CUDA events around each) after three
// warm-ups: launch(i) makes launch i (warm-ups 0..2, then 0..runs-1) and
// settle() waits for the warm-ups; `mhz` gets the mean SM clock over the
// timed launches.
template <class Launch, class Settle>
float time_median(int runs, Launch&& launch, Settle&& settle, double& mhz, const char* prog) {
  auto ck = [prog](cudaError_t e, const char* what) { check_cuda(e, prog, what, __FILE__, __LINE__); };
  int sms = 0;
  ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
  uint64_t* probe = nullptr;
  ck(cudaMalloc(&probe, 3 * 8 * 2 * static_cast<size_t>(sms)), "cudaMalloc");
  cudaEvent_t e0, e1;
  ck(cudaEventCreate(&e0), "cudaEventCreate");
  ck(cudaEventCreate(&e1), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) launch(i);
  settle();
  const auto before = sample_clocks(probe, sms, prog);
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) {
    ck(cudaEventRecord(e0), "cudaEventRecord");
    launch(i);
    ck(cudaEventRecord(e1), "cudaEventRecord");
    ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
    ck(cudaGetLastError(), "launch");
    float t = 0;
    ck(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  mhz = clock_mhz(before, sample_clocks(probe, sms, prog));
  ck(cudaFree(probe), "cudaFree");
  ck(cudaEventDestroy(e0), "cudaEventDestroy");
  ck(cudaEventDestroy(e1), "cudaEventDestroy");
  return median(ms);
}

}  // namespace sk::bench
