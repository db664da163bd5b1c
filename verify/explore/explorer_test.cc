// explorer_test.cc: schedule exploration bookkeeping, on synthetic runs (no
// simulation): seed sharding, merging of findings across schedules, the
// functional check as a finding, and a crashing schedule reported as an error.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <set>

#include "verify/explore/explorer.h"

namespace sk::verify {
namespace {
sim::Finding finding(const char* rule, const char* where) {
  sim::Finding f;
  f.cls = "race";
  f.rule = rule;
  f.location = where;
  return f;
}
}  // namespace

TEST_CASE("shards partition the schedules") {
  std::set<uint64_t> all;
  size_t total = 0;
  for (int i = 0; i < 3; ++i) {
    auto s = shard_seeds(100, 10, i, 3);
    total += s.size();
    all.insert(s.begin(), s.end());
  }
  CHECK(total == 10);
  CHECK(all.size() == 10);
  CHECK(*all.begin() == 100);
  CHECK(*all.rbegin() == 109);
}

TEST_CASE("a finding reported by several CTAs counts once per schedule") {
  ExploreOptions opts;
  opts.seeds = {0, 1, 2, 3};
  opts.jobs = 2;
  auto rep = explore(
      [](uint64_t seed) {
        sim::RunResult r;
        r.status = "completed";
        r.seed = seed;
        if (seed % 2 == 1) {  // the same finding from two CTAs, plus another one
          r.findings.push_back(finding("race.a", "k.h:10"));
          r.findings.push_back(finding("race.a", "k.h:10"));
          r.findings.push_back(finding("race.b", "k.h:20"));
        }
        return r;
      },
      opts);
  CHECK(rep.explored == 4);
  REQUIRE(rep.findings.size() == 2);
  CHECK(rep.findings[0].finding.rule == "race.a");
  CHECK(rep.findings[0].seed == 1);
  CHECK(rep.findings[0].schedules == 2);
  CHECK(rep.findings[1].schedules == 2);
  CHECK(rep.first_failing_seed == 1);
  CHECK(rep.first_failing.size() == 3);
}

TEST_CASE("a wrong result is a finding; a schedule that dies is an error") {
  ExploreOptions opts;
  opts.seeds = {7, 8};
  opts.jobs = 1;
  auto rep = explore(
      [](uint64_t seed) {
        if (seed == 8) _exit(3);  // the schedule dies without a result
        sim::RunResult r;
        r.status = "completed";
        r.check.ran = true;
        r.check.passed = false;
        r.check.detail = "D[3,4] = 1.5, expected 2.5";
        return r;
      },
      opts);
  CHECK(rep.explored == 2);
  REQUIRE(rep.findings.size() == 1);
  CHECK(rep.findings[0].finding.rule == "result.mismatch");
  CHECK(rep.findings[0].seed == 7);
  REQUIRE(rep.errors.size() == 1);
  CHECK(rep.errors[0].find("seed 8") != std::string::npos);
}

}  // namespace sk::verify

// libsystemc provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
