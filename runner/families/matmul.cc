// matmul.cc: the registration of the structured matmul, D = A * B^T with
// BF16 inputs and FP32 accumulation, on three architectures: the SM100 kernel
// (tcgen05 into TMEM, static or CLC scheduler), the SM90 kernel (wgmma into
// registers) and the CDNA3 ping-pong and wave-specialized kernels (mfma).
#include <string>

#include "runner/families/registry.h"
#include "runner/kernels/matmul_dispatch.h"

namespace sk::sim {

Family matmul_family() {
  Family f;
  f.name = "matmul";
  f.summary = [] {
    return std::string(
        "SM100 structured matmul: 7 warps (epilogue 0-3, scheduler 4, load 5,\n"
        "MMA 6), BF16 in, FP32 accumulate, BF16 or F32 out, persistent\n"
        "(static scheduler, or CLC with --scheduler clc); stages as many as fit\n"
        "in 227 KB of shared memory; on sm90: 1 producer + 2 consumer\n"
        "warpgroups, wgmma into registers; on mi300x: ping-pong (8 waves) or\n"
        "wave-specialized (--amd-kernel), mfma, atomic-counter pipeline");
  };
  f.archs = {
      {"sm100", {64, 128, 256}, 2, 8, 256, 4, {"static", "clc"}, {"bf16", "f32"}},
      {"sm90", {128, 256}, 2, 6, 256, 4, {"static"}, {"bf16"}},
      {"mi300x", {128}, 2, 3, 128, 3, {"static"}, {"bf16"}, 128, 32,
       {"pingpong", "wave_specialized"}},
  };
  // Events per tile and per k-step (tools/fit_event_model.py).
  f.archs[0].events = {387, 13.0};
  f.archs[1].events = {60, 78.0};
  f.archs[2].variant_events = {{278, 296.0}, {265, 206.0}};
  f.fields = gemm_shape_fields();
  f.reference = std::string("host FP64 GEMM over the BF16 inputs; ") + kGemmTolerance;
  f.bind = bind_gemm_shape;
  f.validate = [](const Values&, const MatmulRequest& q) { return validate_matmul(q); };
  f.flops = gemm_flops;
  f.bytes = gemm_bytes;
  f.run = [](const Values&, const MatmulRequest& q) { return run_matmul(q); };
  return f;
}

}  // namespace sk::sim
