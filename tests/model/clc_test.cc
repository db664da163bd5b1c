// Cluster launch control in the model: grids larger than the SM count,
// try_cancel handing out pending CTAs in launch order, its rules, a query that
// races with the response, and the structured matmul on the CLC scheduler
// against the host reference with a small SM count (so that CTAs are
// cancelled). Each scenario runs in its own process.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "models/sm100/gpu.h"
#include "engine/isolate.h"
#include "runner/kernels/sm100_matmul_run.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

uint64_t* barrier() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()); }
uint8_t* response() { return sk::arch::dynamic_smem() + 16; }

// One try_cancel by an elected lane, then the wait for its response.
void request(uint32_t parity) {
  if (auto l = sk::elect_one()) {
    sk::arch::mbarrier_arrive_expect_tx(barrier(), 16);
    sk::arch::clc_try_cancel(response(), barrier());
  }
  while (!sk::arch::mbarrier_try_wait_parity(barrier(), parity)) {
  }
}

// Cancels until a request fails, noting "<cta>: <cancelled id>" and "<cta>: failed".
void cancel_all() {
  const std::string me = std::to_string(sk::arch::cta_idx()) + ": ";
  if (auto l = sk::elect_one()) sk::arch::mbarrier_init(barrier(), 1);
  for (uint32_t parity = 0;; parity ^= 1) {
    request(parity);
    if (!sk::arch::clc_is_canceled(response())) {
      note(me + "failed");
      return;
    }
    note(me + std::to_string(sk::arch::clc_first_ctaid_x(response())));
    sk::arch::fence_proxy_async_shared();
  }
}
}  // namespace

TEST_CASE("try_cancel returns the pending CTAs in launch order, then fails") {
  ScenarioOptions o{.ctas = 5, .warps = 1, .num_sms = 1};
  auto r = run_scenario(o, [] {
    if (sk::arch::cta_idx() == 0)
      cancel_all();
    else
      note("CTA " + std::to_string(sk::arch::cta_idx()) + " ran");
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0: 1", "0: 2", "0: 3", "0: 4", "0: failed"});
  // Four responses in sequence, each clc_latency after its request.
  CHECK(r.cycles >= 5 * sk::models::sm100::Params::builtin().clc_latency);
}

TEST_CASE("two resident CTAs cancel every pending CTA exactly once between them") {
  ScenarioOptions o{.ctas = 8, .warps = 1, .num_sms = 2};
  auto r = run_scenario(o, [] { cancel_all(); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  std::vector<int> taken;
  int failed = 0;
  for (const auto& n : r.notes) {
    const std::string what = n.substr(n.find(": ") + 2);
    if (what == "failed")
      ++failed;
    else
      taken.push_back(std::stoi(what));
  }
  std::sort(taken.begin(), taken.end());
  CHECK(taken == std::vector<int>{2, 3, 4, 5, 6, 7});
  CHECK(failed == 2);
}

TEST_CASE("a grid of more CTAs than SMs runs every CTA exactly once, at most one per SM") {
  ScenarioOptions o{.ctas = 10, .warps = 2, .num_sms = 3};
  auto r = run_scenario(o, [] {
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint32_t cta = sk::arch::cta_idx();
    auto* word = reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 64);
    sk::arch::cta_sync();
    if (sk::arch::warp_idx() == 0) {
      // SMEM is fresh for every CTA, even on an SM that ran another before.
      note("start " + std::to_string(cta) + " " + std::to_string(gpu.engine().now()) +
           (*word != 0 ? " dirty" : ""));
      *word = cta + 1;
    }
    for (uint32_t i = 0; i < (cta % 3 + 1) * 5; ++i) sk::arch::cta_sync();
    if (sk::arch::warp_idx() == 0)
      note("end " + std::to_string(cta) + " " + std::to_string(gpu.engine().now()));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  std::map<int, int> starts, ends;
  std::vector<std::pair<uint64_t, int>> events;  // (cycle, -1 end / +1 start)
  for (const auto& n : r.notes) {
    std::istringstream in(n);
    std::string kind, flag;
    int cta = -1;
    uint64_t t = 0;
    in >> kind >> cta >> t >> flag;
    CHECK_MESSAGE(flag.empty(), n);
    (kind == "start" ? starts : ends)[cta]++;
    events.emplace_back(t, kind == "start" ? 1 : -1);
  }
  CHECK(starts.size() == 10);
  CHECK(ends.size() == 10);
  for (const auto& [cta, count] : starts) CHECK_MESSAGE(count == 1, "CTA " << cta);
  std::sort(events.begin(), events.end());
  int resident = 0, most = 0;
  for (const auto& [t, delta] : events) most = std::max(most, resident += delta);
  CHECK(most == 3);
}

TEST_CASE("querying a response before waiting for its mbarrier phase is a race") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .num_sms = 1, .race_detector = true};
  auto r = run_scenario(o, [] {
    if (sk::arch::cta_idx() != 0) return;
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(barrier(), 1);
      sk::arch::mbarrier_arrive_expect_tx(barrier(), 16);
      sk::arch::clc_try_cancel(response(), barrier());
    }
    const bool early = sk::arch::clc_is_canceled(response());  // no wait yet
    while (!sk::arch::mbarrier_try_wait_parity(barrier(), 0)) {
    }
    note(early ? "early canceled" : "early not canceled");
    note(sk::arch::clc_is_canceled(response()) ? "canceled" : "failed");
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.has_rule("race.read_after_write"), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"early not canceled", "canceled"});
}

TEST_CASE("a query after the wait is clean under the race detector") {
  ScenarioOptions o{.ctas = 3, .warps = 1, .num_sms = 1, .race_detector = true};
  auto r = run_scenario(o, [] { cancel_all(); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0: 1", "0: 2", "0: failed"});
}

TEST_CASE("a misaligned response and an uninitialised barrier are findings") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .num_sms = 1};
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(barrier(), 1);
      sk::arch::clc_try_cancel(response() + 8, barrier());
      sk::arch::clc_try_cancel(response(), barrier() + 1);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("clc.bad_response"));
  CHECK(r.has_rule("mbarrier.use_before_init"));
}

TEST_CASE("a request after a failed one and the CTA id of a failed response are findings") {
  ScenarioOptions o{.ctas = 1, .warps = 1, .num_sms = 1};
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one()) sk::arch::mbarrier_init(barrier(), 1);
    request(0);
    note(sk::arch::clc_is_canceled(response()) ? "canceled" : "failed");
    sk::arch::clc_first_ctaid_x(response());
    request(1);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.notes == std::vector<std::string>{"failed"});
  CHECK(r.has_rule("clc.ctaid_of_failed_response"));
  CHECK(r.has_rule("clc.try_cancel_after_failure"));
}

namespace {
sk::sim::RunResult run_matmul(sk::sim::MatmulRequest q) {
  auto res = sk::sim::run_isolated(
      [&q] { return boost::json::serialize(sk::sim::to_json(sk::sim::run_sm100_matmul(q))); }, 300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sk::sim::run_result_from_json(boost::json::parse(res.payload));
}
}  // namespace

TEST_CASE("the matmul on the CLC scheduler matches the reference with more tiles than SMs") {
  struct Case {
    uint32_t m, n, k, tile_n, stages;
    bool f32;
    uint32_t tiles;
  };
  const Case cases[] = {
      {300, 300, 128, 64, 4, false, 15},
      {300, 300, 128, 128, 3, true, 9},
      {257, 513, 65, 256, 2, false, 9},
  };
  uint64_t seed = 21;
  for (const Case& c : cases) {
    sk::sim::MatmulRequest q;
    q.m = c.m;
    q.n = c.n;
    q.k = c.k;
    q.tile_n = c.tile_n;
    q.stages = c.stages;
    q.out_f32 = c.f32;
    q.functional = true;
    q.clc = true;
    q.num_sms = 4;
    q.seed = seed++;
    const auto r = run_matmul(q);
    INFO(c.m << "x" << c.n << "x" << c.k << " tile_n " << c.tile_n << ": " << r.check.detail);
    CHECK(r.status == "completed");
    CHECK(r.scheduler == "clc");
    CHECK(r.ctas == c.tiles);
    CHECK(r.findings.empty());
    CHECK(r.check.ran);
    CHECK(r.check.passed);
  }
}
