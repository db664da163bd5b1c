// matmul_inputs_test.cc: the operands drawn on the host alone are the bytes a
// functional run draws into the model's memory (odd shapes, padded pitches,
// MN-major operands, F16, a batch), and the shared inputs serve only runs of
// the same data: another schedule seed on the same data seed gets them,
// another data seed, shape, pitch or layout gets its own.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "models/sm90/params.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/matmul_inputs.h"

namespace {
using namespace sk::sim;

MatmulRequest request(uint32_t m, uint32_t n, uint32_t k, uint64_t seed) {
  MatmulRequest q;
  q.m = m, q.n = n, q.k = k;
  q.seed = seed;
  q.functional = true;
  return q;
}

// A's and B's bytes as allocate_matmul draws them into a functional model.
MatmulOperandBytes drawn_in_model(const MatmulRequest& q) {
  sk::models::sm100::Gpu gpu(sk::models::sm90::gpu_params(), true);
  const MatmulBuffers b = allocate_matmul<sk::bf16_t>(gpu, q);
  const uint8_t* a = gpu.gmem().host(b.a);
  const uint8_t* bb = gpu.gmem().host(b.b);
  MatmulOperandBytes out;
  out.a.assign(a, a + b.stride_a * b.batches * 2);
  out.b.assign(bb, bb + b.stride_b * b.batches * 2);
  return out;
}

}  // namespace

TEST_CASE("the host draw is the functional run's A and B, byte for byte") {
  MatmulRequest plain = request(257, 129, 65, 11);
  MatmulRequest padded = request(70, 33, 100, 3);
  padded.lda = 136, padded.ldb = 104;
  MatmulRequest mn = request(65, 96, 40, 5);
  mn.a_mn_major = mn.b_mn_major = true;
  MatmulRequest f16 = request(64, 40, 72, 9);
  f16.in_f16 = true;
  f16.batch = 3;
  MatmulRequest other_data = request(257, 129, 65, 11);
  other_data.data_seed = 12;
  for (const MatmulRequest& q : {plain, padded, mn, f16, other_data}) {
    CAPTURE(q.m);
    CAPTURE(q.operand_seed());
    const MatmulOperandBytes host = draw_matmul_operands(q), model = drawn_in_model(q);
    REQUIRE(host.a.size() == model.a.size());
    REQUIRE(host.b.size() == model.b.size());
    CHECK(host.a == model.a);
    CHECK(host.b == model.b);
  }
  // The data seed, not the schedule seed, picks the data.
  MatmulRequest schedule = request(257, 129, 65, 40);
  schedule.data_seed = 11;
  CHECK(draw_matmul_operands(schedule).a == draw_matmul_operands(plain).a);
  CHECK(draw_matmul_operands(other_data).a != draw_matmul_operands(plain).a);
}

TEST_CASE("shared inputs serve only runs of the same data") {
  MatmulRequest base = request(96, 80, 64, 0);
  base.data_seed = 0;
  MatmulInputs own;
  CHECK(&matmul_inputs(base, own) == &own);  // nothing shared yet
  share_matmul_inputs(base);
  MatmulInputs& shared = matmul_inputs(base, own);
  REQUIRE(&shared != &own);
  CHECK(shared.operands.a == draw_matmul_operands(base).a);

  // Another schedule on the same data, and another output type, share them.
  MatmulRequest schedule = base;
  schedule.seed = 17;
  CHECK(&matmul_inputs(schedule, own) == &shared);
  MatmulRequest f32 = base;
  f32.out_f32 = true;
  CHECK(&matmul_inputs(f32, own) == &shared);

  // Anything that changes the bytes of A or B does not.
  MatmulRequest seed = base;
  seed.data_seed = 1;
  MatmulRequest no_data_seed = base;
  no_data_seed.data_seed.reset();
  no_data_seed.seed = 5;
  MatmulRequest shape = base;
  shape.k = 72;
  MatmulRequest pitch = base;
  pitch.lda = 72;
  MatmulRequest layout = base;
  layout.b_mn_major = true;
  MatmulRequest half = base;
  half.in_f16 = true;
  for (const MatmulRequest& q : {seed, no_data_seed, shape, pitch, layout, half})
    CHECK(&matmul_inputs(q, own) == &own);

  // The shared reference is that of the shared bytes.
  const LeadingDims ld = leading_dims(base, 2);
  const MatmulOperands in{base.m,
                          base.n,
                          base.k,
                          reinterpret_cast<const uint16_t*>(shared.operands.a.data()),
                          ld.lda,
                          reinterpret_cast<const uint16_t*>(shared.operands.b.data()),
                          ld.ldb};
  MatmulReferenceCache fresh;
  const MatmulReference* kept = shared.reference.of(in);
  REQUIRE(kept != nullptr);
  CHECK(kept->value == fresh.of(in)->value);
}

// libsystemc (linked through //runner/kernels) provides main() and calls
// sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
