#include "models/sm90/params.h"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/sm100/param_file.h"

namespace sk::models::sm90 {
namespace {
const char kBuiltin[] =
#include "models/sm90/params_json.inc"
    ;

double real(const boost::json::object& params, const char* key, double lo, double hi) {
  return models::param(params, key, "sm90", lo, hi);
}
uint64_t count(const boost::json::object& params, const char* key, uint64_t lo, uint64_t hi) {
  return models::param_count(params, key, "sm90", lo, hi);
}

// The runs of equal entries of sm_gpc: a GPC + 1 (0: the SMs in no GPC), the
// run's first SM id and its count.
struct GpcRun {
  uint32_t gpc, first, n;
};
std::vector<GpcRun> gpc_runs(const std::vector<uint32_t>& sm_gpc) {
  std::vector<GpcRun> runs;
  for (uint32_t i = 0; i < sm_gpc.size(); ++i) {
    if (runs.empty() || runs.back().gpc != sm_gpc[i]) runs.push_back({sm_gpc[i], i, 0});
    ++runs.back().n;
  }
  return runs;
}

struct Loaded {
  sm100::Params p;
  Extras x;
};
Loaded& builtin() {
  static Loaded l = [] {
    Loaded r;
    parse(kBuiltin, r.p, r.x);
    return r;
  }();
  return l;
}
}  // namespace

void parse(const std::string& text, sm100::Params& r, Extras& x) {
  const boost::json::object p = models::param_table(text, "sm90");
  r = sm100::Params{};
  r.clock_ghz = real(p, "clock_ghz", 0.1, 10.0);
  r.num_sms = static_cast<int>(count(p, "num_sms", 1, 4096));
  r.smem_per_cta_bytes = static_cast<uint32_t>(count(p, "smem_per_cta_bytes", 1024, 1ull << 20));
  r.tma_base_latency = static_cast<uint32_t>(count(p, "tma_base_latency", 1, 1ull << 20));
  r.tma_l2_latency = static_cast<uint32_t>(count(p, "tma_l2_latency", 1, 1ull << 20));
  r.l2_bytes = static_cast<uint64_t>(count(p, "l2_bytes", 0, 1ull << 40));
  r.l2_bytes_per_cycle = real(p, "l2_bytes_per_cycle", 0.001, 1000000.0);
  r.l2_side = models::param_list(p, "l2_side", "sm90", 0, 1);
  if (!r.l2_side.empty() && r.l2_side.size() != static_cast<size_t>(r.num_sms))
    throw std::runtime_error("sm90 params: \"l2_side\" has " + std::to_string(r.l2_side.size()) +
                             " entries for " + std::to_string(r.num_sms) + " SMs (one per SM, or none)");
  r.l2_far_line_age = real(p, "l2_far_line_age", 0.0, 16.0);
  r.tma_fair_share = count(p, "tma_fair_share", 0, 1) == 1;
  r.tma_loaded_latency = static_cast<uint32_t>(count(p, "tma_loaded_latency", 0, 1ull << 20));
  r.hbm_queue_latency = static_cast<uint32_t>(count(p, "hbm_queue_latency", 0, 1ull << 20));
  r.hbm_queue_window = real(p, "hbm_queue_window", 1.0, 1e9);
  r.l2_fill_factor = real(p, "l2_fill_factor", 0.0, 16.0);
  r.sm_ingest_bytes_per_cycle = real(p, "sm_ingest_bytes_per_cycle", 0.001, 1000000.0);
  r.tma_unaligned_row_factor = real(p, "tma_unaligned_row_factor", 1.0, 16.0);
  r.tma_oob_rows_per_cycle = real(p, "tma_oob_rows_per_cycle", 0.0, 1000000.0);
  r.tma_oob_rates.outside = models::param_list(p, "tma_oob_surface_outside", "sm90", 1, 1u << 16);
  r.tma_oob_rates.sms = models::param_list(p, "tma_oob_surface_sms", "sm90", 1, 4096);
  r.tma_oob_rates.depths = models::param_list(p, "tma_oob_surface_depths", "sm90", 1, 64);
  for (uint32_t tenths : models::param_list(p, "tma_oob_surface_rows_tenths", "sm90", 0, 1000000))
    r.tma_oob_rates.rows_per_cycle.push_back(tenths / 10.0);
  if (const std::string why = r.tma_oob_rates.check(); !why.empty())
    throw std::runtime_error("sm90 params: " + why);
  r.hbm_bytes_per_cycle = real(p, "hbm_bytes_per_cycle", 0.001, 1000000.0);
  r.gpu_store_bytes_per_cycle = real(p, "gpu_store_bytes_per_cycle", 0.0, 1000000.0);
  r.mbarrier_latency = static_cast<uint32_t>(count(p, "mbarrier_latency", 0, 1ull << 20));
  r.issue_cycles = static_cast<uint32_t>(count(p, "issue_cycles", 0, 1ull << 20));
  r.tma_store_latency = static_cast<uint32_t>(count(p, "tma_store_latency", 0, 1ull << 20));
  r.tma_store_read_latency = static_cast<uint32_t>(count(p, "tma_store_read_latency", 0, 1ull << 20));
  r.named_barrier_latency = static_cast<uint32_t>(count(p, "named_barrier_latency", 0, 1ull << 20));
  r.tlb_entries = static_cast<uint32_t>(count(p, "tlb_entries", 0, sm100::Params::kMaxTlbEntries));
  r.tlb_miss_latency = static_cast<uint32_t>(count(p, "tlb_miss_latency", 0, 1ull << 20));
  r.tensormap_fetch_latency = static_cast<uint32_t>(count(p, "tensormap_fetch_latency", 0, 1ull << 20));
  r.cta_start_latency = static_cast<uint32_t>(count(p, "cta_start_latency", 0, 1ull << 20));
  x.wgmma_ii_per_n = real(p, "wgmma_ii_per_n", 0.001, 1000.0);
  x.wgmma_ii_per_op = real(p, "wgmma_ii_per_op", 0.0, 1000.0);
  x.wgmma_latency_extra = static_cast<uint32_t>(count(p, "wgmma_latency_extra", 0, 1ull << 20));
  x.wgmma_rs_latency_saving =
      static_cast<uint32_t>(count(p, "wgmma_rs_latency_saving", 0, x.wgmma_latency_extra));
  x.wgmma_interleave = count(p, "wgmma_interleave", 0, 1) == 1;
  x.wgmma_tensor_cores = static_cast<uint32_t>(count(p, "wgmma_tensor_cores", 1, 4));
  x.wgmma_warpgroup_op = count(p, "wgmma_warpgroup_op", 0, 1) == 1;
  x.gpc_store_bytes_per_cycle = real(p, "gpc_store_bytes_per_cycle", 0.0, 1000000.0);
  x.sm_gpc = models::param_list(p, "sm_gpc", "sm90", 0, 64);
  x.store_first = models::param_list(p, "store_first", "sm90", 0, 1);
  for (const auto* list : {&x.sm_gpc, &x.store_first})
    if (!list->empty() && list->size() != static_cast<size_t>(r.num_sms))
      throw std::runtime_error("sm90 params: \"sm_gpc\" and \"store_first\" need one entry per SM (or none)");
  if (x.wgmma_tensor_cores != 1 && x.wgmma_tensor_cores != 4)
    throw std::runtime_error("sm90 params: \"wgmma_tensor_cores\" must be 1 or 4, got " +
                             std::to_string(x.wgmma_tensor_cores));
  x.wgmma_drain_per_n = real(p, "wgmma_drain_per_n", 0.0, 1000.0);
  x.wgmma_rest_ns = real(p, "wgmma_rest_ns", 0.0, 100000.0);
  x.wgmma_rest_stretch = real(p, "wgmma_rest_stretch", 0.0, 10.0);
  x.wgmma_queue_ops = static_cast<uint32_t>(count(p, "wgmma_queue_ops", 0, kWgmmaQueueMax));
  x.wgmma_queue_release = static_cast<uint32_t>(count(p, "wgmma_queue_release", 0, 1ull << 20));
  x.wgmma_store_bytes = real(p, "wgmma_store_bytes", 0.0, 1000000.0);
  x.store_bytes_per_cycle = real(p, "store_bytes_per_cycle", 0.0, 1000000.0);
  x.store_instruction_cycles = real(p, "store_instruction_cycles", 0.0, 1000000.0);
  x.store_series_bytes_per_cycle = real(p, "store_series_bytes_per_cycle", 0.0, 1000000.0);
  x.store_v4_bytes_per_cycle = real(p, "store_v4_bytes_per_cycle", 0.0, 1000000.0);
  sm100::read_alu(p, "sm90", r);
  x.launch_overhead_cycles = static_cast<uint32_t>(count(p, "launch_overhead_cycles", 0, 1ull << 30));
  sm100::read_power(p, "sm90", r);
  sm100::read_cluster(p, "sm90", r);
  r.gpc_sms = cluster_groups_in_block_order(x.sm_gpc, r.gpc_sms);
  r.fill_order = fill_order(x.sm_gpc);
}

std::vector<uint32_t> cluster_groups_in_block_order(const std::vector<uint32_t>& sm_gpc,
                                                    const std::vector<uint32_t>& gpc_sms) {
  if (sm_gpc.empty() || gpc_sms.empty()) return gpc_sms;
  const std::vector<GpcRun> runs = gpc_runs(sm_gpc);
  std::vector<uint32_t> left = gpc_sms;  // the groups no GPC's run has taken yet
  const auto take = [&](uint32_t n) {
    const auto it = std::find(left.begin(), left.end(), n);
    if (it == left.end()) return false;
    left.erase(it);
    return true;
  };
  const auto mismatch = [] {
    return std::runtime_error(
        "sm90 params: the GPCs of \"sm_gpc\" (its runs of one GPC) are not the groups of \"gpc_sms\"");
  };
  for (const GpcRun& run : runs)
    if (run.gpc != 0 && !take(run.n)) throw mismatch();
  std::vector<uint32_t> out;
  for (const GpcRun& run : runs) {
    if (run.gpc != 0) {
      out.push_back(run.n);
      continue;
    }
    for (uint32_t rest = run.n; rest > 0;) {  // the SMs in no GPC: the groups left, in order
      if (left.empty() || left.front() > rest) throw mismatch();
      rest -= left.front();
      out.push_back(left.front());
      left.erase(left.begin());
    }
  }
  if (!left.empty()) throw mismatch();
  return out;
}

std::vector<uint32_t> fill_order(const std::vector<uint32_t>& sm_gpc) {
  std::vector<uint32_t> order;
  std::vector<GpcRun> gpcs;
  for (const GpcRun& run : gpc_runs(sm_gpc)) {
    if (run.gpc != 0) {
      gpcs.push_back(run);
      continue;
    }
    for (uint32_t k = 0; k < run.n; ++k) order.push_back(run.first + k);  // in no GPC: first
  }
  uint32_t longest = 0;
  for (const GpcRun& run : gpcs) longest = std::max(longest, run.n);
  for (uint32_t second = 0; second < 2; ++second)  // each TPC's first SM, then its second
    for (uint32_t k = second; k < longest; k += 2)
      for (const GpcRun& run : gpcs)
        if (k < run.n) order.push_back(run.first + k);
  return order;
}

const sm100::Params& gpu_params() { return builtin().p; }

namespace detail {
const Extras* current_extras = nullptr;
const Extras& load_extras() {
  current_extras = &builtin().x;
  return *current_extras;
}
}  // namespace detail

void use_params(const std::string& text) {
  models::check_param_keys(text, kBuiltin, "sm90");
  Loaded l;
  parse(text, l.p, l.x);
  builtin() = l;
}

}  // namespace sk::models::sm90
