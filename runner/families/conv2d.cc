// conv2d.cc: the registration of conv2d fprop on SM100 (kernels/conv2d/, the matmul with the
// im2col TMA loader for A; NHWC in and out, KRSC filters; an optional residual loaded by an 8th
// warp). Its GEMM view is M = N*P*Q, N = K, K = R*S*Cp.
#include <algorithm>
#include <cstdint>
#include <string>

#include "runner/families/registry.h"
#include "runner/kernels/conv2d_run.h"

namespace sk::sim {
namespace {

Conv2dRequest request(const Values& v, const MatmulRequest& run) {
  Conv2dRequest r;
  Conv2dShape& s = r.shape;
  s.n = v.u32("n");
  s.h = v.u32("h");
  s.w = v.u32("w");
  s.c = v.u32("c");
  s.k = v.u32("k");
  s.r = v.u32("r");
  s.s = v.u32("s");
  s.stride_h = s.stride_w = v.u32("stride");
  s.pad_h = s.pad_w = v.u32("pad");
  s.dil_h = s.dil_w = v.u32("dilation");
  r.residual = v.flag("residual");
  r.beta = v.has("beta") ? static_cast<float>(v.number("beta")) : 1.0f;
  r.run = run;
  return r;
}

}  // namespace

Family conv2d_family() {
  Family f;
  f.name = "conv2d";
  f.title = "conv2d (implicit GEMM)";
  f.summary = [] {
    return std::string(
        "SM100 conv2d fprop: the matmul with the im2col TMA tile loader for A\n"
        "(NHWC activations, KRSC filters, NHWC output; --n --h --w --c --k --r --s\n"
        "--stride --pad --dilation);\n"
        "--residual [--beta B] adds beta * C, loaded by an 8th warp");
  };
  f.archs = {{"sm100", {64, 128}, 2, 4, 128, 4, {"static"}, {"bf16", "f32"}}};
  f.archs[0].events = {259, 12.8};  // the GEMM view's tiles (tools/fit_event_model.py)
  // The GEMM families' batch and operand layouts have no conv2d counterpart
  // to choose: the images are the batch, and the tensors' layouts are fixed.
  const std::string layouts = "its layouts are fixed: NHWC activations (A, by im2col TMA "
                              "loads) and KRSC filters (B), both channel-contiguous";
  f.foreign_field_notes = {
      {"batch", "conv2d's batch is --n, the images of the NHWC input"},
      {"layout-a", layouts},
      {"layout-b", layouts},
  };
  f.fields = {
      required(uint_field("n", "batch", 1, 65536)),
      required(uint_field("h", "input height", 1, 65536)),
      required(uint_field("w", "input width", 1, 65536)),
      required(uint_field("c", "input channels", 1, 65536)),
      required(uint_field("k", "output channels", 1, 65536)),
      required(uint_field("r", "filter height", 1, 64)),
      required(uint_field("s", "filter width", 1, 64)),
      uint_field("stride", "stride (both dimensions, 1-8)", 1, 8, "1"),
      uint_field("pad", "zero padding (both dimensions)", 0, 127, "0"),
      uint_field("dilation", "filter dilation (both dimensions)", 1, 127, "1"),
      flag_field("residual", "fuse D = conv + beta * C, C loaded by an 8th warp (epilogue load)"),
      needing(number_field("beta", "the residual's scale (default 1)", -1e6, 1e6), "residual"),
  };
  f.fields_note = "--n is the batch, --k the output channels";
  f.reference = std::string("host FP64 direct convolution over the BF16 inputs (plus beta * C); ") +
                kGemmTolerance;
  f.seeded_bugs = {"conv2d_im2col_ignores_padding", "conv2d_tap_not_dilated",
                   "conv2d_short_im2col_column", "conv2d_residual_short_box"};
  f.bind = [](const Values& v, MatmulRequest& q) {
    const Conv2dShape s = request(v, q).shape;  // the GEMM view, clamped (validate bounds it)
    q.m = static_cast<uint32_t>(std::min<uint64_t>(s.gemm_m(), UINT32_MAX)), q.n = s.k;
    q.k = static_cast<uint32_t>(std::min<uint64_t>(s.gemm_k(), UINT32_MAX));
    return std::string();
  };
  f.validate = [](const Values& v, const MatmulRequest& q) {
    return with_launch_checks(validate_conv2d(request(v, q)), q);
  };
  f.flops = [](const Values& v, const MatmulRequest& q) { return request(v, q).shape.flops(); };
  // X and the filters in BF16, Y (and the residual C) in the output type.
  f.bytes = [](const Values& v, const MatmulRequest& q) {
    const Conv2dRequest r = request(v, q);
    const Conv2dShape& s = r.shape;
    const double out = static_cast<double>(s.gemm_m()) * s.k * (q.out_f32 ? 4 : 2);
    return 2.0 * s.n * s.h * s.w * s.c + 2.0 * s.k * s.r * s.s * s.c + out * (r.residual ? 2 : 1);
  };
  f.run = [](const Values& v, const MatmulRequest& q) { return run_conv2d(request(v, q)); };
  return f;
}

}  // namespace sk::sim
