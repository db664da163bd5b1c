// matmul_reference.h: the host FP64 reference of a (batched) 16-bit GEMM
// D = A * B^T, the part of the output check (matmul_check.h) that does not
// depend on D.
//
// Each element is the FP64 sum of its K products in four partials (K split
// by kk % 4, each partial in increasing kk, added as (p0 + p1) + (p2 + p3)),
// with the sum of their magnitudes beside it for check_element's bound. The
// operands are decoded to FP64 once per matrix, K contiguous.
//
// Invariants: an element's value and magnitude sum are the same FP64
// operations in the same order however the rows are blocked and whichever
// instruction set runs them (vector lanes hold separate partials; nothing is
// fused into FMA), so every check sees bit-identical references. A
// MatmulReferenceCache hands back a reference only for the same shape and
// byte-identical A and B; otherwise it computes it anew.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sk::sim {

// A and B of a GEMM as stored: `batches` matrices packed one after another,
// rows K-major (lda, ldb elements apart) or, MN-major, K rows of M or N.
// BF16 values, or IEEE F16 with f16.
struct MatmulOperands {
  uint32_t m = 0, n = 0, k = 0;
  const uint16_t* a = nullptr;
  uint32_t lda = 0;
  const uint16_t* b = nullptr;
  uint32_t ldb = 0;
  bool f16 = false;
  uint32_t batches = 1;
  bool a_mn_major = false, b_mn_major = false;

  // Elements each operand spans in memory, all matrices.
  size_t a_elements() const { return size_t{batches} * (a_mn_major ? k : m) * lda; }
  size_t b_elements() const { return size_t{batches} * (b_mn_major ? k : n) * ldb; }
};

// Matrix l's operands in FP64, K contiguous: a is m x k, b is n x k.
struct DecodedMatmul {
  uint32_t m = 0, n = 0, k = 0;
  std::vector<double> a, b;
};
DecodedMatmul decode_matmul(const MatmulOperands& in, uint32_t l);

// Rows [i0, i1) of the decoded matrix's reference: value[(i - i0) * n + j]
// and abs_sum[...] the sum of |a b| over the same terms.
void reference_rows(const DecodedMatmul& d, uint32_t i0, uint32_t i1, double* value,
                    double* abs_sum);

// Every element's reference, matrices one after another, each m x n
// row-major.
struct MatmulReference {
  std::vector<double> value, abs_sum;
};

// The reference of the last operands asked for, kept while they stay the
// same: the power-limited clocks simulate one schedule more than once on the
// same inputs (runner/kernels/power_clocks.h), and each run's output is
// checked against the one reference.
class MatmulReferenceCache {
 public:
  // References larger than this (elements of D) are not kept: the check
  // computes them block by block instead (16 bytes an element).
  static constexpr size_t kMaxElements = size_t{1} << 22;

  // The reference of `in`, computed here unless the shape and the bytes of
  // A and B are those of the previous call; null when larger than
  // kMaxElements.
  const MatmulReference* of(const MatmulOperands& in);

 private:
  MatmulOperands shape_;  // the cached shape (its pointers are not used)
  std::vector<uint16_t> a_, b_;
  MatmulReference ref_;
  bool valid_ = false;
};

}  // namespace sk::sim
