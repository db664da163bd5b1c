// store_path.cuh: section 6 of hw/h200/attention_calibrate.cu, how fast an
// SM's per-lane stores of a wgmma accumulator leave it (the epilogues of the
// attention kernel and the SM90 matmul): 4-byte stores of packed pairs
// against 16-byte stores after a quad transpose, on 1 to 132 SMs at once,
// to lines in L2 or not, and beside SMs reading L2. The rows it prints are
// described at print_fragment_stores; docs/hardware.md reads them.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hw/h200/bench_common.cuh"
#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"

namespace sk::bench::store_path {

// Warps of one CTA store 16-row slabs of a 128-row tile in the wgmma
// accumulator's layout, as the attention epilogue does (lane l: rows l/4 and
// l/4 + 8, columns 8j + 2(l%4) and the next, one st.global.b32 each), `Cols`
// 16-bit columns per row, rows `pitch` elements apart; `reps` tiles, each
// 128 x pitch elements after the last (fresh lines every time). The span runs
// from the first warp's first store to the last warp's last store issued
// (the stores are not waited for), and a second span to a __threadfence after
// them (drained).
// The same slabs stored 16 bytes a lane (`v4`): each quad of lanes first
// exchanges its pairs (arch::quad_transpose: three shfl.sync.bfly and
// selects) so that lane q holds the eight consecutive columns of group
// j = 4m + q, then st.global.v4: a warp instruction writes 8 rows x 64
// contiguous bytes (whole 32-byte sectors) where the b32 form writes 8 rows x
// 16 bytes.
template <int Cols>
__device__ __forceinline__ void store_row_v4(uint16_t* row_ptr, uint32_t v) {
  const uint32_t q = threadIdx.x % 4;
#pragma unroll
  for (int m = 0; m < Cols / 32; ++m) {
    sk::LaneArray<uint32_t, 4> t;  // register j: this lane's pair of group 4m + j
#pragma unroll
    for (int j = 0; j < 4; ++j) t.regs[0][j] = v + 4 * m + j;
    sk::arch::quad_transpose(t);  // the attention kernel's exchange
    sk::arch::st_global_v4(row_ptr + 8 * (4 * m + q), t.regs[0]);
  }
}

template <int Cols, bool V4 = false>
__device__ __forceinline__ void store_tiles(uint64_t* times, uint16_t* base, uint32_t pitch, int reps) {
  const uint32_t warp = threadIdx.x / 32, l = threadIdx.x % 32;
  const uint32_t v = 0x3f803f80u ^ threadIdx.x;
  const uint64_t t0 = sk::bench::clk();
  for (int r = 0; r < reps; ++r) {
    uint16_t* tile = base + static_cast<uint64_t>(r) * 128 * pitch;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t row = 16 * warp + l / 4 + 8 * h;
      if constexpr (V4) {
        store_row_v4<Cols>(tile + static_cast<uint64_t>(row) * pitch, v);
      } else {
#pragma unroll
        for (int j = 0; j < Cols / 8; ++j)
          sk::arch::st_global_b32(tile + static_cast<uint64_t>(row) * pitch + 8 * j + 2 * (l % 4), v + j);
      }
    }
  }
  const uint64_t t1 = sk::bench::clk();
  __threadfence();
  const uint64_t t2 = sk::bench::clk();
  if (l == 0 && blockIdx.x == 0) {
    times[2 * warp] = t0;
    times[2 * warp + 1] = t1;
    times[64 + warp] = t2;
  }
}

template <int Cols, bool V4 = false>
__global__ void frag_store(uint64_t* times, uint16_t* out, uint32_t pitch, int reps) {
  __syncthreads();
  store_tiles<Cols, V4>(times, out + static_cast<uint64_t>(blockIdx.x) * reps * 128 * pitch, pitch, reps);
}

// The first `storers` CTAs store as frag_store; the others read an
// L2-resident buffer (`words` 16-byte words, each thread its own stride
// through it, ld.global.cg.v4) for `iters` loads each, well past the stores.
template <int Cols, bool V4 = false>
__global__ void frag_store_beside_reads(uint64_t* times, uint16_t* out, uint32_t pitch, int reps,
                                        int storers, const uint4* buf, uint32_t words, int iters,
                                        float* sink) {
  __syncthreads();
  if (static_cast<int>(blockIdx.x) < storers) {
    store_tiles<Cols, V4>(times, out + static_cast<uint64_t>(blockIdx.x) * reps * 128 * pitch, pitch, reps);
    return;
  }
  uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) * 8u;
  uint32_t acc = 0;
  for (int k = 0; k < iters; k += 8) {
    uint4 x[8];  // eight loads in flight per thread
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x[u].x), "=r"(x[u].y), "=r"(x[u].z), "=r"(x[u].w)
                   : "l"(buf + i % words));
      i += 32u * 1024u + 8u;
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= x[u].x ^ x[u].w;
  }
  if (acc == 0x12345678u) sink[0] = 1.0f;
}

// ---------------------------------------------------------------- host
constexpr size_t kStoreBufBytes = size_t{1} << 32;
constexpr uint32_t kReadWords = (16u << 20) / 16;  // 16 MiB: L2-resident

constexpr const char* kFragmentStoresHeader =
    "cols,pitch_bytes,warps,ctas,l2,bytes_per_cta,issue_cycles,bytes_per_cycle_issued,drain_cycles,"
    "bytes_per_cycle_drained";

struct Buffers {
  uint64_t* times;  // >= 64 + warps words: [2w, 2w + 1] warp w's start and end, [64 + w] its drained end
  float* sink;
  uint16_t* store;  // kStoreBufBytes
  uint4* read;      // kReadWords
  int reps;         // launches per figure (median)
  const char* prog;
};

// CTA 0's spans of the last launch over `warps` warps: first store to the last
// one issued, and to the last warp past its __threadfence.
inline std::pair<double, double> spans(const Buffers& b, int warps) {
  std::vector<uint64_t> h(3 * warps);
  check_cuda(cudaMemcpy(h.data(), b.times, 2 * warps * 8, cudaMemcpyDeviceToHost), b.prog, "cudaMemcpy",
             __FILE__, __LINE__);
  check_cuda(cudaMemcpy(h.data() + 2 * warps, b.times + 64, warps * 8, cudaMemcpyDeviceToHost), b.prog,
             "cudaMemcpy", __FILE__, __LINE__);
  uint64_t t0 = h[0], t1 = h[1], t2 = h[2 * warps];
  for (int w = 1; w < warps; ++w) {
    t0 = std::min(t0, h[2 * w]);
    t1 = std::max(t1, h[2 * w + 1]);
    t2 = std::max(t2, h[2 * warps + w]);
  }
  return {static_cast<double>(t1 - t0), static_cast<double>(t2 - t0)};
}

inline void launched(const Buffers& b) {
  check_cuda(cudaGetLastError(), b.prog, "launch", __FILE__, __LINE__);
  check_cuda(cudaDeviceSynchronize(), b.prog, "cudaDeviceSynchronize", __FILE__, __LINE__);
}

// "_tiles_N" after the l2 column when a CTA stores N tiles rather than 8.
inline const char* fmt_reps(int reps) {
  static char buf[32];
  std::snprintf(buf, sizeof buf, "_tiles_%d", reps);
  return buf;
}

// `cold`: every launch writes lines the previous ones did not (the launch's
// region moves through the 4 GiB buffer), so the stores miss in L2, as an
// attention kernel's O does; otherwise the launches write the same lines.
// `reps`: tiles of 128 rows per CTA and launch (8: 34.6 MB from 132 CTAs at a
// 256-byte pitch, which L2 holds; 64 or more: several times L2).
template <int Cols, bool V4 = false>
void store_row(const Buffers& b, uint32_t pitch_bytes, int warps, int ctas, bool cold = false, int reps = 8) {
  const uint32_t pitch = pitch_bytes / 2;
  const size_t launch_bytes = static_cast<size_t>(ctas) * reps * 128 * pitch_bytes;
  if (launch_bytes > kStoreBufBytes) return;
  std::vector<double> issued, drained;
  size_t offset = 0;
  for (int r = 0; r < b.reps; ++r) {
    if (cold) {
      offset += launch_bytes;
      if (offset + launch_bytes > kStoreBufBytes) offset = 0;
    }
    frag_store<Cols, V4><<<ctas, 32 * warps>>>(b.times, b.store + offset / 2, pitch, reps);
    launched(b);
    const auto s = spans(b, warps);
    issued.push_back(s.first);
    drained.push_back(s.second);
  }
  const double bytes = 2.0 * Cols * 16 * warps * reps;  // per CTA
  const double is = median(issued), dr = median(drained);
  std::printf("%d%s,%u,%d,%d,%s%s,%.0f,%.0f,%.2f,%.2f,%.2f\n", Cols, V4 ? "_v4" : "", pitch_bytes, warps, ctas,
              cold ? "miss" : "hit", reps == 8 ? "" : fmt_reps(reps), bytes, is, bytes / is, dr, bytes / dr);
}

// The same stores from `storers` SMs while the other SMs read L2.
template <bool V4 = false>
void store_beside_reads_row(const Buffers& b, int storers) {
  const int reps = 8, warps = 8;
  const uint32_t pitch = 128;  // O's rows at head dim 128
  constexpr int kIters = 4096;
  std::vector<double> issued, read_gbs;
  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), b.prog, "cudaEventCreate", __FILE__, __LINE__);
  check_cuda(cudaEventCreate(&e1), b.prog, "cudaEventCreate", __FILE__, __LINE__);
  for (int r = 0; r < b.reps; ++r) {
    check_cuda(cudaEventRecord(e0), b.prog, "cudaEventRecord", __FILE__, __LINE__);
    frag_store_beside_reads<128, V4><<<132, 32 * warps>>>(b.times, b.store, pitch, reps, storers, b.read,
                                                          kReadWords, kIters, b.sink);
    check_cuda(cudaEventRecord(e1), b.prog, "cudaEventRecord", __FILE__, __LINE__);
    launched(b);
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, e0, e1), b.prog, "cudaEventElapsedTime", __FILE__, __LINE__);
    read_gbs.push_back((132.0 - storers) * 32 * warps * kIters * 16.0 / (ms * 1e6));
    issued.push_back(spans(b, warps).first);
  }
  check_cuda(cudaEventDestroy(e0), b.prog, "cudaEventDestroy", __FILE__, __LINE__);
  check_cuda(cudaEventDestroy(e1), b.prog, "cudaEventDestroy", __FILE__, __LINE__);
  const double bytes = 2.0 * 128 * 16 * warps * reps;
  std::printf("128%s,256,%d,%d,readers_%d_at_%.0f_GBps,%.0f,%.0f,%.2f,-,-\n", V4 ? "_v4" : "", warps, storers,
              132 - storers, median(read_gbs), bytes, median(issued), bytes / median(issued));
}

// A matmul's output: 132 CTAs storing 8, 64 and 256 tiles of 128 x 128 each per
// launch (34.6 MB, 277 MB and 1.1 GB, fresh lines), 4-byte and 16-byte forms:
// whether the rate holds once the output is several times what L2 holds.
inline void print_output_footprint(const Buffers& b) {
  for (int reps : {8, 64, 256}) {
    store_row<128>(b, 256, 8, 132, true, reps);
    store_row<128, true>(b, 256, 8, 132, true, reps);
  }
}

// Prints the section's CSV: 4 and 8 warps storing rows of 64, 128 and 256
// 16-bit columns (O at head dim 64-256) and of 16 KiB pitch (a matmul's C)
// on 1 and 132 SMs; O's d128 rows from 16-99 SMs; the same to lines not in
// L2 ("miss"); beside readers ("readers_R_at_X_GBps"); the 16-byte form
// ("_v4"); and outputs larger than L2 ("miss_tiles_N", print_output_footprint). `times` holds >= 72 words, `sink` >= 1 float.
inline void print_fragment_stores(uint64_t* times, float* sink, int launches, const char* prog) {
  Buffers b{times, sink, nullptr, nullptr, launches, prog};
  check_cuda(cudaMalloc(&b.store, kStoreBufBytes), prog, "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMalloc(&b.read, size_t{kReadWords} * 16), prog, "cudaMalloc", __FILE__, __LINE__);
  check_cuda(cudaMemset(b.read, 1, size_t{kReadWords} * 16), prog, "cudaMemset", __FILE__, __LINE__);
  std::printf("section,fragment_stores\n%s\n", kFragmentStoresHeader);
  for (int ctas : {1, 132}) {
    for (int warps : {4, 8}) {
      store_row<64>(b, 128, warps, ctas);
      store_row<128>(b, 256, warps, ctas);
      store_row<256>(b, 512, warps, ctas);
      store_row<128>(b, 16384, warps, ctas);
      store_row<256>(b, 16384, warps, ctas);
    }
  }
  for (int ctas : {16, 33, 66, 99}) store_row<128>(b, 256, 8, ctas);
  for (int ctas : {1, 16, 33, 66, 99, 132}) store_row<128>(b, 256, 8, ctas, true);
  for (int ctas : {1, 132}) store_row<64>(b, 128, 8, ctas, true);
  for (int ctas : {1, 132}) store_row<256>(b, 512, 8, ctas, true);
  for (int storers : {1, 16, 33, 66}) store_beside_reads_row(b, storers);
  for (int ctas : {1, 16, 33, 66, 132}) store_row<128, true>(b, 256, 8, ctas, true);
  for (int ctas : {1, 132}) store_row<64, true>(b, 128, 8, ctas, true);
  for (int storers : {1, 16, 33}) store_beside_reads_row<true>(b, storers);
  print_output_footprint(b);
  check_cuda(cudaFree(b.store), prog, "cudaFree", __FILE__, __LINE__);
  check_cuda(cudaFree(b.read), prog, "cudaFree", __FILE__, __LINE__);
}

}  // namespace sk::bench::store_path
