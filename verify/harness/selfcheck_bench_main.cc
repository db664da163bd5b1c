// selfcheck_bench_main.cc: the verifier against the shipped kernels, at scale.
//
//   <bench> --case KERNEL|CONFIG ... [--schedules N] [--jobs J] [--seed S]
//
// For every case it explores the schedules S .. S+N-1 (default 10,000) with
// the race detector and the output check, and prints the schedules per
// second, the interleavings covered (distinct synchronization orders,
// engine/observer.h order_digest) and every finding. A correct kernel must
// give none: a finding here is a false positive of the verifier or a bug in
// the kernel. The sk_verify_test targets run the same kernels with fewer
// schedules in `bazel test`.
// Exit status 0 when every case is clean, 1 otherwise, 2 on bad arguments.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "verify/explore/explorer.h"
#include "verify/explore/report.h"
#include "verify/harness/registry.h"
#include "verify/hb/install.h"

namespace {
using namespace sk::verify;

struct Case {
  std::string kernel, config;
};

Case parse_case(const std::string& v) {
  const auto a = v.find('|');
  if (a == std::string::npos) throw std::invalid_argument("--case takes KERNEL|CONFIG, got '" + v + "'");
  return {v.substr(0, a), v.substr(a + 1)};
}
}  // namespace

extern "C" int sc_main(int argc, char* argv[]) {
  install_race_detector();
  std::vector<Case> cases;
  uint64_t schedules = 10000, seed = 0;
  int jobs = 2;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string f = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(f + " needs a value");
      const std::string v = argv[++i];
      if (f == "--case") cases.push_back(parse_case(v));
      else if (f == "--schedules") schedules = std::max<uint64_t>(1, std::stoull(v));
      else if (f == "--seed") seed = std::stoull(v);
      else if (f == "--jobs") jobs = std::max(1, std::stoi(v));
      else throw std::invalid_argument("unknown argument '" + f + "'");
    }
    if (cases.empty()) throw std::invalid_argument("no --case given");
    for (const auto& c : cases) {
      if (find_kernel(c.kernel) == nullptr)
        throw std::invalid_argument("no kernel '" + c.kernel + "' is registered");
      CaseConfig::parse(c.config);
    }
  } catch (const std::exception& e) {
    std::cerr << "selfcheck_bench: " << e.what() << "\n";
    return 2;
  }
  std::cout << fmt::format("{:<58} {:>9} {:>9} {:>8} {:>8} {:>8}\n", "case", "schedules", "seconds",
                           "sched/s", "orders", "findings");
  bool clean = true;
  uint64_t total = 0;
  double wall = 0;
  for (const auto& c : cases) {
    const KernelEntry* k = find_kernel(c.kernel);
    const CaseConfig cfg = CaseConfig::parse(c.config);
    ExploreOptions o;
    for (uint64_t s = 0; s < schedules; ++s) o.seeds.push_back(seed + s);
    o.jobs = jobs;
    const ExploreReport r = explore([&](uint64_t s) { return k->run(cfg, s); }, o);
    const std::string label = c.kernel + " [" + c.config + "]";
    std::cout << fmt::format("{:<58} {:>9} {:>9.1f} {:>8.1f} {:>8} {:>8}\n", label, r.explored,
                             r.wall_s, r.explored / std::max(r.wall_s, 1e-9), r.orders,
                             r.findings.size() + r.errors.size());
    if (!r.findings.empty() || !r.errors.empty() || r.limited > 0) {
      clean = false;
      std::cout << format_report(r, "");
    }
    std::cout.flush();
    total += r.explored;
    wall += r.wall_s;
  }
  std::cout << fmt::format("{} schedules in {:.1f} s ({:.1f} per second, --jobs {}): {}\n", total,
                           wall, total / std::max(wall, 1e-9), jobs,
                           clean ? "no findings" : "FINDINGS");
  return clean ? 0 : 1;
}
