#include "verify/explore/explorer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <map>
#include <set>
#include <mutex>

#include "engine/isolate.h"

namespace sk::verify {

std::vector<uint64_t> shard_seeds(uint64_t base, uint64_t count, int index, int shards) {
  std::vector<uint64_t> s;
  if (shards < 1) shards = 1;
  for (uint64_t i = static_cast<uint64_t>(index); i < count; i += static_cast<uint64_t>(shards))
    s.push_back(base + i);
  return s;
}

uint64_t non_negative_integer(const std::string& name, const std::string& v) {
  size_t used = 0;
  unsigned long long x = 0;
  try {
    x = std::stoull(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || v[0] == '-' || v[0] == '+' || v[0] == ' ')
    throw std::invalid_argument(name + " takes a non-negative integer, got '" + v + "'");
  return x;
}

uint64_t clean_schedules(uint64_t schedules) {
  const char* cap = std::getenv("SK_VERIFY_CLEAN_SCHEDULES");
  if (cap == nullptr || *cap == 0) return schedules;
  return std::min<uint64_t>(schedules, non_negative_integer("SK_VERIFY_CLEAN_SCHEDULES", cap));
}

sim::Finding check_finding(const sim::RunResult& r) {
  sim::Finding f;
  f.cls = "result";
  f.rule = "result.mismatch";
  f.message = fmt::format("the output differs from the host reference ({}): {}", r.check.reference,
                          r.check.detail);
  return f;
}

std::vector<ScheduleOutcome> run_schedules(const std::function<sim::RunResult(uint64_t seed)>& run,
                                           const ExploreOptions& opts) {
  std::vector<ScheduleOutcome> out(opts.seeds.size());
  // Children are started in seed order and reported in any order; with
  // stop_on_first, nothing new starts after a failing schedule, and
  // merge_schedules counts only the seeds up to the first failing one, so the
  // report does not depend on --jobs or on which child happened to finish
  // first.
  sim::run_isolated_pool(
      opts.seeds.size(), opts.jobs, opts.wall_limit_s,
      [&](size_t i) { return boost::json::serialize(sim::to_json(run(opts.seeds[i]))); },
      [&](size_t i, sim::IsolatedResult res) {
        ScheduleOutcome& o = out[i];
        o.done = true;
        if (opts.on_done) opts.on_done();
        if (!res.ok) {
          o.error = fmt::format("schedule seed {}: {}", opts.seeds[i], res.error);
        } else {
          sim::RunResult r = sim::run_result_from_json(boost::json::parse(res.payload));
          o.ok = true;
          o.limited = r.status == "limit";
          o.findings = r.findings;
          o.sync_digest = r.sync_digest;
          if (r.check.ran && !r.check.passed && r.status == "completed")
            o.findings.push_back(check_finding(r));
        }
        return !(opts.stop_on_first && (!o.ok || !o.findings.empty()));
      });
  return out;
}

ExploreReport merge_schedules(const std::vector<uint64_t>& seeds,
                              std::vector<ScheduleOutcome> out, bool stop_on_first) {
  if (stop_on_first) {
    bool failed = false;
    for (ScheduleOutcome& o : out) {
      if (failed) o.done = false;
      failed = failed || (o.done && (!o.ok || !o.findings.empty()));
    }
  }

  ExploreReport rep;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  std::set<uint64_t> orders;
  for (size_t i = 0; i < out.size(); ++i) {
    const ScheduleOutcome& o = out[i];
    if (!o.done) continue;
    ++rep.explored;
    if (!o.ok) {
      rep.errors.push_back(o.error);
      continue;
    }
    if (o.limited && rep.limited++ == 0) rep.first_limited_seed = seeds[i];
    if (o.sync_digest != 0) orders.insert(o.sync_digest);
    if (!o.findings.empty() && !rep.any_failing) {
      rep.any_failing = true;
      rep.first_failing = o.findings;
      rep.first_failing_seed = seeds[i];
    }
    // A finding may be reported once per CTA; it counts once per schedule.
    std::set<size_t> seen_here;
    for (const auto& f : o.findings) {
      auto key = std::make_tuple(f.cls, f.rule, f.location);
      auto it = index.find(key);
      if (it == index.end()) {
        index.emplace(key, rep.findings.size());
        seen_here.insert(rep.findings.size());
        rep.findings.push_back(FoundFinding{f, seeds[i], 1});
      } else if (seen_here.insert(it->second).second) {
        ++rep.findings[it->second].schedules;
      }
    }
  }
  rep.orders = orders.size();
  return rep;
}

ExploreReport explore(const std::function<sim::RunResult(uint64_t seed)>& run,
                      const ExploreOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  ExploreReport rep = merge_schedules(opts.seeds, run_schedules(run, opts), opts.stop_on_first);
  rep.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

}  // namespace sk::verify
