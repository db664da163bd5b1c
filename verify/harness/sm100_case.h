// sm100_case.h: writing a kernel-under-verification for the SM100 model.
//
// A case sets up global memory and tensor maps, names its launch shape, runs
// the kernel body in every warp and optionally checks the result:
//
//   struct MyCase : sk::verify::Sm100Case {
//     MyKernel::Params p;
//     sk::verify::Sm100Launch setup(Gpu& gpu, const CaseConfig& cfg, Rng& rng) override;
//     void kernel() override { MyKernel::run(p); }
//     std::string check(Gpu& gpu) override;  // "" when the output is right
//   };
//   SK_VERIFY_SM100_CASE(MyCase, "my_kernel", "what it is");
//
// run_sm100_case runs it in functional mode with the race detector installed
// and the schedule selected by `seed`.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "models/sm100/gpu.h"
#include "models/sm90/api.h"
#include "models/sm90/params.h"
#include "verify/harness/registry.h"

namespace sk::verify {

using Gpu = models::sm100::Gpu;
using Rng = std::mt19937_64;

struct Sm100Launch {
  int grid = 1;
  int warps = 1;
  uint32_t smem_bytes = 0;
  int cluster = 1;  // CTAs per thread-block cluster (grid a multiple of it)
};

class Sm100Case {
 public:
  virtual ~Sm100Case() = default;
  virtual Sm100Launch setup(Gpu& gpu, const CaseConfig& config, Rng& rng) = 0;
  virtual void kernel() = 0;
  virtual std::string check(Gpu& /*gpu*/) { return ""; }
  // The modelled GPU: SM100 by default; a Hopper case (wgmma kernels, which
  // run on the same NVIDIA model) returns the SM90 parameters and resets the
  // SM90 layer before launch.
  virtual const models::sm100::Params& params() const { return models::sm100::Params::builtin(); }
  virtual const char* arch() const { return "sm100"; }
  virtual void before_launch() {}
};

// A Hopper (wgmma) case: the SM90 parameters, and the SM90 layer reset before
// each launch.
class Sm90Case : public Sm100Case {
 public:
  const models::sm100::Params& params() const override { return models::sm90::gpu_params(); }
  const char* arch() const override { return "sm90"; }
  void before_launch() override { models::sm90::api::reset(); }
};

// Runs `c` once (inside a simulation process). Config key max_cycles bounds
// the run (default 50 million cycles).
sim::RunResult run_sm100_case(const std::string& name, Sm100Case& c, const CaseConfig& config,
                              uint64_t seed);

template <class Case>
bool register_sm100_case(const char* name, const char* description) {
  return register_kernel(name, description, [name](const CaseConfig& config, uint64_t seed) {
    Case c;
    return run_sm100_case(name, c, config, seed);
  });
}

}  // namespace sk::verify

#define SK_VERIFY_CONCAT_(a, b) a##b
#define SK_VERIFY_CONCAT(a, b) SK_VERIFY_CONCAT_(a, b)
#define SK_VERIFY_SM100_CASE(Type, name, description)                   \
  [[maybe_unused]] static const bool SK_VERIFY_CONCAT(sk_verify_case_, __LINE__) = \
      ::sk::verify::register_sm100_case<Type>(name, description)
