#include "runner/kernels/matmul_host.h"

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
  if (q.progress) gpu.engine().set_progress_reporter(start);
  gpu.engine().schedule().reset(q.seed);
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

void write_run_files(sim::Engine& engine, const MatmulRequest& q) {
  if (!q.trace_path.empty()) {
    std::ofstream out(q.trace_path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write trace file " + q.trace_path);
    traces::write_perfetto(engine.trace(), out);
  }
  if (!q.timeline_path.empty()) {
    std::string err;
    const std::string svg = render_timeline_svg(
        engine.trace(),
        TimelineOptions{q.timeline_cta, q.timeline_from, q.timeline_to, 1200}, &err);
    if (svg.empty()) throw std::runtime_error("--timeline: " + err);
    std::ofstream out(q.timeline_path, std::ios::trunc);
    if (!(out << svg)) throw std::runtime_error("cannot write timeline file " + q.timeline_path);
  }
}

}  // namespace sk::sim
