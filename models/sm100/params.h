// params.h: SM100 (B200) timing parameters, loaded from params.json.
//
// Every value in params.json carries its provenance (a measurement, a paper or
// a datasheet). The file is compiled into the binary, so a run never depends on
// the working directory; tools may load another file with Params::from_json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/sm100/oob_path.h"
#include "models/sm100/power.h"

namespace boost::json {
class object;
}

namespace sk::models::sm100 {

struct Params {
  double clock_ghz = 0;
  int num_sms = 0;
  uint32_t smem_per_cta_bytes = 0;
  uint32_t tmem_columns = 0;
  double umma_ii_per_n = 0;          // UMMA M=128 issue interval = N * this (cycles)
  uint32_t umma_latency_extra = 0;   // latency = II + this (SS operands)
  uint32_t tma_base_latency = 0;     // unloaded TMA round trip from HBM (cycles)
  uint32_t tma_l2_latency = 0;       // unloaded TMA round trip on an L2 hit
  uint64_t l2_bytes = 0;             // L2 capacity
  // The half of L2 each SM sits beside (0 or 1), by the SM the model runs
  // CTA c of a one-CTA-per-SM launch on (c: the hardware's block order);
  // empty: one L2. With two halves each holds l2_bytes / 2, half the lines of
  // every box are homed in each, and an SM that reads lines homed in the
  // other half also keeps a copy of them in its own (models/sm100/
  // l2_cache.h, docs/hardware.md "Two halves of L2").
  std::vector<uint32_t> l2_side;
  // With two halves: a line a half fetches from HBM for a reader on the
  // other side is taken in as if last used this many half-capacities of
  // traffic ago (models/sm100/l2_cache.h, L2Cache's far_age).
  double l2_far_line_age = 1.0;
  double l2_bytes_per_cycle = 0;     // L2 read bandwidth, shared by all SMs
  // Loaded memory path (0 where not calibrated). With tma_fair_share, an
  // SM's loads stream at most at l2_bytes_per_cycle / (SMs with loads in
  // flight), not only at sm_ingest_bytes_per_cycle; every load waits
  // tma_loaded_latency x (that share of the SMs) on top of its unloaded
  // latency (queueing in the crossbar and L2 slices); a box that misses in L2
  // takes l2_fill_factor x its bytes of L2 bandwidth more (the fill).
  bool tma_fair_share = false;
  uint32_t tma_loaded_latency = 0;
  // HBM's queueing below its rate: a box that misses in L2 waits
  // hbm_queue_latency x u / (1 - u) more, u being the HBM's recent load (its
  // bytes over the last ~hbm_queue_window cycles, an exponential average,
  // against hbm_bytes_per_cycle; at most 0.9). 0: none (the link queues only
  // past its rate). Measured apart as the ring's loaded round trip
  // (hw/h200/l2_stream.cu, section ring_trip).
  uint32_t hbm_queue_latency = 0;
  double hbm_queue_window = 4096;
  double l2_fill_factor = 0;
  double sm_ingest_bytes_per_cycle = 0;
  // What a tiled box's row that starts inside a 32-byte sector (a row pitch
  // of 16 mod 32 bytes puts every other row there) costs on the SM's port
  // and in L2 bandwidth, as a multiple of its bytes (1: no more than its
  // bytes). Measured apart as the stream rate of such boxes against aligned
  // ones (hw/h200/l2_stream.cu, section pitch).
  double tma_unaligned_row_factor = 1;
  // Rows of a tiled box that lie wholly outside the tensor (zero-filled: a
  // 128-row box of a matrix with fewer rows) pass one path of the whole GPU
  // at this many rows per cycle of the maximum clock, the box holding its
  // SM's port until they have (0: they cost nothing beyond the box's bytes).
  // Measured apart as the stream rate of such boxes from many SMs
  // (hw/h200/l2_stream.cu, section oob).
  double tma_oob_rows_per_cycle = 0;
  // The same path's rate by its load, measured apart (section oob_depth;
  // models/sm100/oob_path.h): where given, it replaces the one rate above.
  OobRates tma_oob_rates;
  bool oob_path_on() const { return tma_oob_rows_per_cycle > 0 || !tma_oob_rates.empty(); }
  double hbm_bytes_per_cycle = 0;    // shared by all SMs
  // Bandwidth that the SMs' st.global data shares on its way to L2 (the
  // crossbar's write path; 0: not modelled). Only SM90's register epilogue
  // uses it; an SM's own store rate is the arch's (sm90 Extras).
  double gpu_store_bytes_per_cycle = 0;
  uint32_t mbarrier_latency = 0;     // arrive -> waiter observes the phase flip
  uint32_t issue_cycles = 0;         // cost of issuing one instruction from a warp
  uint32_t tmem_ld_cycles = 0;       // tcgen05.ld 32x32b.x32 by one warp
  uint32_t tmem_st_cycles = 0;       // tcgen05.st 32x32b.x32 by one warp, to wait::st
  // Per-lane math (api.h account_alu, the softmax's quad reductions), per
  // warp on its sub-partition: cycles per SFU (ex2) warp-instruction, per
  // half-rate FP32-pipe one (max.f32, the 16-bit packing conversions), per
  // step of a dependent FP32-pipe chain, and per butterfly step of a quad
  // reduction (shfl.sync.bfly and its max or add).
  double sfu_cycles = 8;
  double half_rate_cycles = 2;
  double alu_chain_step = 0;
  double quad_reduce_step = 0;
  // While the SM's tensor core runs, the FP32 pipe, half-rate instructions,
  // the SFU and a dependent step take these multiples of their idle cycles
  // (1: no effect). On the H100, wgmma slows them (the accumulators are in
  // the register file); tcgen05 accumulates in TMEM.
  struct UnderMma {
    double fp32 = 1, half = 1, sfu = 1, chain = 1;
    bool any() const { return fp32 != 1 || half != 1 || sfu != 1 || chain != 1; }
  } alu_under_mma;
  // The other direction: while the FP32 pipe of a sub-partition is busy a
  // share u of an account's cycles, the SM's tensor core runs at
  // 1 - a u^p of its rate for that sub-partition's quarter (a = 0: not at
  // all; models/sm100/api_alu.cc).
  struct TensorUnderFp32 {
    double a = 0, p = 1;
  } tensor_under_fp32;
  uint32_t tma_store_latency = 0;    // SMEM read + global write of one store box
  // From a TMA store's issue until it has read its box out of shared memory
  // (what cp.async.bulk.wait_group.read waits for), unloaded; the read also
  // waits for the box's bytes to pass the GPU's write path (the HBM link), so
  // that under load it stretches with the store's queue. 0: the box is read
  // at 64 B per cycle after 32 cycles, whatever the load.
  uint32_t tma_store_read_latency = 0;
  uint32_t named_barrier_latency = 0;
  uint32_t clc_latency = 0;          // try_cancel issue -> response written + complete_tx
  // Address translation of TMA loads: an SM caches tlb_entries 2 MiB pages;
  // a box whose rows touch a page it does not hold waits tlb_miss_latency
  // more (the misses of one box are served together). 0 entries: off.
  static constexpr uint32_t kMaxTlbEntries = 16;
  uint32_t tlb_entries = 0;  // at most kMaxTlbEntries
  uint32_t tlb_miss_latency = 0;
  // The first TMA use of a tensor map on an SM fetches its 128-byte
  // descriptor first (0: free; prefetch.tensormap hides it on hardware).
  uint32_t tensormap_fetch_latency = 0;
  // A CTA's warps start this many cycles after the CTA is placed on its SM
  // (0: at once): what a fresh CTA does before its first kernel instruction
  // takes effect, such as fetching instructions and kernel parameters.
  uint32_t cta_start_latency = 0;
  // Thread-block clusters: the SMs each GPC offers clusters, in SM order
  // (empty: any consecutive SMs); the latency of a remote (DSMEM) mbarrier
  // arrive, issue to the peer's barrier; of a DSMEM load or atomic
  // (ld/atom.shared::cluster), after its issue until the value is back;
  // barrier.cluster from the last arrival to the waiters' release; the
  // memory barrier a release at cluster scope (mbarrier.arrive.release.
  // cluster, fence.acq_rel.cluster) stalls its warp before it takes effect.
  std::vector<uint32_t> gpc_sms;
  // The SMs a launch of fewer CTAs than SMs (no cluster) runs on: the first
  // `grid` of this order, CTA c on the c-th lowest of them (empty: CTA c on
  // SM c). SM90 fills it from the GPC of each SM (models/sm90/params.h).
  std::vector<uint32_t> fill_order;
  uint32_t dsmem_latency = 0;
  uint32_t dsmem_load_latency = 0;
  uint32_t cluster_barrier_latency = 0;
  uint32_t cluster_release_latency = 0;
  // DSMEM stores (st.shared::cluster) pass the sending SM's port and the
  // receiving SM's port at this many bytes per cycle each, one warp's stores
  // at a time (0: posted, their issue only).
  double dsmem_store_bytes_per_cycle = 0;
  // A multicast box is read from L2 (and HBM) once; each destination past
  // the issuer also takes tma_multicast_l2_share x the box's bytes of the
  // L2's rate (0: the box passes the L2 once, whatever the destinations; 1:
  // the L2's rate is spent on every destination's copy).
  double tma_multicast_l2_share = 0;
  // The board's power limit and the kernel's energy: the SM clocks of a
  // launch's two phases (power.h, phase_clock.h); clock_ghz is the maximum
  // clock. The tensor phase outlasts the last tensor-core work by
  // clock_hold_ns. A limit of 0 runs every launch at clock_ghz.
  PowerModel power;
  double clock_hold_ns = 0;

  // The same machine with its SMs clocked at `sm_ghz` instead of clock_ghz,
  // the clock the cycle counts above were measured at. The memory side (L2,
  // crossbar, HBM) keeps its own clock, so its latencies take proportionally
  // fewer SM cycles and its bandwidths deliver more bytes per SM cycle; what
  // the SM does itself (issue, MMA, mbarrier, ingest, TMEM, stores) keeps its
  // cycle counts. Requires sm_ghz > 0.
  Params at_sm_clock(double sm_ghz) const;

  // The parameters of this process: params.json of this directory, unless a
  // tool replaced them with use() (sim --params) before the simulation.
  static const Params& builtin();
  static void use(const std::string& text);          // throws std::runtime_error
  static Params from_json(const std::string& text);  // throws std::runtime_error
};

// Reads the power keys of a parameter file's table (power_limit_w,
// power_static_w, tensor_phase_clock_ghz, clock_hold_ns, energy_*) into `r`,
// naming `arch` in errors; shared by the SM100 and SM90 files. Throws
// std::runtime_error.
void read_power(const boost::json::object& table, const char* arch, Params& r);
// Reads the cluster keys (gpc_sms, dsmem_latency, dsmem_load_latency,
// cluster_barrier_latency, cluster_release_latency, dsmem_store_bytes_per_cycle,
// tma_multicast_l2_share).
void read_cluster(const boost::json::object& table, const char* arch, Params& r);
// Reads the per-lane math keys (sfu_cycles, half_rate_cycles, alu_chain_step,
// quad_reduce_step, alu_under_mma_{fp32,half,sfu,chain}).
void read_alu(const boost::json::object& table, const char* arch, Params& r);

}  // namespace sk::models::sm100
