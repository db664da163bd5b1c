// api_tcgen05_block_scale.cc: block-scaled tcgen05.mma and the scale-factor
// copy tcgen05.cp, cta_group::1 (PTX ISA 9.0 9.7.16.10.7, 9.7.16.9.2), and the
// unscaled FP8 kind that shares their element decoding.
//
//   tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X   (MXFP8)
//   tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X   (NVFP4)
//   tcgen05.cp.cta_group::1.32x128b.warpx4                              (scales)
//   tcgen05.mma.cta_group::1.kind::f8f6f4                               (FP8, no scales)
//
// kind::f8f6f4 is the block-scaled mxf8f6f4 with every scale 1: K = 32, the
// same element types, and kind::f16's instruction descriptor layout (D format
// at [4,6), M >> 4 at [24,29)); the model implements F32 D and M = 128.
//
// Semantics (functional mode), for M = 128 and the descriptor's N:
//   D[m][n] = (accumulate ? D[m][n] : 0)
//           + sum_j sa(m, j) * sb(n, j) * sum_{k in block j} A[m][k] * B[n][k]
// with K = 32 and one block of 32 (mxf8f6f4, 1X) or K = 64 and four blocks of
// 16 (mxf4nvf4, 4X). The products, their sums and the scaling are formed in
// FP64 (exact for E4M3 and E2M1 elements with E8M0 or E4M3 scales) and the
// instruction's total is rounded once to FP32 when added to D, so FP32
// rounding happens once per instruction, as in an FP32 accumulator.
//
// Invariants and modelling choices:
//   * Descriptors are decoded here, from the bits (Tables 43 and 44), never
//     from the kernel-side encoders (kernels/arch/sm100/umma_desc.h). Element
//     and scale formats are decoded by this file's own code, independent of
//     the host references in runner/ref/block_formats.h.
//   * A and B are K-major in SMEM and read through umma_decode's K-major
//     layout (any swizzle), or, for 8-bit types of kind::mxf8f6f4 and
//     kind::f8f6f4 with the transpose bits 15/16 set, MN-major, read
//     element by element through umma_decode's MN-major layout with 1-byte
//     elements (a swizzle span holds 128 rows; the 4- and 6-bit types'
//     MN-major forms are not modelled, and kind::mxf4nvf4 has none). Scales
//     are the same either way. Each instruction reads 32 bytes per row: 32 FP8
//     elements, 32 E2M1 elements in the padded mxf8f6f4 form (per 16 elements:
//     8 bytes of nibbles, low nibble first, then 8 bytes of padding that are
//     never read), or 64 E2M1 elements packed two per byte (mxf4nvf4, low
//     nibble = even k). The nibble order is an assumption: the ISA gives it
//     only as a figure.
//   * Scale layout in TMEM (the ISA's figures for scale_vec::1X and 4X,
//     Figures 231/233 and 240/242; assumed from those and from how the copy
//     below lays data out): the scales of row r of A (of column r of B) are in
//     the 32-bit column sf_taddr + r / 32 of lane r % 32, duplicated in every
//     lane quarter. 1X uses byte sf_id of that word (sf_id from the
//     instruction descriptor, 0..3); 4X uses all four bytes, block j in byte
//     j, and sf_id must be 0. So A's scales occupy columns [sfa, sfa + 4) and
//     B's [sfb, sfb + ceil(N / 32)). The model reads the copy in lane r % 128;
//     the only writer of scales it models, tcgen05.cp ... .warpx4, fills all
//     four quarters alike. Bits 30-31 of a scale address (where some kernels
//     carry the byte offset) are ignored; the byte comes from the descriptor.
//   * UE4M3 scales are unsigned: bit 7 is ignored and the low 7 bits decode
//     as E4M3 (0x7F is NaN). UE8M0 0xFF is NaN. NaN and infinities propagate
//     by IEEE rules.
//   * tcgen05.cp.32x128b.warpx4 reads 32 rows of 16 bytes (row r at the
//     K-major offset of (r, 0) under the source descriptor) and writes row r's
//     bytes 4j..4j+3 to column taddr + j of lane 32q + r for q = 0..3.
//   * Timing follows the kind::f16 MMA: the tensor core takes one
//     instruction every N * umma_ii_per_n cycles (params.json gives that
//     interval for every precision) and completes it umma_latency_extra
//     later. A copy occupies the same in-order queue for kCpCycles (512 bytes
//     at 128 bytes per cycle) and completes with the same extra latency; both
//     copy numbers are uncalibrated assumptions.
//   * Rules: formats or fields the kind does not allow -> tcgen05.bad_idesc
//     (fields the model does not implement, such as 6-bit types, MN-major 4-bit
//     or sparse operands, are reported under the same rule, saying so); bad
//     matrix descriptors -> tcgen05.bad_descriptor; operands outside SMEM ->
//     tcgen05.operand_out_of_range; D outside an allocation ->
//     tmem.unallocated_access; scale columns outside one allocation ->
//     tcgen05.scale_out_of_range; scale columns no tcgen05.cp of this CTA
//     wrote -> tcgen05.scale_uninitialized; a copy over scale columns that an
//     MMA issued before it may still be reading (mma -> cp is not a pipelined
//     pair, so the copy must wait for the MMA's commit) ->
//     tcgen05.scale_overwrite_in_flight; with the race detector judged from
//     happens-before (the MMA not known complete to the copying thread), so
//     every schedule finds it; in timing runs from the MMA's completion time.
//   * With the race detector installed, copies are registered as tensor-core
//     operations of the same in-order kind as the MMA ("tcgen05.mma"), so the
//     pipelined cp -> mma pair of one thread is not a race and tcgen05.commit
//     covers copies. Hazards the detector then cannot see (mma -> cp by one
//     thread) are the scale_overwrite_in_flight rule's job.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/tensor_core.h"
#include "models/sm100/umma_decode.h"
#include "engine/source_loc.h"

namespace sk::models::sm100::api {
namespace {

constexpr uint32_t kM = 128;          // cta_group::1 block-scaled MMAs
constexpr Cycle kCpCycles = 4;        // 32 x 128 bit = 512 B at 128 B/cycle (assumed)
constexpr uint32_t kRowBytes = 32;    // SMEM bytes per row per instruction

enum class Kind { kMxf8f6f4, kMxf4nvf4, kF8f6f4 };

// ---- Element and scale formats (this model's own decoders) -------------------

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

double dec_e4m3(uint8_t c) {
  const uint32_t e = (c >> 3) & 0xF, m = c & 0x7;
  double v;
  if (e == 15 && m == 7)
    return nan();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), -9);
  else
    v = std::ldexp(static_cast<double>(8 + m), static_cast<int>(e) - 10);
  return (c & 0x80) ? -v : v;
}

double dec_e5m2(uint8_t c) {
  const uint32_t e = (c >> 2) & 0x1F, m = c & 0x3;
  double v;
  if (e == 31)
    v = m != 0 ? nan() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), -16);
  else
    v = std::ldexp(static_cast<double>(4 + m), static_cast<int>(e) - 17);
  return (c & 0x80) ? -v : v;
}

double dec_e2m1(uint8_t nibble) {
  const uint32_t e = (nibble >> 1) & 0x3, m = nibble & 0x1;
  double v = e == 0 ? 0.5 * m : std::ldexp(static_cast<double>(2 + m), static_cast<int>(e) - 2);
  return (nibble & 0x8) ? -v : v;
}

double dec_ue8m0(uint8_t c) { return c == 0xFF ? nan() : std::ldexp(1.0, static_cast<int>(c) - 127); }
double dec_ue4m3(uint8_t c) { return dec_e4m3(c & 0x7F); }

// ---- Instruction descriptor of the block-scaled kinds ------------------------

struct BsDesc {
  uint32_t raw = 0;
  uint32_t a_type = 0, b_type = 0, sfa_id = 0, sfb_id = 0, m = 0, n = 0;
  bool sparse = false, negate_a = false, negate_b = false, a_mn = false, b_mn = false;
  bool scale_ue8m0 = false, k96 = false;
  uint32_t d_format = 1;  // kind::f8f6f4 only: 0 F16, 1 F32
};

bool scaled(Kind kind) { return kind != Kind::kF8f6f4; }

BsDesc decode_bs(Kind kind, uint32_t d) {
  BsDesc i;
  i.raw = d;
  if (kind == Kind::kF8f6f4) {  // kind::f16's layout
    i.sparse = (d >> 2) & 1;
    i.d_format = (d >> 4) & 0x3;
    i.a_type = (d >> 7) & 0x7;
    i.b_type = (d >> 10) & 0x7;
    i.negate_a = (d >> 13) & 1;
    i.negate_b = (d >> 14) & 1;
    i.a_mn = (d >> 15) & 1;
    i.b_mn = (d >> 16) & 1;
    i.n = ((d >> 17) & 0x3F) << 3;
    i.m = ((d >> 24) & 0x1F) << 4;
    return i;
  }
  i.sparse = (d >> 2) & 1;
  i.sfb_id = (d >> 4) & 0x3;
  i.a_type = (d >> 7) & 0x7;
  i.b_type = kind == Kind::kMxf8f6f4 ? (d >> 10) & 0x7 : (d >> 10) & 0x3;
  i.negate_a = (d >> 13) & 1;
  i.negate_b = (d >> 14) & 1;
  i.a_mn = (d >> 15) & 1;
  i.b_mn = (d >> 16) & 1;
  i.n = ((d >> 17) & 0x3F) << 3;
  i.scale_ue8m0 = (d >> 23) & 1;
  i.m = ((d >> 27) & 0x3) << 7;
  i.sfa_id = (d >> 29) & 0x3;
  i.k96 = kind == Kind::kMxf4nvf4 && ((d >> 31) & 1);
  return i;
}

const char* mxf8_type_name(uint32_t t) {
  switch (t) {
    case 0: return "E4M3";
    case 1: return "E5M2";
    case 3: return "E2M3";
    case 4: return "E3M2";
    case 5: return "E2M1";
    default: return "invalid";
  }
}

// Empty when the model can execute the descriptor, else why not.
std::string check_bs(Kind kind, const BsDesc& i) {
  const uint32_t reserved = kind == Kind::kMxf8f6f4   ? 0x8700004Bu   // bits 0,1,3,6,24-26,31
                            : kind == Kind::kMxf4nvf4 ? 0x0700104Bu   // bits 0,1,3,6,12,24-26
                                                      : 0xE080004Bu;  // 0,1,3,6,23,29-31
  if ((i.raw & reserved) != 0)
    return fmt::format("reserved bits are set (0x{:08x})", i.raw & reserved);
  if (kind == Kind::kF8f6f4 && i.d_format != 1)
    return fmt::format("D format {} is not modelled for kind::f8f6f4 (F32 = 1)", i.d_format);
  if (kind != Kind::kMxf4nvf4) {
    for (auto [what, t] : {std::pair{"A", i.a_type}, std::pair{"B", i.b_type}}) {
      if (t == 2 || t > 5)
        return fmt::format("{} type {} is not an mxf8f6f4 type (E4M3 0, E5M2 1, E2M3 3, E3M2 4, "
                           "E2M1 5)",
                           what, t);
      if (t == 3 || t == 4)
        return fmt::format("{} type {} is valid but the 6-bit types are not modelled", what,
                           mxf8_type_name(t));
    }
    if (kind == Kind::kMxf8f6f4 && !i.scale_ue8m0)
      return "scale type UE4M3 (bit 23 = 0) is not valid for kind::mxf8f6f4, which takes UE8M0 "
             "scales only";
  } else {
    if (i.a_type != 1 || i.b_type != 1)
      return fmt::format("A/B types {}/{}: kind::mxf4nvf4 takes E2M1 (1) only", i.a_type, i.b_type);
    if (i.sfa_id != 0 || i.sfb_id != 0)
      return fmt::format("scale-factor IDs A {} / B {}: scale_vec::4X uses the whole 32-bit "
                         "scale word, the IDs must be 0",
                         i.sfa_id, i.sfb_id);
    if (i.k96) return "K = 96 (bit 31) exists only on sm_103a; sm_100a has K = 64";
    if (i.a_mn || i.b_mn)
      return "transpose (MN-major) is not valid for kind::mxf4nvf4: E2M1 operands are K-major";
  }
  if (i.sparse) return "sparse block-scaled MMAs are not modelled";
  if (i.m != kM)
    return fmt::format("M = {}: cta_group::1 block-scaled MMAs have M = 128", i.m);
  if (kind == Kind::kF8f6f4 && i.n % 16 != 0)
    return fmt::format("N = {} is invalid for kind::f8f6f4 with M = 128 (multiple of 16 in "
                       "[16, 256])",
                       i.n);
  if (i.n < 8 || i.n > 256)
    return fmt::format("N = {} is invalid for M = 128 (multiple of 8 in [8, 256])", i.n);
  for (auto [what, mn, t] : {std::tuple{"A", i.a_mn, i.a_type}, std::tuple{"B", i.b_mn, i.b_type}})
    if (mn && t > 1)
      return fmt::format("{} is MN-major (transposed) with type {}: the model reads MN-major 8-bit "
                         "operands only",
                         what, mxf8_type_name(t));
  if (i.b_mn && i.n % 16 != 0)
    return fmt::format("N = {} with an MN-major 8-bit B: cta_group::1 takes N a multiple of 16 in "
                       "[16, 256] (PTX ISA, 8-bit transpose B)",
                       i.n);
  return "";
}

// ---- Per-CTA bookkeeping of scale-factor columns -----------------------------
// Which TMEM columns a tcgen05.cp of this CTA has written, and until when an
// issued MMA may still be reading a column as scales. Kept here, keyed by
// the CTA; an entry is reset when its key is reused by a different CTA object.

struct ScaleColumns {
  const void* owner = nullptr;
  std::vector<uint8_t> copied;
  std::vector<Cycle> read_until;
  // With the race detector: the MMAs that read each column as scales and are
  // not yet known (by happens-before) to have completed for the thread that
  // last checked. A copy over the column must be ordered after all of them.
  std::vector<std::vector<sim::OpId>> readers;
};

ScaleColumns& scale_columns(Cta& cta) {
  static std::unordered_map<const Cta*, ScaleColumns> by_cta;
  ScaleColumns& s = by_cta[&cta];
  if (s.owner != cta.tmem.freed.get()) {
    const uint32_t cols = gpu().params().tmem_columns;
    s.owner = cta.tmem.freed.get();
    s.copied.assign(cols, 0);
    s.read_until.assign(cols, 0);
    s.readers.assign(cols, {});
  }
  return s;
}

using tc::in_one_alloc;
using tc::tmem_cells;

// SMEM offsets of the 16-byte chunks an instruction reads: for each of `rows`
// rows, `chunks` consecutive chunks along K from the descriptor's start.
std::vector<uint32_t> chunk_offsets(const SmemDesc& d, uint32_t rows, uint32_t chunks) {
  std::vector<uint32_t> r;
  r.reserve(static_cast<size_t>(rows) * chunks);
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t c = 0; c < chunks; ++c)
      // kmajor_offset counts 2-byte elements: element 8c is byte 16c.
      r.push_back(swizzled_offset(kmajor_offset(d, row, 8 * c), d.swizzle));
  return r;
}

// An MN-major 8-bit operand: the SMEM offset of each of the 32 bytes along K
// that an instruction reads of each of `rows` rows (row-major, 32 per row),
// and in `chunks` the 16-byte chunks holding them (16 rows of one K row each;
// the swizzle moves whole chunks).
std::vector<uint32_t> mn_byte_offsets(const SmemDesc& d, uint32_t rows,
                                      std::vector<uint32_t>& chunks) {
  std::vector<uint32_t> r(static_cast<size_t>(rows) * kRowBytes);
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t k = 0; k < kRowBytes; ++k)
      r[static_cast<size_t>(row) * kRowBytes + k] =
          swizzled_offset(mnmajor_offset(d, row, k, 1), d.swizzle);
  chunks.clear();
  for (uint32_t k = 0; k < kRowBytes; ++k)
    for (uint32_t row = 0; row < rows; row += 16)
      chunks.push_back(r[static_cast<size_t>(row) * kRowBytes + k] & ~15u);
  return r;
}

bool chunks_in_smem(const Cta& cta, const std::vector<uint32_t>& offs) {
  for (uint32_t o : offs)
    if (static_cast<uint64_t>(o) + 16 > cta.smem_size) return false;
  return true;
}

std::vector<sim::Range> ranges(const std::vector<uint32_t>& offs) {
  std::vector<sim::Range> r;
  r.reserve(offs.size());
  for (uint32_t o : offs) r.push_back(sim::Range{o, static_cast<uint64_t>(o) + 16});
  return r;
}

// ---- Functional execution ----------------------------------------------------

struct Operand {
  std::vector<uint32_t> chunks;  // K-major: two 16-byte chunks per row; MN-major: those read
  uint32_t type = 0;             // mxf8f6f4 type code, or 1 (E2M1) for mxf4nvf4
  bool negate = false;
  std::vector<uint32_t> bytes;   // MN-major: 32 byte offsets per row (mn_byte_offsets)
};

// The operand a descriptor describes: `rows` rows, K- or MN-major.
Operand operand_of(const SmemDesc& d, uint32_t rows, bool mn_major, uint32_t type, bool negate) {
  Operand op;
  op.type = type;
  op.negate = negate;
  if (mn_major)
    op.bytes = mn_byte_offsets(d, rows, op.chunks);
  else
    op.chunks = chunk_offsets(d, rows, 2);
  return op;
}

// The K elements of one row (K = 32 or 64) that an instruction reads.
void decode_row(const Cta& cta, Kind kind, const Operand& op, uint32_t row, double* out) {
  uint8_t bytes[kRowBytes];
  if (!op.bytes.empty()) {
    for (uint32_t k = 0; k < kRowBytes; ++k) bytes[k] = cta.smem[op.bytes[row * kRowBytes + k]];
  } else {
    for (uint32_t c = 0; c < 2; ++c)
      std::memcpy(bytes + 16 * c, cta.smem + op.chunks[2 * row + c], 16);
  }
  const double sign = op.negate ? -1.0 : 1.0;
  if (kind == Kind::kMxf4nvf4) {
    for (uint32_t k = 0; k < 64; ++k)
      out[k] = sign * dec_e2m1(static_cast<uint8_t>((bytes[k / 2] >> (4 * (k % 2))) & 0xF));
    return;
  }
  for (uint32_t k = 0; k < 32; ++k) {
    double v;
    switch (op.type) {
      case 0: v = dec_e4m3(bytes[k]); break;
      case 1: v = dec_e5m2(bytes[k]); break;
      default: {  // E2M1, padded: 16 nibbles in 8 bytes, then 8 bytes of padding
        const uint8_t b = bytes[16 * (k / 16) + (k % 16) / 2];
        v = dec_e2m1(static_cast<uint8_t>((b >> (4 * (k % 2))) & 0xF));
      }
    }
    out[k] = sign * v;
  }
}

uint8_t tmem_byte(const Cta& cta, uint32_t lane, uint32_t col, uint32_t byte) {
  const uint32_t cols = gpu().params().tmem_columns;
  return static_cast<uint8_t>(cta.tmem.data[static_cast<size_t>(lane) * cols + col] >> (8 * byte));
}

struct MmaWork {
  Kind kind;
  Operand a, b;
  BsDesc id;
  uint32_t d_col, sfa_col, sfb_col;
  bool accumulate;
};

void execute(Cta& cta, const MmaWork& w) {
  const uint32_t K = w.kind == Kind::kMxf4nvf4 ? 64 : 32;
  const uint32_t blocks = w.kind == Kind::kMxf4nvf4 ? 4 : 1, bs = K / blocks;
  const uint32_t N = w.id.n, cols = gpu().params().tmem_columns;
  auto scale = [&](uint32_t lane, uint32_t col, uint32_t byte) {
    if (!scaled(w.kind)) return 1.0;
    const uint8_t c = tmem_byte(cta, lane, col, byte);
    return w.id.scale_ue8m0 ? dec_ue8m0(c) : dec_ue4m3(c);
  };
  std::vector<double> b(static_cast<size_t>(N) * K), sb(static_cast<size_t>(N) * blocks);
  for (uint32_t n = 0; n < N; ++n) {
    decode_row(cta, w.kind, w.b, n, &b[static_cast<size_t>(n) * K]);
    for (uint32_t j = 0; j < blocks; ++j)
      sb[n * blocks + j] = scale(n % 128, w.sfb_col + n / 32, w.id.sfb_id + j);
  }
  double a[64], sa[4];
  for (uint32_t m = 0; m < kM; ++m) {
    decode_row(cta, w.kind, w.a, m, a);
    for (uint32_t j = 0; j < blocks; ++j) sa[j] = scale(m, w.sfa_col + m / 32, w.id.sfa_id + j);
    uint32_t* drow = &cta.tmem.data[static_cast<size_t>(m) * cols + w.d_col];
    for (uint32_t n = 0; n < N; ++n) {
      const double* bn = &b[static_cast<size_t>(n) * K];
      double total = 0;
      for (uint32_t j = 0; j < blocks; ++j) {
        double part = 0;
        for (uint32_t k = j * bs; k < (j + 1) * bs; ++k) part += a[k] * bn[k];
        total += part * sa[j] * sb[n * blocks + j];
      }
      const double acc = w.accumulate ? static_cast<double>(std::bit_cast<float>(drow[n])) : 0.0;
      drow[n] = std::bit_cast<uint32_t>(static_cast<float>(acc + total));
    }
  }
}

// ---- Issue -------------------------------------------------------------------

// The scale addresses of a block-scaled MMA: in one allocation, naming lane
// 0, and written by a tcgen05.cp of this CTA. False (after the finding) when
// the MMA must be dropped; never-copied columns are reported but executed.
bool check_scale_addresses(Cta& cta, const char* op_name, const BsDesc& id, const MmaWork& work,
                           uint32_t sfa_taddr, uint32_t sfb_taddr, const Loc& loc) {
  const uint32_t sfb_cols = (id.n + 31) / 32;
  for (auto [what, taddr, col, n] : {std::tuple{"A", sfa_taddr, work.sfa_col, 4u},
                                     std::tuple{"B", sfb_taddr, work.sfb_col, sfb_cols}}) {
    std::string why;
    if (((taddr >> 16) & 0x3FFF) != 0)
      why = fmt::format("names lane {}; the scales span all 128 lanes, so the address must name "
                        "lane 0",
                        (taddr >> 16) & 0x3FFF);
    else if (!in_one_alloc(cta, col, 1))
      why = fmt::format("column {} is outside every TMEM allocation of this CTA", col);
    else if (!in_one_alloc(cta, col, n))
      why = fmt::format("columns [{}, {}) run past the end of the allocation holding column {}",
                        col, col + n, col);
    if (!why.empty()) {
      gpu().finding("tmem_access", "tcgen05.scale_out_of_range",
                    fmt::format("{} scale_{} at TMEM address 0x{:08x} ({} columns for N = {}): {}",
                                op_name, what, taddr, n, id.n, why),
                    loc);
      return false;
    }
  }
  ScaleColumns& sc = scale_columns(cta);
  for (auto [what, col, n] : {std::tuple{"A", work.sfa_col, 4u},
                              std::tuple{"B", work.sfb_col, sfb_cols}}) {
    uint32_t missing = 0;
    for (uint32_t c = col; c < col + n; ++c) missing += sc.copied[c] == 0;
    if (missing != 0) {
      gpu().finding("tmem_access", "tcgen05.scale_uninitialized",
                    fmt::format("{} reads scale_{} from TMEM columns [{}, {}), of which {} were "
                                "never written by a tcgen05.cp of this CTA",
                                op_name, what, col, col + n, missing),
                    loc);
    }
  }

  return true;
}

void issue_mma(Kind kind, uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
               uint32_t sfa_taddr, uint32_t sfb_taddr, bool accumulate, const Loc& loc) {
  // Like kind::f16: only the tensor-core queue and events at the MMA's start
  // change, so it runs at the warp's local time.
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  const char* op_name = kind == Kind::kMxf8f6f4   ? "tcgen05.mma.kind::mxf8f6f4.block_scale"
                        : kind == Kind::kMxf4nvf4 ? "tcgen05.mma.kind::mxf4nvf4.block_scale"
                                                  : "tcgen05.mma.kind::f8f6f4";
  SmemDesc a = decode_smem_desc(a_desc), b = decode_smem_desc(b_desc);
  for (auto [what, err] : {std::pair{"A descriptor", check_smem_desc(a)},
                           std::pair{"B descriptor", check_smem_desc(b)}}) {
    if (!err.empty()) {
      gpu().finding("tcgen05", "tcgen05.bad_descriptor", fmt::format("{} {}: {}", op_name, what, err),
                    loc);
      return;
    }
  }
  const BsDesc id = decode_bs(kind, idesc);
  if (std::string err = check_bs(kind, id); !err.empty()) {
    gpu().finding("tcgen05", "tcgen05.bad_idesc",
                  fmt::format("{} instruction descriptor 0x{:08x}: {}", op_name, idesc, err), loc);
    return;
  }
  MmaWork work{kind, {}, {}, id, d_taddr & 0xFFFF, sfa_taddr & 0xFFFF, sfb_taddr & 0xFFFF,
               accumulate};
  work.a = operand_of(a, kM, id.a_mn, id.a_type, id.negate_a);
  work.b = operand_of(b, id.n, id.b_mn, id.b_type, id.negate_b);
  if (!chunks_in_smem(cta, work.a.chunks) || !chunks_in_smem(cta, work.b.chunks)) {
    gpu().finding("tcgen05", "tcgen05.operand_out_of_range",
                  fmt::format("{} operand described by a descriptor lies outside shared memory "
                              "({} bytes)",
                              op_name, cta.smem_size),
                  loc);
    return;
  }
  if ((d_taddr >> 16) != 0 || !in_one_alloc(cta, work.d_col, id.n)) {
    gpu().finding("tmem_access", "tmem.unallocated_access",
                  fmt::format("{} writes TMEM columns [{}, {}) (lane {}) outside any allocation "
                              "of this CTA",
                              op_name, work.d_col, work.d_col + id.n, d_taddr >> 16),
                  loc);
    return;
  }
  const uint32_t sfb_cols = (id.n + 31) / 32;
  if (scaled(kind) && !check_scale_addresses(cta, op_name, id, work, sfa_taddr, sfb_taddr, loc))
    return;

  const Params& p = gpu().params();
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tc_issued(op_name, gpu().engine().site_here(loc));
  // One copy of the operand layout for every execution of this issue.
  const auto shared = std::make_shared<const MmaWork>(work);
  for (int lane = 0; lane < w.active_count(); ++lane) {
    if (sim::Observer* obs = gpu().obs()) {
      sim::OpId op = obs->issue_async(w, "tcgen05.mma");
      if (scaled(kind)) {
        ScaleColumns& sc = scale_columns(cta);
        for (uint32_t c = work.sfa_col; c < work.sfa_col + 4; ++c) sc.readers[c].push_back(op);
        for (uint32_t c = work.sfb_col; c < work.sfb_col + sfb_cols; ++c)
          sc.readers[c].push_back(op);
      }
      auto ra = ranges(work.a.chunks), rb = ranges(work.b.chunks);
      obs->access(w, op, sim::Space::kSmem, ra, false, sim::Proxy::kAsync, "tcgen05.mma (A)", loc);
      obs->access(w, op, sim::Space::kSmem, rb, false, sim::Proxy::kAsync, "tcgen05.mma (B)", loc);
      if (scaled(kind)) {
        auto rsa = tmem_cells(0, 128, work.sfa_col, 4);
        auto rsb = tmem_cells(0, 128, work.sfb_col, sfb_cols);
        obs->access(w, op, sim::Space::kTmem, rsa, false, sim::Proxy::kAsync,
                    "tcgen05.mma (scale_A)", loc);
        obs->access(w, op, sim::Space::kTmem, rsb, false, sim::Proxy::kAsync,
                    "tcgen05.mma (scale_B)", loc);
      }
      auto rd = tmem_cells(0, kM, work.d_col, id.n);
      obs->access(w, op, sim::Space::kTmem, rd, true, sim::Proxy::kAsync, "tcgen05.mma (D)", loc);
      wa.tc_live.push_back(op);
    }
    const Cycle ii = static_cast<Cycle>(id.n * p.umma_ii_per_n + 0.5);
    const auto [start, done] = tc::enqueue(cta, w, ii);
    if (scaled(kind)) {
      ScaleColumns& sc = scale_columns(cta);
      for (uint32_t c = work.sfa_col; c < work.sfa_col + 4; ++c)
        sc.read_until[c] = std::max(sc.read_until[c], done);
      for (uint32_t c = work.sfb_col; c < work.sfb_col + sfb_cols; ++c)
        sc.read_until[c] = std::max(sc.read_until[c], done);
    }
    if (gpu().functional())
      gpu().engine().at(start, [&cta, shared] { execute(cta, *shared); });
    auto& tr = gpu().engine().trace();
    if (cta.traced)
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), start, start + ii,
                               fmt::format("mma.{} {}x{}x{}{}",
                                           kind == Kind::kMxf8f6f4   ? "mxf8f6f4"
                                           : kind == Kind::kMxf4nvf4 ? "mxf4nvf4"
                                                                     : "f8f6f4",
                                           kM, id.n, kind == Kind::kMxf4nvf4 ? 64 : 32,
                                           accumulate ? "" : " (init)"),
                               {{"tmem_col", work.d_col},
                                {"sfa_col", work.sfa_col},
                                {"sfb_col", work.sfb_col}},
                               0,
                               w.take_flow()});
  }
}

}  // namespace

void tcgen05_mma_mxf8f6f4_block_scale(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                      uint32_t idesc, uint32_t sfa_taddr, uint32_t sfb_taddr,
                                      bool accumulate, const Loc& loc) {
  issue_mma(Kind::kMxf8f6f4, d_taddr, a_desc, b_desc, idesc, sfa_taddr, sfb_taddr, accumulate,
            loc);
}

void tcgen05_mma_f8f6f4_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                           bool accumulate, const Loc& loc) {
  issue_mma(Kind::kF8f6f4, d_taddr, a_desc, b_desc, idesc, 0, 0, accumulate, loc);
}

void tcgen05_mma_mxf4nvf4_block_scale(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc,
                                      uint32_t idesc, uint32_t sfa_taddr, uint32_t sfb_taddr,
                                      bool accumulate, const Loc& loc) {
  issue_mma(Kind::kMxf4nvf4, d_taddr, a_desc, b_desc, idesc, sfa_taddr, sfb_taddr, accumulate,
            loc);
}

void tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t smem_desc, const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  const char* op_name = "tcgen05.cp.32x128b.warpx4";
  SmemDesc d = decode_smem_desc(smem_desc);
  if (std::string err = check_smem_desc(d); !err.empty()) {
    gpu().finding("tcgen05", "tcgen05.bad_descriptor",
                  fmt::format("{} source descriptor: {}", op_name, err), loc);
    return;
  }
  // Row r's 16 bytes: the first chunk along K of row r.
  std::vector<uint32_t> rows = chunk_offsets(d, 32, 1);
  if (!chunks_in_smem(cta, rows)) {
    gpu().finding("tcgen05", "tcgen05.operand_out_of_range",
                  fmt::format("{} source described by the descriptor lies outside shared memory "
                              "({} bytes)",
                              op_name, cta.smem_size),
                  loc);
    return;
  }
  const uint32_t col = taddr & 0xFFFF;
  if ((taddr >> 16) != 0) {
    gpu().finding("tmem_access", "tcgen05.bad_taddr",
                  fmt::format("{} destination 0x{:08x} names lane {}; .warpx4 writes the same 32 "
                              "lanes of every quarter, so the address must name lane 0",
                              op_name, taddr, taddr >> 16),
                  loc);
    return;
  }
  if (!in_one_alloc(cta, col, 4)) {
    gpu().finding("tmem_access", "tmem.unallocated_access",
                  fmt::format("{} writes TMEM columns [{}, {}) outside any allocation of this CTA",
                              op_name, col, col + 4),
                  loc);
    return;
  }
  ScaleColumns& sc = scale_columns(cta);
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tc_issued(op_name, gpu().engine().site_here(loc));
  for (int lane = 0; lane < w.active_count(); ++lane) {
    Cycle now = local_now(w);
    // With the race detector the rule is judged from happens-before: every
    // MMA that read the column must be known complete to this thread (its
    // commit's barrier waited on), whatever the timing of this schedule.
    // Without it (timing runs), from the MMAs' modelled completion times.
    sim::Observer* const hb = gpu().obs();
    for (uint32_t c = col; c < col + 4; ++c) {
      bool in_flight = false;
      if (hb != nullptr) {
        auto& rd = sc.readers[c];
        in_flight = std::any_of(rd.begin(), rd.end(),
                                [&](sim::OpId o) { return !hb->known_complete(w, o); });
        rd.clear();  // the copy replaces what they read
      } else {
        in_flight = sc.read_until[c] > now;
      }
      if (in_flight) {
        gpu().finding("tcgen05", "tcgen05.scale_overwrite_in_flight",
                      hb != nullptr
                          ? fmt::format("{} overwrites TMEM column {} that a tcgen05.mma issued "
                                        "before it reads as scale factors, and that MMA is not "
                                        "ordered before the copy (now cycle {}); mma -> cp is not "
                                        "an ordered pair: wait on the barrier of a "
                                        "tcgen05.commit that follows the MMA before reusing the "
                                        "columns",
                                        op_name, c, now)
                          : fmt::format("{} overwrites TMEM column {} while a tcgen05.mma issued "
                                        "before it may still read its scale factors there (until "
                                        "cycle {}, now {}); mma -> cp is not an ordered pair: "
                                        "wait for the MMA's tcgen05.commit before reusing the "
                                        "columns",
                                        op_name, c, sc.read_until[c], now),
                      loc);
        break;
      }
    }
    if (sim::Observer* obs = gpu().obs()) {
      // The tensor core's in-order kind: see the header comment.
      sim::OpId op = obs->issue_async(w, "tcgen05.mma");
      auto rs = ranges(rows);
      obs->access(w, op, sim::Space::kSmem, rs, false, sim::Proxy::kAsync,
                  "tcgen05.cp (source)", loc);
      auto rt = tmem_cells(0, 128, col, 4);
      obs->access(w, op, sim::Space::kTmem, rt, true, sim::Proxy::kAsync,
                  "tcgen05.cp (scale factors)", loc);
      wa.tc_live.push_back(op);
    }
    const Cycle start = tc::enqueue(cta, w, kCpCycles).start;
    if (gpu().functional())
      gpu().engine().at(start, [&cta, rows, col] {
        const uint32_t cols = gpu().params().tmem_columns;
        for (uint32_t r = 0; r < 32; ++r) {
          const uint8_t* src = cta.smem + rows[r];
          for (uint32_t j = 0; j < 4; ++j) {
            const uint32_t word = static_cast<uint32_t>(src[4 * j]) |
                                  static_cast<uint32_t>(src[4 * j + 1]) << 8 |
                                  static_cast<uint32_t>(src[4 * j + 2]) << 16 |
                                  static_cast<uint32_t>(src[4 * j + 3]) << 24;
            for (uint32_t q = 0; q < 4; ++q)
              cta.tmem.data[static_cast<size_t>(32 * q + r) * cols + col + j] = word;
          }
        }
      });
    auto& tr = gpu().engine().trace();
    if (cta.traced)
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), start,
                               start + kCpCycles, "cp 32x128b.warpx4", {{"tmem_col", col}}, 0,
                               w.take_flow()});
  }
  for (uint32_t c = col; c < col + 4; ++c) sc.copied[c] = 1;
}

}  // namespace sk::models::sm100::api
