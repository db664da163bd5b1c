// matmul_inputs.cc: see matmul_inputs.h.
#include "runner/kernels/matmul_inputs.h"

#include <random>

#include "runner/kernels/matmul_host.h"

namespace sk::sim {

namespace {

// What a request's operands depend on.
struct OperandKey {
  uint32_t m = 0, n = 0, k = 0, batch = 0, lda = 0, ldb = 0;
  bool f16 = false, a_mn_major = false, b_mn_major = false;
  uint64_t seed = 0;
  bool operator==(const OperandKey&) const = default;
};

OperandKey operand_key(const MatmulRequest& q) {
  const LeadingDims ld = leading_dims(q, 2);  // A's and B's pitches do not depend on D's type
  return {q.m, q.n, q.k, q.batch, ld.lda, ld.ldb, q.in_f16, q.a_mn_major, q.b_mn_major,
          q.operand_seed()};
}

struct SharedInputs {
  bool set = false;
  OperandKey key;
  MatmulInputs inputs;
};

SharedInputs& shared_inputs() {
  static SharedInputs s;
  return s;
}

}  // namespace

MatmulOperandBytes draw_matmul_operands(const MatmulRequest& q) {
  const LeadingDims ld = leading_dims(q, 2);
  const uint32_t a_rows = q.a_mn_major ? q.k : q.m, a_len = q.a_mn_major ? q.m : q.k;
  const uint32_t b_rows = q.b_mn_major ? q.k : q.n, b_len = q.b_mn_major ? q.n : q.k;
  MatmulOperandBytes out;
  out.a.resize(uint64_t{a_rows} * ld.lda * q.batch * 2);
  out.b.resize(uint64_t{b_rows} * ld.ldb * q.batch * 2);
  std::mt19937_64 rng(q.operand_seed());
  fill_operand_rows(reinterpret_cast<uint16_t*>(out.a.data()), uint64_t{a_rows} * q.batch, a_len,
                    ld.lda, q.in_f16, rng);
  fill_operand_rows(reinterpret_cast<uint16_t*>(out.b.data()), uint64_t{b_rows} * q.batch, b_len,
                    ld.ldb, q.in_f16, rng);
  return out;
}

void share_matmul_inputs(const MatmulRequest& q) {
  SharedInputs& s = shared_inputs();
  s.set = false;
  s.inputs.operands = draw_matmul_operands(q);
  const LeadingDims ld = leading_dims(q, 2);
  const MatmulOperands in{q.m,
                          q.n,
                          q.k,
                          reinterpret_cast<const uint16_t*>(s.inputs.operands.a.data()),
                          ld.lda,
                          reinterpret_cast<const uint16_t*>(s.inputs.operands.b.data()),
                          ld.ldb,
                          q.in_f16,
                          q.batch,
                          q.a_mn_major,
                          q.b_mn_major};
  s.inputs.reference.of(in);  // computed now, unless too large to keep
  s.key = operand_key(q);
  s.set = true;
}

MatmulInputs& matmul_inputs(const MatmulRequest& q, MatmulInputs& own) {
  SharedInputs& s = shared_inputs();
  return s.set && s.key == operand_key(q) ? s.inputs : own;
}

}  // namespace sk::sim
