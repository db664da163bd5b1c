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
#include "runner/kernels/block_scaled_host.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "runner/ref/block_formats.h"
#include "runner/result/run_result.h"

namespace sk::sim {

inline constexpr uint32_t kBlockwiseBlock = 128;

// `batches` matrices of each; matrix l's codes at l * m * k of `a` (l * n * k
// of `b`), its scales at l * m * kb of `sa` (l * nb * kb of `sb`), and on the
// device at l * stride_a, l * stride_b and l * kb * sa_pitch (sb_pitch)
// floats.
struct BlockwiseBuffers {
  uint32_t m = 0, n = 0, k = 0, ldc = 0;
  uint32_t batches = 1;
  bool a_mn_major = false, b_mn_major = false;  // stored as K rows of M (N) bytes
  uint32_t pitch_a = 0, pitch_b = 0;    // bytes per stored row of A and B
  uint64_t stride_a = 0, stride_b = 0;  // bytes per matrix
  uint32_t kb = 0, nb = 0;   // scale blocks along K and N
  uint32_t sa_pitch = 0, sb_pitch = 0;  // floats per row of the scale tensors
  std::vector<uint8_t> a, b;             // m x k and n x k E4M3 codes (per matrix)
  std::vector<float> sa, sb;             // m x kb and nb x kb (the reference's layout)
  uint64_t a_addr = 0, b_addr = 0, sa_addr = 0, sb_addr = 0, d = 0;
};

// Allocates and (in functional mode) fills `batches` matrices each of A (m x
// k), B (n x k), their scales and D (m x n, OutT); A (B) stored MN-major, K
// rows of M (N) bytes, with a_mn_major (b_mn_major). Rows are `pitches` apart
// (block_scaled_host.h; by default padded to 16 bytes), the padding E4M3 NaN.
template <class OutT>
BlockwiseBuffers allocate_blockwise(models::sm100::Gpu& gpu, uint32_t m, uint32_t n, uint32_t k,
                                    uint64_t seed, uint32_t batches = 1, bool a_mn_major = false,
                                    bool b_mn_major = false, OperandPitches pitches = {}) {
  auto& mem = gpu.gmem();
  BlockwiseBuffers b;
  b.m = m, b.n = n, b.k = k;
  b.batches = batches;
  b.a_mn_major = a_mn_major, b.b_mn_major = b_mn_major;
  b.ldc = pitches.d != 0 ? pitches.d : round_up<uint32_t>(n, 16 / sizeof(OutT));
  for (auto [pitch, len, given, name] :
       {std::tuple{&b.pitch_a, a_mn_major ? m : k, pitches.a, "A"},
        std::tuple{&b.pitch_b, b_mn_major ? n : k, pitches.b, "B"}}) {
    if (given != 0 && (given < len || given % 16 != 0))
      throw std::invalid_argument(fmt::format("{}: a pitch of {} bytes for rows of {} bytes (TMA "
                                              "needs a multiple of 16)",
                                              name, given, len));
    *pitch = given != 0 ? given : round_up<uint32_t>(len, 16);
  }
  b.stride_a = uint64_t{a_mn_major ? k : m} * b.pitch_a;
  b.stride_b = uint64_t{b_mn_major ? k : n} * b.pitch_b;
  b.kb = (k + kBlockwiseBlock - 1) / kBlockwiseBlock;
  b.nb = (n + kBlockwiseBlock - 1) / kBlockwiseBlock;
  b.sa_pitch = round_up<uint32_t>(m, 4);
  b.sb_pitch = round_up<uint32_t>(b.nb, 4);
  b.a_addr = mem.allocate(b.stride_a * batches, "A");
  b.b_addr = mem.allocate(b.stride_b * batches, "B");
  b.sa_addr = mem.allocate(uint64_t{b.kb} * b.sa_pitch * 4 * batches, "A scales");
  b.sb_addr = mem.allocate(uint64_t{b.kb} * b.sb_pitch * 4 * batches, "B scales");
  b.d = mem.allocate(uint64_t{m} * b.ldc * sizeof(OutT) * batches, "D");
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
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t l = 0; l < batches; ++l) {
    std::vector<uint8_t> ac, bc;
    std::vector<float> as, bs;
    quantize(values(m, 1), m, 1, ac, as);
    quantize(values(n, kBlockwiseBlock), n, kBlockwiseBlock, bc, bs);
    for (auto [addr, codes, rows, mn, pitch, stride] :
         {std::tuple{b.a_addr, &ac, m, a_mn_major, b.pitch_a, b.stride_a},
          std::tuple{b.b_addr, &bc, n, b_mn_major, b.pitch_b, b.stride_b}}) {
      uint8_t* p = mem.host(addr) + l * stride;
      const uint32_t stored = mn ? k : rows, len = mn ? rows : k;
      for (uint32_t r = 0; r < stored; ++r)
        for (uint32_t c = 0; c < pitch; ++c)
          p[uint64_t{r} * pitch + c] = c >= len ? ref::kE4M3NaN
                                       : mn     ? (*codes)[size_t{c} * k + r]
                                                : (*codes)[size_t{r} * k + c];
    }
    auto* sa = reinterpret_cast<float*>(mem.host(b.sa_addr)) + size_t{l} * b.kb * b.sa_pitch;
    for (uint32_t kb = 0; kb < b.kb; ++kb)
      for (uint32_t r = 0; r < b.sa_pitch; ++r)
        sa[size_t{kb} * b.sa_pitch + r] = r < m ? as[size_t{r} * b.kb + kb] : nan;
    auto* sb = reinterpret_cast<float*>(mem.host(b.sb_addr)) + size_t{l} * b.kb * b.sb_pitch;
    for (uint32_t kb = 0; kb < b.kb; ++kb)
      for (uint32_t j = 0; j < b.sb_pitch; ++j)
        sb[size_t{kb} * b.sb_pitch + j] = j < b.nb ? bs[size_t{j} * b.kb + kb] : nan;
    b.a.insert(b.a.end(), ac.begin(), ac.end());
    b.b.insert(b.b.end(), bc.begin(), bc.end());
    b.sa.insert(b.sa.end(), as.begin(), as.end());
    b.sb.insert(b.sb.end(), bs.begin(), bs.end());
  }
  poison_output<OutT>(mem.host(b.d), size_t{m} * b.ldc * batches);
  return b;
}

// The kernel parameters of configuration C over `buf` (rank-3 maps, one
// plane per matrix). sa_box: the rows of A's scale box (128 unless a test
// wants it wrong). MN-major operands have dims {rows, K, batches} and boxes
// {128, BK} (the loader issues BM / 128 or BN / 128).
template <class C, class Params>
void encode_blockwise(Params& p, const BlockwiseBuffers& buf, uint32_t sa_box = 128) {
  static_assert(C::kBatched, "the blockwise configurations are batched (rank-3 maps)");
  using models::sm100::Swizzle;
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument("tensor map: " + err);
  };
  const uint32_t l = buf.batches;
  for (auto [map, addr, rows, mn, pitch, stride, box_rows] :
       {std::tuple{&p.a, buf.a_addr, buf.m, buf.a_mn_major, buf.pitch_a, buf.stride_a,
                   uint32_t{C::BM}},
        std::tuple{&p.b, buf.b_addr, buf.n, buf.b_mn_major, buf.pitch_b, buf.stride_b,
                   uint32_t{C::BN}}}) {
    if (mn)
      check(encode_batched_bytes(*map, addr, 1, rows, buf.k, pitch, stride, l, 128, C::BK,
                                 Swizzle::k128B));
    else
      check(encode_batched_bytes(*map, addr, 1, buf.k, rows, pitch, stride, l, 128, box_rows,
                                 Swizzle::k128B));
  }
  p.layouts = OperandLayouts{buf.a_mn_major ? 1u : 0u, buf.b_mn_major ? 1u : 0u};
  check(encode_output_map<C>(p.c, buf.d, buf.n, buf.m, buf.ldc, uint64_t{buf.m} * buf.ldc, l));
  check(encode_batched_bytes(p.scales.sfa, buf.sa_addr, 4, buf.m, buf.kb,
                             uint64_t{buf.sa_pitch} * 4, uint64_t{buf.kb} * buf.sa_pitch * 4, l,
                             sa_box, 1, Swizzle::kNone));
  check(encode_batched_bytes(p.scales.sfb, buf.sb_addr, 4, buf.nb, buf.kb,
                             uint64_t{buf.sb_pitch} * 4, uint64_t{buf.kb} * buf.sb_pitch * 4, l, 4,
                             1, Swizzle::kNone));
  p.m = buf.m;
  p.n = buf.n;
  p.k = buf.k;
  p.batches = l;
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
  const uint64_t terms = (b.k + 31) / 32 + 2 * uint64_t{b.kb};
  const size_t ac = size_t{b.m} * b.k, bc = size_t{b.n} * b.k;
  const size_t as = size_t{b.m} * b.kb, bs = size_t{b.nb} * b.kb;
  // Each matrix of the batch against the reference of its own operands.
  for (uint32_t l = 0; l < b.batches && r.passed; ++l) {
    const std::vector<uint8_t> a(b.a.begin() + l * ac, b.a.begin() + (l + 1) * ac);
    const std::vector<uint8_t> bb(b.b.begin() + l * bc, b.b.begin() + (l + 1) * bc);
    const std::vector<float> sa(b.sa.begin() + l * as, b.sa.begin() + (l + 1) * as);
    const std::vector<float> sb(b.sb.begin() + l * bs, b.sb.begin() + (l + 1) * bs);
    const std::vector<double> ref = ref::blockwise_fp8_gemm(b.m, b.n, b.k, a, sa, bb, sb);
    std::vector<uint8_t> aa(a), ab(bb);
    for (auto& c : aa) c &= 0x7F;
    for (auto& c : ab) c &= 0x7F;
    const std::vector<double> abs = ref::blockwise_fp8_gemm(b.m, b.n, b.k, aa, sa, ab, sb);
    check_output<OutT>(r, gpu.gmem().host(b.d) + size_t{l} * b.m * b.ldc * sizeof(OutT), b.m, b.n,
                       b.ldc, ref, abs, terms, b.batches > 1 ? static_cast<int>(l) : -1);
  }
  return r;
}

}  // namespace sk::sim
