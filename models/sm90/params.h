// params.h: SM90 (H200) timing parameters, loaded from models/sm90/params.json.
//
// The SM90 model reuses the NVIDIA machinery of models/sm100 (SMEM, mbarrier,
// TMA, L2 and HBM, warps): gpu_params() fills that model's Params from the
// SM90 file, and Extras holds what only Hopper has (wgmma timing). Every
// value in the file carries its provenance, most of them measured on the
// project's H200 (docs/hardware.md).
#pragma once

#include <vector>

#include <string>

#include "models/sm100/params.h"

namespace sk::models::sm90 {

// The deepest wgmma queue a parameter file may give (api_wgmma.cc keeps
// that many ends per CTA).
inline constexpr uint32_t kWgmmaQueueMax = 32;

// The model's SM ids follow the block placement of a one-CTA-per-SM launch on
// the board (Extras::sm_gpc: per SM id, the GPC + 1 of the SM that block runs
// on, 0 for an SM in no GPC; runs of one GPC, its TPCs' two SMs side by side).
// Two things follow from it besides the GPC store path:
//
// cluster_groups_in_block_order: the clusters' groups in the same order, one
// per run of equal sm_gpc entries, the runs of 0 cut into the groups of
// `gpc_sms` that no GPC's run takes (in their order). Throws
// std::runtime_error where the runs are not the GPCs of gpc_sms. Empty
// gpc_sms or sm_gpc: gpc_sms unchanged.
std::vector<uint32_t> cluster_groups_in_block_order(const std::vector<uint32_t>& sm_gpc,
                                                    const std::vector<uint32_t>& gpc_sms);

// fill_order: the order in which a launch of fewer CTAs than SMs takes SMs
// (sm100::Params::fill_order), as the H100's block scheduler was measured to
// (docs/hardware.md "Where a launch of fewer CTAs than SMs runs"): the SMs in
// no GPC first, then one SM of each TPC, GPC after GPC in turn (the first
// TPC of every GPC, then the second, ...), then the TPCs' other SMs the same
// way. Empty sm_gpc: empty (CTA c on SM c).
std::vector<uint32_t> fill_order(const std::vector<uint32_t>& sm_gpc);

struct Extras {
  double wgmma_ii_per_n = 0;         // wgmma m64nNk16 issue interval = N * this (per SM)
  double wgmma_ii_per_op = 0;        // ... plus this many cycles an op, whatever N
  uint32_t wgmma_latency_extra = 0;  // latency = interval + this
  uint32_t wgmma_rs_latency_saving = 0;  // A from registers: latency this much shorter
  bool wgmma_interleave = false;     // warpgroups' ops interleave (api_wgmma.cc)
  // 1: one tensor core per SM, each warp's quarter of an op a quarter of its
  // interval; 4: one per sub-partition, each quarter the whole interval on
  // sub-partition (warp % 4)'s (api_wgmma.cc).
  uint32_t wgmma_tensor_cores = 1;
  // 1: an op is the warpgroup's (PTX's .sync.aligned wgmma): it starts on the
  // SM's tensor core once the last of the warpgroup's warps has issued it,
  // takes its whole interval there, and completes for all four warps at once;
  // 0: each warp's quarter on its own (above). api_wgmma.cc.
  bool wgmma_warpgroup_op = false;
  // A store path per GPC (write_path.h), bytes per SM cycle (0: none); per
  // SM id, the GPC + 1 of the SM (0: none; above: also where clusters and
  // launches of fewer CTAs than SMs are placed) and whether the GPC's path
  // serves it first.
  double gpc_store_bytes_per_cycle = 0;
  std::vector<uint32_t> sm_gpc, store_first;
  double wgmma_drain_per_n = 0;      // with it: drain of a waited group, per column
  // A consumer warpgroup's rest (api_wgmma.cc): its next wgmma.fence after
  // a wgmma.wait_group that waited for a group issues no earlier than this
  // long after the wait returned (ns, at the SM clock then in effect), plus
  // wgmma_rest_stretch times the part of it in which the SM's tensor core
  // still had other work queued when the wait ran (the other warpgroup's
  // ops). 0: none.
  double wgmma_rest_ns = 0;
  double wgmma_rest_stretch = 0;
  // With wgmma_warpgroup_op: the SM's queue of wgmma ops (both warpgroups'
  // issued and not through their interval) holds this many; a warp issuing
  // op k returns no earlier than wgmma_queue_release after the op scheduled
  // this many before it ends its interval (api_wgmma.cc). 0: unbounded.
  uint32_t wgmma_queue_ops = 0;
  uint32_t wgmma_queue_release = 0;
  // Bytes of the SM's st.global stream that each wgmma op waits out while
  // warps of its SM store (an op then takes this over the SM's current store
  // rate longer; api_wgmma.cc); 0: the stores do not slow the tensor core.
  double wgmma_store_bytes = 0;
  uint32_t launch_overhead_cycles = 0;  // launch to first instruction and back, as events see it
  // Per-SM rate at which st.global data from registers leaves the SM (the
  // epilogue's stores), shared by the SM's storing warps (write_path.h); a
  // warp cannot issue past its stores (0: free).
  double store_bytes_per_cycle = 0;
  // The least a 4-byte store instruction holds that path, in SM cycles,
  // however few of its bytes land inside D (account_global_stores): 128 /
  // store_bytes_per_cycle charges every instruction as a full one.
  double store_instruction_cycles = 0;
  // With n SMs storing at once, each SM's bytes also pass a path all of them
  // take turns on, in series with its own: an SM's rate is
  // 1 / (1 / store_bytes_per_cycle + n / this) (0: no such path; the shared
  // gpu_store_bytes_per_cycle cap applies either way).
  double store_series_bytes_per_cycle = 0;
  // Per-SM rate of 16-byte stores that fill whole sectors
  // (account_global_store_v4), shared by the SM's storing warps only.
  double store_v4_bytes_per_cycle = 0;
};

// The shared model's parameters with SM90 values (fields Hopper lacks, such
// as TMEM and UMMA timing, are zero). extras() is read on every wgmma and
// store: inline, one load once the parameters are loaded.
const sm100::Params& gpu_params();
namespace detail {
extern const Extras* current_extras;  // null until the parameters are first loaded
const Extras& load_extras();
}  // namespace detail
inline const Extras& extras() {
  return detail::current_extras != nullptr ? *detail::current_extras : detail::load_extras();
}

// Replaces this process's parameters (gpu_params() and extras()) with a
// file's (sim --params); throws std::runtime_error.
void use_params(const std::string& text);

// Both from a parameter file's text; throws std::runtime_error.
void parse(const std::string& text, sm100::Params& p, Extras& x);

}  // namespace sk::models::sm90
