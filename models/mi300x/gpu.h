// gpu.h: the simulated MI300X (CDNA3, gfx942) device for one kernel launch.
//
// Residency: one workgroup per CU (the kernels modelled here fill a CU's
// register budget, 512 KB of VGPRs, with one workgroup of up to 16 waves).
// A grid of at most num_cus workgroups starts them all at cycle 0, workgroup
// i on CU i; larger grids keep the rest pending in launch order, and a CU
// whose workgroup exits starts the lowest pending one (its LDS storage is
// reused and zeroed). Waves are engine warps of 64 lanes; wave w of a
// workgroup runs on SIMD w % simds_per_cu of its CU.
//
// Modes: in functional mode global memory and LDS hold real bytes and MFMAs
// compute real products. In timing mode global memory has no backing store
// (loads return zeros) while LDS keeps real bytes, and per-lane loops run
// only their lowest active lane after two sampled visits per loop site; the
// LDS reads of those unsampled visits return zeros without touching LDS.
//
// Lane batches: inside sk::for_each_lane, the k-th per-lane memory call
// (ld_lds, st_lds, ld_global, st_global, global_load_lds_dword,
// buffer_load_dword_lds) of each lane is that lane's part of the k-th wave
// instruction of the loop; a wave keeps a call ordinal that restarts when the
// loop moves to the next lane. An instruction's issue cost and timing are
// charged once, on the first lane that reaches it; its LDS bank conflicts are
// counted when the loop ends. Outside a lane loop a call is the whole wave's
// instruction, with one address for every active lane. A global or DMA lane
// instruction is looked up in the cache at issue by its lowest lane's
// address; when the loop ends the blocks its other lanes touch are looked up
// too and its completion moves to the last of them. An unsampled visit runs
// only the lowest lane, so it replays the bytes the other lanes covered in
// the site's first sampled visit (their address offsets, merged into byte
// ranges then): the HBM bytes of every visit cover every block its lanes
// touch.
//
// Memory timing: LDS is a per-CU pipe of lds_bytes_per_cycle plus bank
// conflict passes (32 banks x 4 B; lanes in groups of 128 B per pass). Global
// accesses go through a per-CU vector memory path, then one LRU of 4 KiB
// blocks standing for L2 and the Infinity Cache together (a hit streams at
// cache bandwidth after cache_latency; a miss brings the whole block from
// HBM, whose bandwidth all CUs share, after hbm_latency).
//
// Counters: each wave keeps its outstanding vector memory operations (global
// loads and stores, LDS DMAs) in issue order with their completion times
// (vmcnt; they retire in order) and its LDS operations (lgkmcnt). An LDS DMA
// is one async operation per wave instruction: its LDS bytes land at its
// completion time, or when the issuing wave's s_waitcnt_vmcnt retires it,
// whichever comes first.
//
// Trace: GPU -> CU -> workgroup -> wave tracks (the waves' waits and issue
// time), and per traced CU the engine tracks "MFMA SIMD s" (each SIMD's matrix
// core, busy per MFMA) and "LDS" (the pipe: ds_read, ds_write and bank
// conflict passes). Tracing only records what the timing model decided.
#pragma once

#include <cstdint>
#include <algorithm>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/common/global_memory.h"
#include "models/common/shared_link.h"
#include "models/mi300x/params.h"
#include "engine/engine.h"
#include "engine/lanes.h"
#include "engine/warp.h"

namespace sc_core {
class sc_event;
}

namespace sk::models::mi300x {

using sim::Cycle;

// A synchronisation counter: a uint32 in LDS or global memory that atomics
// touch, named by annotate_counter.
struct Counter {
  int block = -1;          // owning workgroup for LDS counters, -1 for global
  uint64_t key = 0;        // observer key: LDS offset, or (1 << 62) | address
  uint32_t* cell = nullptr;  // the value's bytes, null when memory has none
  uint32_t shadow = 0;     // the value when cell is null (timing mode, global)
  std::string name;        // "input.full[2]"; the address when unnamed
  uint32_t arrivals_per_lap = 0;
  uint64_t increments = 0;
  uint64_t since_lap = 0;   // increments since the last store to it
  int last_wave = -1;      // the wave that last incremented it
  std::unique_ptr<sc_core::sc_event> changed;
  bool multi_reported = false;
  uint32_t value() const { return cell != nullptr ? *cell : shadow; }
  // "wait counter <name>", the stall label of a wave waiting on it (built
  // again only when the name changed).
  const std::string& wait_label() const {
    if (label_of_ != name) {
      label_of_ = name;
      label_ = "wait counter " + name;
    }
    return label_;
  }
  mutable std::string label_of_, label_;
};

// The LDS bytes one LDS DMA instruction writes when it completes.
struct DmaWrites {
  std::vector<std::pair<uint8_t*, uint32_t>> words;
  bool applied = false;
  void apply();
};

struct VmOp {
  Cycle done = 0;
  sim::OpId op = 0;                   // observer operation (LDS DMA), or 0
  std::shared_ptr<DmaWrites> writes;  // LDS DMA data, or null
  uint64_t seq = 0;                   // the wave's issue number, to find it again
  bool dma = false;                   // an LDS DMA (its bytes land in LDS)
  sim::Site site;                     // where it was issued
};

// One wave instruction assembled from the lanes of a per-lane loop.
struct LaneInstr {
  enum Kind : uint8_t { kLds, kGlobal, kDma } kind = kLds;
  uint32_t bytes = 0;                              // per lane
  std::vector<std::pair<int, uint32_t>> lds;       // (lane, LDS offset)
  std::shared_ptr<DmaWrites> dma;
  sim::OpId op = 0;
  int64_t dma_base = -1;
  Cycle done = 0;
  // Global and DMA instructions: each lane's address (only the lowest
  // lane's in an unsampled visit), whether it writes, the cycle it left the
  // CU's vector memory path and the wave's issue number of its VmOp.
  std::vector<uint64_t> addrs;
  bool write = false;
  double after_vmem = 0;
  uint64_t vm_seq = 0;
  // Empties the instruction for reuse as `k`, keeping its vectors' storage
  // (a wave assembles one per wave instruction of every lane loop).
  void reset(Kind k) {
    kind = k;
    bytes = 0;
    lds.clear();
    dma.reset();
    op = 0;
    dma_base = -1;
    done = 0;
    addrs.clear();
    write = false;
    after_vmem = 0;
    vm_seq = 0;
  }
};

struct WaveState {
  std::deque<VmOp> vm;
  uint64_t vm_issued = 0;      // VmOps issued so far (their seq)
  std::deque<Cycle> lgkm;      // completion times of outstanding ds ops
  Cycle regs_ready = 0;        // plain loads whose data an MFMA may need
  int prio = 0;                // s_setprio (recorded, no timing effect)
  bool exited = false;
  // Lane batch of the current per-lane loop.
  bool in_loop = false, sampled = true;
  const void* site = nullptr;
  int batch_lane = -1;
  uint32_t ordinal = 0;
  // The loop's instructions are batch[0, batch_n); the entries past it are
  // kept for their storage.
  std::vector<LaneInstr> batch;
  size_t batch_n = 0;
  const Counter* waiting_on = nullptr;  // for the deadlock classifier
  Counter* loop_atomic = nullptr;       // the counter lanes of this loop add to
  int loop_atomic_lanes = 0;
  // The wave's latest whole-wave LDS stores of one word (offset, where), the
  // most recent last: annotate_counter finds the store that zeroed the
  // counter there, to name the counter's init (at most kWordStores kept).
  static constexpr size_t kWordStores = 32;
  std::vector<std::pair<uint64_t, std::source_location>> word_stores;
};

// Per-CU statistics for the host summary.
//
// Busy intervals are kept only from a horizon on: fold(h) adds what lies
// before cycle h to the folded_* sums and keeps the rest, which every later
// interval may still overlap (the models add intervals that start at or
// after the engine's current cycle, so h = now is safe). A long run then
// holds a bounded number of intervals instead of one per MFMA cluster and
// LDS DMA. The summary's figures are the folded sums plus those of what is
// kept (simd_busy_cycles, dma_cycles, covered_cycles): the same as from all
// the intervals.
struct CuStats {
  std::vector<std::vector<std::pair<Cycle, Cycle>>> simd_busy;  // per SIMD, merged
  uint64_t mfma = 0;                      // MFMA instructions
  double mfma_flops = 0;
  uint64_t lds_instructions = 0;
  uint64_t lds_bank_conflict_cycles = 0;  // extra LDS passes
  uint64_t global_bytes_loaded = 0;       // global loads and LDS DMA
  // When LDS DMA was in flight on the CU (issue to completion, overlapping
  // instructions merged as they are issued).
  std::vector<std::pair<Cycle, Cycle>> dma_busy;
  uint64_t global_bytes_stored = 0;
  uint64_t atomics = 0;                   // one per lane that performed one
  int workgroups = 0;
  // Before the fold horizon: the SIMDs' busy cycles (summed over SIMDs), the
  // cycles with LDS DMA in flight, and of those the cycles with some SIMD busy.
  Cycle folded_simd_busy = 0, folded_dma = 0, folded_covered = 0;
  Cycle folded_until = 0;

  void fold(Cycle horizon);
  // Folds at the engine's cycle `now` once many intervals are kept.
  void maybe_fold(Cycle now) {
    size_t n = dma_busy.size();
    for (const auto& s : simd_busy) n += s.size();
    if (n >= kFoldAt) fold(now);
  }
  static constexpr size_t kFoldAt = 4096;
  Cycle simd_busy_cycles() const;  // summed over the SIMDs
  Cycle dma_cycles() const;        // union of the LDS DMA intervals
  Cycle covered_cycles() const;    // of those, cycles with some SIMD busy
};

struct Workgroup {
  int id = 0, cu = 0;
  uint8_t* lds = nullptr;  // 1024-byte aligned
  uint32_t lds_size = 0;
  int waves = 0, alive = 0;
  std::vector<WaveState> wave;
  uint32_t bar_arrived = 0;
  uint64_t bar_generation = 0;
  // The latest own time of this s_barrier's arrivals: it completes then,
  // once every live wave has arrived.
  Cycle bar_release_at = 0;
  std::unique_ptr<sc_core::sc_event> bar_done;
  uint32_t track = 0;
  // The counters its waves used last, by address (direct-mapped; a Counter
  // lives as long as the Gpu, and the cache as long as the workgroup, whose
  // LDS addresses the next workgroup on the CU reuses).
  static constexpr size_t kCounterCache = 16;
  std::pair<const uint32_t*, Counter*> counter_cache[kCounterCache] = {};
};

class Gpu {
 public:
  Gpu(const Params& params, bool functional);
  ~Gpu();
  static Gpu& current() {
    if (current_ == nullptr) no_launch();
    return *current_;
  }

  const Params& params() const { return params_; }
  bool functional() const { return functional_; }
  GlobalMemory& gmem() { return gmem_; }
  sim::Engine& engine() { return engine_; }
  sim::Observer* obs() const { return engine_.observer(); }

  // Launches `grid` workgroups of `waves_per_block` waves with `lds_bytes`
  // of LDS each. Returns an error message (and launches nothing) when the
  // launch is impossible; over-capacity LDS is also a finding.
  std::string launch(int grid, int waves_per_block, uint32_t lds_bytes,
                     const std::function<void()>& body);
  sim::RunStatus run(Cycle max_cycles);
  // Which CUs a trace covers (empty: all). Call before launch().
  void set_trace_cus(std::vector<int> cus) { trace_cus_ = std::move(cus); }

  // --- the launch and its statistics (for the host summary) ---
  int grid() const { return static_cast<int>(wgs_.size()); }
  int waves_per_block() const { return waves_per_block_; }
  uint32_t lds_bytes() const { return lds_bytes_; }
  int cus_used() const { return std::min(grid(), params_.num_cus); }
  // Predicted kernel time: the cycle the last wave exited.
  Cycle end_cycle() const;
  const std::vector<CuStats>& cu_stats() const { return cu_stats_; }
  CuStats totals() const;  // sums (busy intervals concatenated)
  uint64_t hbm_bytes() const { return hbm_bytes_; }
  uint64_t cache_hits() const { return cache_hits_; }
  uint64_t cache_misses() const { return cache_misses_; }
  // Per-wave stall time by cause: engine().warps()[i]->stalls_by_what(),
  // labelled "s_waitcnt vmcnt", "s_waitcnt lgkmcnt", "s_barrier", "s_sleep",
  // "wait counter <name>", "mfma waits for operands", "mfma pipe busy".

  // --- used by the api_*.cc files ---
  sim::Warp& warp() {
    sim::Warp* w = engine_.current();
    if (w == nullptr) not_in_kernel();
    return *w;
  }
  Workgroup& wg_of_current() { return *wgs_[warp().cta()]; }
  WaveState& wave_state() { return wg_of_current().wave[warp().index()]; }
  CuStats& cu_of_current() { return cu_stats_[wg_of_current().cu]; }
  // Reports a finding attributed to the current wave at `loc` (once per rule
  // and location: per-lane calls would otherwise repeat it 64 times).
  void finding(const std::string& cls, const std::string& rule, const std::string& message,
               const std::source_location& loc);
  // The counter at p (created on first use); nullptr, reported, when p is
  // neither a 4-byte aligned word of this workgroup's LDS nor of global memory.
  Counter* counter(const uint32_t* p, const std::source_location* loc);
  // The lane batch instruction of the current per-lane call, or nullptr
  // outside a lane loop; `first` is set when this call starts the instruction.
  LaneInstr* lane_instr(LaneInstr::Kind kind, bool& first);
  // Reserves the CU's LDS pipe for `bytes` from `start`; returns when done.
  Cycle lds_transfer(Cycle start, uint64_t bytes);
  // A global read or write of `bytes` at `addr` issued at `start`; returns
  // its completion (cache, HBM and the CU's vector memory path). The cycle
  // the bytes left the vector memory path goes to *after_vmem if given.
  Cycle global_access(Cycle start, uint64_t addr, uint64_t bytes, bool write,
                      double* after_vmem = nullptr);
  // Matrix core of SIMD `simd` of the current CU: busy from `start` for
  // `cycles` at the earliest free slot; returns the start.
  Cycle reserve_simd(int simd, Cycle start, Cycle cycles, double flops);
  void charge_bank_conflicts(uint64_t extra);
  // LDS bank conflict passes of one wave instruction beyond the first pass
  // of each lane group (lanes with their LDS offsets, bytes per lane).
  uint64_t bank_conflict_cycles(const std::vector<std::pair<int, uint32_t>>& lanes,
                                uint32_t bytes) const;

  // Completes the workgroup's s_barrier when every live wave has arrived:
  // at the latest of their arrival times (bar_release_at), now or from the
  // engine's queue.
  void maybe_release_barrier(Workgroup& wg);
  // Trace: whether the current wave's CU is traced; then trace_busy records
  // that `what` kept its CU track `name` (created at `rank` among the CU's
  // tracks) busy over [begin, end), as a busy run (TraceLog::busy).
  bool traces_current() { return engine_.trace().enabled() && warp().traced; }
  void trace_busy(const std::string& name, int rank, Cycle begin, Cycle end,
                  const std::string& what);
  // The engine tracks' ranks: after every workgroup a CU runs.
  static constexpr int kMfmaTrackRank = 100000;  // + the SIMD
  static constexpr int kLdsTrackRank = 100100;

 private:
  [[noreturn]] static void not_in_kernel();
  [[noreturn]] static void no_launch();
  static inline Gpu* current_ = nullptr;  // the one Gpu of this process
  void start_wg(int id, int cu);
  void on_wave_exit(Workgroup& wg, int wave);
  void classify_deadlock(sim::Finding& f);
  // counter() past the workgroup's cache: the map lookup, creation, checks.
  Counter* find_counter(Workgroup& wg, const uint32_t* p, const std::source_location* loc);
  uint64_t lane_begin(sim::Warp& w, const void* site, uint32_t visit);
  void lane_end(sim::Warp& w, const void* site);
  // The cache blocks the other lanes of a global or DMA lane instruction
  // touch (beyond the lowest lane's, charged at issue): looked up, a miss
  // brought from HBM, and the instruction's completion moved to the last.
  // The recorded lane offsets of one instruction of a loop site, and the
  // bytes they cover (the lowest lane's included) as disjoint ascending
  // [first, last] byte ranges: an unsampled visit replays the ranges, which
  // touch the same blocks as the offsets one by one.
  struct LaneDeltas {
    std::vector<int64_t> deltas;
    std::vector<std::pair<int64_t, int64_t>> spans;
  };
  void lane_blocks(WaveState& ws, LaneInstr& in, LaneDeltas& rec);
  // Looks one 4 KiB block up at `t` (after the vector memory path): its
  // completion, from the cache or from HBM.
  Cycle block_access(double t, uint64_t block, uint64_t bytes, bool write);
  std::vector<uint64_t> blocks_;  // lane_blocks' scratch, kept for its storage

  Params params_;
  bool functional_;
  std::unique_ptr<sim::Engine> engine_owner_;
  sim::Engine& engine_;
  GlobalMemory gmem_;
  std::vector<std::unique_ptr<Workgroup>> wgs_;  // by id; null until started
  std::function<void()> body_;
  std::vector<int> trace_cus_;
  int waves_per_block_ = 0;
  uint32_t lds_bytes_ = 0;
  int next_pending_ = 0;
  struct CuSlot {
    std::shared_ptr<uint8_t[]> lds;  // reused by the CU's workgroups in turn
    double lds_free = 0;
    SharedLink vmem;  // the CU's vector memory port
    std::vector<Cycle> simd_free;
    uint32_t track = 0;
  };
  std::vector<CuSlot> cus_;
  std::vector<CuStats> cu_stats_;
  std::map<std::pair<int, uint64_t>, Counter> counters_;
  std::map<std::pair<std::string, std::string>, bool> reported_;
  struct SiteStats {
    double extra = 0;
    uint32_t visits = 0;
    // Per global or DMA instruction of the loop (by ordinal): each lane's
    // address less the lowest lane's, from the first sampled visit; an
    // unsampled visit, which runs only the lowest lane, replays them.
    std::vector<LaneDeltas> lane_deltas;
  };
  std::unordered_map<const void*, SiteStats> sites_;  // nodes stay put
  // The loop sites looked up last (direct-mapped), before sites_.
  static constexpr size_t kSiteCache = 16;
  std::pair<const void*, SiteStats*> site_cache_[kSiteCache] = {};
  // L2 + Infinity Cache: LRU of 4 KiB blocks with the cycle each is ready.
  std::list<uint64_t> lru_;
  std::unordered_map<uint64_t, std::pair<std::list<uint64_t>::iterator, Cycle>> cache_;
  SharedLink hbm_link_, cache_link_;
  uint64_t hbm_bytes_ = 0, cache_hits_ = 0, cache_misses_ = 0;
  uint32_t gpu_track_ = 0;
  struct Lanes final : sim::LaneLoop {
    Gpu* gpu = nullptr;
    uint64_t begin(sim::Warp& w, const void* site, uint32_t visit) override {
      return gpu->lane_begin(w, site, visit);
    }
    void end(sim::Warp& w, const void* site) override { gpu->lane_end(w, site); }
  } lanes_;
};

}  // namespace sk::models::mi300x
