// scenario.h: run a small hand-written kernel in the SM100 model, in a child
// process, and hand back what it recorded.
//
// Tests of intrinsic semantics write kernels as lambdas: `body` runs on every
// warp of every CTA (as a __global__ function does) and may call note() to
// record observations, which come back in order with the run's status and
// findings. Assertions then happen in the test process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/sm100/oob_path.h"

namespace sk::test {

struct ScenarioFinding {
  std::string cls, rule, message;
  std::string location;            // the author's line (Finding::location)
  std::vector<std::string> chain;  // Finding::chain
};

struct ScenarioResult {
  bool ok = false;           // the child produced a result
  std::string error;         // otherwise why not
  std::string status;        // completed | deadlock | livelock | limit
  uint64_t cycles = 0;
  std::vector<ScenarioFinding> findings;
  std::vector<std::string> notes;
  std::vector<std::string> deadlock_details;
  uint64_t sync_digest = 0;  // the race detector's order_digest (0: none)

  bool has_rule(const std::string& rule) const;
  int count_rule(const std::string& rule) const;  // findings with this rule
  std::string findings_text() const;
};

struct ScenarioOptions {
  int ctas = 1;
  int warps = 2;
  uint32_t smem_bytes = 64 * 1024;
  bool functional = true;
  uint64_t max_cycles = 10'000'000;
  int num_sms = 0;             // SMs of the modelled GPU (0: params.json)
  int cluster_size = 1;        // CTAs per thread-block cluster (ctas a multiple of it)
  uint32_t tensormap_fetch_latency = 0;  // Params::tensormap_fetch_latency for this run
  double tma_unaligned_row_factor = 1;   // Params::tma_unaligned_row_factor for this run
  double tma_oob_rows_per_cycle = 0;     // Params::tma_oob_rows_per_cycle for this run
  models::sm100::OobRates tma_oob_rates; // Params::tma_oob_rates for this run (empty: none)
  uint32_t tma_store_read_latency = 0;   // Params::tma_store_read_latency for this run
  double l2_bytes_per_cycle = 0;         // Params::l2_bytes_per_cycle for this run (0: params.json)
  double tma_multicast_l2_share = 0;     // Params::tma_multicast_l2_share for this run
  double dsmem_store_bytes_per_cycle = 0;  // Params::dsmem_store_bytes_per_cycle for this run
  struct {
    double fp32 = 1, half = 1, sfu = 1, chain = 1;
  } alu_under_mma;                       // Params::alu_under_mma for this run
  struct {
    double a = 0, p = 1;
  } tensor_under_fp32;                   // Params::tensor_under_fp32 for this run
  bool race_detector = false;  // install the happens-before race detector
  // Runs before launch inside the child (e.g. allocate global memory,
  // encode tensor maps); its pointer-valued results are captured by body.
  std::function<void()> setup;
};

// Records an observation from kernel code.
void note(const std::string& s);

ScenarioResult run_scenario(const ScenarioOptions& opt, const std::function<void()>& body);

}  // namespace sk::test
