// registry.h: the kernel families the simulator knows, in `sim list` order.
// Each family is one registration file in this directory (a function
// returning its sk::sim::Family, family.h); registry.cc lists them. Adding a
// family is a registration file, its line in registry.cc and its BUILD entry
// (docs/adding_a_family.md); sim/ is not touched.
//
// Invariants: names are unique; every family has at least one architecture
// and its fields have unique names; lookups never return a dangling pointer
// (the registry is built once and never changes).
#pragma once

#include <string>
#include <vector>

#include "runner/family/family.h"
#include "runner/kernels/matmul_check.h"

namespace sk::sim {

const std::vector<Family>& families();
// The family named `name`, or null.
const Family* find_family(const std::string& name);
// Every architecture some family runs on, in first-registered order.
std::vector<std::string> all_archs();

// The registrations (one file each).
Family matmul_family();
Family conv2d_family();
Family block_scaled_family();
Family blockwise_fp8_family();
Family attention_family();

// The problem of a GEMM-shaped family: --m, --n, --k (1 to 2^20, required),
// bound to q.m, q.n, q.k; its FLOPs 2 M N K (times q.batch, 1 unless the
// family offers --batch).
std::vector<Field> gemm_shape_fields();
std::string bind_gemm_shape(const Values& v, MatmulRequest& q);
double gemm_flops(const Values& v, const MatmulRequest& q);
// Its compulsory bytes: A and B in BF16 read once, D written once (per
// matrix of the batch).
double gemm_bytes(const Values& v, const MatmulRequest& q);

// --batch, --layout-a and --layout-b of an SM100 FP8 GEMM family (block-scaled
// and blockwise); `layouts_note` says which formats take the MN-major ones.
// bind_batch_layouts sets q.batch, q.a_mn_major and q.b_mn_major.
std::vector<Field> batch_layout_fields(const std::string& layouts_note);
void bind_batch_layouts(const Values& v, MatmulRequest& q);
// --lda, --ldb, --ldd and --pad-rows of those families, the plain matmul's
// contract in elements of the stored type (runner/kernels/block_scaled_run.h:
// NVFP4 counts E2M1 elements, two per byte); `fp4_note` is added to --lda's
// and --ldb's help. bind_scaled_pitches sets q.lda, q.ldb, q.ldd (0: not
// given) and q.padded, after the shape and layouts are bound.
std::vector<Field> scaled_pitch_fields(const std::string& fp4_note);
void bind_scaled_pitches(const Values& v, MatmulRequest& q, bool fp4);

// kGemmTolerance, the check every GEMM-shaped family shares, is stated beside
// its code in runner/kernels/matmul_check.h.

// The checks every SM100 structured kernel shares after its own: the
// resource bounds (traced SMs, functional host memory, trace size) and that
// --timeline-cta names a CTA of the launch.
std::string validate_sm100_launch(const MatmulRequest& q);
// `family_err` when it is not empty, else validate_sm100_launch(q).
inline std::string with_launch_checks(const std::string& family_err, const MatmulRequest& q) {
  return family_err.empty() ? validate_sm100_launch(q) : family_err;
}

}  // namespace sk::sim
