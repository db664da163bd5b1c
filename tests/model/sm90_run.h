// sm90_run.h: an SM90 matmul request simulated in a child process
// (engine/isolate.h), as the SM90 matmul tests run them, and a run's findings
// as text for a failed check's message. Test-only.
//
// Invariants: each call is its own simulation process (a parameter file set
// with `params` does not outlive it); a failed child fails the test.
#pragma once

#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <string>

#include "engine/isolate.h"
#include "models/sm90/params.h"
#include "runner/kernels/sm90_matmul_run.h"

namespace sk::test {

// The request with the parameter file `params` (its text,
// sk::test::sm90_params_with) where given.
inline sim::RunResult run_request(const sim::MatmulRequest& q, const std::string& params = {}) {
  auto res = sim::run_isolated(
      [&q, &params] {
        if (!params.empty()) models::sm90::use_params(params);
        return boost::json::serialize(sim::to_json(sim::run_sm90_matmul(q)));
      },
      300);
  REQUIRE_MESSAGE(res.ok, res.error);
  return sim::run_result_from_json(boost::json::parse(res.payload));
}

// Every finding of a run, a line each.
inline std::string findings_text(const sim::RunResult& r) {
  std::string found;
  for (const auto& f : r.findings) found += f.rule + ": " + f.message + " at " + f.location + "\n";
  return found;
}

}  // namespace sk::test
