// gpu.cc: the MI300X device: launch and residency, waves, the lane-loop
// policy and lane batches, LDS bank conflicts, the memory timing model, the
// counters and the deadlock classifier (see gpu.h for the invariants).
#include "models/mi300x/gpu.h"

#include "engine/intervals.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <systemc>

#include "engine/source_loc.h"

namespace sk::models::mi300x {
namespace {
constexpr uint64_t kBlockShift = 12;  // cache blocks of 4 KiB
constexpr uint64_t kGlobalCounterKey = 1ull << 62;
}  // namespace

void DmaWrites::apply() {
  if (applied) return;
  applied = true;
  for (auto [p, v] : words) std::memcpy(p, &v, 4);
}

Gpu::Gpu(const Params& params, bool functional)
    : params_(params),
      functional_(functional),
      engine_owner_(std::make_unique<sim::Engine>()),
      engine_(*engine_owner_),
      gmem_(functional) {
  if (current_ != nullptr) throw std::logic_error("only one mi300x Gpu per process");
  current_ = this;
  engine_.set_deadlock_classifier([this](sim::Finding& f) { classify_deadlock(f); });
  lanes_.gpu = this;
  engine_.set_lane_loop(&lanes_);
}

Gpu::~Gpu() {
  engine_.set_lane_loop(nullptr);
  current_ = nullptr;
}

void Gpu::no_launch() {
  throw std::logic_error("mi300x intrinsic called outside a simulated launch");
}

void Gpu::not_in_kernel() { throw std::logic_error("mi300x intrinsic called outside kernel code"); }

std::string Gpu::launch(int grid, int waves_per_block, uint32_t lds_bytes,
                        const std::function<void()>& body) {
  if (grid < 1) return "launch: grid must have at least one workgroup";
  if (waves_per_block < 1 || waves_per_block > 16)
    return fmt::format("launch: {} waves per workgroup is outside [1, 16]", waves_per_block);
  if (lds_bytes > params_.lds_bytes) {
    sim::Finding f;
    f.cls = "resource";
    f.rule = "resource.lds_capacity";
    f.message = fmt::format("the kernel asks for {} bytes of LDS; a workgroup may use at most {} "
                            "on gfx942",
                            lds_bytes, params_.lds_bytes);
    engine_.report(std::move(f));
    return fmt::format("launch: {} bytes of LDS exceed the {} available per workgroup", lds_bytes,
                       params_.lds_bytes);
  }
  if (obs() != nullptr) obs()->launch(grid, waves_per_block, lds_bytes, 1);
  engine_.schedule().set_warps(waves_per_block);
  gpu_track_ = engine_.trace().track(-1, "GPU 0 (mi300x model)");
  body_ = body;
  waves_per_block_ = waves_per_block;
  lds_bytes_ = lds_bytes;
  wgs_.resize(static_cast<size_t>(grid));
  cus_.assign(static_cast<size_t>(params_.num_cus), CuSlot{});
  cu_stats_.assign(static_cast<size_t>(params_.num_cus), CuStats{});
  for (int c = 0; c < params_.num_cus; ++c) {
    cus_[c].simd_free.assign(static_cast<size_t>(params_.simds_per_cu), 0);
    cu_stats_[c].simd_busy.resize(static_cast<size_t>(params_.simds_per_cu));
  }
  next_pending_ = cus_used();
  for (int i = 0; i < next_pending_; ++i) start_wg(i, i);
  return "";
}

void Gpu::start_wg(int id, int cu) {
  auto& tr = engine_.trace();
  CuSlot& slot = cus_[cu];
  // 1024-byte aligned, as the device's dynamic LDS is at offset 0 with no
  // static LDS: kernels place structs with 1024-byte aligned tiles there.
  if (!slot.lds) slot.lds = std::shared_ptr<uint8_t[]>(new uint8_t[lds_bytes_ + 1024]);
  std::memset(slot.lds.get(), 0, lds_bytes_ + 1024);
  wgs_[id] = std::make_unique<Workgroup>();
  Workgroup& wg = *wgs_[id];
  wg.id = id;
  wg.cu = cu;
  wg.lds = reinterpret_cast<uint8_t*>((reinterpret_cast<uint64_t>(slot.lds.get()) + 1023) &
                                      ~uint64_t{1023});
  wg.lds_size = lds_bytes_;
  wg.waves = wg.alive = waves_per_block_;
  wg.wave.resize(static_cast<size_t>(waves_per_block_));
  wg.bar_done = std::make_unique<sc_core::sc_event>();
  const int rank = cu_stats_[cu].workgroups++;
  const bool traced = tr.enabled() && (trace_cus_.empty() || std::find(trace_cus_.begin(),
                                                                       trace_cus_.end(), cu) !=
                                                             trace_cus_.end());
  if (traced) {
    if (slot.track == 0) slot.track = tr.track(static_cast<int>(gpu_track_), fmt::format("CU {}", cu), cu);
    wg.track = tr.track(static_cast<int>(slot.track), fmt::format("workgroup {}", id), rank);
  }
  for (int w = 0; w < waves_per_block_; ++w) {
    sim::Warp& wave = engine_.spawn_warp(id, w, 64, [this, &wg, w, body = body_] {
      body();
      on_wave_exit(wg, w);
    });
    wave.traced = traced;
    if (wave.traced) wave.track = tr.track(static_cast<int>(wg.track), fmt::format("wave {}", w), w);
  }
}

void Gpu::trace_busy(const std::string& name, int rank, Cycle begin, Cycle end,
                     const std::string& what) {
  auto& tr = engine_.trace();
  if (!traces_current()) return;
  const uint32_t cu_track = cus_[wg_of_current().cu].track;
  tr.busy(tr.track(static_cast<int>(cu_track), name, rank), begin, end, what, 1);
}

void Gpu::on_wave_exit(Workgroup& wg, int wave) {
  // LDS DMAs no s_waitcnt vmcnt retired: their bytes may land after the
  // workgroup's LDS went to the next workgroup on the CU.
  uint32_t live = 0;
  const sim::Site* first = nullptr;
  for (const VmOp& op : wg.wave[wave].vm)
    if (op.dma) {
      ++live;
      if (first == nullptr) first = &op.site;
    }
  if (live > 0) {
    sim::Finding f;
    f.cls = "lds_dma";
    f.rule = "lds_dma.alive_at_exit";
    f.message = fmt::format(
        "wave {} of workgroup {} exited with {} LDS DMA load(s) that no s_waitcnt vmcnt retired; "
        "their bytes may land in LDS after it is given to the next workgroup on this CU: "
        "s_waitcnt vmcnt(0) before the wave exits",
        wave, wg.id, live);
    sim::locate(f, *first);
    f.cta = wg.id;
    f.warp = wave;
    engine_.report(std::move(f));
  }
  wg.wave[wave].exited = true;
  --wg.alive;
  // gfx942: a wave that ended no longer takes part in s_barrier.
  maybe_release_barrier(wg);
  if (wg.alive != 0) return;
  if (next_pending_ < grid()) {
    warp().sync();
    start_wg(next_pending_++, wg.cu);
  }
}

void Gpu::maybe_release_barrier(Workgroup& wg) {
  if (wg.bar_arrived == 0 || wg.bar_arrived < static_cast<uint32_t>(wg.alive)) return;
  wg.bar_arrived = 0;
  const Cycle at = std::max(wg.bar_release_at, engine_.now());
  wg.bar_release_at = 0;
  // Every live wave waits for the generation to change, so none arrives
  // again before the release.
  auto release = [this, &wg] {
    ++wg.bar_generation;
    if (obs() != nullptr) obs()->phase_complete(wg.id, 1ull << 41);
    wg.bar_done->notify(sc_core::SC_ZERO_TIME);
    engine_.note_sync();
  };
  if (at > engine_.now())
    engine_.at(at, release);
  else
    release();
}

sim::RunStatus Gpu::run(Cycle max_cycles) { return engine_.run(max_cycles); }

Cycle Gpu::end_cycle() const {
  Cycle end = 0;
  for (const auto& w : engine_.warps()) end = std::max(end, w->end_cycle());
  return end;
}

void CuStats::fold(Cycle h) {
  if (h <= folded_until) return;
  // Each list split at h: the part before goes into the sums, the part from
  // h on is kept. Every interval added later starts at or after h.
  auto split = [h](std::vector<sim::Interval>& v, std::vector<sim::Interval>& before) {
    size_t kept = 0;
    for (const auto& [b, e] : v) {
      if (b < h) before.emplace_back(b, std::min(e, h));
      if (e > h) v[kept++] = {std::max(b, h), e};
    }
    v.resize(kept);
  };
  std::vector<sim::Interval> any, loads;
  for (auto& simd : simd_busy) {
    std::vector<sim::Interval> before;
    split(simd, before);
    folded_simd_busy += sim::total(before);
    any.insert(any.end(), before.begin(), before.end());
  }
  split(dma_busy, loads);
  loads = sim::merged(std::move(loads));
  folded_dma += sim::total(loads);
  folded_covered += sim::intersection(loads, sim::merged(std::move(any)));
  folded_until = h;
}

Cycle CuStats::simd_busy_cycles() const {
  Cycle t = folded_simd_busy;
  for (const auto& simd : simd_busy) t += sim::total(simd);
  return t;
}

Cycle CuStats::dma_cycles() const { return folded_dma + sim::total(sim::merged(dma_busy)); }

Cycle CuStats::covered_cycles() const {
  std::vector<sim::Interval> any;
  for (const auto& simd : simd_busy) any.insert(any.end(), simd.begin(), simd.end());
  return folded_covered + sim::intersection(sim::merged(dma_busy), sim::merged(std::move(any)));
}

CuStats Gpu::totals() const {
  CuStats t;
  t.simd_busy.resize(static_cast<size_t>(params_.simds_per_cu));
  for (const CuStats& c : cu_stats_) {
    for (size_t s = 0; s < c.simd_busy.size(); ++s)
      t.simd_busy[s].insert(t.simd_busy[s].end(), c.simd_busy[s].begin(), c.simd_busy[s].end());
    t.folded_simd_busy += c.folded_simd_busy;
    t.mfma += c.mfma;
    t.mfma_flops += c.mfma_flops;
    t.lds_instructions += c.lds_instructions;
    t.lds_bank_conflict_cycles += c.lds_bank_conflict_cycles;
    t.global_bytes_loaded += c.global_bytes_loaded;
    t.global_bytes_stored += c.global_bytes_stored;
    t.atomics += c.atomics;
    t.workgroups += c.workgroups;
  }
  return t;
}

void Gpu::finding(const std::string& cls, const std::string& rule, const std::string& message,
                  const std::source_location& loc) {
  if (!reported_.emplace(std::make_pair(rule, sim::format_location(loc)), true).second) return;
  sim::Finding f;
  f.cls = cls;
  f.rule = rule;
  f.message = message;
  sim::locate(f, engine_.site_here(loc));
  engine_.report(std::move(f));
}

// --- lane loops and lane batches ---------------------------------------------

uint64_t Gpu::lane_begin(sim::Warp& w, const void* site, uint32_t visit) {
  const uint64_t active = w.active_mask();
  if (engine_.current() != &w || w.cta() >= grid() || !wgs_[w.cta()]) return active;
  WaveState& ws = wgs_[w.cta()]->wave[w.index()];
  ws.in_loop = true;
  ws.site = site;
  ws.sampled = functional_ || visit < 2;
  ws.batch_n = 0;
  ws.batch_lane = -1;
  ws.ordinal = 0;
  ws.loop_atomic = nullptr;
  ws.loop_atomic_lanes = 0;
  return ws.sampled ? active : active & (~active + 1);
}

LaneInstr* Gpu::lane_instr(LaneInstr::Kind kind, bool& first) {
  sim::Warp& w = warp();
  const int lane = w.current_lane();
  first = true;
  if (lane < 0) return nullptr;
  WaveState& ws = wave_state();
  if (lane != ws.batch_lane) {
    ws.batch_lane = lane;
    ws.ordinal = 0;
  }
  const size_t k = ws.ordinal++;
  if (k < ws.batch_n && ws.batch[k].kind == kind) {
    first = false;
    return &ws.batch[k];
  }
  if (k >= ws.batch_n) ws.batch_n = k + 1;
  if (k >= ws.batch.size()) ws.batch.resize(k + 1);
  ws.batch[k].reset(kind);
  return &ws.batch[k];
}

uint64_t Gpu::bank_conflict_cycles(const std::vector<std::pair<int, uint32_t>>& lanes,
                                   uint32_t bytes) const {
  if (lanes.empty() || bytes == 0) return 0;
  const uint32_t banks = params_.lds_banks;
  const int per_group = std::max<int>(1, static_cast<int>(banks * 4 / std::max<uint32_t>(bytes, 4)));
  uint64_t extra = 0;
  std::map<int, std::vector<std::set<uint32_t>>> groups;  // group -> per bank distinct dwords
  for (auto [lane, off] : lanes) {
    auto& g = groups[lane / per_group];
    if (g.empty()) g.resize(banks);
    for (uint32_t d = off / 4; d <= (off + bytes - 1) / 4; ++d) g[d % banks].insert(d);
  }
  for (auto& [gi, g] : groups) {
    size_t passes = 1;
    for (const auto& b : g) passes = std::max(passes, b.size());
    extra += passes - 1;
  }
  return extra;
}

void Gpu::charge_bank_conflicts(uint64_t extra) {
  if (extra == 0) return;
  Workgroup& wg = wg_of_current();
  const auto from = static_cast<Cycle>(cus_[wg.cu].lds_free + 0.999);
  cus_[wg.cu].lds_free += static_cast<double>(extra);
  if (traces_current()) trace_busy("LDS", kLdsTrackRank, from, from + extra, "bank conflicts");
  cu_stats_[wg.cu].lds_bank_conflict_cycles += extra;
  // The wave's outstanding LDS results arrive that much later.
  WaveState& ws = wave_state();
  for (Cycle& c : ws.lgkm) c += extra;
  if (ws.regs_ready > engine_.now()) ws.regs_ready += extra;
}

void Gpu::lane_end(sim::Warp& w, const void* site) {
  if (engine_.current() != &w || w.cta() >= grid() || !wgs_[w.cta()]) return;
  WaveState& ws = wgs_[w.cta()]->wave[w.index()];
  if (!ws.in_loop) return;
  // Lane calls and this end run at the wave's own time: nothing has retired
  // the loop's instructions yet, so their completions can still move.
  SiteStats* stats = nullptr;
  auto site_stats = [&]() -> SiteStats& {
    if (stats != nullptr) return *stats;
    auto& cached = site_cache_[(reinterpret_cast<uint64_t>(site) >> 2) % kSiteCache];
    if (cached.first != site) cached = {site, &sites_[site]};
    stats = cached.second;
    return *stats;
  };
  uint64_t extra = 0;
  int lds_instrs = 0;
  for (size_t k = 0; k < ws.batch_n; ++k) {
    const LaneInstr& in = ws.batch[k];
    if (in.kind != LaneInstr::kLds) continue;
    ++lds_instrs;
    // An unsampled visit ran one lane, which conflicts with no other: its
    // charge is the site's sampled mean below.
    if (ws.sampled) extra += bank_conflict_cycles(in.lds, in.bytes);
  }
  if (lds_instrs > 0) {
    SiteStats& s = site_stats();
    if (ws.sampled) {
      s.extra += static_cast<double>(extra);
      ++s.visits;
    } else if (s.visits > 0) {
      extra = static_cast<uint64_t>(s.extra / s.visits + 0.5);
    }
    charge_bank_conflicts(extra);
  }
  // The blocks the other lanes of each global instruction touch.
  for (size_t k = 0; k < ws.batch_n; ++k) {
    LaneInstr& in = ws.batch[k];
    if (in.kind == LaneInstr::kLds) continue;
    if (!in.addrs.empty()) {
      SiteStats& s = site_stats();
      if (s.lane_deltas.size() <= k) s.lane_deltas.resize(k + 1);
      lane_blocks(ws, in, s.lane_deltas[k]);
    }
    if (in.dma) engine_.at(in.done, [dma = in.dma] { dma->apply(); });
  }
  // Lanes of one loop that each added to the same pipeline counter.
  Counter* c = ws.loop_atomic;
  if (c != nullptr && ws.loop_atomic_lanes > 1 && c->arrivals_per_lap > 0 && !c->multi_reported) {
    c->multi_reported = true;
    finding("arrival_count", "counter.multi_lane_increment",
            fmt::format("{} lanes of wave {} each added to {}; a pipeline counter takes one "
                        "increment per wave (issue it under sk::elect_one())",
                        ws.loop_atomic_lanes, w.index(), c->name),
            w.location());
  }
  ws.loop_atomic = nullptr;
  ws.in_loop = false;
  for (size_t k = 0; k < ws.batch_n; ++k) ws.batch[k].dma.reset();
  ws.batch_n = 0;
  ws.batch_lane = -1;
  ws.ordinal = 0;
}

// --- memory timing ---------------------------------------------------------------

Cycle Gpu::lds_transfer(Cycle start, uint64_t bytes) {
  CuSlot& cu = cus_[wg_of_current().cu];
  const double begin = std::max(static_cast<double>(start), cu.lds_free);
  cu.lds_free = begin + std::max(1.0, static_cast<double>(bytes) / params_.lds_bytes_per_cycle);
  return static_cast<Cycle>(cu.lds_free + 0.999);
}

void Gpu::lane_blocks(WaveState& ws, LaneInstr& in, LaneDeltas& rec) {
  const uint64_t first = in.addrs.front();
  const uint64_t span = std::max<uint32_t>(in.bytes, 1) - 1;
  std::vector<int64_t>& deltas = rec.deltas;
  if (ws.sampled && deltas.empty()) {
    for (size_t i = 1; i < in.addrs.size(); ++i)
      deltas.push_back(static_cast<int64_t>(in.addrs[i] - first));
    std::vector<int64_t> lows = deltas;
    lows.push_back(0);
    rec.spans.clear();
    std::sort(lows.begin(), lows.end());
    for (int64_t lo : lows) {
      const int64_t hi = lo + static_cast<int64_t>(span);
      if (!rec.spans.empty() && lo <= rec.spans.back().second + 1)
        rec.spans.back().second = std::max(rec.spans.back().second, hi);
      else
        rec.spans.emplace_back(lo, hi);
    }
  }
  // Every block but the lowest lane's own, ascending and once each. Lanes
  // mostly run through consecutive addresses, so a block equal to the last
  // one noted is skipped before the sort.
  const uint64_t own = first >> kBlockShift;
  std::vector<uint64_t>& blocks = blocks_;
  blocks.clear();
  uint64_t last_noted = own;
  auto note = [&](uint64_t a) {
    const uint64_t end = (a + span) >> kBlockShift;
    for (uint64_t b = a >> kBlockShift; b <= end; ++b)
      if (b != own && b != last_noted) {
        blocks.push_back(b);
        last_noted = b;
      }
  };
  if (ws.sampled || rec.spans.empty()) {
    note(first);
    if (ws.sampled)
      for (size_t i = 1; i < in.addrs.size(); ++i) note(in.addrs[i]);
  } else {
    for (const auto& [lo, hi] : rec.spans) {
      const uint64_t end = (first + static_cast<uint64_t>(hi)) >> kBlockShift;
      for (uint64_t b = (first + static_cast<uint64_t>(lo)) >> kBlockShift; b <= end; ++b)
        if (b != own && b != last_noted) {
          blocks.push_back(b);
          last_noted = b;
        }
    }
  }
  if (blocks.size() > 1) {
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  }
  Cycle done = in.done;
  for (uint64_t b : blocks) done = std::max(done, block_access(in.after_vmem, b, 0, in.write));
  if (done == in.done) return;
  in.done = done;
  // The wave's VmOps are in issue order, their seq consecutive.
  if (!ws.vm.empty() && in.vm_seq >= ws.vm.front().seq &&
      in.vm_seq - ws.vm.front().seq < ws.vm.size()) {
    VmOp& op = ws.vm[in.vm_seq - ws.vm.front().seq];
    op.done = std::max(op.done, done);
  }
  if (!in.write && in.kind == LaneInstr::kGlobal) ws.regs_ready = std::max(ws.regs_ready, done);
  if (in.kind == LaneInstr::kDma) {
    auto& busy = cu_of_current().dma_busy;
    if (!busy.empty()) busy.back().second = std::max(busy.back().second, done);
  }
}

Cycle Gpu::global_access(Cycle start, uint64_t addr, uint64_t bytes, bool write,
                         double* after_vmem) {
  CuSlot& cu = cus_[wg_of_current().cu];
  const double t = cu.vmem.pass(static_cast<double>(start), bytes, params_.cu_vmem_bytes_per_cycle);
  if (after_vmem != nullptr) *after_vmem = t;
  return block_access(t, addr >> kBlockShift, bytes, write);
}

Cycle Gpu::block_access(double t, uint64_t block, uint64_t bytes, bool write) {
  auto it = cache_.find(block);
  if (it != cache_.end()) {
    ++cache_hits_;
    lru_.splice(lru_.begin(), lru_, it->second.first);
    const double ready = std::max(t + params_.cache_latency, static_cast<double>(it->second.second));
    return static_cast<Cycle>(cache_link_.pass(ready, bytes, params_.cache_bytes_per_cycle) + 0.999);
  }
  ++cache_misses_;
  // A miss moves the whole block from HBM (a store writes it back later:
  // counted now, as its bandwidth).
  const uint64_t moved = std::max<uint64_t>(bytes, uint64_t{1} << kBlockShift);
  hbm_bytes_ += moved;
  const Cycle done =
      static_cast<Cycle>(hbm_link_.pass(t, moved, params_.hbm_bytes_per_cycle) + 0.999) + params_.hbm_latency;
  const uint64_t capacity = params_.cache_bytes >> kBlockShift;
  if (capacity > 0) {
    while (cache_.size() >= capacity && !lru_.empty()) {
      cache_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(block);
    cache_.emplace(block, std::make_pair(lru_.begin(), write ? Cycle{0} : done));
  }
  return done;
}

Cycle Gpu::reserve_simd(int simd, Cycle start, Cycle cycles, double flops) {
  Workgroup& wg = wg_of_current();
  Cycle& free = cus_[wg.cu].simd_free[simd];
  const Cycle begin = std::max(start, free);
  free = begin + cycles;
  CuStats& st = cu_stats_[wg.cu];
  ++st.mfma;
  st.mfma_flops += flops;
  auto& busy = st.simd_busy[simd];
  if (!busy.empty() && busy.back().second == begin)
    busy.back().second = free;
  else
    busy.emplace_back(begin, free);
  st.maybe_fold(engine_.now());
  return begin;
}

// --- counters ------------------------------------------------------------------

Counter* Gpu::counter(const uint32_t* p, const std::source_location* loc) {
  Workgroup& wg = wg_of_current();
  auto& cached = wg.counter_cache[(reinterpret_cast<uint64_t>(p) >> 2) % Workgroup::kCounterCache];
  if (cached.first == p) return cached.second;
  Counter* c = find_counter(wg, p, loc);
  if (c != nullptr) cached = {p, c};
  return c;
}

Counter* Gpu::find_counter(Workgroup& wg, const uint32_t* p, const std::source_location* loc) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  const uint64_t addr = reinterpret_cast<uint64_t>(p);
  int block = -1;
  uint64_t key = 0;
  uint32_t* cell = nullptr;
  if (b >= wg.lds && b < wg.lds + wg.lds_size) {
    const uint64_t off = static_cast<uint64_t>(b - wg.lds);
    if (off % 4 == 0 && off + 4 <= wg.lds_size) {
      block = wg.id;
      key = off;
      cell = reinterpret_cast<uint32_t*>(wg.lds + off);
    }
  } else if (addr % 4 == 0 && gmem_.find(addr, 4) != nullptr) {
    key = kGlobalCounterKey | addr;
    if (functional_) cell = reinterpret_cast<uint32_t*>(gmem_.host(addr));
  }
  if (key == 0 && block < 0) {
    if (loc != nullptr)
      finding("atomic", "atomic.bad_address",
              "atomic on an address that is not a 4-byte aligned word of this workgroup's LDS or "
              "of a global allocation",
              *loc);
    return nullptr;
  }
  auto [it, fresh] = counters_.try_emplace(std::make_pair(block, key));
  Counter& c = it->second;
  if (fresh) {
    c.block = block;
    c.key = key;
    c.cell = cell;
    c.name = block >= 0 ? fmt::format("LDS counter {:#x}", key) : gmem_.describe(addr);
    c.changed = std::make_unique<sc_core::sc_event>();
  }
  return &c;
}

// The most specific explanation over every wave blocked on a counter: a lap
// left short, then a counter never incremented, then increments that stopped.
void Gpu::classify_deadlock(sim::Finding& f) {
  int best = 0;
  const Counter* why = nullptr;
  for (auto& wg : wgs_)
    for (size_t w = 0; wg && w < wg->wave.size(); ++w) {
      const Counter* c = wg->wave[w].waiting_on;
      if (c == nullptr) continue;
      const int score = c->arrivals_per_lap > 0 && c->since_lap % c->arrivals_per_lap != 0 ? 6
                        : c->increments == 0                         ? 4
                                                                     : 2;
      if (score > best) {
        best = score;
        why = c;
      }
    }
  if (why == nullptr) return;
  f.cls = best >= 6 ? "arrival_count" : "deadlock";
  f.rule = best >= 6   ? "counter.under_arrival"
           : best >= 4 ? "deadlock.never_arrived"
                       : "deadlock.arrivals_stopped";
  std::string cause;
  if (best >= 6)
    cause = fmt::format("{} got {} of {} increments of its lap: fewer waves release it than the "
                        "pipeline counts",
                        why->name, why->since_lap % why->arrivals_per_lap, why->arrivals_per_lap);
  else if (best >= 4)
    cause = fmt::format("{} was never incremented: no wave released it (a missing release, or a "
                        "wait on the wrong counter)",
                        why->name);
  else
    cause = fmt::format("{} stopped at {} (last increment by wave {}): the waves that increment "
                        "it are blocked or have exited",
                        why->name, why->value(), why->last_wave);
  f.message += "; likely cause: " + cause;
}

}  // namespace sk::models::mi300x
