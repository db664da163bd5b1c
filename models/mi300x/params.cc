// params.cc: reads params.json (embedded at build time) into Params; every
// value must carry a source and lie in its range (models/common/param_file.h).
#include "models/mi300x/params.h"

#include <boost/json.hpp>
#include <stdexcept>

#include "models/common/param_file.h"

namespace sk::models::mi300x {
namespace {
const char kBuiltin[] =
#include "models/mi300x/params_json.inc"
    ;

constexpr uint64_t kBig = 1ull << 40;
}  // namespace

Params Params::from_json(const std::string& text) {
  const boost::json::object p = models::param_table(text, "mi300x");
  auto real = [&](const char* key, double lo, double hi) {
    return models::param(p, key, "mi300x", lo, hi);
  };
  auto count = [&](const char* key, uint64_t lo, uint64_t hi) {
    return models::param_count(p, key, "mi300x", lo, hi);
  };
  Params r;
  r.clock_ghz = real("clock_ghz", 0.1, 10.0);
  r.num_cus = static_cast<int>(count("num_cus", 1, 4096));
  r.simds_per_cu = static_cast<int>(count("simds_per_cu", 1, 16));
  r.wave_size = static_cast<int>(count("wave_size", 64, 64));
  r.lds_bytes = static_cast<uint32_t>(count("lds_bytes", 1024, 1ull << 20));
  r.lds_banks = static_cast<uint32_t>(count("lds_banks", 1, 128));
  r.lds_bytes_per_cycle = real("lds_bytes_per_cycle", 1, 4096);
  r.lds_latency = static_cast<uint32_t>(count("lds_latency", 0, 1 << 20));
  r.mfma_32x32x8_bf16_cycles = static_cast<uint32_t>(count("mfma_32x32x8_bf16_cycles", 1, 4096));
  r.mfma_16x16x16_bf16_cycles = static_cast<uint32_t>(count("mfma_16x16x16_bf16_cycles", 1, 4096));
  r.peak_bf16_flop_per_cycle_per_cu = real("peak_bf16_flop_per_cycle_per_cu", 1, 1e6);
  r.hbm_bytes_per_cycle = real("hbm_bytes_per_cycle", 0.001, 1e6);
  r.hbm_latency = static_cast<uint32_t>(count("hbm_latency", 0, 1 << 20));
  r.cache_bytes = count("cache_bytes", 0, kBig);
  r.cache_latency = static_cast<uint32_t>(count("cache_latency", 0, 1 << 20));
  r.cache_bytes_per_cycle = real("cache_bytes_per_cycle", 0.001, 1e7);
  r.cu_vmem_bytes_per_cycle = real("cu_vmem_bytes_per_cycle", 0.001, 1e6);
  r.atomic_latency = static_cast<uint32_t>(count("atomic_latency", 0, 1 << 20));
  r.s_barrier_latency = static_cast<uint32_t>(count("s_barrier_latency", 0, 1 << 20));
  r.s_sleep0_cycles = static_cast<uint32_t>(count("s_sleep0_cycles", 0, 1 << 20));
  r.issue_cycles = static_cast<uint32_t>(count("issue_cycles", 0, 1 << 20));
  return r;
}

namespace {
Params& active() {
  static Params p = Params::from_json(kBuiltin);
  return p;
}
}  // namespace

const Params& Params::builtin() { return active(); }
void Params::use(const std::string& text) {
  models::check_param_keys(text, kBuiltin, "mi300x");
  active() = from_json(text);
}

}  // namespace sk::models::mi300x
