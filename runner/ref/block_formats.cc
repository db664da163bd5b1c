// block_formats.cc: see block_formats.h.
#include "runner/ref/block_formats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace sk::ref {
namespace {

// A sign + exponent + mantissa minifloat. Special codes (inf, NaN) are handled
// by the callers; this covers the finite encodings only.
struct MiniFloat {
  int ebits;
  int mbits;
  int bias;
  std::uint8_t max_code;  // positive max finite code
  double max_value;
};

constexpr MiniFloat kE4M3{4, 3, 7, kE4M3MaxCode, kE4M3Max};
constexpr MiniFloat kE5M2{5, 2, 15, kE5M2MaxCode, kE5M2Max};
constexpr MiniFloat kE2M1{2, 1, 1, kE2M1MaxCode, kE2M1Max};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Value of a finite code: exponent field 0 is subnormal, 0.m * 2^(1-bias);
// otherwise 1.m * 2^(e-bias). ldexp of a small integer is exact.
double decode_finite(std::uint8_t code, const MiniFloat& f) {
  const int sign = (code >> (f.ebits + f.mbits)) & 1;
  const int e = (code >> f.mbits) & ((1 << f.ebits) - 1);
  const int m = code & ((1 << f.mbits) - 1);
  const double mag = e == 0 ? std::ldexp(m, 1 - f.bias - f.mbits)
                            : std::ldexp((1 << f.mbits) + m, e - f.bias - f.mbits);
  return sign ? -mag : mag;
}

// Saturating round-to-nearest-even encoding of a non-NaN x.
std::uint8_t encode_finite(double x, const MiniFloat& f) {
  const std::uint8_t sign =
      std::signbit(x) ? static_cast<std::uint8_t>(1u << (f.ebits + f.mbits)) : 0;
  const double a = std::fabs(x);
  // Rounding is monotone and max_value is representable, so anything at or
  // below max_value rounds to at most max_value; only larger inputs saturate.
  if (a > f.max_value) return sign | f.max_code;
  if (a == 0.0) return sign;

  const int emin = 1 - f.bias;
  int frexp_exp = 0;
  std::frexp(a, &frexp_exp);  // a = frac * 2^frexp_exp, frac in [0.5, 1)
  const int e = std::max(frexp_exp - 1, emin);
  // a in units of the quantum 2^(e - mbits) at exponent e: n < 2^(mbits+1).
  // Scaling by a power of two is exact here (no overflow, no underflow).
  const double n = std::ldexp(a, f.mbits - e);
  const double whole = std::floor(n);
  const double frac = n - whole;  // exact
  auto r = static_cast<std::uint32_t>(whole);
  if (frac > 0.5 || (frac == 0.5 && (r & 1u))) ++r;

  const std::uint32_t hidden = 1u << f.mbits;
  std::uint32_t exp_field = 0;
  std::uint32_t mant = r;
  if (r >= hidden) {
    // Normal at exponent e, or one binade up when rounding carried out
    // (r == 2 * hidden). For a subnormal input (e == emin, r <= hidden)
    // reaching hidden, this yields the min normal, exponent field 1.
    int ee = e;
    if (r == 2 * hidden) {
      r = hidden;
      ++ee;
    }
    exp_field = static_cast<std::uint32_t>(ee + f.bias);
    mant = r - hidden;
  }
  return sign | static_cast<std::uint8_t>((exp_field << f.mbits) | mant);
}

[[noreturn]] void bad_size(const char* fn, const char* what, std::size_t got,
                           std::size_t want) {
  throw std::invalid_argument(std::string(fn) + ": " + what + " has " +
                              std::to_string(got) + " entries, expected " +
                              std::to_string(want));
}

std::size_t checked_mul(const char* fn, std::size_t x, std::size_t y) {
  if (y != 0 && x > std::numeric_limits<std::size_t>::max() / y)
    throw std::invalid_argument(std::string(fn) + ": shape " + std::to_string(x) +
                                " x " + std::to_string(y) + " overflows size_t");
  return x * y;
}

constexpr std::size_t ceil_div(std::size_t x, std::size_t d) {
  return x / d + (x % d != 0 ? 1 : 0);
}

void expect_size(const char* fn, const char* what, std::size_t got, std::size_t want) {
  if (got != want) bad_size(fn, what, got, want);
}

// Decoded value of every byte, for table lookups in the GEMMs.
std::array<double, 256> fp8_table(Fp8Format fmt) {
  std::array<double, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = decode_fp8(static_cast<std::uint8_t>(c), fmt);
  return t;
}

// D = sum over K blocks of (sum_{k in block} a(m,k) * b(n,k)) * scale(m, n, kb),
// with A (M x K) and B (N x K) already decoded.
template <typename ScaleFn>
std::vector<double> block_scaled_gemm(std::size_t M, std::size_t N, std::size_t K,
                                      std::size_t block, const std::vector<double>& a,
                                      const std::vector<double>& b, ScaleFn scale) {
  std::vector<double> d(M * N, 0.0);
  const std::size_t nblocks = ceil_div(K, block);
  for (std::size_t m = 0; m < M; ++m) {
    const double* arow = a.data() + m * K;
    for (std::size_t n = 0; n < N; ++n) {
      const double* brow = b.data() + n * K;
      double acc = 0.0;
      for (std::size_t kb = 0; kb < nblocks; ++kb) {
        const std::size_t k0 = kb * block;
        const std::size_t k1 = std::min(K, k0 + block);
        double s = 0.0;
        for (std::size_t k = k0; k < k1; ++k) s += arow[k] * brow[k];
        acc += s * scale(m, n, kb);
      }
      d[m * N + n] = acc;
    }
  }
  return d;
}

}  // namespace

// ---- Decoders ----------------------------------------------------------------

double decode_e4m3(std::uint8_t code) {
  if ((code & 0x7F) == 0x7F) return kNaN;  // S.1111.111; no infinities
  return decode_finite(code, kE4M3);
}

double decode_e5m2(std::uint8_t code) {
  if ((code & 0x7C) == 0x7C) {  // exponent 11111
    if ((code & 0x03) != 0) return kNaN;
    return (code & 0x80) ? -kInf : kInf;
  }
  return decode_finite(code, kE5M2);
}

double decode_fp8(std::uint8_t code, Fp8Format fmt) {
  return fmt == Fp8Format::kE4M3 ? decode_e4m3(code) : decode_e5m2(code);
}

double decode_e2m1(std::uint8_t code) {
  if (code > 0xF)
    throw std::invalid_argument("decode_e2m1: code " + std::to_string(code) +
                                " is not a 4-bit value");
  return decode_finite(code, kE2M1);
}

double decode_e8m0(std::uint8_t code) {
  if (code == kE8M0NaN) return kNaN;
  return std::ldexp(1.0, static_cast<int>(code) - 127);
}

double decode_nvfp4_scale(std::uint8_t code) { return decode_e4m3(code); }

// ---- Encoders ----------------------------------------------------------------

std::uint8_t encode_e4m3(double x) {
  if (std::isnan(x)) return kE4M3NaN;
  return encode_finite(x, kE4M3);
}

std::uint8_t encode_e5m2(double x) {
  // Saturating mode: infinities clamp to +-57344 like any other large value.
  if (std::isnan(x)) return kE5M2NaN;
  return encode_finite(x, kE5M2);
}

std::uint8_t encode_fp8(double x, Fp8Format fmt) {
  return fmt == Fp8Format::kE4M3 ? encode_e4m3(x) : encode_e5m2(x);
}

std::uint8_t encode_e2m1(double x) {
  if (std::isnan(x)) throw std::domain_error("encode_e2m1: NaN has no E2M1 encoding");
  return encode_finite(x, kE2M1);
}

std::uint8_t encode_nvfp4_scale(double x) { return encode_e4m3(x); }

std::uint8_t encode_e8m0(int exponent) {
  const int e = std::clamp(exponent, kE8M0MinExp, kE8M0MaxExp);
  return static_cast<std::uint8_t>(e + 127);
}

std::uint8_t mx_shared_scale(std::span<const double> block, int emax_elem) {
  double amax = 0.0;
  for (double v : block) {
    if (!std::isfinite(v)) return kE8M0NaN;
    amax = std::max(amax, std::fabs(v));
  }
  if (amax == 0.0) return encode_e8m0(kE8M0MinExp);
  int frexp_exp = 0;
  std::frexp(amax, &frexp_exp);  // floor(log2(amax)) == frexp_exp - 1, exactly
  // Clamp before subtracting so that no emax_elem can overflow the int.
  const long long shared = static_cast<long long>(frexp_exp - 1) - emax_elem;
  return encode_e8m0(static_cast<int>(
      std::clamp<long long>(shared, kE8M0MinExp, kE8M0MaxExp)));
}

// ---- FP4 packing -------------------------------------------------------------

std::uint8_t pack_e2m1_pair(std::uint8_t lo, std::uint8_t hi) {
  if (lo > 0xF || hi > 0xF)
    throw std::invalid_argument("pack_e2m1_pair: code " +
                                std::to_string(lo > 0xF ? lo : hi) +
                                " is not a 4-bit value");
  return static_cast<std::uint8_t>(lo | (hi << 4));
}

std::vector<std::uint8_t> pack_e2m1(std::span<const std::uint8_t> codes) {
  std::vector<std::uint8_t> out(ceil_div(codes.size(), 2));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t lo = codes[2 * i];
    const std::uint8_t hi = 2 * i + 1 < codes.size() ? codes[2 * i + 1] : 0;
    out[i] = pack_e2m1_pair(lo, hi);
  }
  return out;
}

std::uint8_t unpack_e2m1_at(std::span<const std::uint8_t> packed, std::size_t i) {
  if (i / 2 >= packed.size())
    throw std::out_of_range("unpack_e2m1_at: element " + std::to_string(i) +
                            " is past the " + std::to_string(packed.size()) +
                            " packed bytes");
  const std::uint8_t byte = packed[i / 2];
  return static_cast<std::uint8_t>((i % 2 == 0 ? byte : byte >> 4) & 0xF);
}

std::vector<std::uint8_t> unpack_e2m1(std::span<const std::uint8_t> packed,
                                      std::size_t count) {
  expect_size("unpack_e2m1", "packed", packed.size(), ceil_div(count, 2));
  std::vector<std::uint8_t> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = unpack_e2m1_at(packed, i);
  return out;
}

std::vector<std::uint8_t> pack_e2m1_rows(std::span<const std::uint8_t> codes,
                                         std::size_t rows, std::size_t cols) {
  expect_size("pack_e2m1_rows", "codes", codes.size(),
              checked_mul("pack_e2m1_rows", rows, cols));
  const std::size_t stride = ceil_div(cols, 2);
  std::vector<std::uint8_t> out;
  out.reserve(rows * stride);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = pack_e2m1(codes.subspan(r * cols, cols));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

// ---- Reference GEMMs ---------------------------------------------------------

std::vector<double> mxfp8_gemm(std::size_t M, std::size_t N, std::size_t K,
                               std::span<const std::uint8_t> a_bytes, Fp8Format a_fmt,
                               std::span<const std::uint8_t> a_scales,
                               std::span<const std::uint8_t> b_bytes, Fp8Format b_fmt,
                               std::span<const std::uint8_t> b_scales) {
  constexpr const char* fn = "mxfp8_gemm";
  const std::size_t kb = ceil_div(K, kMxfp8Block);
  expect_size(fn, "a_bytes", a_bytes.size(), checked_mul(fn, M, K));
  expect_size(fn, "b_bytes", b_bytes.size(), checked_mul(fn, N, K));
  expect_size(fn, "a_scales", a_scales.size(), checked_mul(fn, M, kb));
  expect_size(fn, "b_scales", b_scales.size(), checked_mul(fn, N, kb));
  checked_mul(fn, M, N);

  const auto ta = fp8_table(a_fmt);
  const auto tb = fp8_table(b_fmt);
  std::vector<double> a(a_bytes.size()), b(b_bytes.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = ta[a_bytes[i]];
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = tb[b_bytes[i]];
  return block_scaled_gemm(M, N, K, kMxfp8Block, a, b,
                           [&](std::size_t m, std::size_t n, std::size_t blk) {
                             // Product of two powers of two: exact.
                             return decode_e8m0(a_scales[m * kb + blk]) *
                                    decode_e8m0(b_scales[n * kb + blk]);
                           });
}

std::vector<double> nvfp4_gemm(std::size_t M, std::size_t N, std::size_t K,
                               std::span<const std::uint8_t> a_packed,
                               std::span<const std::uint8_t> a_scales,
                               std::span<const std::uint8_t> b_packed,
                               std::span<const std::uint8_t> b_scales, float a_global,
                               float b_global) {
  constexpr const char* fn = "nvfp4_gemm";
  const std::size_t kb = ceil_div(K, kNvfp4Block);
  const std::size_t stride = ceil_div(K, 2);
  expect_size(fn, "a_packed", a_packed.size(), checked_mul(fn, M, stride));
  expect_size(fn, "b_packed", b_packed.size(), checked_mul(fn, N, stride));
  expect_size(fn, "a_scales", a_scales.size(), checked_mul(fn, M, kb));
  expect_size(fn, "b_scales", b_scales.size(), checked_mul(fn, N, kb));
  checked_mul(fn, M, N);
  checked_mul(fn, M, K);
  checked_mul(fn, N, K);

  auto unpack_rows = [&](std::span<const std::uint8_t> packed, std::size_t rows) {
    std::vector<double> out(rows * K);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < K; ++k)
        out[r * K + k] = decode_e2m1(unpack_e2m1_at(packed.subspan(r * stride, stride), k));
    return out;
  };
  const auto a = unpack_rows(a_packed, M);
  const auto b = unpack_rows(b_packed, N);
  auto d = block_scaled_gemm(M, N, K, kNvfp4Block, a, b,
                             [&](std::size_t m, std::size_t n, std::size_t blk) {
                               // Two E4M3 values: 8 significant bits, exact.
                               return decode_nvfp4_scale(a_scales[m * kb + blk]) *
                                      decode_nvfp4_scale(b_scales[n * kb + blk]);
                             });
  // Two FP32 values: at most 48 significant bits, exact in double.
  const double g = static_cast<double>(a_global) * static_cast<double>(b_global);
  for (double& v : d) v *= g;
  return d;
}

std::vector<double> blockwise_fp8_gemm(std::size_t M, std::size_t N, std::size_t K,
                                       std::span<const std::uint8_t> a_bytes,
                                       std::span<const float> a_scales,
                                       std::span<const std::uint8_t> b_bytes,
                                       std::span<const float> b_scales) {
  constexpr const char* fn = "blockwise_fp8_gemm";
  const std::size_t kb = ceil_div(K, kBlockwiseFp8Block);
  const std::size_t nb = ceil_div(N, kBlockwiseFp8Block);
  expect_size(fn, "a_bytes", a_bytes.size(), checked_mul(fn, M, K));
  expect_size(fn, "b_bytes", b_bytes.size(), checked_mul(fn, N, K));
  expect_size(fn, "a_scales", a_scales.size(), checked_mul(fn, M, kb));
  expect_size(fn, "b_scales", b_scales.size(), checked_mul(fn, nb, kb));
  checked_mul(fn, M, N);

  const auto t = fp8_table(Fp8Format::kE4M3);
  std::vector<double> a(a_bytes.size()), b(b_bytes.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = t[a_bytes[i]];
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = t[b_bytes[i]];
  return block_scaled_gemm(
      M, N, K, kBlockwiseFp8Block, a, b, [&](std::size_t m, std::size_t n, std::size_t blk) {
        // Two FP32 values: exact in double.
        return static_cast<double>(a_scales[m * kb + blk]) *
               static_cast<double>(b_scales[(n / kBlockwiseFp8Block) * kb + blk]);
      });
}

}  // namespace sk::ref
