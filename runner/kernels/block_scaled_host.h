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
// copies are. A batch holds `batches` matrices, each with its own codes and
// scales: matrix l's at l * rows * row_bytes of `codes` (l * rows * blocks of
// `scales`), at data + l * stride and sf + l * sf_rows * 16 on the device.
struct ScaledOperand {
  uint32_t rows = 0, row_bytes = 0;  // GEMM rows (M or N) and bytes of K per row (packed)
  bool mn_major = false;  // stored as K rows of `rows` bytes (FP8 only) instead of rows of K
  uint32_t pitch = 0;     // bytes between stored rows (16-byte multiple)
  uint64_t stride = 0;    // bytes between matrices
  std::vector<uint8_t> codes;   // batches x rows x row_bytes (FP8 codes, or packed E2M1 pairs)
  std::vector<uint8_t> scales;  // batches x rows x ceil(K / block) scale codes
  uint64_t data = 0, sf = 0;    // device addresses
  uint32_t row_blocks = 0;      // of the scale layout (even)
  uint64_t sf_rows = 0;         // 16-byte rows of one matrix's scale tensor
};

// Pitches the host stores A's and B's rows at, in bytes, and D's, in
// elements of OutT; 0: the smallest pitch >= the row whose rows start on 16
// bytes (TMA's rule, cuTensorMapEncodeTiled globalStrides). A given pitch
// must be >= the row (the packed row's bytes, or M / N MN-major) and a
// multiple of 16 bytes; the bytes past the row are poisoned as below.
struct OperandPitches {
  uint32_t a = 0, b = 0, d = 0;
};

struct BlockScaledBuffers {
  BlockFormat format = BlockFormat::kMxfp8E4m3;
  uint32_t m = 0, n = 0, k = 0, ldc = 0;
  uint32_t batches = 1;
  ScaledOperand a, b;
  uint64_t d = 0;  // matrix l at d + l * m * ldc elements
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

// Allocates and (in functional mode) fills `batches` matrices each of A (m x
// k), B (n x k), their scales and D (m x n, OutT), laid out for a stage of
// BK elements of K; A (B) stored MN-major, K rows of M (N) bytes, when
// a_mn_major (b_mn_major): FP8 formats only. Rows are `pitches` apart (by
// default padded to 16 bytes, TMA's pitch rule), the padding holding NaN codes
// (FP8) or 6.0 (FP4, which has no NaN: a read of it changes the result).
template <class OutT>
BlockScaledBuffers allocate_block_scaled(models::sm100::Gpu& gpu, BlockFormat f, uint32_t m,
                                         uint32_t n, uint32_t k, uint64_t seed,
                                         uint32_t batches = 1, bool a_mn_major = false,
                                         bool b_mn_major = false, OperandPitches pitches = {}) {
  namespace d = block_scaled_detail;
  if (is_fp4(f) && (a_mn_major || b_mn_major))
    throw std::invalid_argument("NVFP4 operands are K-major only (kind::mxf4nvf4)");
  auto& mem = gpu.gmem();
  BlockScaledBuffers b;
  b.format = f;
  b.m = m;
  b.n = n;
  b.k = k;
  b.batches = batches;
  b.ldc = pitches.d != 0 ? pitches.d : round_up<uint32_t>(n, 16 / sizeof(OutT));
  const uint32_t bk = is_fp4(f) ? 256 : 128, atoms = is_fp4(f) ? 4 : 1;
  const uint32_t chunks = (k + bk - 1) / bk;
  for (auto [op, rows, mn, name, given] : {std::tuple{&b.a, m, a_mn_major, "A", pitches.a},
                                           std::tuple{&b.b, n, b_mn_major, "B", pitches.b}}) {
    op->rows = rows;
    op->row_bytes = is_fp4(f) ? (k + 1) / 2 : k;
    op->mn_major = mn;
    const uint32_t len = mn ? rows : op->row_bytes;
    if (given != 0 && (given < len || given % 16 != 0))
      throw std::invalid_argument(fmt::format("{}: a pitch of {} bytes for rows of {} bytes (TMA "
                                              "needs a multiple of 16)",
                                              name, given, len));
    op->pitch = given != 0 ? given : round_up<uint32_t>(len, 16);
    op->stride = uint64_t{mn ? k : rows} * op->pitch;
    op->row_blocks = round_up<uint32_t>((rows + 127) / 128, 2);
    op->sf_rows = uint64_t{chunks} * op->row_blocks * atoms * 32;
    op->data = mem.allocate(op->stride * batches, name);
    op->sf = mem.allocate(op->sf_rows * 16 * batches, fmt::format("{} scales", name).c_str());
  }
  b.d = mem.allocate(uint64_t{m} * b.ldc * sizeof(OutT) * batches, "D");
  if (!gpu.functional()) return b;
  std::mt19937_64 rng(seed);
  const uint32_t nblk = (k + scale_block(f) - 1) / scale_block(f);
  for (uint32_t l = 0; l < batches; ++l)
    for (ScaledOperand* op : {&b.a, &b.b}) {
      ScaledOperand one;
      d::quantize(f, op->rows, k, rng, one);
      op->codes.insert(op->codes.end(), one.codes.begin(), one.codes.end());
      op->scales.insert(op->scales.end(), one.scales.begin(), one.scales.end());
      uint8_t* data = mem.host(op->data) + l * op->stride;
      const uint8_t pad = is_fp4(f) ? 0x77 : 0x7F;  // 6.0 | 6.0, or NaN in both FP8 formats
      const uint32_t stored = op->mn_major ? k : op->rows;
      const uint32_t len = op->mn_major ? op->rows : op->row_bytes;
      for (uint32_t r = 0; r < stored; ++r)
        for (uint32_t c = 0; c < op->pitch; ++c)
          data[uint64_t{r} * op->pitch + c] =
              c >= len        ? pad
              : op->mn_major  ? one.codes[size_t{c} * op->row_bytes + r]
                              : one.codes[size_t{r} * op->row_bytes + c];
      uint8_t* sf = mem.host(op->sf) + l * op->sf_rows * 16;
      for (uint64_t i = 0; i < op->sf_rows * 16; ++i) sf[i] = d::filler_scale(f, rng);
      for (uint32_t r = 0; r < op->rows; ++r)
        for (uint32_t j = 0; j < nblk; ++j)
          sf[d::scale_offset(f, op->row_blocks, r, j)] = one.scales[size_t{r} * nblk + j];
    }
  poison_output<OutT>(mem.host(b.d), size_t{m} * b.ldc * batches);
  return b;
}

// The rank-3 map of one operand (or its scales) over `batches` matrices
// `stride` bytes apart: dims {d0, d1, batches}, d1's rows `pitch` bytes apart,
// boxes {box0, box1}. A batch of one never steps to a second matrix; its
// plane stride is any legal one.
inline std::string encode_batched_bytes(models::sm100::TensorMapModel& map, uint64_t base,
                                        uint32_t elem_bytes, uint64_t d0, uint64_t d1,
                                        uint64_t pitch, uint64_t stride, uint32_t batches,
                                        uint32_t box0, uint32_t box1,
                                        models::sm100::Swizzle swizzle) {
  const uint64_t dims[3] = {d0, d1, batches};
  const uint64_t strides[2] = {pitch, batches == 1 ? 16 : stride};
  return models::sm100::encode_tiled_3d(map, base, elem_bytes, dims, strides, box0, box1, swizzle);
}

// The kernel parameters of configuration C over `buf`. sf_box_rows_a: the
// 16-byte rows of A's scale box (the stage's atoms unless a test wants it
// wrong). K-major operands have dims {K bytes, rows, batches} and boxes {128,
// BM or BN}; MN-major ones {rows, K, batches} and boxes {128, BK} (one
// 128-byte span of rows; the loader issues BM / 128 or BN / 128).
template <class C, class Params>
void encode_block_scaled(Params& p, const BlockScaledBuffers& buf,
                         uint32_t sf_box_rows_a = 32 * C::Mma::kSfaBytes / kScaleAtomBytes) {
  static_assert(C::kBatched, "the block-scaled configurations are batched (rank-3 maps)");
  using models::sm100::Swizzle;
  auto check = [](const std::string& err) {
    if (!err.empty()) throw std::invalid_argument("tensor map: " + err);
  };
  const uint32_t l = buf.batches;
  for (auto [map, op, box_rows] : {std::tuple{&p.a, &buf.a, uint32_t{C::BM}},
                                   std::tuple{&p.b, &buf.b, uint32_t{C::BN}}}) {
    if (op->mn_major)
      check(encode_batched_bytes(*map, op->data, 1, op->rows, buf.k, op->pitch, op->stride, l, 128,
                                 C::BK, Swizzle::k128B));
    else
      check(encode_batched_bytes(*map, op->data, 1, op->row_bytes, op->rows, op->pitch, op->stride,
                                 l, 128, box_rows, Swizzle::k128B));
  }
  p.layouts = OperandLayouts{buf.a.mn_major ? 1u : 0u, buf.b.mn_major ? 1u : 0u};
  check(encode_output_map<C>(p.c, buf.d, buf.n, buf.m, buf.ldc, uint64_t{buf.m} * buf.ldc, l));
  check(encode_batched_bytes(p.scales.sfa, buf.a.sf, 1, 16, buf.a.sf_rows, 16,
                             buf.a.sf_rows * 16, l, 16, sf_box_rows_a, Swizzle::kNone));
  check(encode_batched_bytes(p.scales.sfb, buf.b.sf, 1, 16, buf.b.sf_rows, 16,
                             buf.b.sf_rows * 16, l, 16,
                             32 * C::Mma::kSfbBytes / kScaleAtomBytes, Swizzle::kNone));
  p.scales.row_blocks_a = buf.a.row_blocks;
  p.scales.row_blocks_b = buf.b.row_blocks;
  p.m = buf.m;
  p.n = buf.n;
  p.k = buf.k;
  p.batches = l;
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
  auto gemm = [&](const std::vector<uint8_t>& ac, const std::vector<uint8_t>& as,
                  const std::vector<uint8_t>& bc, const std::vector<uint8_t>& bs) {
    if (is_fp4(b.format)) return ref::nvfp4_gemm(b.m, b.n, b.k, ac, as, bc, bs);
    const auto fmt8 =
        b.format == BlockFormat::kMxfp8E4m3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
    return ref::mxfp8_gemm(b.m, b.n, b.k, ac, fmt8, as, bc, fmt8, bs);
  };
  const uint64_t blocks = (b.k + scale_block(b.format) - 1) / scale_block(b.format);
  const size_t a_codes = size_t{b.m} * b.a.row_bytes, b_codes = size_t{b.n} * b.b.row_bytes;
  const size_t a_scales = size_t{b.m} * blocks, b_scales = size_t{b.n} * blocks;
  // Each matrix of the batch against the reference of its own operands.
  for (uint32_t l = 0; l < b.batches && r.passed; ++l) {
    auto slice = [l](const std::vector<uint8_t>& v, size_t per) {
      return std::vector<uint8_t>(v.begin() + l * per, v.begin() + (l + 1) * per);
    };
    const std::vector<uint8_t> ac = slice(b.a.codes, a_codes), bc = slice(b.b.codes, b_codes);
    const std::vector<uint8_t> as = slice(b.a.scales, a_scales), bs = slice(b.b.scales, b_scales);
    const std::vector<double> ref = gemm(ac, as, bc, bs);
    const std::vector<double> abs = gemm(magnitudes(ac), as, magnitudes(bc), bs);
    check_output<OutT>(r, gpu.gmem().host(b.d) + size_t{l} * b.m * b.ldc * sizeof(OutT), b.m, b.n,
                       b.ldc, ref, abs, blocks, b.batches > 1 ? static_cast<int>(l) : -1);
  }
  return r;
}

}  // namespace sk::sim
