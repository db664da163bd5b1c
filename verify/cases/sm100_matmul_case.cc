// sm100_matmul_case.cc: the production SM100 matmul as a verify case,
// "sm100_matmul". Config keys: m, n, k, stages (default 4), tile_n (default
// 256), out_f32 (0 or 1), clc (1: the CLC tile scheduler, one CTA per tile),
// num_sms (default: params.json; a small count makes CLC cancel CTAs). It
// runs in functional mode and checks D against the FP64 reference, so a wrong
// result under any schedule is a finding too.
#include "runner/kernels/sm100_matmul_run.h"
#include "verify/harness/registry.h"

namespace sk::verify {
namespace {

sim::RunResult run(const CaseConfig& c, uint64_t seed) {
  sim::MatmulRequest q;
  q.m = static_cast<uint32_t>(c.get("m", 256));
  q.n = static_cast<uint32_t>(c.get("n", 256));
  q.k = static_cast<uint32_t>(c.get("k", 256));
  q.stages = static_cast<uint32_t>(c.get("stages", 4));
  q.tile_n = static_cast<uint32_t>(c.get("tile_n", 256));
  q.out_f32 = c.get("out_f32", 0) != 0;
  q.clc = c.get("clc", 0) != 0;
  q.num_sms = static_cast<int>(c.get("num_sms", 0));
  q.functional = true;
  q.seed = seed;
  return sim::run_sm100_matmul(q);
}

[[maybe_unused]] const bool registered =
    register_kernel("sm100_matmul", "the SM100 structured matmul (kernels/matmul)", run);

}  // namespace
}  // namespace sk::verify
