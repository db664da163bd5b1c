// registry.cc: see registry.h.
#include "runner/families/registry.h"

#include "runner/kernels/block_scaled_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "runner/kernels/matmul_dispatch.h"

namespace sk::sim {
namespace {

std::vector<Family> build() {
  std::vector<Family> out = {matmul_family(), conv2d_family(), block_scaled_family(),
                             blockwise_fp8_family(), attention_family()};
  std::set<std::string> names;
  for (const Family& f : out) {
    if (!names.insert(f.name).second || f.archs.empty())
      throw std::logic_error("family registry: '" + f.name + "' is registered twice or has no arch");
    std::set<std::string> fields;
    for (const Field& x : f.fields)
      if (!fields.insert(x.name).second)
        throw std::logic_error("family '" + f.name + "': field '" + x.name + "' declared twice");
  }
  return out;
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> all = build();
  return all;
}

const Family* find_family(const std::string& name) {
  for (const Family& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> all_archs() {
  std::vector<std::string> out;
  for (const Family& f : families())
    for (const ArchSpace& a : f.archs)
      if (std::find(out.begin(), out.end(), a.arch) == out.end()) out.push_back(a.arch);
  return out;
}

std::vector<Field> gemm_shape_fields() {
  return {required(uint_field("m", "rows of A and D", 1, 1u << 20)),
          required(uint_field("n", "rows of B, columns of D", 1, 1u << 20)),
          required(uint_field("k", "reduction length", 1, 1u << 20))};
}

std::string bind_gemm_shape(const Values& v, MatmulRequest& q) {
  q.m = v.u32("m");
  q.n = v.u32("n");
  q.k = v.u32("k");
  return "";
}

double gemm_flops(const Values&, const MatmulRequest& q) {
  return 2.0 * static_cast<double>(q.m) * q.n * q.k * q.batch;
}

double gemm_bytes(const Values&, const MatmulRequest& q) {
  return q.batch * (2.0 * (static_cast<double>(q.m) * q.k + static_cast<double>(q.n) * q.k) +
                    static_cast<double>(q.m) * q.n * (q.out_f32 ? 4 : 2));
}

std::vector<Field> batch_layout_fields(const std::string& layouts_note) {
  return {uint_field("batch", "independent GEMMs of this shape in one launch (default 1); A, B, "
                              "their scales and D each hold their matrices one after another",
                     1, 65535),
          choice_field("layout-a", "A (M x K) row-major, K contiguous (default), or col-major, M "
                                   "contiguous" + layouts_note,
                       {"row", "col"}),
          choice_field("layout-b", "B (K x N) col-major, K contiguous (default), or row-major, N "
                                   "contiguous" + layouts_note,
                       {"col", "row"})};
}

void bind_batch_layouts(const Values& v, MatmulRequest& q) {
  q.batch = v.has("batch") ? v.u32("batch") : 1;
  q.a_mn_major = v.has("layout-a") && v.str("layout-a") == "col";
  q.b_mn_major = v.has("layout-b") && v.str("layout-b") == "row";
}

std::vector<Field> scaled_pitch_fields(const std::string& fp4_note) {
  return {uint_field("lda", "pitch of A's stored rows in elements of its type (>= K, or M with "
                            "--layout-a col; a multiple of 16 bytes for TMA" + fp4_note +
                            "; default the smallest such pitch, padding rows silently)",
                     1, 1u << 21),
          uint_field("ldb", "pitch of B's stored rows in elements of its type (>= K, or N with "
                            "--layout-b row; a multiple of 16 bytes for TMA" + fp4_note +
                            "; default the smallest such pitch, padding rows silently)",
                     1, 1u << 21),
          uint_field("ldd", "row pitch of D (BF16) in elements (>= N, a multiple of 8; default "
                            "the smallest)",
                     1, 1u << 21),
          flag_field("pad-rows", "round the pitches of A and B up to a multiple of 16 bytes "
                                 "(TMA's rule), as a host copying its operands would; the "
                                 "summary reports it")};
}

void bind_scaled_pitches(const Values& v, MatmulRequest& q, bool fp4) {
  q.lda = v.has("lda") ? v.u32("lda") : 0;
  q.ldb = v.has("ldb") ? v.u32("ldb") : 0;
  q.ldd = v.has("ldd") ? v.u32("ldd") : 0;
  if (v.flag("pad-rows")) {
    const uint32_t lda = q.lda != 0 ? q.lda : a_row_length(q);
    const uint32_t ldb = q.ldb != 0 ? q.ldb : b_row_length(q);
    q.lda = pad_scaled_pitch(fp4, lda), q.ldb = pad_scaled_pitch(fp4, ldb);
    q.padded = lda != q.lda || ldb != q.ldb;
  }
}

std::string validate_sm100_launch(const MatmulRequest& q) {
  if (std::string res = validate_resources(q); !res.empty()) return res;
  for (const int cta : q.timeline_path.empty() ? std::vector<int>{} : q.timeline_ctas)
    if (cta >= 0 && static_cast<uint64_t>(cta) >= sms_used(q))
      return fmt::format("--timeline-cta {} does not exist: this launch has {} CTAs", cta,
                         sms_used(q));
  return "";
}

}  // namespace sk::sim
