// block_scaled_host.h: the host side of a block-scaled matmul launch in the
// model (kernels/blockscaled/), shared by the runner (block_scaled_run.cc),
// the tests and the seeded-bug corpus: random operands quantized to the
// format with per-block scales, the scale tensors in the kernel's chunked
// atom layout (kernels/blockscaled/scale_loader.h), the tensor maps, and the
// check against the FP64 references of runner/ref/block_formats.h.
//
// Data: each scale block of a row gets its own magnitude (2^e, e uniform in
// [-6, 6]) so that scales differ block to block; MX scales are the OCP shared
// exponent of the block (ref::mx_shared_scale), NVFP4 scales the E4M3
// encoding of amax / 6. Elements are the format's encoding of value / scale.
// Scale-atom entries no element uses (rows past M or N, blocks past K) hold
// random finite codes: a kernel that reads them where it should not produces
// a wrong result. Padding bytes of A and B rows hold NaN codes (FP8) or 6.0
// (FP4): TMA must never read them. D is NaN-poisoned.
//
// Invariants: buffers are filled only in functional mode; the reference sees
// exactly the codes the kernel reads (the same vectors).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/blockscaled/config.h"
#include "kernels/core/math.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_host.h"
#include "runner/ref/block_formats.h"
#include "runner/result/run_result.h"

namespace sk::sim {

enum class BlockFormat { kMxfp8E4m3, kMxfp8E5m2, kNvfp4 };

inline bool is_fp4(BlockFormat f) { return f == BlockFormat::kNvfp4; }
inline uint32_t scale_block(BlockFormat f) { return is_fp4(f) ? 16 : 32; }
inline const char* format_name(BlockFormat f) {
  switch (f) {
    case BlockFormat::kMxfp8E4m3: return "MXFP8 (E4M3, UE8M0 per 32)";
    case BlockFormat::kMxfp8E5m2: return "MXFP8 (E5M2, UE8M0 per 32)";
    default: return "NVFP4 (E2M1, UE4M3 per 16)";
  }
}

// One operand: its codes as the reference reads them, and where the kernel's
// copies are.
struct ScaledOperand {
  uint32_t rows = 0, row_bytes = 0, pitch = 0;  // bytes per row (packed), pitch >= row_bytes
  std::vector<uint8_t> codes;   // rows x row_bytes (FP8 codes, or packed E2M1 pairs)
  std::vector<uint8_t> scales;  // rows x ceil(K / block) scale codes
  uint64_t data = 0, sf = 0;    // device addresses
  uint32_t row_blocks = 0;      // of the scale layout (even)
  uint64_t sf_rows = 0;         // 16-byte rows of the scale tensor
};

struct BlockScaledBuffers {
  BlockFormat format = BlockFormat::kMxfp8E4m3;
  uint32_t m = 0, n = 0, k = 0, ldc = 0;
  ScaledOperand a, b;
  uint64_t d = 0;
};

namespace block_scaled_detail {

inline uint8_t encode_elem(BlockFormat f, double x) {
  switch (f) {
    case BlockFormat::kMxfp8E4m3: return ref::encode_e4m3(x);
    case BlockFormat::kMxfp8E5m2: return ref::encode_e5m2(x);
    default: return ref::encode_e2m1(x);
  }
}

// Byte offset of scale (row r, block j) in the chunked atom layout.
inline uint64_t scale_offset(BlockFormat f, uint32_t row_blocks, uint32_t r, uint32_t j) {
  const uint32_t per_chunk = is_fp4(f) ? 16 : 4;  // scale blocks per stage's K
  const uint32_t atoms = is_fp4(f) ? 4 : 1;
  const uint32_t kc = j / per_chunk, jj = j % per_chunk;
  const uint64_t atom = (uint64_t{kc} * row_blocks + r / 128) * atoms + jj / 4;
  return atom * kScaleAtomBytes + (r % 32) * 16 + ((r % 128) / 32) * 4 + jj % 4;
}

// A random finite scale code (no NaN), for unused atom entries.
inline uint8_t filler_scale(BlockFormat f, std::mt19937_64& rng) {
  const uint8_t c = static_cast<uint8_t>(rng() % 0x7F);
  return is_fp4(f) ? c : static_cast<uint8_t>(120 + c % 16);
}

// Fills one operand of `rows` x k: quantized codes and scales.
inline void quantize(BlockFormat f, uint32_t rows, uint32_t k, std::mt19937_64& rng,
                     ScaledOperand& op) {
  const uint32_t bs = scale_block(f), nblk = (k + bs - 1) / bs;
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> mag(-6, 6);
  std::vector<uint8_t> elems(size_t{rows} * k);  // one code per element
  op.scales.assign(size_t{rows} * nblk, 0);
  std::vector<double> v(bs);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < nblk; ++j) {
      const uint32_t k0 = j * bs, len = std::min(bs, k - k0);
      const double m = std::ldexp(1.0, mag(rng));
      for (uint32_t i = 0; i < len; ++i) v[i] = unit(rng) * m;
      double scale;
      uint8_t code;
      if (is_fp4(f)) {
        double amax = 0;
        for (uint32_t i = 0; i < len; ++i) amax = std::max(amax, std::fabs(v[i]));
        code = ref::encode_nvfp4_scale(amax / ref::kE2M1Max);
        scale = ref::decode_nvfp4_scale(code);
      } else {
        code = ref::mx_shared_scale(std::span<const double>(v.data(), len),
                                    f == BlockFormat::kMxfp8E4m3 ? ref::kEmaxE4M3 : ref::kEmaxE5M2);
        scale = ref::decode_e8m0(code);
      }
      op.scales[size_t{r} * nblk + j] = code;
      for (uint32_t i = 0; i < len; ++i)
        elems[size_t{r} * k + k0 + i] = scale == 0 ? encode_elem(f, 0.0) : encode_elem(f, v[i] / scale);
    }
  op.codes = is_fp4(f) ? ref::pack_e2m1_rows(elems, rows, k) : std::move(elems);
}

}  // namespace block_scaled_detail

// Allocates and (in functional mode) fills A (m x k), B (n x k), their scales
// and D (m x n, OutT), laid out for a stage of BK elements of K.
template <class OutT>
BlockScaledBuffers allocate_block_scaled(models::sm100::Gpu& gpu, BlockFormat f, uint32_t m,
                                         uint32_t n, uint32_t k, uint64_t seed) {
  namespace d = block_scaled_detail;
  auto& mem = gpu.gmem();
  BlockScaledBuffers b;
  b.format = f;
  b.m = m;
  b.n = n;
  b.k = k;
  b.ldc = round_up<uint32_t>(n, 16 / sizeof(OutT));
  const uint32_t bk = is_fp4(f) ? 256 : 128, atoms = is_fp4(f) ? 4 : 1;
  const uint32_t chunks = (k + bk - 1) / bk;
  for (auto [op, rows, name] : {std::tuple{&b.a, m, "A"}, std::tuple{&b.b, n, "B"}}) {
    op->rows = rows;
    op->row_bytes = is_fp4(f) ? (k + 1) / 2 : k;
    op->pitch = round_up<uint32_t>(op->row_bytes, 16);
    op->row_blocks = round_up<uint32_t>((rows + 127) / 128, 2);
    op->sf_rows = uint64_t{chunks} * op->row_blocks * atoms * 32;
    op->data = mem.allocate(uint64_t{rows} * op->pitch, name);
    op->sf = mem.allocate(op->sf_rows * 16, fmt::format("{} scales", name).c_str());
  }
  b.d = mem.allocate(uint64_t{m} * b.ldc * sizeof(OutT), "D");
  if (!gpu.functional()) return b;
  std::mt19937_64 rng(seed);
  for (ScaledOperand* op : {&b.a, &b.b}) {
    d::quantize(f, op->rows, k, rng, *op);
    uint8_t* data = mem.host(op->data);
    const uint8_t pad = is_fp4(f) ? 0x77 : 0x7F;  // 6.0 | 6.0, or NaN in both FP8 formats
    for (uint32_t r = 0; r < op->rows; ++r)
      for (uint32_t c = 0; c < op->pitch; ++c)
        data[uint64_t{r} * op->pitch + c] =
            c < op->row_bytes ? op->codes[size_t{r} * op->row_bytes + c] : pad;
    uint8_t* sf = mem.host(op->sf);
    for (uint64_t i = 0; i < op->sf_rows * 16; ++i) sf[i] = d::filler_scale(f, rng);
    const uint32_t nblk = (k + scale_block(f) - 1) / scale_block(f);
    for (uint32_t r = 0; r < op->rows; ++r)
      for (uint32_t j = 0; j < nblk; ++j)
        sf[d::scale_offset(f, op->row_blocks, r, j)] = op->scales[size_t{r} * nblk + j];
  }
  poison_output<OutT>(mem.host(b.d), size_t{m} * b.ldc);
  return b;
}

// The kernel parameters of configuration C over `buf`. sf_box_rows_a: the
// 16-byte rows of A's scale box (the stage's atoms unless a test wants it
// wrong).
template <class C, class Params>
void encode_block_scaled(Params& p, const BlockScaledBuffers& buf,
                         uint32_t sf_box_rows_a = 32 * C::Mma::kSfaBytes / kScaleAtomBytes) {
  using models::sm100::Swizzle;
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument("tensor map: " + err);
  };
  const ScaledOperand &a = buf.a, &b = buf.b;
  check(models::sm100::encode_tiled_2d(p.a, a.data, 1, a.row_bytes, a.rows, a.pitch, 128, C::BM,
                                       Swizzle::k128B));
  check(models::sm100::encode_tiled_2d(p.b, b.data, 1, b.row_bytes, b.rows, b.pitch, 128, C::BN,
                                       Swizzle::k128B));
  check(encode_output_map<C>(p.c, buf.d, buf.n, buf.m, buf.ldc));
  check(models::sm100::encode_tiled_2d(p.scales.sfa, a.sf, 1, 16, a.sf_rows, 16, 16,
                                       sf_box_rows_a, Swizzle::kNone));
  check(models::sm100::encode_tiled_2d(p.scales.sfb, b.sf, 1, 16, b.sf_rows, 16, 16,
                                       32 * C::Mma::kSfbBytes / kScaleAtomBytes, Swizzle::kNone));
  p.scales.row_blocks_a = a.row_blocks;
  p.scales.row_blocks_b = b.row_blocks;
  p.m = buf.m;
  p.n = buf.n;
  p.k = buf.k;
}

// The FP64 reference of the format (runner/ref) over the codes the kernel read;
// tolerance: FP32 accumulation over the K / block scale blocks, plus one
// rounding to OutT, as check_element.
template <class OutT>
CheckResult check_block_scaled(models::sm100::Gpu& gpu, const BlockScaledBuffers& b,
                               RunStatus status) {
  CheckResult r;
  r.ran = true;
  r.reference = fmt::format("host FP64 {} GEMM (runner/ref/block_formats)", format_name(b.format));
  if (status != RunStatus::kCompleted) {
    r.detail = "the kernel did not complete";
    return r;
  }
  r.passed = true;
  // |A| and |B|: the same scales over the codes' magnitudes bound the sum.
  auto magnitudes = [&](const std::vector<uint8_t>& codes) {
    std::vector<uint8_t> out(codes);
    for (auto& c : out) c &= is_fp4(b.format) ? 0x77 : 0x7F;
    return out;
  };
  auto gemm = [&](const std::vector<uint8_t>& ac, const std::vector<uint8_t>& bc) {
    if (is_fp4(b.format)) return ref::nvfp4_gemm(b.m, b.n, b.k, ac, b.a.scales, bc, b.b.scales);
    const auto fmt8 =
        b.format == BlockFormat::kMxfp8E4m3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
    return ref::mxfp8_gemm(b.m, b.n, b.k, ac, fmt8, b.a.scales, bc, fmt8, b.b.scales);
  };
  const std::vector<double> ref = gemm(b.a.codes, b.b.codes);
  const std::vector<double> abs = gemm(magnitudes(b.a.codes), magnitudes(b.b.codes));
  const uint64_t blocks = (b.k + scale_block(b.format) - 1) / scale_block(b.format);
  check_output<OutT>(r, gpu.gmem().host(b.d), b.m, b.n, b.ldc, ref, abs, blocks);
  return r;
}

}  // namespace sk::sim
