// params.h: MI300X (CDNA3, gfx942) timing parameters, loaded from params.json.
//
// Every value in params.json carries its provenance; the values no source
// gives are marked "assumption, not measured". The file is compiled into the
// binary, so a run never depends on the working directory; tools may load
// another file with Params::from_json.
#pragma once

#include <cstdint>
#include <string>

namespace sk::models::mi300x {

struct Params {
  double clock_ghz = 0;
  int num_cus = 0;
  int simds_per_cu = 0;
  int wave_size = 0;
  uint32_t lds_bytes = 0;              // per workgroup (= per CU)
  uint32_t lds_banks = 0;              // 4-byte banks
  double lds_bytes_per_cycle = 0;      // per CU
  uint32_t lds_latency = 0;            // ds_read issue -> data
  uint32_t mfma_32x32x8_bf16_cycles = 0;   // matrix core busy per instruction
  uint32_t mfma_16x16x16_bf16_cycles = 0;
  double peak_bf16_flop_per_cycle_per_cu = 0;
  double hbm_bytes_per_cycle = 0;      // shared by all CUs
  uint32_t hbm_latency = 0;
  uint64_t cache_bytes = 0;            // L2 + Infinity Cache, one LRU
  uint32_t cache_latency = 0;
  double cache_bytes_per_cycle = 0;    // shared by all CUs
  double cu_vmem_bytes_per_cycle = 0;  // per CU vector memory path
  uint32_t atomic_latency = 0;
  uint32_t s_barrier_latency = 0;
  uint32_t s_sleep0_cycles = 0;
  uint32_t issue_cycles = 0;

  // The parameters of this process: params.json of this directory, unless a
  // tool replaced them with use() (sim --params) before the simulation.
  static const Params& builtin();
  static void use(const std::string& text);          // throws std::runtime_error
  static Params from_json(const std::string& text);  // throws std::runtime_error
};

}  // namespace sk::models::mi300x
