// block_scaled.cc: the registration of the SM100 block-scaled matmul
// (kernels/blockscaled/): MXFP8 (E4M3 or E5M2 elements, a UE8M0 scale per 32
// along K) or NVFP4 (E2M1 elements, a UE4M3 scale per 16); A, B and their
// scales are four TMA loads per stage, tcgen05.cp moves the scales to TMEM.
#include <string>
#include <utility>

#include "runner/families/registry.h"
#include "runner/kernels/block_scaled_run.h"

namespace sk::sim {
namespace {

BlockScaledRequest request(const Values& v, const MatmulRequest& run) {
  BlockScaledRequest r;
  r.run = run;
  if (v.str("format") == "nvfp4")
    r.format = BlockFormat::kNvfp4;
  else
    r.format = v.has("fp8-type") && v.str("fp8-type") == "e5m2" ? BlockFormat::kMxfp8E5m2
                                                                : BlockFormat::kMxfp8E4m3;
  return r;
}

}  // namespace

Family block_scaled_family() {
  Family f;
  f.name = "block_scaled_matmul";
  f.summary = [] {
    return std::string(
        "SM100 block-scaled matmul: --format mxfp8 [--fp8-type e4m3|e5m2]\n"
        "(UE8M0 scale per 32) or nvfp4 (E2M1, UE4M3 scale per 16); A, B and\n"
        "their scales are 4 TMA loads per stage, tcgen05.cp + block-scaled UMMA;\n"
        "stages where SMEM and TMEM allow");
  };
  f.archs = {{"sm100", {128, 256}, 2, 6, 256, 4, {"static"}, {"bf16"}}};
  f.archs[0].events = {387, 10.0};  // mxfp8; nvfp4 takes fewer (tools/fit_event_model.py)
  f.fields = gemm_shape_fields();
  f.fields.insert(f.fields.end(), {
      required(choice_field("format",
                            "mxfp8 (FP8 elements, a UE8M0 scale per 32 along K) or nvfp4 (E2M1 "
                            "elements, a UE4M3 scale per 16)",
                            {"mxfp8", "nvfp4"})),
      choice_field("fp8-type", "mxfp8 element type: e4m3 (default) or e5m2", {"e4m3", "e5m2"}),
  });
  for (Field& x : batch_layout_fields(" (mxfp8 only: kind::mxf4nvf4 is K-major)"))
    f.fields.push_back(std::move(x));
  for (Field& x : scaled_pitch_fields(": 16 FP8 or 32 E2M1 elements; nvfp4 pitches count E2M1 "
                                      "elements, two per byte, and are even"))
    f.fields.push_back(std::move(x));
  f.fields_note = "D = A B with A M x K and B K x N; by default both K-contiguous (row-major A, "
                  "column-major B), --layout-a/--layout-b for the others (mxfp8); pitches "
                  "--lda/--ldb/--ldd in elements (nvfp4: E2M1, two per byte), refused unless "
                  "16-byte (or --pad-rows); without them rows are padded to 16 bytes and the "
                  "summary says so";
  f.reference = std::string("host FP64 GEMM over the decoded elements times their scales "
                            "(runner/ref/block_formats); ") + kGemmTolerance;
  f.seeded_bugs = {"block_scaled_expect_tx_without_scales", "block_scaled_shared_scale_columns",
                   "block_scaled_mma_before_scale_copy", "block_scaled_scale_id_fixed",
                   "block_scaled_short_scale_box"};
  f.bind = [](const Values& v, MatmulRequest& q) {
    if (v.str("format") == "nvfp4" && v.has("fp8-type"))
      return std::string("--fp8-type is an mxfp8 option (nvfp4 is E2M1)");
    bind_batch_layouts(v, q);
    std::string err = bind_gemm_shape(v, q);
    bind_scaled_pitches(v, q, v.str("format") == "nvfp4");
    return err;
  };
  f.validate = [](const Values& v, const MatmulRequest& q) {
    return with_launch_checks(validate_block_scaled(request(v, q)), q);
  };
  f.flops = gemm_flops;
  // Elements (MXFP8 one byte, NVFP4 half) and one scale byte per block (32
  // elements for MX, 16 for NVFP4) of A and B, and D in BF16, per matrix.
  f.bytes = [](const Values& v, const MatmulRequest& q) {
    const bool fp4 = v.str("format") == "nvfp4";
    const double per_element = fp4 ? 0.5 + 1.0 / 16 : 1.0 + 1.0 / 32;
    return q.batch * (per_element * (static_cast<double>(q.m) * q.k + static_cast<double>(q.n) * q.k) +
                      2.0 * q.m * q.n);
  };
  f.run = [](const Values& v, const MatmulRequest& q) {
    RunResult r = run_block_scaled(request(v, q));
    describe_fp8_operands(r, q, v.str("format") == "nvfp4");
    return r;
  };
  return f;
}

}  // namespace sk::sim
