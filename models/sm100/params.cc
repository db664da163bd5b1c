#include "models/sm100/params.h"

#include <boost/json.hpp>
#include <stdexcept>

#include "models/sm100/param_file.h"

namespace sk::models::sm100 {
namespace {
const char kBuiltin[] =
#include "models/sm100/params_json.inc"
    ;

double get(const boost::json::object& params, const char* key) {
  return models::param(params, key, "sm100");
}
}  // namespace

Params Params::from_json(const std::string& text) {
  const boost::json::object p = models::param_table(text, "sm100");
  Params r;
  r.clock_ghz = get(p, "clock_ghz");
  r.num_sms = static_cast<int>(get(p, "num_sms"));
  r.smem_per_cta_bytes = static_cast<uint32_t>(get(p, "smem_per_cta_bytes"));
  r.tmem_columns = static_cast<uint32_t>(get(p, "tmem_columns"));
  r.umma_ii_per_n = get(p, "umma_ii_per_n");
  r.umma_latency_extra = static_cast<uint32_t>(get(p, "umma_latency_extra"));
  r.tma_base_latency = static_cast<uint32_t>(get(p, "tma_base_latency"));
  r.tma_l2_latency = static_cast<uint32_t>(get(p, "tma_l2_latency"));
  r.l2_bytes = static_cast<uint64_t>(get(p, "l2_bytes"));
  r.l2_bytes_per_cycle = get(p, "l2_bytes_per_cycle");
  r.sm_ingest_bytes_per_cycle = get(p, "sm_ingest_bytes_per_cycle");
  r.hbm_bytes_per_cycle = get(p, "hbm_bytes_per_cycle");
  r.mbarrier_latency = static_cast<uint32_t>(get(p, "mbarrier_latency"));
  r.issue_cycles = static_cast<uint32_t>(get(p, "issue_cycles"));
  r.tmem_ld_cycles = static_cast<uint32_t>(get(p, "tmem_ld_cycles"));
  r.tma_store_latency = static_cast<uint32_t>(get(p, "tma_store_latency"));
  r.named_barrier_latency = static_cast<uint32_t>(get(p, "named_barrier_latency"));
  r.clc_latency = static_cast<uint32_t>(get(p, "clc_latency"));
  return r;
}

const Params& Params::builtin() {
  static const Params p = from_json(kBuiltin);
  return p;
}

}  // namespace sk::models::sm100
