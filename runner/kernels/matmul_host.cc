#include "runner/kernels/matmul_host.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "runner/report/timeline_svg.h"
#include "traces/sim_trace_export.h"

namespace sk::sim {

void configure_run(models::sm100::Gpu& gpu, const MatmulRequest& q,
                   std::chrono::steady_clock::time_point start) {
  gpu.engine().trace().set_enabled(!q.trace_path.empty() || !q.timeline_path.empty());
  // A timeline alone needs only its CTA's SM traced.
  gpu.set_trace_sms(q.trace_path.empty() && !q.timeline_path.empty()
                        ? std::vector<int>{q.timeline_cta}
                        : q.trace_sms);
  if (q.progress)
    gpu.engine().set_progress_reporter(
        {start, q.progress_terminal, q.estimate_events, gpu.params().clock_ghz});
  set_wall_limit(gpu.engine(), q, start);
  gpu.engine().schedule().reset(q.seed);
}

void set_wall_limit(sim::Engine& engine, const MatmulRequest& q,
                    std::chrono::steady_clock::time_point start) {
  if (q.wall_limit_s > 0)
    engine.set_wall_deadline(start + std::chrono::milliseconds(
                                         static_cast<int64_t>(q.wall_limit_s * 1000)));
}

void fail_encode(const std::string& err) {
  if (!err.empty()) throw std::runtime_error(err);
}

std::unique_ptr<sim::Observer> attach_race_detector(sim::Engine& engine,
                                                    const models::GlobalMemory& gmem,
                                                    const MatmulRequest& q) {
  if (!q.functional) return nullptr;
  const sim::ObserverFactory make = sim::functional_observer();
  if (make == nullptr)
    throw std::logic_error("a functional run needs the race detector: call "
                           "verify::install_race_detector() at program start");
  auto races = make(engine, [&gmem](uint64_t a) { return gmem.describe(a); });
  engine.set_observer(races.get());
  return races;
}

std::vector<std::string> write_run_files(sim::Engine& engine, const MatmulRequest& q) {
  std::vector<std::string> errors;
  auto failed = [&errors](const char* flag, const std::string& path) {
    errors.push_back(fmt::format("{}: writing '{}' failed: {}", flag, path,
                                 errno != 0 ? std::strerror(errno) : "I/O error"));
  };
  if (!q.trace_path.empty()) {
    errno = 0;
    std::ofstream out(q.trace_path, std::ios::binary | std::ios::trunc);
    if (out) traces::write_perfetto(engine.trace(), out);
    out.close();
    if (!out) failed("--trace", q.trace_path);
  }
  if (!q.timeline_path.empty()) {
    std::string err;
    const std::string svg = render_timeline_svg(
        engine.trace(),
        TimelineOptions{q.timeline_cta, q.timeline_from, q.timeline_to, 1200}, &err);
    if (svg.empty()) {
      errors.push_back("--timeline: " + err);
    } else {
      errno = 0;
      std::ofstream out(q.timeline_path, std::ios::trunc);
      out << svg;
      out.close();
      if (!out) failed("--timeline", q.timeline_path);
    }
  }
  return errors;
}

}  // namespace sk::sim
