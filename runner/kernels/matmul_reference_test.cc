// matmul_reference_test.cc: the FP64 reference of the GEMM check
// (matmul_reference.h) is the documented sum, bit for bit, whichever path
// computes it; MatmulReferenceCache hands a reference back only for
// byte-identical operands; check_matmul gives the same result with and
// without the cache, and still finds a wrong element and a write outside D.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "runner/kernels/matmul_check.h"
#include "runner/kernels/matmul_reference.h"

namespace {
using namespace sk::sim;

// Random BF16 operands of `batches` matrices, K-major, rows padded to ld.
struct Gemm {
  uint32_t m, n, k, lda, ldb, batches;
  std::vector<uint16_t> a, b;
  MatmulOperands operands() const {
    return MatmulOperands{m, n, k, a.data(), lda, b.data(), ldb, false, batches, false, false};
  }
};

Gemm random_gemm(uint32_t m, uint32_t n, uint32_t k, uint32_t batches, uint64_t seed) {
  Gemm g{m, n, k, k + 8, k + 8, batches, {}, {}};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  g.a.assign(size_t{batches} * m * g.lda, kBf16Nan);
  g.b.assign(size_t{batches} * n * g.ldb, kBf16Nan);
  for (uint32_t r = 0; r < batches * m; ++r)
    for (uint32_t c = 0; c < k; ++c) g.a[size_t{r} * g.lda + c] = sk::to_bf16(dist(rng)).bits;
  for (uint32_t r = 0; r < batches * n; ++r)
    for (uint32_t c = 0; c < k; ++c) g.b[size_t{r} * g.ldb + c] = sk::to_bf16(dist(rng)).bits;
  return g;
}

// The documented sum, written out plainly: partials by kk % 4, each in
// increasing kk, added as (p0 + p1) + (p2 + p3).
void plain_reference(const Gemm& g, uint32_t l, uint32_t i, uint32_t j, double* value,
                     double* abs_sum) {
  double p[4] = {0, 0, 0, 0}, pa[4] = {0, 0, 0, 0};
  for (uint32_t kk = 0; kk < g.k; ++kk) {
    const double x = bf16_value(g.a[(size_t{l} * g.m + i) * g.lda + kk]) *
                     bf16_value(g.b[(size_t{l} * g.n + j) * g.ldb + kk]);
    p[kk % 4] += x;
    pa[kk % 4] += std::fabs(x);
  }
  *value = (p[0] + p[1]) + (p[2] + p[3]);
  *abs_sum = (pa[0] + pa[1]) + (pa[2] + pa[3]);
}

// D = the reference rounded to F32, ldc = n + 3 with NaN padding.
std::vector<uint8_t> output_of(const Gemm& g, uint32_t ldc) {
  std::vector<uint8_t> d(size_t{g.batches} * g.m * ldc * 4);
  poison_output<float>(d.data(), d.size() / 4);
  for (uint32_t l = 0; l < g.batches; ++l)
    for (uint32_t i = 0; i < g.m; ++i)
      for (uint32_t j = 0; j < g.n; ++j) {
        double v, s;
        plain_reference(g, l, i, j, &v, &s);
        const auto f = static_cast<float>(v);
        std::memcpy(&d[((size_t{l} * g.m + i) * ldc + j) * 4], &f, 4);
      }
  return d;
}

CheckResult check(const Gemm& g, const std::vector<uint8_t>& d, uint32_t ldc,
                  MatmulReferenceCache* cache) {
  return check_matmul<float>(g.m, g.n, g.k, g.a.data(), g.lda, g.b.data(), g.ldb, d.data(), ldc,
                             false, g.batches, false, false, cache);
}

void require_same(const CheckResult& x, const CheckResult& y) {
  CHECK(x.passed == y.passed);
  CHECK(x.detail == y.detail);
  CHECK(std::memcmp(&x.max_abs_err, &y.max_abs_err, sizeof(double)) == 0);
  CHECK(std::memcmp(&x.max_rel_err, &y.max_rel_err, sizeof(double)) == 0);
  CHECK(std::memcmp(&x.max_tolerance_fraction, &y.max_tolerance_fraction, sizeof(double)) == 0);
}

}  // namespace

TEST_CASE("the reference is the documented sum, bit for bit, for every K mod 4") {
  for (const uint32_t k : {1u, 2u, 3u, 4u, 37u, 64u, 131u}) {
    const Gemm g = random_gemm(70, 33, k, 2, k);
    MatmulReferenceCache cache;
    const MatmulReference* whole = cache.of(g.operands());
    REQUIRE(whole != nullptr);
    for (uint32_t l = 0; l < g.batches; ++l) {
      const DecodedMatmul d = decode_matmul(g.operands(), l);
      std::vector<double> value(size_t{g.m} * g.n), abs_sum(value.size());
      reference_rows(d, 0, g.m, value.data(), abs_sum.data());
      for (uint32_t i = 0; i < g.m; ++i)
        for (uint32_t j = 0; j < g.n; ++j) {
          double v, s;
          plain_reference(g, l, i, j, &v, &s);
          const size_t e = size_t{i} * g.n + j, w = size_t{l} * g.m * g.n + e;
          REQUIRE(std::memcmp(&v, &value[e], sizeof v) == 0);
          REQUIRE(std::memcmp(&s, &abs_sum[e], sizeof s) == 0);
          REQUIRE(std::memcmp(&v, &whole->value[w], sizeof v) == 0);
          REQUIRE(std::memcmp(&s, &whole->abs_sum[w], sizeof s) == 0);
        }
    }
  }
}

TEST_CASE("the cache reuses a reference only for byte-identical operands") {
  Gemm g = random_gemm(40, 24, 50, 1, 7);
  MatmulReferenceCache cache;
  const MatmulReference* first = cache.of(g.operands());
  REQUIRE(first != nullptr);
  const std::vector<double> before = first->value;
  CHECK(cache.of(g.operands())->value == before);
  g.a[3 * g.lda + 5] ^= 0x0100;  // one element of A changes
  const MatmulReference* again = cache.of(g.operands());
  double v, s;
  plain_reference(g, 0, 3, 0, &v, &s);
  CHECK(std::memcmp(&v, &again->value[3 * g.n], sizeof v) == 0);
  CHECK(again->value != before);
}

TEST_CASE("check_matmul gives the same result with and without the cache") {
  const Gemm g = random_gemm(150, 40, 70, 2, 3);  // more rows than one block
  const uint32_t ldc = g.n + 3;
  std::vector<uint8_t> d = output_of(g, ldc);
  MatmulReferenceCache cache;
  const CheckResult plain = check(g, d, ldc, nullptr);
  CHECK(plain.passed);
  require_same(plain, check(g, d, ldc, &cache));
  require_same(plain, check(g, d, ldc, &cache));  // from the kept reference

  // A wrong element in the second matrix, then a write into D's padding.
  const float bad = 100.0f;
  std::memcpy(&d[((size_t{1} * g.m + 130) * ldc + 7) * 4], &bad, 4);
  const CheckResult wrong = check(g, d, ldc, nullptr);
  CHECK_FALSE(wrong.passed);
  CHECK(wrong.detail.rfind("D[1][130][7] = 100 but the reference is", 0) == 0);
  require_same(wrong, check(g, d, ldc, &cache));
  const float zero = 0.0f;
  std::memcpy(&d[(size_t{5} * ldc + g.n + 1) * 4], &zero, 4);
  const CheckResult outside = check(g, d, ldc, &cache);
  CHECK(outside.detail == "write outside D: padding element D[0][5][41]");
  require_same(outside, check(g, d, ldc, nullptr));
}

// libsystemc (linked through //runner/kernels) provides main() and calls
// sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
