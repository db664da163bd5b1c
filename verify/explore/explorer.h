// explorer.h: runs one kernel configuration under many schedules.
//
// Each schedule is one simulation in its own process (engine/isolate.h),
// identified by its seed (engine/schedule.h explains what a seed selects),
// so every finding comes with the seed that replays it. Schedules run `jobs`
// at a time. Findings are merged by (class, rule, location); each keeps the
// first seed that produced it and the number of schedules that did.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/finding.h"
#include "runner/result/run_result.h"

namespace sk::verify {

struct ExploreOptions {
  std::vector<uint64_t> seeds;  // the schedules to run
  int jobs = 2;
  double wall_limit_s = 120;    // per schedule
  // Stop early once a schedule reports findings (bug hunting).
  bool stop_on_first = false;
  // Called (in the calling process) as each schedule finishes, e.g. to show
  // done/total.
  std::function<void()> on_done = {};
};

struct FoundFinding {
  sim::Finding finding;
  uint64_t seed = 0;       // first schedule that produced it
  uint64_t schedules = 0;  // how many schedules produced it
};

struct ExploreReport {
  uint64_t explored = 0;
  std::vector<FoundFinding> findings;
  // The findings of the first (lowest-seed) schedule that had any, in order.
  std::vector<sim::Finding> first_failing;
  uint64_t first_failing_seed = 0;
  bool any_failing = false;
  std::vector<std::string> errors;  // schedules whose simulation could not finish
  // Schedules stopped at --max-cycles or the wall-clock limit before the
  // kernel finished (status limit): explored, but not to their end.
  uint64_t limited = 0;
  uint64_t first_limited_seed = 0;
  // Interleavings covered: the distinct synchronization orders (RunResult::
  // sync_digest) among the schedules that ran to a result; 0 when the runs
  // keep no digest (no race detector).
  uint64_t orders = 0;
  double wall_s = 0;
};

// The seeds base, base+1, ... of `count` schedules that shard `index` of
// `shards` runs (schedule i belongs to shard i % shards).
std::vector<uint64_t> shard_seeds(uint64_t base, uint64_t count, int index, int shards);

// How many of `schedules` a clean exploration runs: all of them, or at most
// SK_VERIFY_CLEAN_SCHEDULES when that is set (the sanitizer configurations
// of .bazelrc set it: the sanitizers judge code paths, which the first
// schedules take). An exploration hunting a seeded bug is never capped.
// Throws std::invalid_argument when the variable is not a non-negative integer.
uint64_t clean_schedules(uint64_t schedules);

// `v` as a non-negative integer; otherwise std::invalid_argument "NAME takes
// a non-negative integer, got 'V'".
uint64_t non_negative_integer(const std::string& name, const std::string& v);

// A failed functional check as a finding (class "result").
sim::Finding check_finding(const sim::RunResult& r);

ExploreReport explore(const std::function<sim::RunResult(uint64_t seed)>& run,
                      const ExploreOptions& opts);

// The pieces of explore, for an exploration split over machines
// (sim/cli/distributed.h): explore is run_schedules, then merge_schedules
// with opts.stop_on_first. What one schedule gave: its findings (a failed
// check included) or the error that kept it from finishing.
struct ScheduleOutcome {
  bool done = false;  // it ran (or was started and failed); false: not part of the report
  bool ok = false;    // a result came back
  std::string error;  // when not ok
  bool limited = false;  // stopped at a limit (status limit)
  std::vector<sim::Finding> findings;
  uint64_t sync_digest = 0;  // the run's synchronization order (0: none kept)
};

// Runs opts.seeds in isolated processes; outcome i belongs to opts.seeds[i].
std::vector<ScheduleOutcome> run_schedules(const std::function<sim::RunResult(uint64_t seed)>& run,
                                           const ExploreOptions& opts);

// The report of the outcomes of `seeds` (same order), counting only those
// done; with stop_on_first, only those up to the first that failed.
ExploreReport merge_schedules(const std::vector<uint64_t>& seeds,
                              std::vector<ScheduleOutcome> out, bool stop_on_first);

}  // namespace sk::verify
