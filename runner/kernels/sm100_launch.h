// sm100_launch.h: what every SM100 family's runner shares around its own
// buffers, tensor maps and check, so that a runner is those three and its
// configuration table:
//
//   simulate_sm100<C, Kernel>(q, launch, setup, check)
//       the modelled GPU for q (SM count, tracing, schedule), setup(gpu, p)
//       allocating the operands and encoding Kernel::Params p, the race
//       detector, a launch of C::kWarps warps per CTA on min(tiles, SMs) CTAs
//       (one per tile with the CLC scheduler; for a clustered kernel, as
//       many of its clusters as fit, or one per block of tiles, and with CLC
//       one per block, launched with its cluster size), the run to
//       q.max_cycles, the
//       summary, check(gpu, buffers, status) in functional mode, and the
//       --trace and --timeline files.
//
//   pick<V...>(value, f)      f(std::integral_constant<int, V>) for the V equal
//                             to `value`, or a value-initialized result
//   pick_out(f32, f)          f(type_tag<float>) or f(type_tag<bf16_t>)
//   pick_bool(b, f)           f(std::true_type) or f(std::false_type)
//
// They turn a request's run-time tile, stage count and types into one
// compile-time configuration without a switch per axis.
//
// Invariants: the buffers setup returns outlive the run and the check; the
// race detector is attached before the launch; the wall time covers setup,
// run, check and files.
#pragma once

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/core/numeric.h"
#include "models/sm100/gpu.h"
#include "models/sm100/phase_clock.h"
#include "models/sm100/power.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/power_clocks.h"
#include "runner/kernels/sm100_summary.h"
#include "runner/result/run_result.h"

namespace sk::sim {

// How the run is named and rated.
struct Sm100Launch {
  const char* kernel = "matmul";  // RunResult::kernel
  std::string config_name;        // RunResult::config_name
  double flops = 0;               // what TFLOP/s is computed from
  double peak_factor = 1.0;       // the format's dense rate relative to BF16
};

// After a launch on the SM100 model's phase clocks (stopped) and
// summarize_sm100: r's clock fields, what the power model needs of the launch
// (`flops`: its dense-BF16-equivalent FLOPs) and r's board power.
inline models::sm100::KernelActivity finish_sm100_clocks(models::sm100::Gpu& gpu,
                                                         const models::sm100::Params& params,
                                                         models::sm100::LaunchClocks f,
                                                         double flops, RunResult& r) {
  if (params.power.limit_w > 0 || params.power.tensor_clock_ghz > 0) {
    r.tensor_phase_ghz = f.tensor_ghz;
    r.rest_phase_ghz = f.rest_ghz;
    r.tensor_phase_cycles = models::sm100::phase_clock().tensor_cycles(r.cycles);
  }
  models::sm100::KernelActivity act;
  // A run stopped at its max_cycles (the clock search's window) counts no
  // FLOPs: the window is taken only where none are charged (clock_window).
  act.flops = r.status == "completed" ? flops : 0;
  for (int c = 0; c < gpu.num_ctas(); ++c)
    if (gpu.started(c)) act.tma_bytes += static_cast<double>(gpu.cta(c).bytes_loaded);
  act.hbm_bytes = static_cast<double>(r.hbm_bytes);
  act.cycles = r.cycles;
  act.tensor_cycles = models::sm100::phase_clock().tensor_cycles(r.cycles);
  act.active_sms = gpu.sms_used();
  if (params.power.limit_w > 0)
    r.power_w = models::sm100::board_power_w(params.power, params.clock_ghz, f, act);
  return act;
}

// One simulation of the launch with its tensor phase at `f.tensor_ghz` and
// the rest at `f.rest_ghz` (models/sm100/phase_clock.h); `act` receives what
// the power model needs of it.
template <class C, class Kernel, class Setup, class Check>
RunResult simulate_sm100_at(const MatmulRequest& q, const Sm100Launch& launch, Setup& setup,
                            Check& check, models::sm100::LaunchClocks f,
                            models::sm100::KernelActivity& act) {
  const auto t0 = std::chrono::steady_clock::now();
  models::sm100::Params params = models::sm100::Params::builtin();
  if (q.num_sms > 0) params.num_sms = q.num_sms;
  models::sm100::Gpu gpu(params, q.functional);
  models::sm100::phase_clock().start(gpu, {f.tensor_ghz, f.rest_ghz, params.clock_hold_ns});
  configure_run(gpu, q, t0);
  typename Kernel::Params p{};
  const auto buf = setup(gpu, p);

  const auto races = attach_race_detector(gpu, q);
  const uint32_t tiles = Kernel::tiles_m(q.m) * Kernel::tiles_n(q.n) * Kernel::batches(p);
  int grid = static_cast<int>(
      C::kClc ? tiles : std::min<uint32_t>(tiles, static_cast<uint32_t>(gpu.params().num_sms)));
  // A clustered kernel (the 2-SM pair) runs persistent clusters: as many as
  // fit at once, or one per block of tiles.
  int cluster = 1;
  if constexpr (requires { Kernel::kClusterSize; }) {
    cluster = static_cast<int>(Kernel::kClusterSize);
    if (cluster > 1) {
      const uint64_t blocks = Kernel::blocks(q.m, q.n, Kernel::batches(p));
      const auto fit = static_cast<uint64_t>(
          models::sm100::Gpu::max_active_clusters(gpu.params(), cluster));
      grid = static_cast<int>(C::kClc ? blocks : std::min(blocks, fit)) * cluster;
    }
  }
  const std::string err = gpu.launch(grid, static_cast<int>(C::kWarps), C::kSmemBytes,
                                     [&p] { Kernel::run(p); }, cluster);
  if (!err.empty()) {
    models::sm100::phase_clock().stop();
    throw std::runtime_error(err);
  }
  const RunStatus status = gpu.run(q.max_cycles);
  models::sm100::phase_clock().stop();

  RunResult r = describe_sm100_run<C>(q, grid, status);
  r.kernel = launch.kernel;
  r.config_name = launch.config_name;
  summarize_sm100(gpu, launch.flops, r, launch.peak_factor);
  act = finish_sm100_clocks(gpu, params, f, launch.flops * launch.peak_factor, r);
  if (q.functional) r.check = check(gpu, buf, status);
  r.output_errors = write_run_files(gpu, q, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The clock search's first window (power_clocks.h): 200,000 cycles where
// that is at most 40 % of the launch at the tensor cores' peak rate (8192
// dense BF16 FLOP per SM and cycle, times the format's factor) on its SMs,
// and only where the power model charges no energy per FLOP (a window's
// FLOPs are not counted); 0 (the whole launch) otherwise. The window's TMA
// bytes include the stages loaded ahead of the MMAs (a bias of a few per
// cent over 200,000 cycles), which the check on the whole launch covers.
inline uint64_t sm100_clock_window(const models::sm100::Params& params, const Sm100Launch& launch,
                                   int sms) {
  if (params.power.pj_per_flop != 0 || sms <= 0 || launch.peak_factor <= 0) return 0;
  const double launch_cycles = launch.flops / (8192.0 * launch.peak_factor * sms);
  return window_if_short(launch_cycles);
}

// The launch at its power-limited clocks (runner/kernels/power_clocks.h):
// the B200's tensor phase below its maximum clock when the draw meets the
// board's limit (models/sm100/params.json), or at --sm-clock.
template <class C, class Kernel, class Setup, class Check>
RunResult simulate_sm100(const MatmulRequest& q, const Sm100Launch& launch, Setup&& setup,
                         Check&& check) {
  const models::sm100::Params& params = models::sm100::Params::builtin();
  models::sm100::KernelActivity act;
  return run_power_limited(
      q, params.power, params.clock_ghz,
      [&](const MatmulRequest& x, models::sm100::LaunchClocks f) {
        return simulate_sm100_at<C, Kernel>(x, launch, setup, check, f, act);
      },
      [&act](const RunResult&) { return act; },
      sm100_clock_window(params, launch, q.num_sms > 0 ? static_cast<int>(q.num_sms) : params.num_sms));
}

template <class T>
struct type_tag {
  using type = T;
};

template <int First, int... Rest, class F>
auto pick(uint32_t value, F&& f) {
  using R = decltype(f(std::integral_constant<int, First>{}));
  if (value == static_cast<uint32_t>(First)) return f(std::integral_constant<int, First>{});
  if constexpr (sizeof...(Rest) > 0)
    return pick<Rest...>(value, std::forward<F>(f));
  else
    return R{};
}

template <class F>
auto pick_out(bool f32, F&& f) {
  return f32 ? f(type_tag<float>{}) : f(type_tag<bf16_t>{});
}

template <class F>
auto pick_bool(bool b, F&& f) {
  return b ? f(std::true_type{}) : f(std::false_type{});
}

}  // namespace sk::sim
