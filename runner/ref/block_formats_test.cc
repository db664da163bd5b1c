// block_formats_test.cc: the format decoders and encoders against values the
// test computes on its own (bit-field formula, brute-force nearest search), the
// MX scale choice on random blocks, and the reference GEMMs against naive
// per-element sums written here.
//
// The naive GEMMs decode with the test's formula, pack FP4 with their own
// nibble code, and sum all K terms in one pass (no blocks), so they share no
// code path with the library beyond the input bytes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "runner/ref/block_formats.h"

namespace ref = sk::ref;
using ref::Fp8Format;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// (-1)^s * 2^(1-bias) * (0 + m/2^mb)  when the exponent field e is 0,
// (-1)^s * 2^(e-bias) * (1 + m/2^mb)  otherwise. Special codes are the caller's.
double formula(int code, int eb, int mb, int bias) {
  const int s = (code >> (eb + mb)) & 1;
  const int e = (code >> mb) % (1 << eb);
  const int m = code % (1 << mb);
  const double frac = static_cast<double>(m) / static_cast<double>(1 << mb);
  const double v = e == 0 ? frac * std::pow(2.0, 1 - bias) : (1.0 + frac) * std::pow(2.0, e - bias);
  return s ? -v : v;
}

bool e4m3_is_nan(int c) { return (c & 0x7F) == 0x7F; }
bool e5m2_is_special(int c) { return ((c >> 2) & 0x1F) == 0x1F; }

double t_e4m3(int c) { return e4m3_is_nan(c) ? kNaN : formula(c, 4, 3, 7); }
double t_e5m2(int c) {
  if (e5m2_is_special(c)) return (c & 3) ? kNaN : (c & 0x80 ? -kInf : kInf);
  return formula(c, 5, 2, 15);
}
double t_e2m1(int c) { return formula(c, 2, 1, 1); }
double t_e8m0(int c) { return c == 0xFF ? kNaN : std::pow(2.0, c - 127); }
double t_fp8(int c, Fp8Format f) { return f == Fp8Format::kE4M3 ? t_e4m3(c) : t_e5m2(c); }

// Same double, NaN equal to NaN, and the sign of zero respected.
bool same(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return x == y && std::signbit(x) == std::signbit(y);
}

// Brute-force saturating round-to-nearest-even over a list of codes: the
// nearest finite value to |x|, on a tie the code with mantissa LSB 0 (the code
// LSB), above the max the max; then the sign bit of x.
struct Table {
  std::vector<int> codes;  // positive finite codes
  std::vector<double> values;
  int sign_bit;
  int max_code;
  double max_value;
};

Table make_table(int n_codes, int sign_bit, double (*dec)(int), bool (*special)(int)) {
  Table t{{}, {}, sign_bit, 0, 0.0};
  for (int c = 0; c < n_codes; ++c) {
    if ((c & sign_bit) || special(c)) continue;
    t.codes.push_back(c);
    t.values.push_back(dec(c));
    if (dec(c) > t.max_value) {
      t.max_value = dec(c);
      t.max_code = c;
    }
  }
  return t;
}

int brute_encode(double x, const Table& t) {
  const double a = std::fabs(x);
  int best = t.max_code;
  if (a <= t.max_value) {
    double best_err = kInf;
    for (std::size_t i = 0; i < t.codes.size(); ++i) {
      const double err = std::fabs(t.values[i] - a);
      if (err < best_err || (err == best_err && (t.codes[i] & 1) == 0)) {
        best_err = err;
        best = t.codes[i];
      }
    }
  }
  return std::signbit(x) ? best | t.sign_bit : best;
}

bool no_special(int) { return false; }
bool e4m3_special(int c) { return e4m3_is_nan(c); }
double t_e4m3_int(int c) { return t_e4m3(c); }
double t_e5m2_int(int c) { return t_e5m2(c); }
double t_e2m1_int(int c) { return t_e2m1(c); }

const Table& e4m3_table() {
  static const Table t = make_table(256, 0x80, t_e4m3_int, e4m3_special);
  return t;
}
const Table& e5m2_table() {
  static const Table t = make_table(256, 0x80, t_e5m2_int, e5m2_is_special);
  return t;
}
const Table& e2m1_table() {
  static const Table t = make_table(16, 0x8, t_e2m1_int, no_special);
  return t;
}

// Inputs for the encoders: every representable value, every midpoint between
// neighbours and their immediate neighbours in double, random values spread
// log-uniformly from far below the smallest subnormal to far above the max.
std::vector<double> probe_values(const Table& t, std::mt19937& rng) {
  std::vector<double> v(t.values.begin(), t.values.end());
  std::vector<double> sorted = t.values;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
    const double mid = (sorted[i] + sorted[i + 1]) / 2;
    v.push_back(mid);
    v.push_back(std::nextafter(mid, 0.0));
    v.push_back(std::nextafter(mid, kInf));
  }
  const double top = sorted.back();
  for (double x : {top, top * 1.0625, top * 1.5, top * 2, top * 1e6, 1e300, kInf,
                   std::numeric_limits<double>::denorm_min(), 0.0})
    v.push_back(x);
  std::uniform_real_distribution<double> lg(std::log2(sorted[1]) - 4, std::log2(top) + 3);
  for (int i = 0; i < 4000; ++i) v.push_back(std::exp2(lg(rng)));
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

}  // namespace

// ---- Decoders ------------------------------------------------------------------

TEST_CASE("every E4M3 code decodes to the bit-field formula") {
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    const double want = t_e4m3(c);
    const double got = ref::decode_e4m3(static_cast<std::uint8_t>(c));
    INFO("code " << c);
    CHECK(same(got, want));
    CHECK(same(ref::decode_fp8(static_cast<std::uint8_t>(c), Fp8Format::kE4M3), want));
    CHECK(same(ref::decode_nvfp4_scale(static_cast<std::uint8_t>(c)), want));
    CHECK(!std::isinf(got));  // E4M3FN has no infinities
    nans += std::isnan(got);
  }
  CHECK(nans == 2);  // 0x7F and 0xFF only
  CHECK(std::isnan(ref::decode_e4m3(0x7F)));
  CHECK(std::isnan(ref::decode_e4m3(0xFF)));
  CHECK(ref::decode_e4m3(0x7E) == 448.0);
  CHECK(ref::decode_e4m3(0xFE) == -448.0);
  CHECK(ref::decode_e4m3(0x01) == std::ldexp(1.0, -9));  // min subnormal
  CHECK(ref::decode_e4m3(0x07) == 7 * std::ldexp(1.0, -9));  // max subnormal
  CHECK(ref::decode_e4m3(0x08) == std::ldexp(1.0, -6));  // min normal
  CHECK(ref::decode_e4m3(0x38) == 1.0);
  CHECK(ref::decode_e4m3(0x77) == 240.0);  // 1.111 * 2^7
  CHECK(same(ref::decode_e4m3(0x00), 0.0));
  CHECK(same(ref::decode_e4m3(0x80), -0.0));
  CHECK(ref::kE4M3Max == 448.0);
}

TEST_CASE("every E5M2 code decodes to the bit-field formula") {
  int nans = 0;
  int infs = 0;
  for (int c = 0; c < 256; ++c) {
    const double want = t_e5m2(c);
    const double got = ref::decode_e5m2(static_cast<std::uint8_t>(c));
    INFO("code " << c);
    CHECK(same(got, want));
    CHECK(same(ref::decode_fp8(static_cast<std::uint8_t>(c), Fp8Format::kE5M2), want));
    nans += std::isnan(got);
    infs += std::isinf(got);
  }
  CHECK(nans == 6);
  CHECK(infs == 2);
  CHECK(ref::decode_e5m2(0x7C) == kInf);
  CHECK(ref::decode_e5m2(0xFC) == -kInf);
  for (int c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF})
    CHECK(std::isnan(ref::decode_e5m2(static_cast<std::uint8_t>(c))));
  CHECK(ref::decode_e5m2(0x7B) == 57344.0);
  CHECK(ref::decode_e5m2(0xFB) == -57344.0);
  CHECK(ref::decode_e5m2(0x01) == std::ldexp(1.0, -16));  // min subnormal
  CHECK(ref::decode_e5m2(0x04) == std::ldexp(1.0, -14));  // min normal
  CHECK(ref::decode_e5m2(0x3C) == 1.0);
  CHECK(same(ref::decode_e5m2(0x80), -0.0));
  CHECK(ref::kE5M2Max == 57344.0);
}

TEST_CASE("every E2M1 code decodes to the bit-field formula and the known set") {
  const double known[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (int c = 0; c < 16; ++c) {
    INFO("code " << c);
    const double got = ref::decode_e2m1(static_cast<std::uint8_t>(c));
    CHECK(same(got, t_e2m1(c)));
    CHECK(same(got, c < 8 ? known[c] : -known[c - 8]));
  }
  CHECK(same(ref::decode_e2m1(0x8), -0.0));
  CHECK_THROWS_AS(ref::decode_e2m1(16), std::invalid_argument);
  CHECK_THROWS_AS(ref::decode_e2m1(0xFF), std::invalid_argument);
}

TEST_CASE("every E8M0 code decodes to 2^(x-127), 0xFF is NaN") {
  for (int c = 0; c < 256; ++c) {
    INFO("code " << c);
    CHECK(same(ref::decode_e8m0(static_cast<std::uint8_t>(c)), t_e8m0(c)));
  }
  CHECK(ref::decode_e8m0(127) == 1.0);
  CHECK(ref::decode_e8m0(0) == std::ldexp(1.0, -127));
  CHECK(ref::decode_e8m0(254) == std::ldexp(1.0, 127));
  CHECK(std::isnan(ref::decode_e8m0(255)));
}

// ---- Encoders ------------------------------------------------------------------

TEST_CASE("encode(decode(c)) == c for every finite code") {
  int n = 0;
  for (int c = 0; c < 256; ++c) {
    if (e4m3_is_nan(c)) continue;
    const auto code = static_cast<std::uint8_t>(c);
    INFO("code " << c);
    CHECK(ref::encode_e4m3(ref::decode_e4m3(code)) == code);
    CHECK(ref::encode_fp8(ref::decode_e4m3(code), Fp8Format::kE4M3) == code);
    CHECK(ref::encode_nvfp4_scale(ref::decode_e4m3(code)) == code);
    ++n;
  }
  CHECK(n == 254);
  n = 0;
  for (int c = 0; c < 256; ++c) {
    if (e5m2_is_special(c)) continue;
    const auto code = static_cast<std::uint8_t>(c);
    INFO("code " << c);
    CHECK(ref::encode_e5m2(ref::decode_e5m2(code)) == code);
    CHECK(ref::encode_fp8(ref::decode_e5m2(code), Fp8Format::kE5M2) == code);
    ++n;
  }
  CHECK(n == 248);
  for (int c = 0; c < 16; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    CHECK(ref::encode_e2m1(ref::decode_e2m1(code)) == code);
  }
  // Both zeros.
  CHECK(ref::encode_e4m3(0.0) == 0x00);
  CHECK(ref::encode_e4m3(-0.0) == 0x80);
  CHECK(ref::encode_e5m2(-0.0) == 0x80);
  CHECK(ref::encode_e2m1(-0.0) == 0x8);
}

TEST_CASE("encoding is round-to-nearest-even at midpoints") {
  const double s9 = std::ldexp(1.0, -9);  // E4M3 min subnormal
  // E4M3: 1.0 | 1.125 | 1.25: ties go to the even mantissa.
  CHECK(ref::encode_e4m3(1.0625) == 0x38);  // -> 1.0 (m=000)
  CHECK(ref::encode_e4m3(1.1875) == 0x3A);  // -> 1.25 (m=010)
  CHECK(ref::encode_e4m3(-1.1875) == 0xBA);
  CHECK(ref::encode_e4m3(std::nextafter(1.0625, 2.0)) == 0x39);
  CHECK(ref::encode_e4m3(s9 / 2) == 0x00);           // 0 | 2^-9 -> 0
  CHECK(ref::encode_e4m3(-s9 / 2) == 0x80);          // keeps the sign
  CHECK(ref::encode_e4m3(3 * s9 / 2) == 0x02);       // 2^-9 | 2^-8 -> 2^-8
  CHECK(ref::encode_e4m3(15 * s9 / 2) == 0x08);      // max subnormal | min normal
  CHECK(ref::encode_e4m3(15.5) == 0x58);             // 15 | 16 -> 16 (carry)
  CHECK(ref::encode_e4m3(432.0) == 0x7E);            // 416 | 448 -> 448 (m=110)
  CHECK(ref::encode_e4m3(400.0) == 0x7C);            // 384 | 416 -> 384 (m=100)
  // E5M2: 1.0 | 1.25 | 1.5.
  CHECK(ref::encode_e5m2(1.125) == 0x3C);
  CHECK(ref::encode_e5m2(1.375) == 0x3E);
  CHECK(ref::encode_e5m2(std::ldexp(1.0, -17)) == 0x00);
  CHECK(ref::encode_e5m2(3 * std::ldexp(1.0, -17)) == 0x02);
  CHECK(ref::encode_e5m2(53248.0) == 0x7A);  // 49152 | 57344 -> 49152 (m=10)
  // E2M1: 0 | .5 | 1 | 1.5 | 2 | 3 | 4 | 6.
  CHECK(ref::encode_e2m1(0.25) == 0x0);
  CHECK(ref::encode_e2m1(0.75) == 0x2);
  CHECK(ref::encode_e2m1(1.25) == 0x2);
  CHECK(ref::encode_e2m1(1.75) == 0x4);
  CHECK(ref::encode_e2m1(2.5) == 0x4);
  CHECK(ref::encode_e2m1(3.5) == 0x6);
  CHECK(ref::encode_e2m1(5.0) == 0x6);
  CHECK(ref::encode_e2m1(-5.0) == 0xE);
  CHECK(ref::encode_e2m1(std::nextafter(5.0, 6.0)) == 0x7);
}

TEST_CASE("encoding saturates beyond the max finite value; NaN rules") {
  for (double x : {448.0, 449.0, 464.0, 480.0, 512.0, 1e6, 1e300, kInf}) {
    CHECK(ref::encode_e4m3(x) == 0x7E);
    CHECK(ref::encode_e4m3(-x) == 0xFE);
  }
  for (double x : {57344.0, 57345.0, 61440.0, 65536.0, 1e10, kInf}) {
    CHECK(ref::encode_e5m2(x) == 0x7B);
    CHECK(ref::encode_e5m2(-x) == 0xFB);
  }
  for (double x : {6.0, 6.5, 7.0, 8.0, 100.0, kInf}) {
    CHECK(ref::encode_e2m1(x) == 0x7);
    CHECK(ref::encode_e2m1(-x) == 0xF);
  }
  CHECK(ref::encode_e4m3(kNaN) == ref::kE4M3NaN);
  CHECK(ref::encode_e4m3(-kNaN) == ref::kE4M3NaN);
  CHECK(std::isnan(ref::decode_e4m3(ref::encode_e4m3(kNaN))));
  CHECK(ref::encode_e5m2(kNaN) == ref::kE5M2NaN);
  CHECK(std::isnan(ref::decode_e5m2(ref::encode_e5m2(kNaN))));
  CHECK_THROWS_AS(ref::encode_e2m1(kNaN), std::domain_error);
}

TEST_CASE("encoders match a brute-force nearest-even search") {
  std::mt19937 rng(20240611);
  struct Case {
    const char* name;
    const Table& table;
    std::uint8_t (*enc)(double);
  };
  const Case cases[] = {{"E4M3", e4m3_table(), ref::encode_e4m3},
                        {"E5M2", e5m2_table(), ref::encode_e5m2},
                        {"E2M1", e2m1_table(), ref::encode_e2m1}};
  for (const Case& c : cases) {
    INFO(c.name);
    int mismatches = 0;
    for (double x : probe_values(c.table, rng)) {
      const int want = brute_encode(x, c.table);
      const int got = c.enc(x);
      if (got != want) {
        ++mismatches;
        if (mismatches < 5) CHECK_MESSAGE(got == want, "x = " << x);
      }
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("E8M0 encoder clamps to the exponent range") {
  for (int e = -127; e <= 127; ++e) {
    CHECK(ref::encode_e8m0(e) == e + 127);
    CHECK(ref::decode_e8m0(ref::encode_e8m0(e)) == std::ldexp(1.0, e));
  }
  CHECK(ref::encode_e8m0(128) == 254);
  CHECK(ref::encode_e8m0(1000) == 254);
  CHECK(ref::encode_e8m0(-128) == 0);
  CHECK(ref::encode_e8m0(std::numeric_limits<int>::min()) == 0);
}

// ---- MX scale ------------------------------------------------------------------

TEST_CASE("MX shared scale maps the block max into the element range") {
  struct Elem {
    int emax;
    double max_normal;
    std::uint8_t (*enc)(double);
    double (*dec)(std::uint8_t);
  };
  auto e2m1_enc = [](double x) { return ref::encode_e2m1(x); };
  auto e2m1_dec = [](std::uint8_t c) { return ref::decode_e2m1(c); };
  const Elem elems[] = {{ref::kEmaxE4M3, 448.0, ref::encode_e4m3, ref::decode_e4m3},
                        {ref::kEmaxE5M2, 57344.0, ref::encode_e5m2, ref::decode_e5m2},
                        {ref::kEmaxE2M1, 6.0, e2m1_enc, e2m1_dec}};
  CHECK(ref::mx_emax_elem(Fp8Format::kE4M3) == 8);
  CHECK(ref::mx_emax_elem(Fp8Format::kE5M2) == 15);

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> lg(-40.0, 40.0);
  std::uniform_real_distribution<double> spread(0.0, 20.0);
  std::bernoulli_distribution coin(0.5);
  std::bernoulli_distribution zero(0.05);
  for (const Elem& el : elems) {
    INFO("emax " << el.emax);
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<double> block(32);
      const double center = lg(rng);
      for (double& v : block) {
        v = zero(rng) ? 0.0 : std::exp2(center - spread(rng));
        if (coin(rng)) v = -v;
      }
      block[trial % 32] = std::exp2(center) * (coin(rng) ? 1 : -1);  // never all zero
      const std::uint8_t code = ref::mx_shared_scale(block, el.emax);
      REQUIRE(code != ref::kE8M0NaN);
      const double x = ref::decode_e8m0(code);
      double amax = 0.0;
      for (double v : block) amax = std::max(amax, std::fabs(v));
      // Block max lands in the top binade of the element format.
      CHECK(amax / x >= std::ldexp(1.0, el.emax));
      CHECK(amax / x < std::ldexp(1.0, el.emax + 1));
      // Every element is within range: finite, at most the max normal once
      // quantized (saturating), and the block max is not flushed toward zero.
      for (double v : block) {
        CHECK(std::fabs(v / x) < std::ldexp(1.0, el.emax + 1));
        const double q = el.dec(el.enc(v / x));
        CHECK(std::isfinite(q));
        CHECK(std::fabs(q) <= el.max_normal);
      }
      CHECK(std::fabs(el.dec(el.enc(amax / x))) >= std::ldexp(1.0, el.emax));
    }
  }
}

TEST_CASE("MX shared scale edge cases") {
  const std::vector<double> pow2 = {0.5, -448.0, 3.0};
  CHECK(ref::mx_shared_scale(pow2, ref::kEmaxE4M3) == 127);  // 448 -> X = 1
  const std::vector<double> one = {1.0, 0.25};
  CHECK(ref::mx_shared_scale(one, ref::kEmaxE4M3) == 127 - 8);
  CHECK(ref::mx_shared_scale(one, ref::kEmaxE2M1) == 127 - 2);
  const std::vector<double> zeros(32, 0.0);
  CHECK(ref::mx_shared_scale(zeros, ref::kEmaxE4M3) == 0);
  CHECK(ref::mx_shared_scale({}, ref::kEmaxE4M3) == 0);
  const std::vector<double> huge = {std::ldexp(1.0, 300)};
  CHECK(ref::mx_shared_scale(huge, ref::kEmaxE4M3) == 254);
  const std::vector<double> tiny = {std::ldexp(1.0, -300)};
  CHECK(ref::mx_shared_scale(tiny, ref::kEmaxE4M3) == 0);
  const std::vector<double> with_nan = {1.0, kNaN};
  CHECK(ref::mx_shared_scale(with_nan, ref::kEmaxE5M2) == ref::kE8M0NaN);
  const std::vector<double> with_inf = {1.0, -kInf};
  CHECK(ref::mx_shared_scale(with_inf, ref::kEmaxE5M2) == ref::kE8M0NaN);
}

// ---- FP4 packing ---------------------------------------------------------------

TEST_CASE("FP4 packing: element 2i low nibble, 2i+1 high nibble") {
  CHECK(ref::pack_e2m1_pair(0x1, 0x2) == 0x21);
  const std::vector<std::uint8_t> codes = {0x1, 0x2, 0xF, 0x0, 0x7};
  const auto packed = ref::pack_e2m1(codes);
  CHECK(packed == std::vector<std::uint8_t>{0x21, 0x0F, 0x07});
  CHECK(ref::unpack_e2m1(packed, 5) == codes);
  for (std::size_t i = 0; i < codes.size(); ++i) CHECK(ref::unpack_e2m1_at(packed, i) == codes[i]);
  CHECK(ref::unpack_e2m1_at(packed, 5) == 0);  // padding nibble
  CHECK_THROWS_AS(ref::unpack_e2m1_at(packed, 6), std::out_of_range);
  CHECK_THROWS_AS(ref::pack_e2m1_pair(0x10, 0), std::invalid_argument);
  CHECK_THROWS_AS(ref::pack_e2m1_pair(0, 0x10), std::invalid_argument);
  const std::vector<std::uint8_t> bad = {0x3, 0x20};
  CHECK_THROWS_AS(ref::pack_e2m1(bad), std::invalid_argument);
  CHECK_THROWS_AS(ref::unpack_e2m1(packed, 7), std::invalid_argument);
  CHECK_THROWS_AS(ref::unpack_e2m1(packed, 4), std::invalid_argument);

  // Row packing: each row of 3 codes takes 2 bytes.
  const std::vector<std::uint8_t> m = {1, 2, 3, 4, 5, 6};
  CHECK(ref::pack_e2m1_rows(m, 2, 3) == std::vector<std::uint8_t>{0x21, 0x03, 0x54, 0x06});
  CHECK_THROWS_AS(ref::pack_e2m1_rows(m, 2, 2), std::invalid_argument);
}

// ---- Reference GEMMs -----------------------------------------------------------

namespace {

// Random finite code of a format, optionally restricted to exponent fields in
// [emin_field, emax_field] (zero codes allowed as well).
std::uint8_t random_fp8(std::mt19937& rng, Fp8Format f, int emin_field = 0,
                        int emax_field = 255) {
  std::uniform_int_distribution<int> d(0, 255);
  for (;;) {
    const int c = d(rng);
    const bool special = f == Fp8Format::kE4M3 ? e4m3_is_nan(c) : e5m2_is_special(c);
    if (special) continue;
    const int e = f == Fp8Format::kE4M3 ? (c >> 3) & 0xF : (c >> 2) & 0x1F;
    if ((c & 0x7F) != 0 && (e < emin_field || e > emax_field)) continue;
    return static_cast<std::uint8_t>(c);
  }
}

std::vector<std::uint8_t> random_bytes(std::mt19937& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(d(rng));
  return v;
}

std::size_t cdiv(std::size_t x, std::size_t d) { return (x + d - 1) / d; }

// Naive result and sum of |terms|, for tolerance checks.
struct Naive {
  std::vector<double> d;
  std::vector<double> mag;
};

// One pass over k per output: sum of a(m,k) * b(n,k) * scale(m,n,k).
template <typename A, typename B, typename S>
Naive naive_gemm(std::size_t M, std::size_t N, std::size_t K, A a, B b, S scale) {
  Naive r{std::vector<double>(M * N), std::vector<double>(M * N)};
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t n = 0; n < N; ++n) {
      double s = 0.0;
      double mag = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        const double t = a(m, k) * b(n, k) * scale(m, n, k);
        s += t;
        mag += std::fabs(t);
      }
      r.d[m * N + n] = s;
      r.mag[m * N + n] = mag;
    }
  return r;
}

void check_exact(const std::vector<double>& got, const Naive& want) {
  REQUIRE(got.size() == want.d.size());
  std::size_t nonzero = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    nonzero += want.d[i] != 0.0;
    if (got[i] != want.d[i] && ++bad < 5) CHECK_MESSAGE(got[i] == want.d[i], "index " << i);
  }
  CHECK(bad == 0);
  CHECK(nonzero > got.size() / 2);
}

// |got - want| <= 1e-12 * sum|terms| (a relative bound that stays meaningful
// under cancellation).
void check_close(const std::vector<double>& got, const Naive& want) {
  REQUIRE(got.size() == want.d.size());
  std::size_t nonzero = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    nonzero += want.d[i] != 0.0;
    const bool ok = std::fabs(got[i] - want.d[i]) <= 1e-12 * want.mag[i];
    if (!ok && ++bad < 5)
      CHECK_MESSAGE(ok, "index " << i << ": " << got[i] << " vs " << want.d[i]);
  }
  CHECK(bad == 0);
  CHECK(nonzero > got.size() / 2);
}

}  // namespace

TEST_CASE("mxfp8_gemm matches a naive sum on odd shapes") {
  std::mt19937 rng(12345);
  const std::size_t M = 37, N = 29;
  struct Combo {
    Fp8Format fa, fb;
    int emin, emax;  // element exponent fields allowed
    int smin, smax;  // E8M0 scale codes allowed
    bool exact;
  };
  // Exact in double: E4M3 products are multiples of 2^-18 (times 2^-4 from the
  // scales) below 2^22, so all K partial sums fit 53 bits. E5M2 restricted to
  // exponent fields 10..20 likewise. Full ranges need the tolerance.
  const Combo combos[] = {
      {Fp8Format::kE4M3, Fp8Format::kE4M3, 0, 15, 125, 129, true},
      {Fp8Format::kE5M2, Fp8Format::kE5M2, 10, 20, 125, 129, true},
      {Fp8Format::kE4M3, Fp8Format::kE5M2, 0, 31, 125, 129, false},
      {Fp8Format::kE5M2, Fp8Format::kE5M2, 0, 31, 0, 254, false},
      {Fp8Format::kE4M3, Fp8Format::kE4M3, 0, 15, 0, 254, false},
  };
  for (const std::size_t K : {std::size_t{97}, std::size_t{33}, std::size_t{64}, std::size_t{1}}) {
    for (const Combo& c : combos) {
      INFO("K " << K << " formats " << int(c.fa) << int(c.fb) << " scales " << c.smin << ".."
                << c.smax);
      const std::size_t kb = cdiv(K, 32);
      std::vector<std::uint8_t> a(M * K), b(N * K);
      for (auto& x : a) x = random_fp8(rng, c.fa, c.emin, c.emax);
      for (auto& x : b) x = random_fp8(rng, c.fb, c.emin, c.emax);
      const auto sa = random_bytes(rng, M * kb, c.smin, c.smax);
      const auto sb = random_bytes(rng, N * kb, c.smin, c.smax);
      const auto got = ref::mxfp8_gemm(M, N, K, a, c.fa, sa, b, c.fb, sb);
      const auto want = naive_gemm(
          M, N, K, [&](std::size_t m, std::size_t k) { return t_fp8(a[m * K + k], c.fa); },
          [&](std::size_t n, std::size_t k) { return t_fp8(b[n * K + k], c.fb); },
          [&](std::size_t m, std::size_t n, std::size_t k) {
            return t_e8m0(sa[m * kb + k / 32]) * t_e8m0(sb[n * kb + k / 32]);
          });
      if (c.exact)
        check_exact(got, want);
      else
        check_close(got, want);
    }
  }
}

TEST_CASE("mxfp8_gemm propagates NaN and handles empty shapes") {
  const std::size_t M = 2, N = 2, K = 40;
  std::vector<std::uint8_t> a(M * K, 0x38), b(N * K, 0x38);  // all 1.0
  std::vector<std::uint8_t> sa(M * 2, 127), sb(N * 2, 127);
  auto d = ref::mxfp8_gemm(M, N, K, a, Fp8Format::kE4M3, sa, b, Fp8Format::kE4M3, sb);
  CHECK(d == std::vector<double>(4, 40.0));
  sa[1 * 2 + 1] = ref::kE8M0NaN;  // row 1, second block
  b[0 * K + 3] = 0x7F;            // NaN element in row 0 of B
  d = ref::mxfp8_gemm(M, N, K, a, Fp8Format::kE4M3, sa, b, Fp8Format::kE4M3, sb);
  CHECK(std::isnan(d[0]));
  CHECK(d[1] == 40.0);
  CHECK(std::isnan(d[2]));
  CHECK(std::isnan(d[3]));
  CHECK(ref::mxfp8_gemm(3, 2, 0, {}, Fp8Format::kE4M3, {}, {}, Fp8Format::kE4M3, {}) ==
        std::vector<double>(6, 0.0));
  CHECK(ref::mxfp8_gemm(0, 2, 5, {}, Fp8Format::kE4M3, {}, std::vector<std::uint8_t>(10, 0x38),
                        Fp8Format::kE4M3, std::vector<std::uint8_t>(2, 127))
            .empty());
}

TEST_CASE("nvfp4_gemm matches a naive sum on odd shapes") {
  std::mt19937 rng(777);
  const std::size_t M = 37, N = 29;
  // Packs with its own nibble code, row stride ceil(K/2); for odd K the
  // padding nibble gets random garbage, which must be ignored.
  auto pack = [&](const std::vector<std::uint8_t>& codes, std::size_t rows, std::size_t K) {
    const std::size_t stride = (K + 1) / 2;
    std::vector<std::uint8_t> out(rows * stride, 0);
    std::uniform_int_distribution<int> junk(0, 15);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < K; ++k)
        out[r * stride + k / 2] |= static_cast<std::uint8_t>(codes[r * K + k] << (k % 2 ? 4 : 0));
      if (K % 2) out[r * stride + stride - 1] |= static_cast<std::uint8_t>(junk(rng) << 4);
    }
    return out;
  };
  struct Globals {
    float ga, gb;
    bool exact;
  };
  const Globals globals[] = {{1.0f, 1.0f, true}, {0.25f, 8.0f, true}, {0.7133f, -3.91f, false}};
  for (const std::size_t K : {std::size_t{97}, std::size_t{33}, std::size_t{16}, std::size_t{3}}) {
    for (const Globals& g : globals) {
      INFO("K " << K << " globals " << g.ga << " " << g.gb);
      const std::size_t kb = cdiv(K, 16);
      const auto ca = random_bytes(rng, M * K, 0, 15);
      const auto cb = random_bytes(rng, N * K, 0, 15);
      std::vector<std::uint8_t> sa(M * kb), sb(N * kb);
      // Any finite E4M3 scale, subnormal and negative included: products of
      // E2M1 and E4M3 values are multiples of 2^-20 below 2^23, so the naive
      // K-term sum is exact for these K.
      for (auto& x : sa) x = random_fp8(rng, Fp8Format::kE4M3);
      for (auto& x : sb) x = random_fp8(rng, Fp8Format::kE4M3);
      const auto pa = pack(ca, M, K);
      const auto pb = pack(cb, N, K);
      if (K % 2 == 0) CHECK(ref::pack_e2m1_rows(ca, M, K) == pa);
      const auto got = ref::nvfp4_gemm(M, N, K, pa, sa, pb, sb, g.ga, g.gb);
      // Global scales applied per term here (the library applies them once).
      const double gab = static_cast<double>(g.ga) * static_cast<double>(g.gb);
      const auto want = naive_gemm(
          M, N, K, [&](std::size_t m, std::size_t k) { return t_e2m1(ca[m * K + k]); },
          [&](std::size_t n, std::size_t k) { return t_e2m1(cb[n * K + k]); },
          [&](std::size_t m, std::size_t n, std::size_t k) {
            return t_e4m3(sa[m * kb + k / 16]) * t_e4m3(sb[n * kb + k / 16]) * gab;
          });
      if (g.exact)
        check_exact(got, want);
      else
        check_close(got, want);
    }
  }
  // Default global scales are 1.
  const std::vector<std::uint8_t> one_row = {0x22};  // 1.0, 1.0
  const std::vector<std::uint8_t> s = {0x38};        // 1.0
  CHECK(ref::nvfp4_gemm(1, 1, 2, one_row, s, one_row, s) == std::vector<double>{2.0});
}

TEST_CASE("blockwise_fp8_gemm matches a naive sum on odd shapes") {
  std::mt19937 rng(4242);
  struct Shape {
    std::size_t M, N, K;
  };
  const Shape shapes[] = {{37, 29, 97}, {37, 150, 300}, {5, 129, 129}};
  for (const Shape& sh : shapes) {
    for (const bool exact : {true, false}) {
      const std::size_t M = sh.M, N = sh.N, K = sh.K;
      INFO("M " << M << " N " << N << " K " << K << " exact " << exact);
      const std::size_t kb = cdiv(K, 128);
      const std::size_t nb = cdiv(N, 128);
      std::vector<std::uint8_t> a(M * K), b(N * K);
      for (auto& x : a) x = random_fp8(rng, Fp8Format::kE4M3);
      for (auto& x : b) x = random_fp8(rng, Fp8Format::kE4M3);
      // Exact case: power-of-two scales 2^-2..2^2 keep every partial sum a
      // multiple of 2^-22 below 2^30. Otherwise arbitrary positive floats.
      std::uniform_int_distribution<int> p2(-2, 2);
      std::uniform_real_distribution<float> fl(0.01f, 10.0f);
      auto scale = [&] { return exact ? std::ldexp(1.0f, p2(rng)) : fl(rng); };
      std::vector<float> sa(M * kb), sb(nb * kb);
      for (auto& x : sa) x = scale();
      for (auto& x : sb) x = scale();
      const auto got = ref::blockwise_fp8_gemm(M, N, K, a, sa, b, sb);
      const auto want = naive_gemm(
          M, N, K, [&](std::size_t m, std::size_t k) { return t_e4m3(a[m * K + k]); },
          [&](std::size_t n, std::size_t k) { return t_e4m3(b[n * K + k]); },
          [&](std::size_t m, std::size_t n, std::size_t k) {
            return static_cast<double>(sa[m * kb + k / 128]) *
                   static_cast<double>(sb[(n / 128) * kb + k / 128]);
          });
      if (exact)
        check_exact(got, want);
      else
        check_close(got, want);
    }
  }
}

TEST_CASE("bad sizes throw std::invalid_argument") {
  const std::size_t M = 3, N = 5, K = 33;  // 2 MX blocks, 3 NVFP4 blocks
  const std::vector<std::uint8_t> a(M * K, 0x38), b(N * K, 0x38);
  const std::vector<std::uint8_t> sa(M * 2, 127), sb(N * 2, 127);
  const auto e4 = Fp8Format::kE4M3;
  CHECK_NOTHROW(ref::mxfp8_gemm(M, N, K, a, e4, sa, b, e4, sb));
  const std::vector<std::uint8_t> a_short(M * K - 1, 0x38);
  const std::vector<std::uint8_t> sa_long(M * 2 + 1, 127), sb_short(N * 2 - 1, 127);
  CHECK_THROWS_AS(ref::mxfp8_gemm(M, N, K, a_short, e4, sa, b, e4, sb), std::invalid_argument);
  CHECK_THROWS_AS(ref::mxfp8_gemm(M, N, K, a, e4, sa_long, b, e4, sb), std::invalid_argument);
  CHECK_THROWS_AS(ref::mxfp8_gemm(M, N, K, a, e4, sa, b, e4, sb_short), std::invalid_argument);
  CHECK_THROWS_AS(ref::mxfp8_gemm(M, N, K, a, e4, sa, a, e4, sb), std::invalid_argument);
  CHECK_THROWS_AS(ref::mxfp8_gemm(M, N, K + 1, a, e4, sa, b, e4, sb), std::invalid_argument);
  // Shapes whose products overflow size_t.
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2 + 1;
  CHECK_THROWS_AS(ref::mxfp8_gemm(huge, 1, 4, {}, e4, {}, {}, e4, {}), std::invalid_argument);

  // NVFP4: rows of ceil(33/2) = 17 bytes, 3 scales per row.
  const std::vector<std::uint8_t> pa(M * 17, 0x22), pb(N * 17, 0x22);
  const std::vector<std::uint8_t> qa(M * 3, 0x38), qb(N * 3, 0x38);
  CHECK_NOTHROW(ref::nvfp4_gemm(M, N, K, pa, qa, pb, qb));
  const std::vector<std::uint8_t> pa_dense(cdiv(M * K, 2), 0x22);  // not per-row padded
  CHECK_THROWS_AS(ref::nvfp4_gemm(M, N, K, pa_dense, qa, pb, qb), std::invalid_argument);
  CHECK_THROWS_AS(ref::nvfp4_gemm(M, N, K, pa, sa, pb, qb), std::invalid_argument);
  CHECK_THROWS_AS(ref::nvfp4_gemm(M, N, K, pa, qa, pb, sb), std::invalid_argument);
  CHECK_THROWS_AS(ref::nvfp4_gemm(M, N, K, pa, qa, pa, qb), std::invalid_argument);

  // Blockwise: B scales are per 128 x 128 tile, not per row.
  const std::vector<float> fa(M * 1, 1.0f), fb_tile(1, 1.0f), fb_rows(N, 1.0f);
  CHECK_NOTHROW(ref::blockwise_fp8_gemm(M, N, K, a, fa, b, fb_tile));
  CHECK_THROWS_AS(ref::blockwise_fp8_gemm(M, N, K, a, fa, b, fb_rows), std::invalid_argument);
  CHECK_THROWS_AS(ref::blockwise_fp8_gemm(M, N, K, a_short, fa, b, fb_tile),
                  std::invalid_argument);
  CHECK_THROWS_AS(ref::blockwise_fp8_gemm(M, N, K, a, fb_rows, b, fb_tile),
                  std::invalid_argument);
  CHECK_THROWS_AS(ref::blockwise_fp8_gemm(M, N, K, a, fa, b, {}), std::invalid_argument);
}
