// matmul.cc: the registration of the structured matmul, D = A * B^T with
// BF16 inputs and FP32 accumulation, on three architectures: the SM100 kernel
// (tcgen05 into TMEM, static or CLC scheduler), the SM90 kernel (wgmma into
// registers) and the CDNA3 ping-pong and wave-specialized kernels (mfma).
#include <string>

#include "runner/families/registry.h"
#include "runner/kernels/matmul_dispatch.h"
#include "runner/kernels/matmul_inputs.h"

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
      {"sm90", {128, 192, 256}, 2, 6, 256, 4, {"static"}, {"bf16"}},
      {"mi300x", {128}, 2, 3, 128, 3, {"static"}, {"bf16"}, 128, 32,
       {"pingpong", "wave_specialized"}},
  };
  // Events per tile and per k-step (tools/fit_event_model.py).
  f.archs[0].events = {387, 13.0};
  f.archs[1].events = {70, 24.0};  // with lockstep warpgroups (2026-12-05)
  f.archs[2].variant_events = {{278, 296.0}, {265, 206.0}};
  f.fields = gemm_shape_fields();
  f.fields.insert(
      f.fields.end(),
      {uint_field("batch", "independent GEMMs of this shape in one launch (default 1); A, B and D "
                           "each hold their matrices one after another",
                  1, 65535),
       uint_field("lda", "pitch of A's stored rows in elements (>= K, or M with --layout-a col; "
                         "default packed)",
                  1, 1u << 21),
       uint_field("ldb", "pitch of B's stored rows in elements (>= K, or N with --layout-b row; "
                         "default packed)",
                  1, 1u << 21),
       uint_field("ldd", "row pitch of D in elements (>= N; default the smallest 16-byte pitch)",
                  1, 1u << 21),
       choice_field("in-dtype", "element type of A and B: bf16 (default) or f16 (IEEE half)",
                    {"bf16", "f16"}),
       choice_field("layout-a", "A (M x K) row-major, K contiguous (default), or col-major, M "
                                "contiguous (sm100, sm90, mi300x)",
                    {"row", "col"}),
       choice_field("layout-b", "B (K x N) col-major, K contiguous (default), or row-major, N "
                                "contiguous (sm100, sm90, mi300x)",
                    {"col", "row"}),
       with_word(uint_field("tile-group",
                            "visit the output tiles in bands of G tile columns, G at a time row "
                            "after row (CUTLASS's swizzle, Triton's GROUP_SIZE), so that the CTAs "
                            "running at once share A and B panels in L2; 1 (default): along M "
                            "(sm90); auto: the kernel's own choice (4 where one wave of tiles "
                            "along M would span under three tile columns and K >= 768, else 1; "
                            "sm90_auto_tile_group); sim sweep takes a comma list (1,4,8,auto) "
                            "and runs each",
                            1, 256),
                 "auto"),
       uint_field("input-sets", "sm90, sm100: the launch is one of a series rotating over S sets "
                                "of A and B, as hw/h200/gemm_bench times (S = min(8, ceil(192 MB "
                                "/ the set's bytes))): L2 starts with what the launches since "
                                "this set's last use left of it; default: a lone launch, L2 empty",
                  1, 64),
       choice_field("cluster", "thread-block cluster of MxN CTAs. sm90: the N CTAs of a row "
                               "share their A tile and the M of a column their B tile, each "
                               "loading a slice and multicasting it; sm100: 2x1 runs the 2-SM "
                               "kernel (a CTA pair per 256-row tile, tcgen05 cta_group::2); "
                               "default 1x1 (none); sim sweep takes a comma list (1x1,2x1,1x2) "
                               "and runs each",
                    {"1x1", "2x1", "1x2", "2x2", "4x1", "1x4", "4x2", "2x4", "8x1", "1x8"}),
       choice_field("split-k", "sm90: split each tile's K over a cluster of S CTAs (2, 3, 4 or 8), "
                               "their FP32 accumulators reduced through distributed shared "
                               "memory, for shapes with few tiles and long K; tile N 128, no "
                               "--cluster; default 1 (none); sim sweep takes a comma list "
                               "(1,2,3,4,8) and runs each",
                    {"1", "2", "3", "4", "8"}),
       flag_field("split-tail", "sm90 with --split-k S: split only the last wave's tiles, each CTA "
                                "taking the waves before it whole and on its own (a last wave of "
                                "at most SMs / S tiles then takes 1 / S of a tile's time)"),
       choice_field("epilogue", "sm90: how D leaves the consumer warps: regs (default, st.global "
                                "from the accumulators) or tma (staged in shared memory and stored "
                                "by TMA while the warps go on)",
                    {"regs", "tma"}),
       flag_field("pingpong", "sm90: the ping-pong schedule: each consumer warpgroup takes every "
                              "other tile whole (128x128), so that one stores while the other "
                              "computes, instead of both sharing each tile (the cooperative "
                              "default); --tile-n 128, BF16, no cluster or K split"),
       choice_field("kernel-schedule", "sm90: cooperative (default: both consumer warpgroups share "
                                       "each tile) or pingpong (the same as --pingpong); sim sweep "
                                       "takes a comma list (cooperative,pingpong) and runs each",
                    {"cooperative", "pingpong"}),
       flag_field("stamp-tiles", "sm90: the JSON's \"stamps\" gets the consumer's tile phases "
                                 "(first stage, main loop, epilogue, to the next tile) as "
                                 "hw/h200/gemm_bench --stamp-tiles reads them on a GPU"),
       uint_field("hold-kblock", "sm90: each consumer warp holds every stage N more SM cycles (a "
                                 "spin after its k-block's wgmma wait, before the release), as "
                                 "hw/h200/gemm_bench --hold-kblock does on a GPU: how the time "
                                 "answers says how much slack the stage ring has",
                  0, 100000),
       flag_field("per-warp", "sm90: simulate each warp of a consumer warpgroup through the main "
                              "loop (as --functional runs do); a timing run otherwise simulates "
                              "the loop once per warpgroup, which is faster and moves predictions "
                              "by a few percent at most (docs/sim.md, \"Lockstep warpgroups\")"),
       flag_field("pad-rows", "round the pitches of A and B up to what the loads need (TMA: 16-byte "
                         "rows; LDS DMA: dwords), as a host copying its operands would; the "
                         "summary reports it")});
  f.fields_note = "D = A B with A M x K and B K x N; by default both K-contiguous (row-major A, "
                  "column-major B), --layout-a/--layout-b for the others";
  f.reference = std::string("host FP64 GEMM over the BF16 (or F16) inputs; ") + kGemmTolerance;
  f.bind = [](const Values& v, MatmulRequest& q) {
    bind_gemm_shape(v, q);
    q.batch = v.has("batch") ? v.u32("batch") : 1;
    q.a_mn_major = v.has("layout-a") && v.str("layout-a") == "col";
    q.b_mn_major = v.has("layout-b") && v.str("layout-b") == "row";
    q.lda = v.has("lda") ? v.u32("lda") : a_row_length(q);
    q.ldb = v.has("ldb") ? v.u32("ldb") : b_row_length(q);
    q.ldd = v.has("ldd") ? v.u32("ldd") : 0;
    q.in_f16 = v.has("in-dtype") && v.str("in-dtype") == "f16";
    q.tile_group = v.has("tile-group") ? v.u32("tile-group") : 1;  // 0: auto
    q.input_sets = v.has("input-sets") ? v.u32("input-sets") : 0;
    if (v.has("cluster")) {
      const std::string& c = v.str("cluster");
      q.cluster_m = static_cast<uint32_t>(c[0] - '0');
      q.cluster_n = static_cast<uint32_t>(c[2] - '0');
    }
    q.split_k = v.has("split-k") ? static_cast<uint32_t>(std::stoul(v.str("split-k"))) : 1;
    q.split_tail = v.flag("split-tail");
    q.tma_epilogue = v.has("epilogue") && v.str("epilogue") == "tma";
    if (v.has("kernel-schedule")) {
      if (q.arch != "sm90")
        return std::string("--kernel-schedule needs --arch sm90 (the other kernels have one schedule)");
      if (v.flag("pingpong") && v.str("kernel-schedule") != "pingpong")
        return "--pingpong and --kernel-schedule " + v.str("kernel-schedule") +
               " contradict each other; give one";
    }
    q.pingpong = v.flag("pingpong") || (v.has("kernel-schedule") && v.str("kernel-schedule") == "pingpong");
    q.stamp_tiles = v.flag("stamp-tiles");
    q.hold_kblock = v.has("hold-kblock") ? v.u32("hold-kblock") : 0;
    q.per_warp = v.flag("per-warp");
    if (v.flag("pad-rows")) {
      const uint32_t lda = pad_pitch(q.arch, q.lda), ldb = pad_pitch(q.arch, q.ldb);
      q.padded = lda != q.lda || ldb != q.ldb;
      q.lda = lda, q.ldb = ldb;
    }
    return std::string();
  };
  f.validate = [](const Values&, const MatmulRequest& q) { return validate_matmul(q); };
  f.flops = gemm_flops;
  f.bytes = gemm_bytes;
  f.run = [](const Values&, const MatmulRequest& q) {
    RunResult r = run_matmul(q);
    const LeadingDims ld = leading_dims(q, q.out_f32 ? 4 : 2);
    r.lda = ld.lda, r.ldb = ld.ldb, r.ldd = ld.ldd;
    r.padded = q.padded;
    r.a_mn_major = q.a_mn_major;
    r.b_mn_major = q.b_mn_major;
    return r;
  };
  f.share_inputs = [](const Values&, const MatmulRequest& q) {
    if (q.functional) share_matmul_inputs(q);
  };
  return f;
}

}  // namespace sk::sim
