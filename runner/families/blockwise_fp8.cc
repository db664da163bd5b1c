// blockwise_fp8.cc: the registration of the SM100 blockwise-scaled FP8 matmul
// (kernels/blockscaled/blockwise_fp8.h): E4M3 A and B with FP32 scales per
// 1 x 128 block of A and per 128 x 128 block of B, one TMEM partial per
// k-block, promoted in the epilogue.
#include <string>
#include <utility>

#include "runner/families/registry.h"
#include "runner/kernels/block_scaled_run.h"

namespace sk::sim {

Family blockwise_fp8_family() {
  Family f;
  f.name = "blockwise_fp8_matmul";
  f.summary = [] {
    return std::string(
        "SM100 blockwise-scaled FP8 (E4M3, FP32 scales per 1x128 block of A and\n"
        "per 128x128 block of B): one TMEM partial per k-block, promoted in the\n"
        "epilogue; tile 128x128x128");
  };
  f.archs = {{"sm100", {128}, 2, 6, 128, 4, {"static"}, {"bf16"}, 128, 128}};
  f.archs[0].events = {192, 75.0};  // tools/fit_event_model.py
  f.fields = gemm_shape_fields();
  for (Field& x : batch_layout_fields(" (kind::f8f6f4 takes both)")) f.fields.push_back(std::move(x));
  for (Field& x : scaled_pitch_fields(": 16 E4M3 elements")) f.fields.push_back(std::move(x));
  f.fields_note = "D = A B with A M x K and B K x N; by default both K-contiguous (row-major A, "
                  "column-major B), --layout-a/--layout-b for the others; pitches "
                  "--lda/--ldb/--ldd in elements (E4M3: bytes), refused unless 16-byte (or "
                  "--pad-rows); without them rows are padded to 16 bytes and the summary says so";
  f.reference = std::string("host FP64 GEMM of the E4M3 elements times their block scales "
                            "(ref::blockwise_fp8_gemm); FP32 accumulation over each 128-deep "
                            "k-block and its promotion, plus one rounding to BF16");
  f.seeded_bugs = {"blockwise_expect_tx_without_b_scale", "blockwise_b_scale_ignored",
                   "blockwise_scales_of_next_stage", "blockwise_short_a_scale_box"};
  f.bind = [](const Values& v, MatmulRequest& q) {
    bind_batch_layouts(v, q);
    std::string err = bind_gemm_shape(v, q);
    bind_scaled_pitches(v, q, false);
    return err;
  };
  f.validate = [](const Values&, const MatmulRequest& q) {
    return with_launch_checks(validate_blockwise_fp8(q), q);
  };
  f.flops = gemm_flops;
  // E4M3 A and B, their FP32 scales (A per 1x128, B per 128x128 block), D in
  // BF16, per matrix.
  f.bytes = [](const Values&, const MatmulRequest& q) {
    const double kb = (q.k + 127) / 128;
    return q.batch * (static_cast<double>(q.m) * q.k + static_cast<double>(q.n) * q.k +
                      4.0 * (q.m * kb + ((q.n + 127) / 128) * kb) + 2.0 * q.m * q.n);
  };
  f.run = [](const Values&, const MatmulRequest& q) {
    RunResult r = run_blockwise_fp8(q);
    describe_fp8_operands(r, q);
    return r;
  };
  return f;
}

}  // namespace sk::sim
