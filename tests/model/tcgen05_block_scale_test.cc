// tcgen05_block_scale_test.cc: block-scaled UMMA in the SM100 model.
//
// Random MXFP8 (E4M3, E5M2, and E2M1 in mxf8f6f4's padded form) and NVFP4
// operands are laid out in SMEM by this test, K-major with the 128-byte
// swizzle computed here (not by the model's code); scale factors go to TMEM
// through tcgen05.cp.32x128b.warpx4; one or several MMAs accumulate across K;
// the epilogue warps read D with tcgen05.ld. The result must match an FP64
// reference built from runner/ref/block_formats (the independent decoders and
// reference GEMMs) within FP32 accumulation tolerance. The rules of the
// block-scaled MMA and of the copy are checked as findings.
//
// Layouts the test assumes (they are the model's documented reading of the
// ISA, see models/sm100/api_tcgen05_block_scale.cc):
//   * operand tile t (128 bytes of K per row) of a matrix with R rows starts at
//     base + t * R * 128; row r, byte c of the tile is at logical offset
//     (r / 8) * 1024 + (r % 8) * 128 + c, stored at logical ^ ((logical >> 7 & 7) << 4);
//   * each MMA reads 32 bytes per row: descriptor start = tile + 32 * step;
//   * a scale-factor block (128 rows x 4 scales) is 512 bytes, scale j of row
//     r at (r % 32) * 16 + (r / 32) * 4 + j, copied to 4 TMEM columns.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/arch/sm100.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "kernels/core/lanes.h"
#include "runner/ref/block_formats.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;

constexpr uint32_t kM = 128;
constexpr uint32_t kSmemBytes = 200 * 1024;
constexpr uint32_t kSlot = kSmemBytes - 64;  // TMEM address written by tcgen05.alloc
constexpr uint32_t kBar = kSmemBytes - 56;   // MMA-done mbarrier
constexpr uint32_t kStepBar = kSmemBytes - 48;  // a step's own commit (Step::wait_commit)
constexpr uint32_t kScratch = kSmemBytes - 32;  // stored to by Step::spin
constexpr uint32_t kScaleCol0 = 256;         // first TMEM column of the scale factors

enum class Elem { kE4M3, kE5M2, kE2M1Padded, kE2M1Packed };

// ---- The kernel: a list of copies and MMAs, driven by a plan -----------------

struct Step {
  bool copy = false;
  uint32_t col = 0;        // cp: destination column (relative to the allocation)
  uint32_t src = 0;        // cp: SMEM offset of the 512-byte scale block
  uint32_t a = 0, b = 0;   // mma: SMEM offsets of the descriptor starts
  uint32_t a_rows_sbo = 1024, b_rows_sbo = 1024;
  uint32_t idesc = 0;
  uint32_t sfa = 0, sfb = 0;  // mma: scale addresses (relative; lane bits kept)
  bool fp4 = false;           // kind::mxf4nvf4 instead of kind::mxf8f6f4
  bool accumulate = false;
  // Before the step: `spin` stores to a scratch word (time passes, nothing is
  // ordered); wait_commit: tcgen05.commit to a barrier of its own and wait on
  // it (every earlier MMA is then ordered before this step).
  uint32_t spin = 0;
  bool wait_commit = false;
};

struct Plan {
  std::vector<uint8_t> smem;  // image placed at the start of dynamic SMEM
  uint32_t used = 0;          // bytes of it the kernel stores (a multiple of 16)
  std::vector<Step> steps;
  uint32_t n = 0;             // columns of D to read back (0: none)
  uint32_t alloc_cols = 512;
};

uint64_t desc_at(uint32_t smem_offset, uint32_t span, uint32_t sbo) {
  return sk::umma::kmajor_desc(sk::arch::smem_addr(sk::arch::dynamic_smem() + smem_offset), span,
                               sbo);
}

void run_plan(const Plan& p) {
  uint8_t* smem = sk::arch::dynamic_smem();
  auto* slot = reinterpret_cast<uint32_t*>(smem + kSlot);
  auto* bar = reinterpret_cast<uint64_t*>(smem + kBar);
  const uint32_t warp = sk::arch::warp_idx();
  if (warp == 0) {
    if (auto l = sk::elect_one()) {
      // Generic-proxy stores, then the fence that makes them visible to the
      // tensor core (async proxy) reads of this thread's copies and MMAs.
      for (uint32_t off = 0; off < p.used; off += 16) {
        uint32_t v[4];
        std::memcpy(v, &p.smem[off], 16);
        sk::arch::st_shared_b128(smem + off, v);
      }
      sk::arch::fence_proxy_async_shared();
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::mbarrier_init(reinterpret_cast<uint64_t*>(smem + kStepBar), 1);
      sk::arch::fence_mbarrier_init();
    }
    sk::arch::tcgen05_alloc(slot, p.alloc_cols);
  }
  sk::arch::tcgen05_fence_before_thread_sync();
  sk::arch::cta_sync();
  sk::arch::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = sk::arch::ld_shared(slot);
  if (warp == 0) {
    if (auto l = sk::elect_one()) {
      auto* step_bar = reinterpret_cast<uint64_t*>(smem + kStepBar);
      uint32_t step_phase = 0;
      for (const Step& s : p.steps) {
        for (uint32_t i = 0; i < s.spin; ++i) sk::arch::st_shared(reinterpret_cast<uint32_t*>(smem + kScratch), i);
        if (s.wait_commit) {
          sk::arch::tcgen05_commit(step_bar);
          while (!sk::arch::mbarrier_try_wait_parity(step_bar, step_phase)) {
          }
          step_phase ^= 1;
        }
        if (s.copy) {
          const uint64_t d = sk::umma::sf_copy_desc(sk::arch::smem_addr(smem + s.src));
          sk::arch::tcgen05_cp_32x128b_warpx4(tmem + s.col, d);
          continue;
        }
        const uint64_t a = desc_at(s.a, 128, s.a_rows_sbo), b = desc_at(s.b, 128, s.b_rows_sbo);
        if (s.fp4)
          sk::arch::tcgen05_mma_mxf4nvf4_block_scale(tmem, a, b, s.idesc, tmem + s.sfa,
                                                     tmem + s.sfb, s.accumulate);
        else
          sk::arch::tcgen05_mma_mxf8f6f4_block_scale(tmem, a, b, s.idesc, tmem + s.sfa,
                                                     tmem + s.sfb, s.accumulate);
      }
      sk::arch::tcgen05_commit(bar);
    }
  }
  while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
  }
  sk::arch::tcgen05_fence_after_thread_sync();
  if (p.n != 0) {
    // Warp w reads rows (lanes) 32w .. 32w + 31 of D, 32 columns at a time.
    std::vector<std::string> rows(32);
    sk::LaneArray<uint32_t, 32> regs;
    for (uint32_t c = 0; c < p.n; c += 32) {
      sk::arch::tcgen05_ld_32x32b_x32(tmem + ((32u * warp) << 16) + c, regs);
      sk::arch::tcgen05_wait_ld();
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t j = 0; j < 32 && c + j < p.n; ++j) {
          char buf[12];
          std::snprintf(buf, sizeof buf, " %08x", regs.lane(l)[j]);
          rows[l] += buf;
        }
    }
    for (uint32_t l = 0; l < 32; ++l) note(std::to_string(32 * warp + l) + rows[l]);
  }
  sk::arch::tcgen05_fence_before_thread_sync();
  sk::arch::cta_sync();
  if (warp == 0) {
    sk::arch::tcgen05_fence_after_thread_sync();
    sk::arch::tcgen05_dealloc(tmem, p.alloc_cols);
  }
}

ScenarioResult run(const Plan& p, bool race_detector = false) {
  ScenarioOptions o{.warps = 4, .smem_bytes = kSmemBytes};
  o.race_detector = race_detector;
  return run_scenario(o, [&p] { run_plan(p); });
}

// D as 128 x n floats, from the notes.
std::vector<float> parse_d(const ScenarioResult& r, uint32_t n) {
  std::vector<float> d(static_cast<size_t>(kM) * n, std::nanf(""));
  for (const auto& s : r.notes) {
    std::istringstream in(s);
    uint32_t row = 0;
    in >> row;
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t bits = 0;
      in >> std::hex >> bits;
      float f;
      std::memcpy(&f, &bits, 4);
      d[static_cast<size_t>(row) * n + j] = f;
    }
  }
  return d;
}

// ---- Operands: random codes, and their SMEM images ---------------------------

std::mt19937& rng() {
  static std::mt19937 g(20250611);
  return g;
}

uint8_t random_code(Elem e) {
  for (;;) {
    const uint8_t c = static_cast<uint8_t>(rng()() & 0xFF);
    switch (e) {
      case Elem::kE4M3:
        if ((c & 0x7F) != 0x7F) return c;  // not NaN
        break;
      case Elem::kE5M2:
        if (((c >> 2) & 0x1F) != 0x1F) return c;  // not inf or NaN
        break;
      default: return c & 0xF;
    }
  }
}

double decode_ref(Elem e, uint8_t code) {
  switch (e) {
    case Elem::kE4M3: return sk::ref::decode_e4m3(code);
    case Elem::kE5M2: return sk::ref::decode_e5m2(code);
    default: return sk::ref::decode_e2m1(code);
  }
}

// The bytes of one K-major row of codes, as SMEM holds them for the MMA.
std::vector<uint8_t> row_bytes(Elem e, const uint8_t* codes, uint32_t k) {
  std::vector<uint8_t> out;
  switch (e) {
    case Elem::kE4M3:
    case Elem::kE5M2: out.assign(codes, codes + k); break;
    case Elem::kE2M1Packed:  // two per byte, even k in the low nibble
      out.assign(k / 2, 0);
      for (uint32_t i = 0; i < k; ++i) out[i / 2] |= static_cast<uint8_t>(codes[i] << (4 * (i % 2)));
      break;
    case Elem::kE2M1Padded:  // 16 codes in 8 bytes, then 8 bytes of padding
      out.assign(k, 0xA5);   // the padding holds junk the MMA must ignore
      for (uint32_t g = 0; g < k / 16; ++g) {
        for (uint32_t i = 0; i < 8; ++i) out[16 * g + i] = 0;
        for (uint32_t i = 0; i < 16; ++i)
          out[16 * g + i / 2] |= static_cast<uint8_t>(codes[16 * g + i] << (4 * (i % 2)));
      }
      break;
  }
  return out;
}

// Writes a rows x k matrix of codes at `base` as 128-byte swizzled K-major
// tiles (tile t at base + t * rows * 128). Returns the bytes per row.
uint32_t place_matrix(std::vector<uint8_t>& smem, uint32_t base, Elem e,
                      const std::vector<uint8_t>& codes, uint32_t rows, uint32_t k) {
  uint32_t row_len = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    std::vector<uint8_t> bytes = row_bytes(e, &codes[static_cast<size_t>(r) * k], k);
    row_len = static_cast<uint32_t>(bytes.size());
    for (uint32_t c = 0; c < row_len; ++c) {
      const uint32_t t = c / 128, logical = (r / 8) * 1024 + (r % 8) * 128 + c % 128;
      const uint32_t phys = logical ^ (((logical >> 7) & 7) << 4);
      smem.at(base + t * rows * 128 + phys) = bytes[c];
    }
  }
  return row_len;
}

// A 512-byte scale block: scales [4 * set, 4 * set + 4) of rows [128 * rb, +128)
// of a rows x nscales matrix (rows past the end are zero).
void place_scales(std::vector<uint8_t>& smem, uint32_t at, const std::vector<uint8_t>& scales,
                  uint32_t rows, uint32_t nscales, uint32_t rb, uint32_t set) {
  for (uint32_t r = 0; r < 128; ++r)
    for (uint32_t j = 0; j < 4; ++j) {
      const uint32_t row = 128 * rb + r, s = 4 * set + j;
      smem.at(at + (r % 32) * 16 + (r / 32) * 4 + j) =
          row < rows && s < nscales ? scales[static_cast<size_t>(row) * nscales + s] : 0;
    }
}

struct Problem {
  Elem a_elem = Elem::kE4M3, b_elem = Elem::kE4M3;
  bool fp4 = false;         // kind::mxf4nvf4 (scale_vec::4X) instead of mxf8f6f4 (1X)
  bool scale_e8m0 = true;   // else UE4M3
  uint32_t n = 64, k = 128;
  std::vector<uint8_t> a, b, sfa, sfb;  // codes (one per element) and scale codes

  uint32_t block() const { return fp4 ? 16 : 32; }
  uint32_t nscales() const { return k / block(); }
};

uint8_t random_scale(bool e8m0) {
  if (e8m0) return static_cast<uint8_t>(127 - 4 + rng()() % 9);  // 2^-4 .. 2^4
  // Positive normal E4M3 between 2^-3 and 2^3 (exponent field 4..10).
  return static_cast<uint8_t>(((4 + rng()() % 7) << 3) | (rng()() & 7));
}

Problem make_problem(Elem a, Elem b, bool fp4, bool e8m0, uint32_t n, uint32_t k) {
  Problem p{a, b, fp4, e8m0, n, k, {}, {}, {}, {}};
  p.a.resize(static_cast<size_t>(kM) * k);
  p.b.resize(static_cast<size_t>(n) * k);
  for (auto& c : p.a) c = random_code(a);
  for (auto& c : p.b) c = random_code(b);
  p.sfa.resize(static_cast<size_t>(kM) * p.nscales());
  p.sfb.resize(static_cast<size_t>(n) * p.nscales());
  for (auto& c : p.sfa) c = random_scale(e8m0);
  for (auto& c : p.sfb) c = random_scale(e8m0);
  return p;
}

sk::umma::Mxf8f6f4Type mxf8_type(Elem e) {
  return e == Elem::kE4M3   ? sk::umma::Mxf8f6f4Type::kE4M3
         : e == Elem::kE5M2 ? sk::umma::Mxf8f6f4Type::kE5M2
                            : sk::umma::Mxf8f6f4Type::kE2M1;
}

// SMEM image and steps: A at 0, B after it, scale blocks after B. Scales are
// copied per 128-byte K tile (mxf8f6f4: four K = 32 steps share one set of
// columns, step s using byte s) or per instruction (mxf4nvf4: the four
// 16-blocks of a K = 64 step fill one word).
Plan make_plan(const Problem& p) {
  Plan plan;
  plan.n = p.n;
  plan.smem.assign(kSmemBytes - 1024, 0);
  // Every row takes the full 128 bytes of a swizzle span per tile, even when
  // K covers only part of it; N is a multiple of 8, so tiles stay 1024-aligned.
  const uint32_t row_len = place_matrix(plan.smem, 0, p.a_elem, p.a, kM, p.k);
  const uint32_t tiles = (row_len + 127) / 128, steps = p.fp4 ? p.k / 64 : p.k / 32;
  const uint32_t b_base = kM * 128 * tiles;
  place_matrix(plan.smem, b_base, p.b_elem, p.b, p.n, p.k);
  uint32_t sf_at = b_base + p.n * 128 * tiles;
  const uint32_t sets = p.fp4 ? steps : tiles;       // scale sets of 4 per row
  const uint32_t sfb_blocks = (p.n + 127) / 128;     // 128-row blocks of B's scales
  uint32_t col = kScaleCol0;
  std::vector<uint32_t> sfa_col(sets), sfb_col(sets);
  for (uint32_t s = 0; s < sets; ++s) {
    sfa_col[s] = col;
    place_scales(plan.smem, sf_at, p.sfa, kM, p.nscales(), 0, s);
    plan.steps.push_back(Step{.copy = true, .col = col, .src = sf_at});
    sf_at += 512;
    col += 4;
    sfb_col[s] = col;
    for (uint32_t rb = 0; rb < sfb_blocks; ++rb) {
      place_scales(plan.smem, sf_at, p.sfb, p.n, p.nscales(), rb, s);
      plan.steps.push_back(Step{.copy = true, .col = col, .src = sf_at});
      sf_at += 512;
      col += 4;
    }
  }
  REQUIRE(sf_at <= plan.smem.size());
  plan.used = sf_at;
  for (uint32_t i = 0; i < steps; ++i) {
    const uint32_t t = i / 4, in_tile = i % 4;
    Step s;
    s.a = t * kM * 128 + 32 * in_tile;
    s.b = b_base + t * p.n * 128 + 32 * in_tile;
    s.fp4 = p.fp4;
    s.accumulate = i > 0;
    if (p.fp4) {
      s.idesc = sk::umma::mxf4nvf4_instr_desc(
          kM, p.n, p.scale_e8m0 ? sk::umma::ScaleType::kUE8M0 : sk::umma::ScaleType::kUE4M3);
      s.sfa = sfa_col[i];
      s.sfb = sfb_col[i];
    } else {
      s.idesc = sk::umma::mxf8f6f4_instr_desc(kM, p.n, mxf8_type(p.a_elem), mxf8_type(p.b_elem),
                                              in_tile, in_tile);
      s.sfa = sfa_col[t];
      s.sfb = sfb_col[t];
    }
    plan.steps.push_back(s);
  }
  return plan;
}

// FP64 reference from the independent decoders: D and sum of |terms|.
void reference(const Problem& p, std::vector<double>& d, std::vector<double>& abs_sum) {
  const uint32_t ns = p.nscales(), bs = p.block();
  auto scale = [&](uint8_t c) {
    return p.scale_e8m0 ? sk::ref::decode_e8m0(c) : sk::ref::decode_nvfp4_scale(c);
  };
  d.assign(static_cast<size_t>(kM) * p.n, 0);
  abs_sum.assign(d.size(), 0);
  for (uint32_t m = 0; m < kM; ++m)
    for (uint32_t n = 0; n < p.n; ++n) {
      double sum = 0, abs = 0;
      for (uint32_t k = 0; k < p.k; ++k) {
        const double t = decode_ref(p.a_elem, p.a[m * p.k + k]) *
                         decode_ref(p.b_elem, p.b[n * p.k + k]) *
                         scale(p.sfa[m * ns + k / bs]) * scale(p.sfb[n * ns + k / bs]);
        sum += t;
        abs += std::fabs(t);
      }
      d[m * p.n + n] = sum;
      abs_sum[m * p.n + n] = abs;
    }
}

// Runs the problem in the model and compares D with the reference; returns
// the number of mismatches.
int check_problem(const Problem& p, bool race_detector = false) {
  std::vector<double> want, abs_sum;
  reference(p, want, abs_sum);
  // Where the library's reference GEMM covers the case, it must agree too.
  std::vector<double> lib;
  auto fmt8 = [](Elem e) {
    return e == Elem::kE4M3 ? sk::ref::Fp8Format::kE4M3 : sk::ref::Fp8Format::kE5M2;
  };
  if (!p.fp4 && p.a_elem != Elem::kE2M1Padded && p.b_elem != Elem::kE2M1Padded)
    lib = sk::ref::mxfp8_gemm(kM, p.n, p.k, p.a, fmt8(p.a_elem), p.sfa, p.b, fmt8(p.b_elem), p.sfb);
  if (p.fp4 && !p.scale_e8m0)
    lib = sk::ref::nvfp4_gemm(kM, p.n, p.k, sk::ref::pack_e2m1_rows(p.a, kM, p.k), p.sfa,
                              sk::ref::pack_e2m1_rows(p.b, p.n, p.k), p.sfb);
  for (size_t i = 0; i < lib.size(); ++i)
    REQUIRE(std::fabs(lib[i] - want[i]) <= 1e-12 * abs_sum[i] + 1e-300);

  const Plan plan = make_plan(p);
  auto r = run(plan, race_detector);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  REQUIRE(r.notes.size() == kM);
  const std::vector<float> got = parse_d(r, p.n);
  const double steps = p.fp4 ? p.k / 64.0 : p.k / 32.0;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // One FP32 rounding per instruction, each at most 2^-24 of the running sum.
    const double tol = (steps + 1) * std::ldexp(abs_sum[i], -24) + 1e-30;
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= tol)) {
      if (bad < 5)
        MESSAGE("D[" << i / p.n << "][" << i % p.n << "] = " << got[i] << ", want " << want[i]
                     << " (tol " << tol << ")");
      ++bad;
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("instruction descriptors of the block-scaled kinds follow the ISA's bit tables") {
  using namespace sk::umma;
  // M >> 7 at [27,29), N >> 3 at [17,23), scale type at 23, types at 7 and 10,
  // scale-factor IDs at [29,31) (A) and [4,6) (B).
  CHECK(mxf8f6f4_instr_desc(128, 256, Mxf8f6f4Type::kE4M3, Mxf8f6f4Type::kE4M3) == 0x08C00000u);
  CHECK(mxf8f6f4_instr_desc(128, 64, Mxf8f6f4Type::kE5M2, Mxf8f6f4Type::kE2M1, 3, 2) ==
        (0x08800000u | (64u >> 3) << 17 | 1u << 7 | 5u << 10 | 3u << 29 | 2u << 4));
  CHECK(mxf4nvf4_instr_desc(128, 128, ScaleType::kUE4M3) == (1u << 27 | 16u << 17 | 1u << 7 | 1u << 10));
  CHECK(mxf4nvf4_instr_desc(128, 8, ScaleType::kUE8M0) == (1u << 27 | 1u << 23 | 1u << 17 | 1u << 7 | 1u << 10));
  // Scale-factor copy source: no swizzle, SBO 128 bytes, version 1.
  const uint64_t d = sf_copy_desc(0x400);
  CHECK((d & 0x3FFF) == 0x40);
  CHECK(((d >> 32) & 0x3FFF) == 128 / 16);
  CHECK(((d >> 46) & 3) == 1);
  CHECK((d >> 61) == 0);
}

TEST_CASE("MXFP8 E4M3 x E4M3: 8 MMAs over K = 256 accumulate to the FP64 reference") {
  CHECK(check_problem(make_problem(Elem::kE4M3, Elem::kE4M3, false, true, 64, 256)) == 0);
}

TEST_CASE("MXFP8 E5M2 x E4M3 with N = 256 and N = 72 (scales of B over several columns)") {
  CHECK(check_problem(make_problem(Elem::kE5M2, Elem::kE4M3, false, true, 256, 128)) == 0);
  CHECK(check_problem(make_problem(Elem::kE4M3, Elem::kE5M2, false, true, 72, 64)) == 0);
}

TEST_CASE("kind::mxf8f6f4 with E2M1 in the padded SMEM form ignores the padding") {
  CHECK(check_problem(make_problem(Elem::kE2M1Padded, Elem::kE4M3, false, true, 32, 128)) == 0);
}

TEST_CASE("NVFP4: E2M1 with UE4M3 scales per 16 elements over K = 512") {
  CHECK(check_problem(make_problem(Elem::kE2M1Packed, Elem::kE2M1Packed, true, false, 128, 512)) ==
        0);
}

TEST_CASE("kind::mxf4nvf4 with UE8M0 scales (MXFP4 through scale_vec::4X)") {
  CHECK(check_problem(make_problem(Elem::kE2M1Packed, Elem::kE2M1Packed, true, true, 256, 128)) ==
        0);
}

TEST_CASE("copies and MMAs of one thread are ordered: no race with the race detector") {
  CHECK(check_problem(make_problem(Elem::kE4M3, Elem::kE4M3, false, true, 32, 128), true) == 0);
}

namespace {
// A small valid MXFP8 setup (N = 32): scales copied to columns 256 (A) and
// 260 (B), then `mmas` appended by the caller.
Plan small_plan() {
  Plan plan = make_plan(make_problem(Elem::kE4M3, Elem::kE4M3, false, true, 32, 32));
  plan.n = 0;
  plan.steps.pop_back();  // the MMA; tests add their own
  return plan;
}

Step small_mma(uint32_t idesc, bool fp4 = false) {
  Step s;
  s.a = 0;
  s.b = 128 * 128;  // B follows A's single tile
  s.idesc = idesc;
  s.fp4 = fp4;
  s.sfa = kScaleCol0;
  s.sfb = kScaleCol0 + 4;
  return s;
}

const uint32_t kGoodMxf8 =
    sk::umma::mxf8f6f4_instr_desc(128, 32, sk::umma::Mxf8f6f4Type::kE4M3, sk::umma::Mxf8f6f4Type::kE4M3);

}  // namespace

TEST_CASE("the small setup itself is clean") {
  Plan plan = small_plan();
  plan.steps.push_back(small_mma(kGoodMxf8));
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("instruction descriptors that the kind does not allow are tcgen05.bad_idesc") {
  Plan plan = small_plan();
  // mxf8f6f4 takes UE8M0 scales only (bit 23 = 1).
  plan.steps.push_back(small_mma(kGoodMxf8 & ~(1u << 23)));
  // Type code 2 is not an mxf8f6f4 type.
  plan.steps.push_back(small_mma((kGoodMxf8 & ~(7u << 7)) | 2u << 7));
  // M = 256 needs cta_group::2.
  plan.steps.push_back(small_mma((kGoodMxf8 & ~(3u << 27)) | 2u << 27));
  // scale_vec::4X uses whole words: scale-factor ID 2 is invalid.
  plan.steps.push_back(small_mma(
      sk::umma::mxf4nvf4_instr_desc(128, 32, sk::umma::ScaleType::kUE4M3) | 2u << 29, true));
  // K = 96 exists on sm_103a only.
  plan.steps.push_back(small_mma(
      sk::umma::mxf4nvf4_instr_desc(128, 32, sk::umma::ScaleType::kUE4M3) | 1u << 31, true));
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.bad_idesc") == 5);
  CHECK_MESSAGE(r.findings.size() == 5, r.findings_text());
}

TEST_CASE("scale addresses outside the allocation are tcgen05.scale_out_of_range") {
  Plan plan = small_plan();
  plan.alloc_cols = 512;
  Step s = small_mma(kGoodMxf8);
  s.sfa = 512 + 8;  // beyond all of TMEM, so outside every allocation
  plan.steps.push_back(s);
  s = small_mma(kGoodMxf8);
  s.sfb = 1u << 16;  // lane 1: scales span all lanes, the address must name lane 0
  plan.steps.push_back(s);
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.scale_out_of_range") == 2);
  CHECK_MESSAGE(r.findings.size() == 2, r.findings_text());
}

TEST_CASE("a scale column range that runs past its allocation is tcgen05.scale_out_of_range") {
  // 256 columns: D at [0, 32) and scales at the end, where B's 8 columns for
  // N = 256 do not fit.
  Plan plan = small_plan();
  plan.alloc_cols = 256;
  for (Step& s : plan.steps) s.col -= 64;  // copies to columns 192.. and 196..
  Step s = small_mma(sk::umma::mxf8f6f4_instr_desc(128, 256, sk::umma::Mxf8f6f4Type::kE4M3,
                                                   sk::umma::Mxf8f6f4Type::kE4M3));
  s.sfa = 192;
  s.sfb = 252;  // needs [252, 260)
  s.b = 0;      // any valid B
  plan.steps.push_back(s);
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.scale_out_of_range") == 1);
  CHECK_MESSAGE(r.findings.size() == 1, r.findings_text());
  REQUIRE(!r.findings.empty());
  CHECK(r.findings[0].message.find("run past the end") != std::string::npos);
}

TEST_CASE("reading scale columns no tcgen05.cp wrote is tcgen05.scale_uninitialized") {
  Plan plan = small_plan();
  Step s = small_mma(kGoodMxf8);
  s.sfb = kScaleCol0 + 64;  // allocated, never copied
  plan.steps.push_back(s);
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.scale_uninitialized") == 1);
  CHECK_MESSAGE(r.findings.size() == 1, r.findings_text());
}

TEST_CASE("a copy over scales an issued MMA still reads is tcgen05.scale_overwrite_in_flight") {
  Plan plan = small_plan();
  const Step copy_a = plan.steps.front();
  plan.steps.push_back(small_mma(kGoodMxf8));
  plan.steps.push_back(copy_a);  // mma -> cp is not ordered: must wait for the commit
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.scale_overwrite_in_flight") == 1);
  CHECK_MESSAGE(r.findings.size() == 1, r.findings_text());
}

TEST_CASE("a copy after waiting on the MMA's commit is clean, with and without the race detector") {
  Plan plan = small_plan();
  Step copy_a = plan.steps.front();
  plan.steps.push_back(small_mma(kGoodMxf8));
  copy_a.wait_commit = true;  // the fix: the MMA is ordered before the copy
  plan.steps.push_back(copy_a);
  for (bool hb : {false, true}) {
    auto r = run(plan, hb);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("with the race detector, scale_overwrite_in_flight follows happens-before, not timing") {
  // The copy comes thousands of cycles after the MMA finished, so no timing
  // check can see it, but nothing orders the MMA before it: on hardware the
  // MMA may still be reading (the tensor core's queue can be longer than in
  // this schedule). The race detector judges order, so it is found on every
  // schedule; the timing run, without it, only when the overlap happens.
  Plan plan = small_plan();
  Step copy_a = plan.steps.front();
  plan.steps.push_back(small_mma(kGoodMxf8));
  copy_a.spin = 3000;
  plan.steps.push_back(copy_a);
  auto hb = run(plan, true);
  REQUIRE_MESSAGE(hb.ok, hb.error);
  CHECK(hb.count_rule("tcgen05.scale_overwrite_in_flight") == 1);
  CHECK_MESSAGE(hb.findings.size() == 1, hb.findings_text());
  auto timing = run(plan, false);
  REQUIRE_MESSAGE(timing.ok, timing.error);
  CHECK_MESSAGE(timing.findings.empty(), timing.findings_text());
}

TEST_CASE("an operand descriptor reaching past SMEM is tcgen05.operand_out_of_range") {
  Plan plan = small_plan();
  Step s = small_mma(kGoodMxf8);
  s.a = kSmemBytes - 4096;  // 128 rows x 128 bytes do not fit
  plan.steps.push_back(s);
  auto r = run(plan);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.count_rule("tcgen05.operand_out_of_range") == 1);
  CHECK_MESSAGE(r.findings.size() == 1, r.findings_text());
}
