// explorer_test.cc: schedule exploration bookkeeping, on synthetic runs (no
// simulation): seed sharding, merging of findings across schedules, the
// functional check as a finding, and a crashing schedule reported as an error.
#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

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

TEST_CASE("SK_VERIFY_CLEAN_SCHEDULES caps a clean exploration; a bad value is an error") {
  const char* saved = std::getenv("SK_VERIFY_CLEAN_SCHEDULES");
  const std::string keep = saved != nullptr ? saved : "";
  unsetenv("SK_VERIFY_CLEAN_SCHEDULES");
  CHECK(clean_schedules(200) == 200);
  setenv("SK_VERIFY_CLEAN_SCHEDULES", "20", 1);
  CHECK(clean_schedules(200) == 20);
  CHECK(clean_schedules(8) == 8);
  setenv("SK_VERIFY_CLEAN_SCHEDULES", "", 1);
  CHECK(clean_schedules(200) == 200);
  for (const char* bad : {"twenty", "20x", "-3", "+3", " 3"}) {
    setenv("SK_VERIFY_CLEAN_SCHEDULES", bad, 1);
    CHECK_THROWS_WITH_AS(clean_schedules(200),
                         doctest::Contains("SK_VERIFY_CLEAN_SCHEDULES takes a non-negative integer"),
                         std::invalid_argument);
  }
  if (saved != nullptr)
    setenv("SK_VERIFY_CLEAN_SCHEDULES", keep.c_str(), 1);
  else
    unsetenv("SK_VERIFY_CLEAN_SCHEDULES");
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

TEST_CASE("interleavings covered: distinct synchronization orders, carried out of the child") {
  ExploreOptions opts;
  opts.seeds = {0, 1, 2, 3, 4, 5};
  opts.jobs = 2;
  auto rep = explore(
      [](uint64_t seed) {
        sim::RunResult r;
        r.status = "completed";
        r.seed = seed;
        // Seeds 0, 2, 4 share an order; 1 and 3 have their own; 5 keeps none.
        r.sync_digest = seed == 5 ? 0 : seed % 2 == 0 ? 0xfeedfacecafebeefull : 100 + seed;
        return r;
      },
      opts);
  CHECK(rep.explored == 6);
  CHECK(rep.orders == 3);
  CHECK(rep.findings.empty());
}

TEST_CASE("schedules run in shards and merged give the report of one exploration") {
  // What a Slurm job does (sim/cli/distributed.h): run_schedules per shard,
  // then merge_schedules over all seeds in order, some shards possibly missing.
  auto run = [](uint64_t seed) {
    if (seed == 13) _exit(3);
    sim::RunResult r;
    r.status = "completed";
    if (seed % 3 == 0) r.findings.push_back(finding("race.a", "k.h:10"));
    if (seed % 4 == 1) r.findings.push_back(finding("race.b", "k.h:20"));
    return r;
  };
  ExploreOptions all;
  for (uint64_t s = 10; s < 20; ++s) all.seeds.push_back(s);
  all.jobs = 2;
  const ExploreReport whole = explore(run, all);
  std::vector<ScheduleOutcome> merged(all.seeds.size());
  for (int shard = 0; shard < 3; ++shard) {
    ExploreOptions part = all;
    part.seeds = shard_seeds(10, 10, shard, 3);
    const auto out = run_schedules(run, part);
    for (size_t i = 0; i < out.size(); ++i) merged[part.seeds[i] - 10] = out[i];
  }
  const ExploreReport joined = merge_schedules(all.seeds, merged, false);
  CHECK(joined.explored == whole.explored);
  CHECK(joined.errors == whole.errors);
  REQUIRE(joined.findings.size() == whole.findings.size());
  for (size_t i = 0; i < whole.findings.size(); ++i) {
    CHECK(joined.findings[i].finding.rule == whole.findings[i].finding.rule);
    CHECK(joined.findings[i].seed == whole.findings[i].seed);
    CHECK(joined.findings[i].schedules == whole.findings[i].schedules);
  }
  CHECK(whole.errors.size() == 1);
  // Shard 0 missing: its seeds are not counted, and nothing else changes.
  for (uint64_t s : shard_seeds(10, 10, 0, 3)) merged[s - 10] = ScheduleOutcome{};
  const ExploreReport partial = merge_schedules(all.seeds, merged, false);
  CHECK(partial.explored == 10 - shard_seeds(10, 10, 0, 3).size());
  CHECK(partial.errors.empty());  // seed 13 (schedule 3) belongs to shard 0
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
