// detection_bench_main.cc: schedules to the first detection of seeded bugs.
//
//   <bench> --case KERNEL|CONFIG|CLASS/RULE ... [--schedules N] [--jobs J] [--markdown]
//
// The binary behind sk_detection_bench (verify/defs.bzl), which passes one
// --case per seeded-bug sk_verify_test of its package. For every case it runs
// the schedules 0 .. N-1 (all of them: no stop at the first finding) and
// reports
//   first   the lowest seed whose first finding is the expected CLASS/RULE
//           ("-" when none of the N is);
//   hits    how many of the N schedules report it as their first finding;
//   other   how many report some other finding first (a wrong diagnosis on
//           that schedule), and the first such CLASS/RULE;
//   seconds the wall time of the N schedules.
// A detector that reasons over happens-before finds a bug on every schedule
// in which the buggy code runs, whatever the timing: hits == N. A case found
// only on some schedules depends on the interleaving explored.
// Exit status 0 when every case is found within the N schedules, 1 otherwise,
// 2 on bad arguments.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "verify/explore/explorer.h"
#include "verify/harness/registry.h"
#include "verify/hb/install.h"

namespace {
using namespace sk::verify;

struct Case {
  std::string kernel, config, expect;
};

struct Row {
  Case c;
  std::optional<uint64_t> first;  // lowest seed whose first finding is the expected one
  uint64_t hits = 0, other = 0, errors = 0;
  std::string other_rule;         // the first wrong first-finding seen
  double seconds = 0;
};

Case parse_case(const std::string& v) {
  const auto a = v.find('|');
  const auto b = a == std::string::npos ? a : v.find('|', a + 1);
  if (b == std::string::npos || v.find('/', b) == std::string::npos)
    throw std::invalid_argument("--case takes KERNEL|CONFIG|CLASS/RULE, got '" + v + "'");
  return {v.substr(0, a), v.substr(a + 1, b - a - 1), v.substr(b + 1)};
}

Row measure(const Case& c, uint64_t schedules, int jobs) {
  const KernelEntry* k = find_kernel(c.kernel);
  if (k == nullptr) throw std::invalid_argument("no kernel '" + c.kernel + "' is registered");
  const CaseConfig cfg = CaseConfig::parse(c.config);
  ExploreOptions o;
  for (uint64_t s = 0; s < schedules; ++s) o.seeds.push_back(s);
  o.jobs = jobs;
  Row r{c};
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = run_schedules([&](uint64_t seed) { return k->run(cfg, seed); }, o);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& s = out[i];
    if (!s.ok) {
      ++r.errors;
      continue;
    }
    if (s.findings.empty()) continue;
    const auto& f = s.findings.front();
    if (f.cls + "/" + f.rule == c.expect) {
      ++r.hits;
      if (!r.first) r.first = o.seeds[i];
    } else {
      ++r.other;
      if (r.other_rule.empty()) r.other_rule = f.cls + "/" + f.rule;
    }
  }
  return r;
}

std::string label(const Case& c) {
  return c.config.empty() || c.config == "default=1" ? c.kernel : c.kernel + " [" + c.config + "]";
}
}  // namespace

extern "C" int sc_main(int argc, char* argv[]) {
  install_race_detector();
  std::vector<Case> cases;
  uint64_t schedules = 20;
  int jobs = 2;
  bool markdown = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string f = argv[i];
      if (f == "--markdown") {
        markdown = true;
        continue;
      }
      if (i + 1 >= argc) throw std::invalid_argument(f + " needs a value");
      const std::string v = argv[++i];
      if (f == "--case") cases.push_back(parse_case(v));
      else if (f == "--schedules") schedules = std::max<uint64_t>(1, std::stoull(v));
      else if (f == "--jobs") jobs = std::max(1, std::stoi(v));
      else throw std::invalid_argument("unknown argument '" + f + "'");
    }
    if (cases.empty()) throw std::invalid_argument("no --case given");
    for (const auto& c : cases)
      if (find_kernel(c.kernel) == nullptr)
        throw std::invalid_argument("no kernel '" + c.kernel + "' is registered");
  } catch (const std::exception& e) {
    std::cerr << "detection_bench: " << e.what() << "\n";
    return 2;
  }
  if (markdown)
    std::cout << "| seeded bug | expected finding | first seed | found in | other first finding |\n"
              << "|---|---|---|---|---|\n";
  else
    std::cout << fmt::format("{:<52} {:>5} {:>7} {:>6} {:>8}  {}\n", "case", "first", "hits",
                             "other", "seconds", "expected");
  std::vector<Row> rows;
  double total = 0;
  for (const auto& c : cases) {
    Row r;
    try {
      r = measure(c, schedules, jobs);
    } catch (const std::exception& e) {
      std::cerr << "detection_bench: " << label(c) << ": " << e.what() << "\n";
      return 2;
    }
    total += r.seconds;
    const std::string first = r.first ? std::to_string(*r.first) : "-";
    if (markdown)
      std::cout << fmt::format("| `{}` | `{}` | {} | {} of {} | {} |\n", label(c), c.expect, first,
                               r.hits, schedules,
                               r.other ? fmt::format("{} (`{}`)", r.other, r.other_rule) : "");
    else
      std::cout << fmt::format("{:<52} {:>5} {:>3}/{:<3} {:>6} {:>8.2f}  {}{}{}\n", label(c),
                               first, r.hits, schedules, r.other, r.seconds, c.expect,
                               r.other ? "  other first: " + r.other_rule : "",
                               r.errors ? fmt::format("  ({} schedules failed to run)", r.errors)
                                        : "");
    std::cout.flush();
    rows.push_back(std::move(r));
  }
  size_t early = 0, every = 0, missed = 0;
  for (const auto& r : rows) {
    early += r.first && *r.first <= 1 ? 1 : 0;
    every += r.hits == schedules ? 1 : 0;
    missed += r.first ? 0 : 1;
  }
  std::cout << fmt::format(
      "{} cases, {} schedules each: {} ({:.1f} %) found on schedule 0 or 1, {} on every "
      "schedule, {} not found; {:.1f} s\n",
      rows.size(), schedules, early, 100.0 * early / rows.size(), every, missed, total);
  return missed == 0 ? 0 : 1;
}
