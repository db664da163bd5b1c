#include "verify/harness/sm100_case.h"

#include <chrono>
#include <memory>
#include <stdexcept>

#include "verify/hb/race_detector.h"

namespace sk::verify {

sim::RunResult run_sm100_case(const std::string& name, Sm100Case& c, const CaseConfig& config,
                              uint64_t seed) {
  const auto t0 = std::chrono::steady_clock::now();
  Gpu gpu(c.params(), /*functional=*/true);
  c.before_launch();
  gpu.engine().schedule().reset(seed);
  RaceDetector races(gpu.engine());
  gpu.engine().set_observer(&races);
  races.set_global_namer([&gpu](uint64_t a) { return gpu.gmem().describe(a); });
  Rng rng(seed * 0x2545F4914F6CDD1Dull + 1);
  const Sm100Launch l = c.setup(gpu, config, rng);
  const std::string err =
      gpu.launch(l.grid, l.warps, l.smem_bytes, [&c] { c.kernel(); }, l.cluster);
  // A launch the hardware would refuse is a finding when the model named the
  // broken limit, and a harness error otherwise.
  if (!err.empty() && gpu.engine().findings().empty()) throw std::runtime_error(err);
  const auto max_cycles = static_cast<sim::Cycle>(config.get("max_cycles", 50'000'000));
  const sim::RunStatus status = err.empty() ? gpu.run(max_cycles) : sim::RunStatus::kCompleted;

  sim::RunResult r;
  r.kernel = name;
  r.arch = c.arch();
  r.config_name = config.text();
  r.ctas = static_cast<uint32_t>(l.grid);
  r.functional = true;
  r.seed = seed;
  r.status = !err.empty() ? "launch_failed" : sim::run_status_name(status);
  r.cycles = gpu.engine().last_progress();
  r.events = gpu.engine().events();
  r.findings = gpu.engine().findings();
  if (err.empty() && status == sim::RunStatus::kCompleted) {
    const std::string detail = c.check(gpu);
    r.check.ran = true;
    r.check.passed = detail.empty();
    r.check.detail = detail;
    r.check.reference = "the case's host reference";
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace sk::verify
