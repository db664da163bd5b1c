// progress.cc: see progress.h.
#include "sim/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "sim/cli/args.h"

namespace sk::cli {

void add_progress_options(po::options_description& o) {
  o.add_options()
      ("progress", "report progress on stderr (simulated time, events, ETA; sweeps and verify: "
                   "done/total); the default when stderr is a terminal")
      ("no-progress", "no progress reports, also on a terminal");
}

ProgressMode parse_progress(const po::variables_map& vm) {
  if (vm.count("progress") && vm.count("no-progress"))
    throw UsageError("--progress and --no-progress contradict each other; give one");
  ProgressMode m;
  m.terminal = isatty(2) != 0;
  m.on = vm.count("progress") ? true : vm.count("no-progress") ? false : m.terminal;
  return m;
}

namespace {
std::string seconds(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}
}  // namespace

std::string batch_estimate_line(size_t n, const std::string& unit, double wall_s, int jobs,
                                double wall_limit_s) {
  return fmt::format("estimate: {} {}, about {} of wall time at --jobs {} (each under --wall-limit {:g} s)",
                     n, unit, seconds(wall_s), jobs, wall_limit_s);
}

DoneCounter::DoneCounter(std::string what, std::string unit, size_t total, ProgressMode mode)
    : what_(std::move(what)), unit_(std::move(unit)), total_(total), mode_(mode),
      start_(std::chrono::steady_clock::now()) {}

DoneCounter::~DoneCounter() {
  if (shown_ && mode_.terminal) std::fprintf(stderr, "\r\033[K");
}

std::string DoneCounter::line(size_t done, double elapsed_s) const {
  std::string s = fmt::format("{}: {}/{} {} done, {}", what_, done, total_, unit_, seconds(elapsed_s));
  if (done > 0 && done < total_)
    s += ", ETA " + seconds(elapsed_s / static_cast<double>(done) * static_cast<double>(total_ - done));
  return s;
}

void DoneCounter::done() {
  ++done_;
  if (!mode_.on) return;
  const auto t = std::chrono::steady_clock::now();
  const bool last = done_ >= total_;
  if (!mode_.terminal && shown_ && !last && t - last_ < std::chrono::seconds(5)) return;
  last_ = t;
  shown_ = true;
  const std::string l = line(done_, std::chrono::duration<double>(t - start_).count());
  if (mode_.terminal)
    std::fprintf(stderr, "\r%s\033[K", l.c_str());
  else
    std::fprintf(stderr, "%s\n", l.c_str());
  std::fflush(stderr);
}

}  // namespace sk::cli
