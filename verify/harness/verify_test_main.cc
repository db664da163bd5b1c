// verify_test_main.cc: the test binary behind sk_verify_test (verify/defs.bzl).
//
//   <test> --kernel NAME [--config TEXT]... [--schedules N] [--seed S]
//          [--expect clean|CLASS/RULE] [--expect-at FILE] [--jobs J]
//   <test> --help     (the usage and the kernels registered in this binary)
//
// For every config it explores the schedules seed S .. S+N-1 that belong to
// this Bazel test shard (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX; schedule i runs
// on shard i % shards), touches TEST_SHARD_STATUS_FILE, and writes JUnit XML
// to XML_OUTPUT_FILE.
// SK_VERIFY_CLEAN_SCHEDULES=N in the environment caps a clean exploration at
// N schedules per config (the sanitizer configurations in .bazelrc set it:
// undefined behaviour and memory errors are properties of the code paths,
// which the first schedules take; the full counts run in the plain suite).
// The cap is printed with the result.
//   --expect clean       every explored schedule is free of findings (and,
//                        where the case checks its output, correct);
//   --expect CLASS/RULE  exploration stops at the first schedule with
//                        findings, and its first finding has exactly this
//                        class and rule;
//   --expect-at FILE     and that finding names a line of FILE as its
//                        location (the author's line, the outermost frame of
//                        its call chain: engine/call_site.h).
// Exit status 0 when every config meets the expectation, 1 otherwise, 2 on
// bad arguments.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/call_site.h"
#include "verify/explore/explorer.h"
#include "verify/explore/report.h"
#include "verify/harness/registry.h"
#include "verify/hb/install.h"

namespace {
using namespace sk::verify;

struct Args {
  std::string kernel;
  std::vector<std::string> configs;
  uint64_t schedules = 200, seed = 0;
  std::string expect = "clean";
  std::string expect_at;  // the expected finding's location is in this file
  int jobs = 2;
  bool help = false;
};

constexpr const char* kUsage =
    "usage: <sk_verify_test> --kernel NAME [--config K=V,...]... [--schedules N] [--seed S]\n"
    "                        [--expect clean|CLASS/RULE] [--expect-at FILE] [--jobs J]\n"
    "  explores schedules S .. S+N-1 of each config (this shard's share) with the race\n"
    "  detector; every config key must be one the kernel's case reads.\n"
    "  exit 0 when every config meets --expect, 1 otherwise, 2 on bad arguments.\n";

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    if (f == "--help" || f == "-h") {
      a.help = true;
      return a;
    }
    if (i + 1 >= argc) throw std::invalid_argument(f + " needs a value");
    const std::string v = argv[++i];
    if (f == "--kernel") a.kernel = v;
    else if (f == "--config") a.configs.push_back(v);
    else if (f == "--schedules") a.schedules = non_negative_integer(f, v);
    else if (f == "--seed") a.seed = non_negative_integer(f, v);
    else if (f == "--expect") a.expect = v;
    else if (f == "--expect-at") a.expect_at = v;
    else if (f == "--jobs") a.jobs = static_cast<int>(non_negative_integer(f, v));
    else throw std::invalid_argument("unknown argument '" + f + "'");
  }
  if (a.kernel.empty()) throw std::invalid_argument("--kernel is required");
  if (a.configs.empty()) a.configs.push_back("");
  if (a.expect != "clean" && a.expect.find('/') == std::string::npos)
    throw std::invalid_argument("--expect takes clean or CLASS/RULE, got '" + a.expect + "'");
  if (!a.expect_at.empty() && a.expect == "clean")
    throw std::invalid_argument("--expect-at needs --expect CLASS/RULE");
  return a;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != 0 ? std::atoi(v) : fallback;
}

struct CaseOutcome {
  std::string name, failure, text;
  double seconds = 0;
};

CaseOutcome run_config(const Args& a, const KernelEntry& k, const std::string& text, int shard,
                       int shards) {
  CaseOutcome o;
  const CaseConfig cfg = CaseConfig::parse(text);
  ExploreOptions opts;
  const uint64_t schedules = a.expect == "clean" ? clean_schedules(a.schedules) : a.schedules;
  opts.seeds = shard_seeds(a.seed, schedules, shard, shards);
  opts.jobs = a.jobs;
  opts.stop_on_first = a.expect != "clean";
  o.name = fmt::format("{} [{}] shard {}/{}{}", k.name, text.empty() ? "default" : text, shard + 1,
                       shards,
                       schedules < a.schedules
                           ? fmt::format(" ({} of {} schedules: SK_VERIFY_CLEAN_SCHEDULES)",
                                         schedules, a.schedules)
                           : std::string());
  // A key the case never reads is a misspelling (rowz=45 for rows=45): an
  // error, not a silently ignored setting.
  const ExploreReport r = explore(
      [&k, &cfg](uint64_t seed) {
        sk::sim::RunResult res = k.run(cfg, seed);
        if (const auto unread = cfg.unread(); !unread.empty()) {
          std::string keys;
          for (const auto& u : unread) keys += (keys.empty() ? "'" : ", '") + u + "'";
          throw std::invalid_argument(fmt::format(
              "config '{}': {} unknown to kernel {} (it reads no such key)", cfg.text(), keys,
              k.name));
        }
        return res;
      },
      opts);
  o.seconds = r.wall_s;
  o.text = format_report(r, "");
  if (!r.errors.empty()) {
    o.failure = "a schedule could not be simulated: " + r.errors.front();
    if (r.errors.front().find("unknown to kernel") != std::string::npos)
      throw std::invalid_argument(r.errors.front());
  } else if (a.expect == "clean") {
    if (!r.findings.empty())
      o.failure = fmt::format("expected no findings, got {} distinct finding(s); first: {}/{} "
                              "with seed {}",
                              r.findings.size(), r.findings.front().finding.cls,
                              r.findings.front().finding.rule, r.findings.front().seed);
  } else if (!r.any_failing) {
    o.failure = fmt::format("expected {}, but {} schedule(s) produced no finding", a.expect,
                            r.explored);
  } else {
    const auto& f = r.first_failing.front();
    if (f.cls + "/" + f.rule != a.expect)
      o.failure = fmt::format("expected {}, but the first finding (seed {}) is {}/{}: {}",
                              a.expect, r.first_failing_seed, f.cls, f.rule, f.message);
    else if (!a.expect_at.empty() && f.location.rfind(a.expect_at + ":", 0) != 0)
      o.failure = fmt::format("expected {} at a line of {}, but it is at '{}'{}", a.expect,
                              a.expect_at, f.location,
                              f.chain.empty() ? "" : " (through " + sk::sim::join_chain(f.chain) + ")");
    else
      o.text += fmt::format("expected finding {} found with seed {}\n", a.expect,
                            r.first_failing_seed);
  }
  return o;
}

void write_junit(const std::string& path, const std::string& suite,
                 const std::vector<CaseOutcome>& cases) {
  int failures = 0;
  double total = 0;
  for (const auto& c : cases) {
    failures += c.failure.empty() ? 0 : 1;
    total += c.seconds;
  }
  std::ofstream x(path);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << fmt::format("<testsuites tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", cases.size(),
                   failures, total);
  x << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                   "time=\"{:.3f}\">\n",
                   xml_escape(suite), cases.size(), failures, total);
  for (const auto& c : cases) {
    x << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n",
                     xml_escape(suite), xml_escape(c.name), c.seconds);
    if (!c.failure.empty())
      x << fmt::format("      <failure message=\"{}\">{}</failure>\n", xml_escape(c.failure),
                       xml_escape(c.text));
    x << fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.text));
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
}
}  // namespace

extern "C" int sc_main(int argc, char* argv[]) {
  sk::verify::install_race_detector();
  Args a;
  try {
    a = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "verify: " << e.what() << "\n";
    return 2;
  }
  if (a.help) {
    std::cout << kUsage << "registered kernels:\n";
    for (const KernelEntry* e : kernels()) std::cout << "  " << e->name << "  " << e->description << "\n";
    return 0;
  }
  const KernelEntry* k = find_kernel(a.kernel);
  if (k == nullptr) {
    std::cerr << "verify: no kernel '" << a.kernel << "' is registered (is its library linked "
              << "with alwayslink = True?)\n";
    return 2;
  }
  const int shards = std::max(1, env_int("TEST_TOTAL_SHARDS", 1));
  const int shard = std::min(std::max(0, env_int("TEST_SHARD_INDEX", 0)), shards - 1);
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE")) std::ofstream{status};
  std::vector<CaseOutcome> cases;
  bool ok = true;
  for (const auto& text : a.configs) {
    CaseOutcome o;
    try {
      o = run_config(a, *k, text, shard, shards);
    } catch (const std::exception& e) {
      std::cerr << "verify: " << e.what() << "\n";
      return 2;
    }
    std::cout << "== " << o.name << ": " << (o.failure.empty() ? "PASS" : "FAIL") << "\n"
              << o.text;
    if (!o.failure.empty()) std::cout << "FAIL: " << o.failure << "\n";
    ok = ok && o.failure.empty();
    cases.push_back(std::move(o));
  }
  if (const char* xml = std::getenv("XML_OUTPUT_FILE")) write_junit(xml, a.kernel, cases);
  return ok ? 0 : 1;
}
