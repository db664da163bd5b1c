// matmul_host.h: the host-side steps every matmul run in the model shares,
// whatever the architecture: the traced-SM and schedule setup, the problem
// buffers (random BF16 operands in 16-byte-aligned rows whose padding is NaN,
// and a NaN-poisoned D, so reading padding or leaving D unwritten shows up),
// the race detector for functional runs, the FP64 reference check, and the
// trace and timeline files.
//
// Invariants: buffers are only filled when bytes are real (functional mode);
// the race detector is attached before launch and outlives the run.
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/core/math.h"
#include "kernels/core/numeric.h"
#include "models/sm100/gpu.h"
#include "models/sm100/tensor_map.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_inputs.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "engine/observer.h"

namespace sk::sim {

// A, B and D of a (batched) matmul: `batches` matrices each, packed one after
// another (matrix i of A at a + i * stride_a elements, and so on); A and B
// K-major (rows of K elements) or MN-major (K rows of M or N elements).
struct MatmulBuffers {
  uint32_t lda = 0, ldb = 0, ldc = 0;  // elements
  uint64_t a = 0, b = 0, d = 0;
  uint32_t batches = 1;
  uint64_t stride_a = 0, stride_b = 0, stride_d = 0;  // elements
  bool a_mn_major = false, b_mn_major = false;
};


// The CUs to trace on the MI300X, empty for all: --trace-sms with --trace,
// and a timeline's workgroups' (workgroup c starts on CU c) beside them; every
// CU when the busiest or slowest is chosen after the run.
std::vector<int> traced_sms(const MatmulRequest& q);

// The CTAs the NVIDIA models trace besides the --trace-sms SMs' (empty: none
// besides; with neither, every CTA): a timeline's numbered CTAs, wherever the
// launch places them, when it goes with --trace-sms or without --trace; none
// when the busiest or slowest is chosen after the run (every CTA is traced).
std::vector<int> traced_ctas(const MatmulRequest& q);

// Tracing, the traced SMs, progress and the schedule of `q`.
void configure_run(models::sm100::Gpu& gpu, const MatmulRequest& q,
                   std::chrono::steady_clock::time_point start);

// Stops the run with status limit once q.wall_limit_s have passed since start.
void set_wall_limit(sim::Engine& engine, const MatmulRequest& q,
                    std::chrono::steady_clock::time_point start);

void fail_encode(const std::string& err);

// Fills `rows` stored rows of `ld` elements from `rng`: the first `len` of
// each uniform in [-1, 1) rounded to BF16 (IEEE F16 with f16), one draw per
// element in row order, the rest NaN (padding that must never be read).
inline void fill_operand_rows(uint16_t* p, uint64_t rows, uint32_t len, uint32_t ld, bool f16,
                              std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < ld; ++c)
      p[size_t{r} * ld + c] = c >= len ? (f16 ? kF16Nan : kBf16Nan)
                              : f16    ? f16_bits(dist(rng))
                                       : to_bf16(dist(rng)).bits;
}

// Allocates `batches` matrices each of A (m x k, rows ld.lda apart), B (n x
// k, ld.ldb) and D (m x n, ld.ldd); in functional mode fills A and B from
// `rng` (all of A first, row by row; BF16, or IEEE F16 with f16) and poisons
// the padding and D. With fill false A and B are left zero for the caller to
// copy in. G is any model's Gpu (gmem(), functional()).
template <class OutT, class G>
MatmulBuffers allocate_matmul(G& gpu, uint32_t m, uint32_t n, uint32_t k, const LeadingDims& ld,
                              std::mt19937_64& rng, bool f16 = false, uint32_t batches = 1,
                              bool a_mn_major = false, bool b_mn_major = false, bool fill = true) {
  auto& mem = gpu.gmem();
  MatmulBuffers b;
  b.lda = ld.lda;
  b.ldb = ld.ldb;
  b.ldc = ld.ldd;
  b.batches = batches;
  b.a_mn_major = a_mn_major;
  b.b_mn_major = b_mn_major;
  // Stored rows and their lengths: m rows of k (K-major A) or k rows of m.
  const uint32_t a_rows = a_mn_major ? k : m, a_len = a_mn_major ? m : k;
  const uint32_t b_rows = b_mn_major ? k : n, b_len = b_mn_major ? n : k;
  b.stride_a = uint64_t{a_rows} * b.lda;
  b.stride_b = uint64_t{b_rows} * b.ldb;
  b.stride_d = uint64_t{m} * b.ldc;
  b.a = mem.allocate(b.stride_a * batches * 2, "A");
  b.b = mem.allocate(b.stride_b * batches * 2, "B");
  b.d = mem.allocate(b.stride_d * batches * sizeof(OutT), "D");
  if (!gpu.functional()) return b;
  if (fill) {
    fill_operand_rows(reinterpret_cast<uint16_t*>(mem.host(b.a)), uint64_t{a_rows} * batches,
                      a_len, b.lda, f16, rng);
    fill_operand_rows(reinterpret_cast<uint16_t*>(mem.host(b.b)), uint64_t{b_rows} * batches,
                      b_len, b.ldb, f16, rng);
  }
  poison_output<OutT>(mem.host(b.d), b.stride_d * batches);
  return b;
}

// The same with the smallest 16-byte pitches (leading_dims' defaults).
template <class OutT, class G>
MatmulBuffers allocate_matmul(G& gpu, uint32_t m, uint32_t n, uint32_t k, std::mt19937_64& rng) {
  MatmulRequest q;
  q.m = m, q.n = n, q.k = k;
  return allocate_matmul<OutT>(gpu, m, n, k, leading_dims(q, sizeof(OutT)), rng);
}

// The same for a run request: the data comes from the request's seed (or,
// with `kept` holding them, from an earlier simulation of the same request;
// an empty `kept` receives them).
template <class OutT, class G>
MatmulBuffers allocate_matmul(G& gpu, const MatmulRequest& q, MatmulOperandBytes* kept = nullptr) {
  std::mt19937_64 rng(q.operand_seed());
  const bool copy = kept != nullptr && gpu.functional() && !kept->a.empty();
  MatmulBuffers b = allocate_matmul<OutT>(gpu, q.m, q.n, q.k, leading_dims(q, sizeof(OutT)), rng,
                                          q.in_f16, q.batch, q.a_mn_major, q.b_mn_major, !copy);
  if (kept == nullptr || !gpu.functional()) return b;
  uint8_t* a = gpu.gmem().host(b.a);
  uint8_t* bb = gpu.gmem().host(b.b);
  const size_t a_bytes = b.stride_a * b.batches * 2, b_bytes = b.stride_b * b.batches * 2;
  if (!copy) {
    kept->a.assign(a, a + a_bytes);
    kept->b.assign(bb, bb + b_bytes);
  } else {
    if (kept->a.size() != a_bytes || kept->b.size() != b_bytes)
      throw std::logic_error("allocate_matmul: kept operands of another shape");
    std::memcpy(a, kept->a.data(), a_bytes);
    std::memcpy(bb, kept->b.data(), b_bytes);
  }
  return b;
}

// The happens-before race detector, attached in functional mode (per-lane
// data accesses run only there); null otherwise. It is the observer the
// program installed (engine/observer.h); a functional run without one throws.
std::unique_ptr<sim::Observer> attach_race_detector(sim::Engine& engine,
                                                    const models::GlobalMemory& gmem,
                                                    const MatmulRequest& q);
template <class G>
std::unique_ptr<sim::Observer> attach_race_detector(G& gpu, const MatmulRequest& q) {
  return attach_race_detector(gpu.engine(), gpu.gmem(), q);
}

// The output check of a functional run (check_matmul); `cache` keeps the
// reference for the next run of the same inputs (the power-limited clocks'
// simulations of one request).
template <class OutT, class G>
CheckResult check_run(G& gpu, const MatmulRequest& q, const MatmulBuffers& b, RunStatus status,
                      MatmulReferenceCache* cache = nullptr) {
  if (!q.functional) return CheckResult{};
  if (status != RunStatus::kCompleted)
    return CheckResult{true, false, 0, 0, 0,
                       q.in_f16 ? "host FP64 GEMM over the F16 inputs"
                                : "host FP64 GEMM over the BF16 inputs",
                       "the kernel did not complete"};
  auto& mem = gpu.gmem();
  return check_matmul<OutT>(q.m, q.n, q.k, reinterpret_cast<uint16_t*>(mem.host(b.a)), b.lda,
                            reinterpret_cast<uint16_t*>(mem.host(b.b)), b.ldb, mem.host(b.d),
                            b.ldc, q.in_f16, b.batches, b.a_mn_major, b.b_mn_major, cache);
}

// Encodes the map of a 16-bit operand of `rows` GEMM rows (M or N) for the
// batched kernels, 128B swizzle, matrices `stride` elements apart: K-major,
// dims {k, rows, batches} with rows ld elements apart and boxes {box_k,
// box_rows}; MN-major, dims {rows, k, batches} with K rows ld apart and boxes
// {64, box_k} (one 128-byte span of rows; the loader issues box_rows / 64).
// Returns the encoder's error, or "".
std::string encode_operand_map(models::sm100::TensorMapModel& map, uint64_t base, uint32_t k,
                               uint32_t rows, uint32_t ld, uint64_t stride, uint32_t batches,
                               uint32_t box_k, uint32_t box_rows, bool mn_major = false);

// Encodes D's map for configuration C's epilogue (TmemTileWriter): D is
// n x m elements of C::OutT with rows ldc elements apart, stored in 32 x 32
// boxes swizzled by one box row; with C::kBatched a rank-3 map of `batches`
// matrices `stride` elements apart. Returns the encoder's error, or "".
template <class C>
std::string encode_output_map(models::sm100::TensorMapModel& map, uint64_t d, uint32_t n,
                              uint32_t m, uint32_t ldc, uint64_t stride = 0,
                              uint32_t batches = 1) {
  using OutT = typename C::OutT;
  const auto swizzle = static_cast<models::sm100::Swizzle>(C::Writer::kRowBytes);
  if constexpr (C::kBatched) {
    const uint64_t dims[3] = {n, m, batches};
    const uint64_t strides[2] = {uint64_t{ldc} * sizeof(OutT),
                                 batches == 1 ? 16 : stride * sizeof(OutT)};
    return models::sm100::encode_tiled_3d(map, d, sizeof(OutT), dims, strides, 32, 32, swizzle);
  } else {
    return models::sm100::encode_tiled_2d(map, d, sizeof(OutT), n, m, uint64_t{ldc} * sizeof(OutT),
                                          32, 32, swizzle);
  }
}

// The run's description shared by every SM100 structured kernel: the GEMM
// shape, configuration C's tiles, stages and output type, the grid, the mode,
// the seed and how the run ended.
template <class C>
RunResult describe_sm100_run(const MatmulRequest& q, int grid, RunStatus status) {
  RunResult r;
  r.arch = "sm100";
  r.m = q.m;
  r.n = q.n;
  r.k = q.k;
  r.batch = q.batch;
  r.scheduler = C::kClc ? "clc" : "static";
  r.tile_m = C::BM;
  r.tile_n = C::BN;
  r.tile_k = C::BK;
  r.stages = C::Stages;
  r.ctas = static_cast<uint32_t>(grid);
  r.out_dtype = sizeof(typename C::OutT) == 4 ? "f32" : "bf16";
  r.functional = q.functional;
  r.seed = q.seed;
  r.status = run_status_name(status);
  return r;
}

// Writes --trace and --timeline, when asked for; what could not be written,
// one line each (the run's summary still stands). The timeline's µs axis is
// at r.clock_ghz (none when 0).
std::vector<std::string> write_run_files(sim::Engine& engine, const MatmulRequest& q,
                                         const RunResult& r);
template <class G>
std::vector<std::string> write_run_files(G& gpu, const MatmulRequest& q, const RunResult& r) {
  return write_run_files(gpu.engine(), q, r);
}

}  // namespace sk::sim
