// matmul_reference.cc: see matmul_reference.h.
#include "runner/kernels/matmul_reference.h"

#include <cmath>
#include <cstring>

#include "runner/kernels/matmul_check.h"

namespace sk::sim {
namespace {

// The sums of rows [i0, i1). Indices are size_t so that the compiler sees
// the four products of a step as contiguous (one vector of partials), and
// two columns are summed side by side, so that two independent chains of
// additions overlap; built twice, for AVX2 and for baseline x86-64, chosen
// at load time where the compiler supports it (the AVX2 build some 5x
// faster). The operations and their order are the same in both, and neither
// enables FMA.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void sum_rows(const double* av, const double* bv, uint32_t n, uint32_t k, uint32_t i0,
              uint32_t i1, double* value, double* abs_sum) {
  const size_t k4 = k & ~size_t{3};
  // The last k % 4 products of column bj, each into the partial of its
  // kk % 4, and the element's sums.
  auto finish = [&](const double* ai, const double* bj, double* part, double* part_abs,
                    size_t e) {
    for (size_t q = 0; k4 + q < k; ++q) {
      const double x = ai[k4 + q] * bj[k4 + q];
      part[q] += x;
      part_abs[q] += std::fabs(x);
    }
    value[e] = (part[0] + part[1]) + (part[2] + part[3]);
    abs_sum[e] = (part_abs[0] + part_abs[1]) + (part_abs[2] + part_abs[3]);
  };
  for (uint32_t i = i0; i < i1; ++i) {
    const double* ai = av + size_t{i} * k;
    const size_t row = size_t{i - i0} * n;
    uint32_t j = 0;
    for (; j + 2 <= n; j += 2) {
      const double* b0 = bv + size_t{j} * k;
      const double* b1 = b0 + k;
      double p0[4] = {0, 0, 0, 0}, a0[4] = {0, 0, 0, 0};
      double p1[4] = {0, 0, 0, 0}, a1[4] = {0, 0, 0, 0};
      for (size_t kk = 0; kk < k4; kk += 4) {
        for (size_t q = 0; q < 4; ++q) {
          const double x = ai[kk + q] * b0[kk + q];
          p0[q] += x;
          a0[q] += std::fabs(x);
        }
        for (size_t q = 0; q < 4; ++q) {
          const double x = ai[kk + q] * b1[kk + q];
          p1[q] += x;
          a1[q] += std::fabs(x);
        }
      }
      finish(ai, b0, p0, a0, row + j);
      finish(ai, b1, p1, a1, row + j + 1);
    }
    for (; j < n; ++j) {
      const double* b0 = bv + size_t{j} * k;
      double p0[4] = {0, 0, 0, 0}, a0[4] = {0, 0, 0, 0};
      for (size_t kk = 0; kk < k4; kk += 4)
        for (size_t q = 0; q < 4; ++q) {
          const double x = ai[kk + q] * b0[kk + q];
          p0[q] += x;
          a0[q] += std::fabs(x);
        }
      finish(ai, b0, p0, a0, row + j);
    }
  }
}

}  // namespace

DecodedMatmul decode_matmul(const MatmulOperands& in, uint32_t l) {
  DecodedMatmul d;
  d.m = in.m;
  d.n = in.n;
  d.k = in.k;
  // Element (row, kk) of matrix l: K-major at x[row * ld + kk], MN-major at
  // x[kk * ld + row].
  auto decode = [&](const uint16_t* x, uint32_t ld, bool mn_major, uint32_t rows) {
    const size_t step[2] = {mn_major ? 1 : size_t{ld}, mn_major ? size_t{ld} : 1};
    const uint16_t* xl = x + size_t{l} * (mn_major ? in.k : rows) * ld;
    std::vector<double> v(size_t{rows} * in.k);
    for (uint32_t i = 0; i < rows; ++i)
      for (uint32_t kk = 0; kk < in.k; ++kk)
        v[size_t{i} * in.k + kk] = input_value(xl[i * step[0] + kk * step[1]], in.f16);
    return v;
  };
  d.a = decode(in.a, in.lda, in.a_mn_major, in.m);
  d.b = decode(in.b, in.ldb, in.b_mn_major, in.n);
  return d;
}

void reference_rows(const DecodedMatmul& d, uint32_t i0, uint32_t i1, double* value,
                    double* abs_sum) {
  sum_rows(d.a.data(), d.b.data(), d.n, d.k, i0, i1, value, abs_sum);
}

const MatmulReference* MatmulReferenceCache::of(const MatmulOperands& in) {
  const size_t elements = size_t{in.batches} * in.m * in.n;
  if (elements > kMaxElements) return nullptr;
  const bool same_shape = valid_ && shape_.m == in.m && shape_.n == in.n && shape_.k == in.k &&
                          shape_.lda == in.lda && shape_.ldb == in.ldb && shape_.f16 == in.f16 &&
                          shape_.batches == in.batches && shape_.a_mn_major == in.a_mn_major &&
                          shape_.b_mn_major == in.b_mn_major;
  if (same_shape &&
      std::memcmp(a_.data(), in.a, in.a_elements() * sizeof(uint16_t)) == 0 &&
      std::memcmp(b_.data(), in.b, in.b_elements() * sizeof(uint16_t)) == 0)
    return &ref_;
  valid_ = false;
  shape_ = in;
  shape_.a = shape_.b = nullptr;
  a_.assign(in.a, in.a + in.a_elements());
  b_.assign(in.b, in.b + in.b_elements());
  ref_.value.resize(elements);
  ref_.abs_sum.resize(elements);
  for (uint32_t l = 0; l < in.batches; ++l) {
    const size_t at = size_t{l} * in.m * in.n;
    reference_rows(decode_matmul(in, l), 0, in.m, ref_.value.data() + at,
                   ref_.abs_sum.data() + at);
  }
  valid_ = true;
  return &ref_;
}

}  // namespace sk::sim
