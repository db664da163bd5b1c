#include "models/sm100/params.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/sm100/param_file.h"

namespace sk::models::sm100 {
namespace {
const char kBuiltin[] =
#include "models/sm100/params_json.inc"
    ;

double real(const boost::json::object& params, const char* key, double lo, double hi) {
  return models::param(params, key, "sm100", lo, hi);
}
uint64_t count(const boost::json::object& params, const char* key, uint64_t lo, uint64_t hi) {
  return models::param_count(params, key, "sm100", lo, hi);
}
}  // namespace

void read_cluster(const boost::json::object& p, const char* arch, Params& r) {
  r.gpc_sms = models::param_list(p, "gpc_sms", arch, 1, 64);
  r.dsmem_latency = static_cast<uint32_t>(models::param_count(p, "dsmem_latency", arch, 0, 1ull << 20));
  r.dsmem_load_latency =
      static_cast<uint32_t>(models::param_count(p, "dsmem_load_latency", arch, 0, 1ull << 20));
  r.cluster_barrier_latency =
      static_cast<uint32_t>(models::param_count(p, "cluster_barrier_latency", arch, 0, 1ull << 20));
  r.cluster_release_latency =
      static_cast<uint32_t>(models::param_count(p, "cluster_release_latency", arch, 0, 1ull << 20));
  r.dsmem_store_bytes_per_cycle = models::param(p, "dsmem_store_bytes_per_cycle", arch, 0.0, 4096.0);
  r.tma_multicast_l2_share = models::param(p, "tma_multicast_l2_share", arch, 0.0, 1.0);
}

void read_power(const boost::json::object& p, const char* arch, Params& r) {
  auto value = [&](const char* key, double lo, double hi) {
    return models::param(p, key, arch, lo, hi);
  };
  r.power.limit_w = value("power_limit_w", 0.0, 100000.0);
  r.power.tensor_clock_ghz = value("tensor_phase_clock_ghz", 0.0, 10.0);
  r.clock_hold_ns = value("clock_hold_ns", 0.0, 1e6);
  r.power.static_w = value("power_static_w", 0.0, 100000.0);
  r.power.pj_per_flop = value("energy_pj_per_flop", 0.0, 1000.0);
  r.power.pj_per_tma_byte = value("energy_pj_per_tma_byte", 0.0, 100000.0);
  r.power.pj_per_hbm_byte = value("energy_pj_per_hbm_byte", 0.0, 100000.0);
  r.power.pj_per_sm_cycle = value("energy_pj_per_sm_cycle", 0.0, 1e9);
  r.power.energy_exponent = value("energy_clock_exponent", 0.0, 4.0);
  if (r.power.limit_w > 0 && r.power.static_w >= r.power.limit_w)
    throw std::runtime_error(std::string(arch) +
                             " params: power_static_w must be below power_limit_w");
}

void read_alu(const boost::json::object& p, const char* arch, Params& r) {
  r.sfu_cycles = models::param(p, "sfu_cycles", arch, 0.0, 1000.0);
  r.half_rate_cycles = models::param(p, "half_rate_cycles", arch, 0.0, 1000.0);
  r.alu_chain_step = models::param(p, "alu_chain_step", arch, 0.0, 1000.0);
  r.quad_reduce_step = models::param(p, "quad_reduce_step", arch, 0.0, 10000.0);
  r.alu_under_mma.fp32 = models::param(p, "alu_under_mma_fp32", arch, 1.0, 100.0);
  r.alu_under_mma.half = models::param(p, "alu_under_mma_half", arch, 1.0, 100.0);
  r.alu_under_mma.sfu = models::param(p, "alu_under_mma_sfu", arch, 1.0, 100.0);
  r.alu_under_mma.chain = models::param(p, "alu_under_mma_chain", arch, 1.0, 100.0);
  r.tensor_under_fp32.a = models::param(p, "tensor_under_fp32_a", arch, 0.0, 10.0);
  r.tensor_under_fp32.p = models::param(p, "tensor_under_fp32_p", arch, 0.1, 10.0);
}

Params Params::from_json(const std::string& text) {
  const boost::json::object p = models::param_table(text, "sm100");
  Params r;
  r.clock_ghz = real(p, "clock_ghz", 0.1, 10.0);
  r.num_sms = static_cast<int>(count(p, "num_sms", 1, 4096));
  r.smem_per_cta_bytes = static_cast<uint32_t>(count(p, "smem_per_cta_bytes", 1024, 1ull << 20));
  r.tmem_columns = static_cast<uint32_t>(count(p, "tmem_columns", 32, 4096));
  r.umma_ii_per_n = real(p, "umma_ii_per_n", 0.001, 1000.0);
  r.umma_latency_extra = static_cast<uint32_t>(count(p, "umma_latency_extra", 0, 1ull << 20));
  r.tma_base_latency = static_cast<uint32_t>(count(p, "tma_base_latency", 1, 1ull << 20));
  r.tma_l2_latency = static_cast<uint32_t>(count(p, "tma_l2_latency", 1, 1ull << 20));
  r.l2_bytes = static_cast<uint64_t>(count(p, "l2_bytes", 0, 1ull << 40));
  r.l2_bytes_per_cycle = real(p, "l2_bytes_per_cycle", 0.001, 1000000.0);
  r.sm_ingest_bytes_per_cycle = real(p, "sm_ingest_bytes_per_cycle", 0.001, 1000000.0);
  r.tma_unaligned_row_factor = real(p, "tma_unaligned_row_factor", 1.0, 16.0);
  r.tma_oob_rows_per_cycle = real(p, "tma_oob_rows_per_cycle", 0.0, 1000000.0);
  r.hbm_bytes_per_cycle = real(p, "hbm_bytes_per_cycle", 0.001, 1000000.0);
  r.mbarrier_latency = static_cast<uint32_t>(count(p, "mbarrier_latency", 0, 1ull << 20));
  r.issue_cycles = static_cast<uint32_t>(count(p, "issue_cycles", 0, 1ull << 20));
  r.tmem_ld_cycles = static_cast<uint32_t>(count(p, "tmem_ld_cycles", 0, 1ull << 20));
  r.tmem_st_cycles = static_cast<uint32_t>(count(p, "tmem_st_cycles", 0, 1ull << 20));
  r.tma_store_latency = static_cast<uint32_t>(count(p, "tma_store_latency", 0, 1ull << 20));
  r.tma_store_read_latency = static_cast<uint32_t>(count(p, "tma_store_read_latency", 0, 1ull << 20));
  r.named_barrier_latency = static_cast<uint32_t>(count(p, "named_barrier_latency", 0, 1ull << 20));
  r.clc_latency = static_cast<uint32_t>(count(p, "clc_latency", 0, 1ull << 20));
  r.tlb_entries = static_cast<uint32_t>(count(p, "tlb_entries", 0, Params::kMaxTlbEntries));
  r.tlb_miss_latency = static_cast<uint32_t>(count(p, "tlb_miss_latency", 0, 1ull << 20));
  read_power(p, "sm100", r);
  read_cluster(p, "sm100", r);
  read_alu(p, "sm100", r);
  return r;
}

namespace {
Params& active() {
  static Params p = Params::from_json(kBuiltin);
  return p;
}
}  // namespace

Params Params::at_sm_clock(double sm_ghz) const {
  Params p = *this;
  const double r = sm_ghz / clock_ghz;  // SM cycles per reference cycle
  auto cycles = [r](uint32_t c) { return static_cast<uint32_t>(std::lround(c * r)); };
  p.clock_ghz = sm_ghz;
  p.tma_base_latency = std::max<uint32_t>(1, cycles(tma_base_latency));
  p.tma_l2_latency = std::max<uint32_t>(1, cycles(tma_l2_latency));
  p.tma_loaded_latency = cycles(tma_loaded_latency);
  p.tlb_miss_latency = cycles(tlb_miss_latency);
  p.tensormap_fetch_latency = cycles(tensormap_fetch_latency);
  p.l2_bytes_per_cycle = l2_bytes_per_cycle / r;
  p.hbm_bytes_per_cycle = hbm_bytes_per_cycle / r;
  p.gpu_store_bytes_per_cycle = gpu_store_bytes_per_cycle / r;
  return p;
}

const Params& Params::builtin() { return active(); }
void Params::use(const std::string& text) {
  models::check_param_keys(text, kBuiltin, "sm100");
  active() = from_json(text);
}

}  // namespace sk::models::sm100
