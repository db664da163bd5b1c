// grid_bench.cc: full-grid simulation speed, next to the raw SystemC
// context-switch rate of the same machine and process setup.
//
//   bazel run -c opt //sim/bench:grid_bench [-- --m 8192 --n 8192 --k 8192 --runs 5
//        --arch sm100|sm90|mi300x|all [--amd-kernel pingpong|wave_specialized]
//        --stages S --tile-n N] [--per-warp]
//
// Each repetition simulates the architecture's matmul in timing mode on every
// SM or CU (one fresh simulation process per run, as the CLI does) and reports the wall
// time measured inside the simulation, the simulated events per second and
// the simulated GPU cycles per second. The context-switch probe runs N
// SystemC threads that each wait one cycle K times, in its own process, and
// reports switches per second: the ceiling for an engine that switches once
// per event. Target (issue): 8192^3 in at most 1.0 s wall, median of 5.
// --per-warp: every SM90 consumer warp simulated through the main loop, as
// before lockstep (models/sm90/lockstep.h; sim run --per-warp). It
// also reports the peak resident memory of the largest simulation process
// (getrusage of the reaped children), the figure docs/reliability.md records.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include <sys/resource.h>

#include "engine/isolate.h"
#include "runner/kernels/mi300x_matmul_run.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "runner/kernels/sm90_matmul_run.h"

namespace {

// Switches per second of `threads` SystemC threads waiting 1 ns `iters` times.
double context_switch_rate(int threads, int iters) {
  auto res = sk::sim::run_isolated(
      [threads, iters] {
        for (int t = 0; t < threads; ++t)
          sc_core::sc_spawn([iters] {
            for (int i = 0; i < iters; ++i) sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
          });
        const auto t0 = std::chrono::steady_clock::now();
        sc_core::sc_start();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::to_string(static_cast<double>(threads) * iters / s);
      },
      120);
  return res.ok ? std::stod(res.payload) : 0.0;
}

std::string str_arg(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return argv[i + 1];
  return def;
}

uint32_t arg(int argc, char** argv, const char* name, uint32_t def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
  return def;
}


// One architecture's benchmark (kernel: the MI300X kernel); prints its block
// and returns the median wall time, or a negative value on an error.
double bench(sk::sim::MatmulRequest q, const std::string& arch, const std::string& kernel, int runs,
             double switches) {
  q.arch = arch;
  if (arch == "mi300x") {
    q.amd_kernel = kernel;
    q.tile_n = 128;  // the CDNA3 kernels' tile (128x128x32) and ring
    q.stages = std::min<uint32_t>(q.stages, 3);
  }
  auto simulate = [&arch](const sk::sim::MatmulRequest& r) {
    return arch == "sm90"     ? sk::sim::run_sm90_matmul(r)
           : arch == "mi300x" ? sk::sim::run_mi300x_matmul(r)
                              : sk::sim::run_sm100_matmul(r);
  };
  const std::string err = arch == "sm90"     ? sk::sim::validate_sm90_matmul(q)
                          : arch == "mi300x" ? sk::sim::validate_mi300x_matmul(q)
                                             : sk::sim::validate_sm100_matmul(q);
  if (!err.empty()) {
    std::cerr << "grid_bench: " << arch << ": " << err << "\n";
    return -1;
  }
  std::vector<double> walls;
  sk::sim::RunResult last;
  for (int i = 0; i < runs; ++i) {
    auto res = sk::sim::run_isolated(
        [&q, &simulate] { return boost::json::serialize(sk::sim::to_json(simulate(q))); }, 3600);
    if (!res.ok) {
      std::cerr << "grid_bench: " << res.error << "\n";
      return -1;
    }
    last = sk::sim::run_result_from_json(boost::json::parse(res.payload));
    walls.push_back(last.wall_s);
    std::cout << fmt::format("{}{} run {}: wall {:.3f} s\n", arch,
                             arch == "mi300x" ? " " + kernel : std::string(), i + 1, last.wall_s);
  }
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);  // ru_maxrss: KiB, largest child so far
  const double peak_mib = static_cast<double>(children.ru_maxrss) / 1024.0;
  std::sort(walls.begin(), walls.end());
  const double median = walls[walls.size() / 2];
  std::cout << fmt::format(
      "matmul {}x{}x{} on {}{}, tile {}x{}, {} stages, {} CTAs, timing mode{}\n"
      "  predicted        {:.1f} us, {:.0f} TFLOP/s ({} cycles)\n"
      "  wall             median {:.3f} s of {} runs (min {:.3f}, max {:.3f})\n"
      "  events           {} -> {:.2f} M events/s\n"
      "  simulated        {:.2f} M GPU cycles/s (all SMs)\n"
      "  peak RSS         {:.0f} MiB (largest simulation process so far)\n"
      "  SystemC switches {:.2f} M/s raw (1000 threads x 2000 waits); events/switch-rate {:.2f}\n",
      q.m, q.n, q.k, last.arch, arch == "mi300x" ? " (" + kernel + ")" : std::string(), last.tile_m,
      last.tile_n, last.stages, last.ctas, arch == "sm90" && q.per_warp ? " (per warp)" : "", last.predicted_time_us, last.tflops, last.cycles, median,
      runs, walls.front(), walls.back(), last.events, last.events / median / 1e6,
      static_cast<double>(last.cycles) / median / 1e6, peak_mib, switches / 1e6,
      switches > 0 ? last.events / median / switches : 0.0);
  return median;
}

}  // namespace

extern "C" int sc_main(int argc, char* argv[]) {
  sk::sim::MatmulRequest q;
  q.m = arg(argc, argv, "--m", 8192);
  q.n = arg(argc, argv, "--n", 8192);
  q.k = arg(argc, argv, "--k", 8192);
  q.stages = arg(argc, argv, "--stages", 4);
  q.tile_n = arg(argc, argv, "--tile-n", 256);
  const int runs = static_cast<int>(arg(argc, argv, "--runs", 5));
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--per-warp") q.per_warp = true;
  const std::string arch = str_arg(argc, argv, "--arch", "sm100");
  const std::string kernel = str_arg(argc, argv, "--amd-kernel", "pingpong");
  if (runs < 1 || (arch != "sm100" && arch != "sm90" && arch != "mi300x" && arch != "all")) {
    std::cerr << "grid_bench: --runs must be at least 1 and --arch sm100, sm90, mi300x or all\n";
    return 2;
  }
  const double switches = context_switch_rate(1000, 2000);
  // Every architecture: the table (SM100, SM90, both MI300X kernels).
  std::vector<std::pair<std::string, std::string>> plan;
  if (arch == "all")
    plan = {{"sm100", ""}, {"sm90", ""}, {"mi300x", "pingpong"}, {"mi300x", "wave_specialized"}};
  else
    plan = {{arch, kernel}};
  std::vector<std::string> summary;
  for (const auto& [a, k] : plan) {
    const double median = bench(q, a, k, runs, switches);
    if (median < 0) return arch == "all" ? 1 : 2;
    summary.push_back(fmt::format("  {:<28} median wall {:.3f} s", a + (k.empty() ? "" : " " + k), median));
  }
  if (plan.size() > 1) {
    std::cout << fmt::format("summary, {}x{}x{} timing mode, median of {}:\n", q.m, q.n, q.k, runs);
    for (const auto& line : summary) std::cout << line << "\n";
  }
  return 0;
}
