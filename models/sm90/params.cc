#include "models/sm90/params.h"

#include <boost/json.hpp>
#include <stdexcept>

#include "models/sm100/param_file.h"

namespace sk::models::sm90 {
namespace {
const char kBuiltin[] =
#include "models/sm90/params_json.inc"
    ;

double get(const boost::json::object& params, const char* key) {
  return models::param(params, key, "sm90");
}

struct Loaded {
  sm100::Params p;
  Extras x;
};
const Loaded& builtin() {
  static const Loaded l = [] {
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
  r.clock_ghz = get(p, "clock_ghz");
  r.num_sms = static_cast<int>(get(p, "num_sms"));
  r.smem_per_cta_bytes = static_cast<uint32_t>(get(p, "smem_per_cta_bytes"));
  r.tma_base_latency = static_cast<uint32_t>(get(p, "tma_base_latency"));
  r.tma_l2_latency = static_cast<uint32_t>(get(p, "tma_l2_latency"));
  r.l2_bytes = static_cast<uint64_t>(get(p, "l2_bytes"));
  r.l2_bytes_per_cycle = get(p, "l2_bytes_per_cycle");
  r.tma_queue_factor = get(p, "tma_queue_factor");
  r.sm_ingest_bytes_per_cycle = get(p, "sm_ingest_bytes_per_cycle");
  r.hbm_bytes_per_cycle = get(p, "hbm_bytes_per_cycle");
  r.mbarrier_latency = static_cast<uint32_t>(get(p, "mbarrier_latency"));
  r.issue_cycles = static_cast<uint32_t>(get(p, "issue_cycles"));
  r.tma_store_latency = static_cast<uint32_t>(get(p, "tma_store_latency"));
  r.named_barrier_latency = static_cast<uint32_t>(get(p, "named_barrier_latency"));
  x.wgmma_ii_per_n = get(p, "wgmma_ii_per_n");
  x.wgmma_latency_extra = static_cast<uint32_t>(get(p, "wgmma_latency_extra"));
  x.launch_overhead_cycles = static_cast<uint32_t>(get(p, "launch_overhead_cycles"));
}

const sm100::Params& gpu_params() { return builtin().p; }
const Extras& extras() { return builtin().x; }

}  // namespace sk::models::sm90
