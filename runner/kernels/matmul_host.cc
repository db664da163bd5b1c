// matmul_host.cc: see matmul_host.h.
#include "runner/kernels/matmul_host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "engine/warp.h"
#include "runner/report/timeline_svg.h"
#include "traces/sim_trace_export.h"

namespace sk::sim {

void configure_run(models::sm100::Gpu& gpu, const MatmulRequest& q,
                   std::chrono::steady_clock::time_point start) {
  gpu.engine().trace().set_enabled(!q.trace_path.empty() || !q.timeline_path.empty());
  // A timeline traces its CTAs by id (beside --trace-sms, or alone): where
  // each runs is the launch's choice (a cluster's GPC, the fill order of a
  // launch of fewer CTAs than SMs).
  gpu.set_trace_sms(q.trace_path.empty() ? std::vector<int>{} : q.trace_sms);
  gpu.set_trace_ctas(traced_ctas(q));
  if (q.progress)
    gpu.engine().set_progress_reporter(
        {start, q.progress_terminal, q.estimate_events, gpu.params().clock_ghz});
  set_wall_limit(gpu.engine(), q, start);
  gpu.engine().schedule().reset(q.seed);
}

std::vector<int> traced_ctas(const MatmulRequest& q) {
  // A timeline's numbered CTAs are traced wherever the launch places them:
  // alone without --trace, beside the SMs of --trace-sms with it (a trace of
  // every SM has them already).
  if (q.timeline_path.empty() || (!q.trace_path.empty() && q.trace_sms.empty())) return {};
  std::vector<int> ctas;
  for (const int cta : q.timeline_ctas) {
    if (cta < 0) return {};  // chosen after the run, from every CTA
    if (std::find(ctas.begin(), ctas.end(), cta) == ctas.end()) ctas.push_back(cta);
  }
  return ctas;
}

std::vector<int> traced_sms(const MatmulRequest& q) {
  std::vector<int> sms = q.trace_path.empty() ? std::vector<int>{} : q.trace_sms;
  // Workgroup c runs on CU c (the MI300X launch): the timeline's own CUs join.
  for (const int cta : traced_ctas(q))
    if (std::find(sms.begin(), sms.end(), cta) == sms.end()) sms.push_back(cta);
  return sms;
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

std::string encode_operand_map(models::sm100::TensorMapModel& map, uint64_t base, uint32_t k,
                               uint32_t rows, uint32_t ld, uint64_t stride, uint32_t batches,
                               uint32_t box_k, uint32_t box_rows, bool mn_major) {
  // A batch of one never steps to a second matrix; its plane stride is any
  // legal one (a single matrix may span more than the 2^40 bytes a stride may).
  const uint64_t strides[2] = {uint64_t{ld} * 2, batches == 1 ? 16 : stride * 2};
  if (mn_major) {
    const uint64_t dims[3] = {rows, k, batches};
    return models::sm100::encode_tiled_3d(map, base, 2, dims, strides, 64, box_k,
                                          models::sm100::Swizzle::k128B);
  }
  const uint64_t dims[3] = {k, rows, batches};
  return models::sm100::encode_tiled_3d(map, base, 2, dims, strides, box_k, box_rows,
                                        models::sm100::Swizzle::k128B);
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

namespace {

// Each CTA's busy cycles (its warps alive and not blocked) and end.
std::vector<CtaActivity> cta_activity(const sim::Engine& engine) {
  std::map<int, CtaActivity> by_cta;
  for (const auto& w : engine.warps()) {
    const Cycle end = w->done() ? w->end_cycle() : engine.now();
    const Cycle alive = end - std::min(w->start_cycle(), end);
    CtaActivity& a = by_cta[w->cta()];
    a.cta = w->cta();
    a.busy += alive - std::min(w->stall_cycles(), alive);
    a.end = std::max(a.end, end);
  }
  std::vector<CtaActivity> out;
  for (const auto& [cta, a] : by_cta) out.push_back(a);
  return out;
}

// The timeline's blocks: the CTAs by number, and the busiest and slowest
// chosen now; a CTA named twice is drawn once, its reasons joined.
std::vector<TimelineCta> timeline_ctas(sim::Engine& engine, const MatmulRequest& q,
                                       std::string* error) {
  std::vector<TimelineCta> out;
  const std::vector<CtaActivity> activity = cta_activity(engine);
  for (const int entry : q.timeline_ctas) {
    TimelineCta c{entry, ""};
    if (entry < 0) {
      c.why = timeline_cta_text(entry);
      c.id = pick_cta(engine.trace(), activity,
                      entry == MatmulRequest::kTimelineBusiest ? CtaPick::kBusiest
                                                               : CtaPick::kSlowest);
      if (c.id < 0) {
        *error = fmt::format("--timeline-cta {}: no CTA ran", c.why);
        return {};
      }
    }
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const TimelineCta& o) { return o.id == c.id; });
    if (same == out.end())
      out.push_back(c);
    else if (!c.why.empty())
      same->why += (same->why.empty() ? "" : ", ") + c.why;
  }
  return out;
}

}  // namespace

std::vector<std::string> write_run_files(sim::Engine& engine, const MatmulRequest& q,
                                         const RunResult& r) {
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
    const std::vector<TimelineCta> ctas = timeline_ctas(engine, q, &err);
    const std::string svg =
        ctas.empty() ? std::string()
                     : render_timeline_svg(engine.trace(),
                                           TimelineOptions{ctas, q.timeline_from, q.timeline_to,
                                                           1200, r.clock_ghz},
                                           &err);
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
