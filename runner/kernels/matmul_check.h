// matmul_check.h: the host reference check of a BF16 (or F16) GEMM D = A * B^T.
//
// An independent FP64 GEMM over the BF16 inputs (rows of A and B are K-major
// with leading dimensions lda, ldb; a batch's matrices packed one after
// another, each checked against its own A and B; the sums themselves are in
// matmul_reference.h). Tolerance: the FP32 accumulation bound
// 2 (k + 2) u sum|a b| plus one BF16 rounding of the output. D's padding
// columns [n, ldc) must still hold the NaN sentinel: nothing outside D is
// written.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/core/numeric.h"
#include "runner/kernels/matmul_reference.h"
#include "runner/result/run_result.h"

namespace sk::sim {

inline constexpr uint16_t kBf16Nan = 0x7fc0;
inline constexpr uint32_t kF32Nan = 0x7fc00000u;

inline double bf16_value(uint16_t bits) { return to_float(bf16_t{bits}); }

// IEEE binary16, written here apart from the models' decoders: the value of
// its bits, and a float rounded to nearest even (NaN stays NaN, overflow
// becomes infinity, subnormals kept).
inline constexpr uint16_t kF16Nan = 0x7e00;
inline double f16_value(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const double mant = h & 0x3ff;
  const double mag = e == 0    ? std::ldexp(mant, -24)
                     : e == 31 ? (mant == 0 ? INFINITY : NAN)
                               : std::ldexp(1024 + mant, e - 25);
  return (h & 0x8000) ? -mag : mag;
}
inline uint16_t f16_bits(float f) {
  uint32_t u = float_bits(f);
  const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return sign | kF16Nan;
  if (u >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up round to infinity
  if (u < 0x38800000u)                           // below 2^-14: a subnormal (or zero)
    return sign | static_cast<uint16_t>(std::nearbyint(bits_float(u) * 16777216.0f));
  u -= 0x38000000u;  // exponent bias 127 -> 15
  u += 0xfffu + ((u >> 13) & 1u);
  return sign | static_cast<uint16_t>(u >> 13);
}
// The value of an input element: BF16 or, with f16, IEEE binary16.
inline double input_value(uint16_t bits, bool f16) { return f16 ? f16_value(bits) : bf16_value(bits); }

template <class OutT>
double out_value(const uint8_t* p) {
  if constexpr (sizeof(OutT) == 4) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  } else {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return bf16_value(b);
  }
}

// Whether an output padding element still holds the NaN sentinel.
template <class OutT>
bool untouched(const uint8_t* p) {
  return sizeof(OutT) == 4 ? std::memcmp(p, &kF32Nan, 4) == 0 : std::memcmp(p, &kBf16Nan, 2) == 0;
}

// Fills `count` OutT elements at p with the NaN sentinel that untouched()
// recognises.
template <class OutT>
void poison_output(uint8_t* p, size_t count) {
  for (size_t i = 0; i < count; ++i)
    std::memcpy(p + i * sizeof(OutT), sizeof(OutT) == 4 ? static_cast<const void*>(&kF32Nan)
                                                        : static_cast<const void*>(&kBf16Nan),
                sizeof(OutT));
}

// The bound check_element applies, as the family registrations state it
// (sim list): keep the two together.
inline constexpr const char* kGemmTolerance =
    "per element |D - ref| <= 2 (K + 2) 2^-24 sum|a b| (FP32 accumulation) + 2^-8 |ref| "
    "(rounding to BF16; 0 for F32)";

// Compares one output element `got` with its FP64 reference `ref`, a sum of
// `terms` products whose magnitudes add to `abs_sum`: the FP32 accumulation
// bound 2 (terms + 2) u abs_sum plus one rounding to OutT (kGemmTolerance).
// Records the error in r and, for the first failure, r.detail = where().
template <class OutT, class Where>
void check_element(CheckResult& r, double got, double ref, double abs_sum, uint64_t terms,
                   Where&& where) {
  const double u = std::ldexp(1.0, -24);
  const double out_rel = sizeof(OutT) == 4 ? 0.0 : std::ldexp(1.0, -8);
  const double err = std::fabs(got - ref);
  const double allowed =
      2.0 * static_cast<double>(terms + 2) * u * abs_sum + out_rel * std::fabs(ref) + 1e-30;
  if (!(err <= allowed)) {  // also catches NaN
    if (r.passed) r.detail = fmt::format("{} = {} but the reference is {}", where(), got, ref);
    r.passed = false;
  }
  if (std::isfinite(err)) {
    r.max_tolerance_fraction = std::max(r.max_tolerance_fraction, err / allowed);
    r.max_abs_err = std::max(r.max_abs_err, err);
    if (std::fabs(ref) > 1e-12) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(ref));
  } else {
    r.max_abs_err = r.max_rel_err = r.max_tolerance_fraction =
        std::numeric_limits<double>::infinity();
  }
}

// Checks D (m rows of ldc OutT) against the FP64 references ref and abs_sums
// (m x n, row-major; abs_sums bounds each sum as check_element says), each
// a sum of `terms` rounded terms; D's padding columns [n, ldc) must be
// untouched.
template <class OutT>
void check_output(CheckResult& r, const uint8_t* d, uint32_t m, uint32_t n, uint32_t ldc,
                  const std::vector<double>& ref, const std::vector<double>& abs_sums,
                  uint64_t terms, int batch = -1) {
  // D[i][j], or D[l][i][j] for matrix l of a batch (batch >= 0).
  const std::string l = batch >= 0 ? fmt::format("[{}]", batch) : std::string();
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < ldc; ++j) {
      const uint8_t* p = d + (size_t{i} * ldc + j) * sizeof(OutT);
      if (j >= n) {
        if (!untouched<OutT>(p) && r.passed) {
          r.passed = false;
          r.detail = fmt::format("write outside D{} at row {} padding column {}", l, i, j);
        }
        continue;
      }
      const size_t e = size_t{i} * n + j;
      check_element<OutT>(r, out_value<OutT>(p), ref[e], abs_sums[e], terms,
                          [&] { return fmt::format("D{}[{}][{}]", l, i, j); });
    }
}

// A (B) MN-major: element (i, kk) at a[kk * lda + i] instead of a[i * lda + kk].
// With `cache`, the reference (matmul_reference.h) is taken from it when A
// and B are those of its previous check, and kept there otherwise; without
// it, or when the reference is too large to keep, it is computed here block
// by block. Either way every element of D is compared, in the same order.
template <class OutT>
CheckResult check_matmul(uint32_t m, uint32_t n, uint32_t k, const uint16_t* a, uint32_t lda,
                         const uint16_t* b, uint32_t ldb, const uint8_t* c, uint32_t ldc,
                         bool f16 = false, uint32_t batches = 1, bool a_mn_major = false,
                         bool b_mn_major = false, MatmulReferenceCache* cache = nullptr) {
  const MatmulOperands in{m, n, k, a, lda, b, ldb, f16, batches, a_mn_major, b_mn_major};
  const MatmulReference* whole = cache != nullptr ? cache->of(in) : nullptr;
  CheckResult r;
  r.ran = true;
  r.reference = f16 ? "host FP64 GEMM over the F16 inputs" : "host FP64 GEMM over the BF16 inputs";
  r.passed = true;
  constexpr uint32_t kBlockRows = 64;  // rows computed at a time without a kept reference
  std::vector<double> block_value, block_abs;
  for (uint32_t l = 0; l < batches; ++l) {
    const uint8_t* cl = c + size_t{l} * m * ldc * sizeof(OutT);
    // D[i][j], or D[l][i][j] in a batch.
    auto at = [&](uint32_t i, uint32_t j) {
      return batches > 1 ? fmt::format("[{}][{}][{}]", l, i, j) : fmt::format("[{}][{}]", i, j);
    };
    DecodedMatmul decoded;
    if (whole == nullptr) decoded = decode_matmul(in, l);
    for (uint32_t i0 = 0; i0 < m; i0 += kBlockRows) {
      const uint32_t i1 = std::min(m, i0 + kBlockRows);
      const double* value;
      const double* abs_sum;
      if (whole != nullptr) {
        value = whole->value.data() + (size_t{l} * m + i0) * n;
        abs_sum = whole->abs_sum.data() + (size_t{l} * m + i0) * n;
      } else {
        block_value.resize(size_t{i1 - i0} * n);
        block_abs.resize(size_t{i1 - i0} * n);
        reference_rows(decoded, i0, i1, block_value.data(), block_abs.data());
        value = block_value.data();
        abs_sum = block_abs.data();
      }
      for (uint32_t i = i0; i < i1; ++i)
        for (uint32_t j = 0; j < ldc; ++j) {
          const uint8_t* cp = cl + (static_cast<size_t>(i) * ldc + j) * sizeof(OutT);
          if (j >= n) {
            if (!untouched<OutT>(cp) && r.passed) {
              r.passed = false;
              r.detail = fmt::format("write outside D: padding element D{}", at(i, j));
            }
            continue;
          }
          const size_t e = size_t{i - i0} * n + j;
          check_element<OutT>(r, out_value<OutT>(cp), value[e], abs_sum[e], k,
                              [&] { return "D" + at(i, j); });
        }
    }
  }
  return r;
}

}  // namespace sk::sim
