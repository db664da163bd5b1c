// blockwise_host.h: the host side of a blockwise-scaled FP8 matmul launch in
// the model (kernels/blockscaled/blockwise_fp8.h), shared by the runner, the
// tests and the seeded-bug corpus: E4M3 operands quantized per 1 x 128 block
// (A) and per 128 x 128 block (B) with FP32 scales amax / 448, the scale
// tensors in the kernel's layout, the tensor maps, and the check against
// ref::blockwise_fp8_gemm.
//
// Data: each block gets its own magnitude (2^e, e uniform in [-8, 8]), so
// scales differ block to block. Padding bytes of A and B rows are E4M3 NaN
// (0x7F) and scale entries no row uses are NaN: a kernel that reads either
// produces NaN. D is NaN-poisoned.
//
// Invariants: buffers are filled only in functional mode; the reference sees
// exactly the codes and scales the kernel reads.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/blockscaled/blockwise_fp8.h"
#include "kernels/core/math.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "runner/ref/block_formats.h"
#include "runner/result/run_result.h"

namespace sk::sim {

inline constexpr uint32_t kBlockwiseBlock = 128;

struct BlockwiseBuffers {
  uint32_t m = 0, n = 0, k = 0, ldc = 0;
  uint32_t pitch = 0;        // bytes per row of A and B
  uint32_t kb = 0, nb = 0;   // scale blocks along K and N
  uint32_t sa_pitch = 0, sb_pitch = 0;  // floats per row of the scale tensors
  std::vector<uint8_t> a, b;             // m x k and n x k E4M3 codes
  std::vector<float> sa, sb;             // m x kb and nb x kb (the reference's layout)
  uint64_t a_addr = 0, b_addr = 0, sa_addr = 0, sb_addr = 0, d = 0;
};

// Allocates and (in functional mode) fills A (m x k), B (n x k), their
// scales and D (m x n, OutT).
template <class OutT>
BlockwiseBuffers allocate_blockwise(models::sm100::Gpu& gpu, uint32_t m, uint32_t n, uint32_t k,
                                    uint64_t seed) {
  auto& mem = gpu.gmem();
  BlockwiseBuffers b;
  b.m = m, b.n = n, b.k = k;
  b.ldc = round_up<uint32_t>(n, 16 / sizeof(OutT));
  b.pitch = round_up<uint32_t>(k, 16);
  b.kb = (k + kBlockwiseBlock - 1) / kBlockwiseBlock;
  b.nb = (n + kBlockwiseBlock - 1) / kBlockwiseBlock;
  b.sa_pitch = round_up<uint32_t>(m, 4);
  b.sb_pitch = round_up<uint32_t>(b.nb, 4);
  b.a_addr = mem.allocate(uint64_t{m} * b.pitch, "A");
  b.b_addr = mem.allocate(uint64_t{n} * b.pitch, "B");
  b.sa_addr = mem.allocate(uint64_t{b.kb} * b.sa_pitch * 4, "A scales");
  b.sb_addr = mem.allocate(uint64_t{b.kb} * b.sb_pitch * 4, "B scales");
  b.d = mem.allocate(uint64_t{m} * b.ldc * sizeof(OutT), "D");
  if (!gpu.functional()) return b;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> mag(-8, 8);
  // Values of one operand, block magnitudes per (row block of `rows_per`, kb).
  auto values = [&](uint32_t rows, uint32_t rows_per) {
    std::vector<double> v(size_t{rows} * k);
    const uint32_t rblocks = (rows + rows_per - 1) / rows_per;
    std::vector<double> scale(size_t{rblocks} * b.kb);
    for (auto& s : scale) s = std::ldexp(1.0, mag(rng));
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; ++c)
        v[size_t{r} * k + c] = unit(rng) * scale[size_t{r / rows_per} * b.kb + c / kBlockwiseBlock];
    return v;
  };
  // Quantizes with one FP32 scale per (row block, kb): amax / 448.
  auto quantize = [&](const std::vector<double>& v, uint32_t rows, uint32_t rows_per,
                      std::vector<uint8_t>& codes, std::vector<float>& scales) {
    const uint32_t rblocks = (rows + rows_per - 1) / rows_per;
    scales.assign(size_t{rblocks} * b.kb, 0.0f);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; ++c) {
        float& s = scales[size_t{r / rows_per} * b.kb + c / kBlockwiseBlock];
        s = std::max(s, static_cast<float>(std::fabs(v[size_t{r} * k + c]) / ref::kE4M3Max));
      }
    for (auto& s : scales)
      if (s == 0.0f) s = 1.0f;
    codes.resize(size_t{rows} * k);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; ++c)
        codes[size_t{r} * k + c] = ref::encode_e4m3(
            v[size_t{r} * k + c] / scales[size_t{r / rows_per} * b.kb + c / kBlockwiseBlock]);
  };
  quantize(values(m, 1), m, 1, b.a, b.sa);
  quantize(values(n, kBlockwiseBlock), n, kBlockwiseBlock, b.b, b.sb);
  for (auto [addr, codes, rows] : {std::tuple{b.a_addr, &b.a, m}, std::tuple{b.b_addr, &b.b, n}}) {
    uint8_t* p = mem.host(addr);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < b.pitch; ++c)
        p[uint64_t{r} * b.pitch + c] = c < k ? (*codes)[size_t{r} * k + c] : ref::kE4M3NaN;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto* sa = reinterpret_cast<float*>(mem.host(b.sa_addr));
  for (uint32_t kb = 0; kb < b.kb; ++kb)
    for (uint32_t r = 0; r < b.sa_pitch; ++r)
      sa[size_t{kb} * b.sa_pitch + r] = r < m ? b.sa[size_t{r} * b.kb + kb] : nan;
  auto* sb = reinterpret_cast<float*>(mem.host(b.sb_addr));
  for (uint32_t kb = 0; kb < b.kb; ++kb)
    for (uint32_t j = 0; j < b.sb_pitch; ++j)
      sb[size_t{kb} * b.sb_pitch + j] = j < b.nb ? b.sb[size_t{j} * b.kb + kb] : nan;
  poison_output<OutT>(mem.host(b.d), size_t{m} * b.ldc);
  return b;
}

// The kernel parameters of configuration C over `buf`. sa_box: the rows of
// A's scale box (128 unless a test wants it wrong).
template <class C, class Params>
void encode_blockwise(Params& p, const BlockwiseBuffers& buf, uint32_t sa_box = 128) {
  using models::sm100::Swizzle;
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument("tensor map: " + err);
  };
  check(models::sm100::encode_tiled_2d(p.a, buf.a_addr, 1, buf.k, buf.m, buf.pitch, 128, C::BM,
                                       Swizzle::k128B));
  check(models::sm100::encode_tiled_2d(p.b, buf.b_addr, 1, buf.k, buf.n, buf.pitch, 128, C::BN,
                                       Swizzle::k128B));
  check(encode_output_map<C>(p.c, buf.d, buf.n, buf.m, buf.ldc));
  check(models::sm100::encode_tiled_2d(p.scales.sfa, buf.sa_addr, 4, buf.m, buf.kb,
                                       uint64_t{buf.sa_pitch} * 4, sa_box, 1, Swizzle::kNone));
  check(models::sm100::encode_tiled_2d(p.scales.sfb, buf.sb_addr, 4, buf.nb, buf.kb,
                                       uint64_t{buf.sb_pitch} * 4, 4, 1, Swizzle::kNone));
  p.m = buf.m;
  p.n = buf.n;
  p.k = buf.k;
}

// ref::blockwise_fp8_gemm over the codes and scales the kernel read;
// tolerance: FP32 accumulation over the K / 32 instructions plus a scaling
// and an accumulation rounding per k-block, and one rounding to OutT.
template <class OutT>
CheckResult check_blockwise(models::sm100::Gpu& gpu, const BlockwiseBuffers& b, RunStatus status) {
  CheckResult r;
  r.ran = true;
  r.reference = "host FP64 blockwise FP8 GEMM (E4M3, 1x128 and 128x128 FP32 scales)";
  if (status != RunStatus::kCompleted) {
    r.detail = "the kernel did not complete";
    return r;
  }
  r.passed = true;
  const std::vector<double> ref = ref::blockwise_fp8_gemm(b.m, b.n, b.k, b.a, b.sa, b.b, b.sb);
  std::vector<uint8_t> aa(b.a), ab(b.b);
  for (auto& c : aa) c &= 0x7F;
  for (auto& c : ab) c &= 0x7F;
  const std::vector<double> abs = ref::blockwise_fp8_gemm(b.m, b.n, b.k, aa, b.sa, ab, b.sb);
  const uint64_t terms = (b.k + 31) / 32 + 2 * uint64_t{b.kb};
  check_output<OutT>(r, gpu.gmem().host(b.d), b.m, b.n, b.ldc, ref, abs, terms);
  return r;
}

}  // namespace sk::sim
