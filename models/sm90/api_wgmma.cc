// api_wgmma.cc: wgmma (m64nNk16, BF16 operands in SMEM, FP32 accumulators in
// registers) and per-lane global stores in the model (PTX ISA 9.0 9.7.15).
//
// Function: each warp computes its 16 rows of the warpgroup's 64 x N result
// for its own lanes, reading A and B through the 128B-swizzled K-major
// layout the descriptors describe (kernels/arch/sm90/smem_desc.h), at issue:
// the stage cannot change before the op's group is waited for in a correct
// kernel, and in a wrong one the race detector sees the SMEM reads stay live
// until that wait. Timing, with wgmma_tensor_cores = 1: the op takes
// wgmma_ii_per_op + N * wgmma_ii_per_n cycles of the SM's one tensor core (a quarter per warp,
// in issue order); with 4, each of the SM's four sub-partitions has its own,
// and warp w's quarter of the op (its 16 rows) runs on sub-partition w % 4's
// for the whole interval (the four quarters in parallel: a
// warp that runs ahead of the others of its warpgroup gains nothing from
// their idle tensor cores). The op completes wgmma_latency_extra after it.
// With wgmma_warpgroup_op, an op is the warpgroup's, as the PTX instruction
// is (.sync.aligned): it starts once the last of the warpgroup's warps has
// issued it, takes the whole interval on the SM's tensor core, and completes
// for all four warps at once; a warp that waits for it before its siblings
// have issued it blocks until they have.
// With wgmma_interleave, the tensor core (the warp's sub-partition's with 4)
// serves the warpgroups' streams interleaved, so a warp waiting for its
// youngest group waits for all the work queued on it by then.
// With wgmma_queue_ops (and wgmma_warpgroup_op), the SM's tensor core
// queues that many ops, both warpgroups' together: a warp's issue of an op
// returns only once the op scheduled that many before it has ended its
// interval (plus wgmma_queue_release), so a warpgroup that issues a long
// group is held at its issue as on the board (hw/h200/wgmma_group.cu
// section wgmma_issue), and what it does after the issue (the attention
// kernel's arrive that lets the other warpgroup issue) waits with it.
// With wgmma_rest_ns, a warp's next wgmma.fence after a wait that waited for
// a group issues no earlier than that long after the wait returned (the
// consumer's own loop, measured apart: docs/hardware.md).
//
// Every op tells the launch's PhaseClock (phase_clock.h) how long its SM's
// tensor core has work, so the SM clock follows the tensor phase.
//
// Invariants: groups complete in commit order; a warp's open group collects
// its ops until commit_group; wait_group(n) leaves at most n groups pending.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/common/element_types.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/tensor_map.h"
#include "models/sm90/api.h"
#include "models/sm90/lockstep.h"
#include "models/sm90/params.h"
#include "models/sm100/phase_clock.h"
#include "models/sm90/write_path.h"

namespace sk::models::sm90::api {
namespace {
using sm100::Cta;
using sm100::api::gpu;
using sm100::api::issue;
using sm100::api::issue_local;
using sm100::api::local_now;
using sim::Cycle;

const std::string kWaitGroup = "wgmma.wait_group";
const std::string kQueueFull = "wgmma.mma_async (the SM's wgmma queue is full)";

struct Group {
  Cycle done = 0;
  int n = 0;  // the widest op's N
  std::vector<sim::OpId> ops;
  int mmas = 0;      // wgmma.mma_async issued into the group
  sim::Site first;   // where the first was issued
  // With wgmma_warpgroup_op: the warpgroup's ops [seq_first, seq_end) (by
  // their number in the warpgroup's stream), whose completion is the group's.
  uint64_t seq_first = 0, seq_end = 0;
};
struct WarpGroups {
  Group open;
  std::deque<Group> committed;
  // A wgmma.fence since the warp's last wgmma.wait_group (or its start):
  // waiting for a group is done to use its registers, and a register access
  // followed by a wgmma on them needs a fence (PTX ISA 9.7.15.5.2).
  bool fenced = false;
  bool fence_reported = false;  // one wgmma.missing_fence per warp
  bool waited = false;          // a wgmma.wait_group has run
  uint64_t seq = 0;             // with wgmma_warpgroup_op: this warp's next op's number
  // With wgmma_rest_ns: the warp's own time before which its next
  // wgmma.fence cannot issue (0: none).
  sim::Cycle rest_until = 0;
};
// Per warp, by CTA and warp index (the Gpu is one per process, and so is
// this table); a warp's entry is made on its first lookup and stays put
// until reset().
constexpr size_t kWarpsPerCtaMax = 32;  // 1,024 threads: Gpu::launch refuses more
std::vector<std::unique_ptr<WarpGroups>>& groups() {
  static std::vector<std::unique_ptr<WarpGroups>> g;
  return g;
}
size_t slot_of(int cta, size_t warp) { return static_cast<size_t>(cta) * kWarpsPerCtaMax + warp; }
size_t slot_of(const sim::Warp& w) { return slot_of(w.cta(), static_cast<size_t>(w.index())); }
// The warp's groups, or null before its first wgmma operation.
WarpGroups* find_groups(const sim::Warp& w) {
  const size_t i = slot_of(w);
  return i < groups().size() ? groups()[i].get() : nullptr;
}

// The last warp looked up and its groups: a warp issues a k-block's wgmmas,
// fence, commit and wait back to back, so most lookups repeat the last one.
struct LastGroups {
  const sim::Warp* warp = nullptr;
  WarpGroups* groups = nullptr;
};
LastGroups& last_groups() {
  static LastGroups l;
  return l;
}
WarpGroups& groups_of(const sim::Warp& w) {
  LastGroups& l = last_groups();
  if (l.warp == &w) return *l.groups;
  const size_t i = slot_of(w);
  auto& g = groups();
  if (i >= g.size()) g.resize(i + 1);
  if (!g[i]) g[i] = std::make_unique<WarpGroups>();
  l = {&w, g[i].get()};
  return *l.groups;
}

// With wgmma_warpgroup_op, a warpgroup's ops in issue order: op k of the
// stream is each of its warps' k-th wgmma.mma_async. It is scheduled on the
// tensor core when the last of the warpgroup's warps has issued it; a warp
// that waits for it before then blocks on `scheduled`. Ops leave the front
// once every warp has waited for them.
struct WgOp {
  int issued = 0;   // warps of the warpgroup that issued it
  int retired = 0;  // warps whose wait_group covered it
  Cycle latest = 0; // the latest of their issue times
  Cycle done = 0;   // once scheduled (issued == members)
  int n = 0;
  bool rs = false;
  uint64_t position = 0;  // with wgmma_queue_ops: its number among the SM's scheduled ops
};
struct WarpgroupOps {
  int members = 4;    // the warpgroup's warps in its CTA
  uint64_t base = 0;  // the number of ops.front()
  std::deque<WgOp> ops;
  std::unique_ptr<sc_core::sc_event> scheduled = std::make_unique<sc_core::sc_event>();
  WgOp& at(uint64_t seq) {
    while (base + ops.size() <= seq) ops.emplace_back();
    return ops[seq - base];
  }
};
// With wgmma_queue_ops: the interval ends of the last kWgmmaQueueMax ops
// scheduled on a CTA's SM (ascending: the SM's tensor core takes them in
// order), by CTA id; cleared by reset().
struct OpQueue {
  std::array<Cycle, kWgmmaQueueMax> ends{};
  uint64_t scheduled = 0;  // ops scheduled so far
};
std::unordered_map<uint32_t, OpQueue>& op_queues() {
  static std::unordered_map<uint32_t, OpQueue> t;
  return t;
}

// By CTA and warpgroup (warp index / 4); cleared by reset() with groups().
std::unordered_map<uint64_t, WarpgroupOps>& wg_ops() {
  static std::unordered_map<uint64_t, WarpgroupOps> t;
  return t;
}
WarpgroupOps& wg_ops_of(const Cta& cta, const sim::Warp& w) {
  const uint64_t key = static_cast<uint64_t>(cta.id) << 8 | static_cast<uint64_t>(w.index() / 4);
  auto [it, fresh] = wg_ops().try_emplace(key);
  if (fresh) it->second.members = std::min(4, cta.warps - w.index() / 4 * 4);
  return it->second;
}

// The wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
// Format" of warpgroup-level MMA), decoded from the bits on the model's side:
// start address [13:0], leading byte offset [29:16] and stride byte offset
// [45:32] in 16-byte units, layout type (swizzle mode) [63:62] (1: 128B, 2:
// 64B, 3: 32B, 0: none).
struct SmemDesc {
  uint32_t start = 0, lead = 0, stride = 0, swizzle = 0;
};
SmemDesc decode_desc(uint64_t d) {
  return SmemDesc{static_cast<uint32_t>(d & 0x3FFF) << 4,
                  static_cast<uint32_t>((d >> 16) & 0x3FFF) << 4,
                  static_cast<uint32_t>((d >> 32) & 0x3FFF) << 4, static_cast<uint32_t>(d >> 62)};
}

float element_value(uint16_t bits, bool f16) { return f16 ? fp16_to_float(bits) : bf16_to_float(bits); }

float smem_element(const Cta& cta, uint32_t offset, bool f16) {
  if (offset + 2 > cta.smem_size) return 0.0f;
  uint16_t bits;
  std::memcpy(&bits, cta.smem + offset, 2);
  return element_value(bits, f16);
}

// Byte offset of element (row, k) of a 128B-swizzled operand: K-major, rows
// of 64 K elements (128 bytes) from `start`; MN-major (the canonical layout
// ((8,n),(8,k)) : ((1,LBO),(8,SBO)) in 16-byte units), 64 rows (M or N) per
// 128-byte K row, K rows 128 bytes apart, 8-row K groups SBO apart, 64-row
// blocks LBO apart.
uint32_t element(const SmemDesc& d, bool mn_major, uint32_t row, uint32_t k) {
  const uint32_t linear =
      mn_major ? d.start + row / 64 * d.lead + k / 8 * d.stride + k % 8 * 128 + row % 64 * 2
               : d.start + row * 128 + 2 * k;
  return sm100::swizzled_offset(linear, sm100::Swizzle::k128B);
}

// The 128-byte SMEM rows an operand of `rows` rows (from `first`) reads: its
// rows (K-major; the swizzle permutes within a row, the start carries the K
// step) or its 16 K rows in each 64-row block (MN-major).
std::vector<sim::Range> operand_rows(const SmemDesc& d, bool mn_major, uint32_t first,
                                     uint32_t rows) {
  std::vector<sim::Range> r;
  if (!mn_major) {
    const uint64_t a0 = d.start / 128 * 128 + uint64_t{first} * 128;
    r.push_back(sim::Range{a0, a0 + uint64_t{rows} * 128});
    return r;
  }
  for (uint32_t block = first / 64; block <= (first + rows - 1) / 64; ++block)
    for (uint32_t k = 0; k < 16; ++k) {
      const uint64_t at = (d.start + block * d.lead + k / 8 * d.stride + k % 8 * 128) / 128 * 128;
      r.push_back(sim::Range{at, at + 128});
    }
  return r;
}

// The last byte (exclusive) an operand of `rows` rows reads.
uint32_t operand_end(const SmemDesc& d, bool mn_major, uint32_t rows) {
  return mn_major ? d.start / 128 * 128 + (rows - 1) / 64 * d.lead + d.stride + 8 * 128
                  : d.start / 128 * 128 + rows * 128;
}
}  // namespace

WritePath& write_path() {
  static WritePath p;
  return p;
}

// Whole-sector stores' paths: each SM's own, nothing shared between SMs.
WritePath& write_path_v4() {
  static WritePath p;
  return p;
}

namespace {
// Forgets `path`'s jobs for a new launch; its rates come from `rates`, its
// completions from the engine's calendar.
void reset_path(WritePath& path, std::function<WritePath::Rates()> rates) {
  path.reset(std::move(rates), [&path](uint64_t at, uint64_t generation) {
    gpu().engine().at(at, [&path, generation] { path.on_event(gpu().engine().now(), generation); });
  });
}
}  // namespace

namespace {
// A warp that exits with warpgroup MMAs it never waited for
// (wgmma.wait_group): they may still read its CTA's shared memory and write
// registers of a warp that no longer exists.
void check_groups_at_exit(Cta& cta, const sim::Warp& w) {
  const WarpGroups* found = find_groups(w);
  if (found == nullptr) return;
  const WarpGroups& wg = *found;
  int mmas = wg.open.mmas;
  const sim::Site* first = wg.open.mmas > 0 ? &wg.open.first : nullptr;
  for (const Group& g : wg.committed) {
    mmas += g.mmas;
    if (first == nullptr && g.mmas > 0) first = &g.first;
  }
  if (mmas == 0) return;
  sim::Finding f;
  f.cls = "commit_group";
  f.rule = "wgmma.alive_at_exit";
  f.message = fmt::format(
      "warp {} of CTA {} exited with {} wgmma.mma_async it never waited for{} (they may still "
      "read shared memory and write its accumulators): wgmma.wait_group 0 before the warp exits",
      w.index(), cta.id, mmas, wg.open.mmas > 0 ? " (some never committed)" : "");
  sim::locate(f, *first);
  f.cta = cta.id;
  f.warp = w.index();
  gpu().engine().report(std::move(f));
}
}  // namespace

namespace {
// The SM's tensor core loses `lost` cycles from `at` on (tensor_under_fp32,
// models/sm100/api_alu.cc): its next free cycle, the queue's interval ends
// and the completion of every op and group on it not yet complete by `at`
// move by that much.
void delay_tensor_core(Cta& cta, Cycle at, Cycle lost) {
  if (cta.tc_free > at) cta.tc_free += lost;
  for (Cycle& q : cta.tc_quarter_free)
    if (q > at) q += lost;
  auto later = [at, lost](Cycle& done) {
    if (done > at) done += lost;
  };
  for (size_t w = 0; w < kWarpsPerCtaMax; ++w) {
    const size_t i = slot_of(cta.id, w);
    if (i >= groups().size()) break;
    if (WarpGroups* g = groups()[i].get()) {
      later(g->open.done);
      for (Group& c : g->committed) later(c.done);
    }
  }
  if (auto q = op_queues().find(cta.id); q != op_queues().end())
    for (Cycle& end : q->second.ends) later(end);
  for (uint64_t wg = 0; wg < kWarpsPerCtaMax / 4; ++wg) {
    auto it = wg_ops().find(static_cast<uint64_t>(cta.id) << 8 | wg);
    if (it == wg_ops().end()) continue;
    for (WgOp& op : it->second.ops)
      if (op.issued == it->second.members) later(op.done);
  }
}
}  // namespace

void reset() {
  reset_lockstep();
  groups().clear();
  wg_ops().clear();
  op_queues().clear();
  last_groups() = {};
  gpu().set_warp_exit_hook(check_groups_at_exit);
  gpu().set_tensor_lost_hook(delay_tensor_core);
  phase_clock().stop();
  reset_path(write_path(), [] {
    const Extras& x = extras();
    return WritePath::Rates{x.store_bytes_per_cycle, gpu().params().gpu_store_bytes_per_cycle,
                            x.store_series_bytes_per_cycle, x.gpc_store_bytes_per_cycle, &x.sm_gpc,
                            &x.store_first};
  });
  reset_path(write_path_v4(), [] { return WritePath::Rates{extras().store_v4_bytes_per_cycle, 0, 0}; });
}

namespace {
// How much longer an op on `cta`'s SM takes while warps of the SM store: the
// bytes of their stream it waits out (wgmma_store_bytes) at the rate they
// leave (the tensor core's operand reads share the SM's path with the
// stores; measured apart, hw/h200/mma_beside_stores.cu); 0 when none store.
double store_stretch(const Extras& x, const Cta& cta) {
  if (x.wgmma_store_bytes <= 0) return 0;
  const double rate = write_path().storing_rate(cta.sm) + write_path_v4().storing_rate(cta.sm);
  return rate > 0 ? x.wgmma_store_bytes / rate : 0;
}

// `ii` cycles of tensor-core work from `ready` on the tensor core whose next
// free cycle is `free` (the SM's, or a sub-partition's): returns its start.
// The SM's tc_free, busy intervals and phase clock follow.
Cycle occupy_tensor_core(Cta& cta, Cycle& free, Cycle ready, Cycle ii) {
  const Cycle start =
      std::max(ready, free) + gpu().engine().schedule().agent_delay(sim::Agent::kTensorCore, ii);
  free = start + ii;
  cta.tc_free = std::max(cta.tc_free, free);
  sm100::note_busy(cta.tc_busy, start, start + ii);
  phase_clock().tensor_work(cta.tc_free);
  return start;
}

// An op's completion after its interval ends (an RS op's is shorter).
Cycle completion_latency(const Extras& x, bool rs) {
  return x.wgmma_latency_extra - (rs ? x.wgmma_rs_latency_saving : 0);
}

// The op's slice on the CTA's tensor-core track, closing the warp's flow
// (name() builds its label, only for a traced CTA).
template <class Name>
void trace_op(Cta& cta, sim::Warp& w, Cycle start, Cycle end, Name&& name) {
  if (cta.traced)
    gpu().engine().trace().slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), start,
                                                 end, name(), {}, 0, w.take_flow()});
}

// An m64nNk16 op's interval on the SM's tensor core, before rounding: a
// fixed part and one per column (models/sm90/params.json, wgmma_ii_per_op).
double op_interval(const Extras& x, int n) { return x.wgmma_ii_per_op + n * x.wgmma_ii_per_n; }

// With wgmma_warpgroup_op: the warpgroup's op `op`, issued now by the last
// of its warps, on the SM's tensor core: from the latest issue on, the op's
// whole interval, done completion_latency after. The four sub-partitions'
// tensor cores work on it together.
void schedule_op(Cta& cta, WarpgroupOps& g, WgOp& op, sim::Warp& w) {
  const Extras& x = extras();
  const Cycle whole = static_cast<Cycle>(op_interval(x, op.n) + store_stretch(x, cta) + 0.5);
  const Cycle start = occupy_tensor_core(cta, cta.tc_free, op.latest, whole);
  for (Cycle& q : cta.tc_quarter_free) q = cta.tc_free;
  if (x.wgmma_queue_ops > 0) {
    OpQueue& q = op_queues()[cta.id];
    op.position = q.scheduled;
    q.ends[q.scheduled++ % kWgmmaQueueMax] = start + whole;
  }
  op.done = start + whole + completion_latency(x, op.rs);
  trace_op(cta, w, start, start + whole, [&] {
    return fmt::format("wgmma m64n{}k16{} wg{}", op.n, op.rs ? " RS" : "", w.index() / 4);
  });
  g.scheduled->notify(sc_core::SC_ZERO_TIME);
}

// An op's operands as its descriptors describe them (an RS op's A is not
// in SMEM: a stands in as a valid K-major descriptor that reads nothing),
// and the rule they break, or null when the model can read them.
struct Operands {
  SmemDesc a, b;
  const char* problem = nullptr;  // wgmma.bad_descriptor or wgmma.operand_out_of_range
  const char* message = nullptr;  // the finding's text for it
};
Operands decode_operands(const Cta& cta, uint64_t desc_a, bool rs, uint64_t desc_b, int n, bool tnsp_a,
                         bool tnsp_b) {
  Operands o{rs ? SmemDesc{0, 0, 1024, 1} : decode_desc(desc_a), decode_desc(desc_b)};
  const SmemDesc &a = o.a, &b = o.b;
  // MN-major operands wider than 64 rows need the block stride (LBO).
  if (a.swizzle != 1 || b.swizzle != 1 || a.stride != 1024 || b.stride != 1024 ||
      (tnsp_b && n > 64 && b.lead == 0)) {
    o.problem = "wgmma.bad_descriptor";
    o.message =
        "wgmma descriptor is not a 128B-swizzle layout the model supports (K-major or MN-major "
        "with 8-row groups 1024 bytes apart, and for an MN-major operand of more than 64 rows a "
        "nonzero leading byte offset)";
  } else if ((!rs && operand_end(a, tnsp_a, 64) > cta.smem_size) ||
             operand_end(b, tnsp_b, static_cast<uint32_t>(n)) > cta.smem_size) {
    o.problem = "wgmma.operand_out_of_range";
    o.message = "wgmma operand described by a descriptor lies outside shared memory";
  }
  return o;
}

// Function: warp quarter `quarter`'s 16 rows of the op's product into its
// lanes' accumulators (acc: 32 lanes x regs floats).
void compute_quarter(const Cta& cta, float* acc, int regs, const SmemDesc& a, const uint32_t* a_regs,
                     const SmemDesc& b, uint32_t quarter, bool accumulate, bool f16, bool tnsp_a,
                     bool tnsp_b) {
  const int n = 2 * regs;
  const bool rs = a_regs != nullptr;
  // This warp's 16 rows of A and the op's n rows of B, decoded once (the
  // products and their order are those of decoding each pair).
  float av[16][16];
  std::vector<float> bv(static_cast<size_t>(n) * 16);
  if (rs) {
    // Lane l's register r holds row l/4 (+8 for r = 1, 3), columns
    // 2(l%4) (+8 for r = 2, 3) and the next, the lower in the low half.
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t r = 0; r < 4; ++r)
        for (uint32_t e = 0; e < 2; ++e) {
          const uint16_t bits = static_cast<uint16_t>(a_regs[l * 4 + r] >> (16 * e));
          av[l / 4 + 8 * (r & 1)][2 * (l % 4) + 8 * (r >> 1) + e] = element_value(bits, f16);
        }
  } else {
    for (uint32_t row = 0; row < 16; ++row)
      for (uint32_t k = 0; k < 16; ++k)
        av[row][k] = smem_element(cta, element(a, tnsp_a, 16 * quarter + row, k), f16);
  }
  for (uint32_t col = 0; col < static_cast<uint32_t>(n); ++col)
    for (uint32_t k = 0; k < 16; ++k)
      bv[col * 16 + k] = smem_element(cta, element(b, tnsp_b, col, k), f16);
  for (uint32_t l = 0; l < 32; ++l) {
    float* r = acc + static_cast<size_t>(l) * regs;
    for (int j = 0; j < n / 8; ++j)
      for (int h = 0; h < 2; ++h)
        for (int e = 0; e < 2; ++e) {
          const uint32_t row = l / 4 + 8 * h;  // within this warp's 16
          const uint32_t col = 8 * j + 2 * (l % 4) + e;
          float sum = 0.0f;
          for (uint32_t k = 0; k < 16; ++k) sum += av[row][k] * bv[col * 16 + k];
          float& d = r[4 * j + 2 * h + e];
          d = accumulate ? d + sum : sum;
        }
  }
}

// A lockstep follower's rows of an op in a functional run (models/sm90/
// lockstep.h): the leader checked the descriptors and issued the op.
void follower_quarter(float* acc, int regs, uint64_t desc_a, const uint32_t* a_regs, uint64_t desc_b,
                      bool accumulate, bool f16, bool tnsp_a, bool tnsp_b) {
  const Cta& cta = gpu().cta_of_current();
  const Operands o = decode_operands(cta, desc_a, a_regs != nullptr, desc_b, 2 * regs, tnsp_a, tnsp_b);
  if (o.problem != nullptr) return;  // the leader reported it
  const auto quarter = static_cast<uint32_t>(gpu().warp().index()) % 4;
  compute_quarter(cta, acc, regs, o.a, a_regs, o.b, quarter, accumulate, f16, tnsp_a, tnsp_b);
}

// One m64nNk16 op of this warp's quarter: A from SMEM (desc_a) or, when
// a_regs is set, from the 32 lanes' registers.
void wgmma_op(float* acc, int regs, uint64_t desc_a, const uint32_t* a_regs, uint64_t desc_b,
              bool accumulate, const Loc& loc, bool f16, bool tnsp_a, bool tnsp_b) {
  if (sm100::api::skip_in_lockstep(gpu().warp(), loc)) {
    // A lockstep follower: its leader issued the op for it; a functional
    // run still computes its rows.
    if (gpu().functional()) follower_quarter(acc, regs, desc_a, a_regs, desc_b, accumulate, f16, tnsp_a, tnsp_b);
    return;
  }
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  const int n = 2 * regs;
  const bool rs = a_regs != nullptr;
  const Operands o = decode_operands(cta, desc_a, rs, desc_b, n, tnsp_a, tnsp_b);
  const SmemDesc &a = o.a, &b = o.b;
  if (o.problem != nullptr) {
    gpu().finding("wgmma", o.problem, o.message, loc);
    return;
  }
  const uint32_t quarter = static_cast<uint32_t>(w.index()) % 4;
  WarpGroups& wg = groups_of(w);
  if (!wg.fenced && !wg.fence_reported) {
    wg.fence_reported = true;
    gpu().finding("wgmma", "wgmma.missing_fence",
                  fmt::format("warp {} issues wgmma.mma_async without a wgmma.fence since {}: the "
                              "fence must come before the first wgmma of a warpgroup and between "
                              "any access to the accumulator registers (after a wait_group) and "
                              "the next wgmma on them",
                              w.index(), wg.waited ? "its last wgmma.wait_group" : "its start"),
                  loc);
  }
  if (gpu().functional())
    compute_quarter(cta, acc, regs, a, a_regs, b, quarter, accumulate, f16, tnsp_a, tnsp_b);
  if (sim::Observer* obs = gpu().obs()) {
    const sim::OpId op = obs->issue_async(w, "wgmma");
    // This warp's 16 rows of A (from SMEM) and all N rows of B, as whole
    // 128-byte rows.
    if (!rs) {
      const std::vector<sim::Range> ra = operand_rows(a, tnsp_a, 16 * quarter, 16);
      obs->access(w, op, sim::Space::kSmem, ra, false, sim::Proxy::kAsync, "wgmma (A)", loc);
    }
    const std::vector<sim::Range> rb = operand_rows(b, tnsp_b, 0, static_cast<uint32_t>(n));
    obs->access(w, op, sim::Space::kSmem, rb, false, sim::Proxy::kAsync, "wgmma (B)", loc);
    wg.open.ops.push_back(op);
  }
  const Extras& x = extras();
  wg.open.n = std::max(wg.open.n, n);
  const bool first_in_group = wg.open.mmas++ == 0;
  if (first_in_group) wg.open.first = gpu().engine().site_here(loc);
  if (x.wgmma_warpgroup_op) {
    WarpgroupOps& g = wg_ops_of(cta, w);
    const uint64_t seq = wg.seq++;
    if (first_in_group) wg.open.seq_first = seq;
    wg.open.seq_end = seq + 1;
    if (x.wgmma_queue_ops > 0 && seq >= x.wgmma_queue_ops) {
      // The SM's queue is full: the issue returns once the op scheduled
      // wgmma_queue_ops before this one has left it. A warp that runs ahead
      // of its warpgroup first waits until the warpgroup's op that many
      // back has been issued by all four warps (scheduled), as the issue
      // on the board waits for the queue that op is in.
      const uint64_t back = seq - x.wgmma_queue_ops;
      if (back >= g.base && g.at(back).issued < g.members)
        w.block_until(
            *g.scheduled, [&g, back] { return back < g.base || g.at(back).issued >= g.members; },
            [&w, back] {
              return fmt::format("wgmma.mma_async: warp {} waits for room in its SM's wgmma queue, behind its "
                                 "warpgroup's op number {} (issued by all four of its warps first)",
                                 w.index(), back);
            },
            kQueueFull);
      // The op wgmma_queue_ops ahead of this one on the SM: every op
      // scheduled by now is ahead of it, and so are the warpgroup's own ops
      // after `back`.
      const OpQueue& q = op_queues()[cta.id];
      uint64_t ahead = q.scheduled - std::min<uint64_t>(q.scheduled, x.wgmma_queue_ops);
      if (back >= g.base) ahead = std::max(ahead, g.at(back).position);
      if (q.scheduled >= x.wgmma_queue_ops) {
        const Cycle room = q.ends[ahead % kWgmmaQueueMax] + x.wgmma_queue_release;
        const Cycle now = local_now(w);
        if (room > now) w.stall_local(room - now, kQueueFull);
      }
    }
    WgOp& op = g.at(seq);
    op.latest = std::max(op.latest, local_now(w));
    op.n = std::max(op.n, n);
    op.rs = op.rs || rs;
    op.issued += w.acts_for();  // a lockstep leader issues for its followers too
    if (op.issued == g.members) schedule_op(cta, g, op, w);
    return;
  }
  // The quarter's interval: on the SM's one tensor core a quarter of the
  // op's (split so that the four sum to it exactly: rounding each alone made
  // an N = 256 op 132 cycles and an N = 128 op 64, against 130 and 65), on
  // its sub-partition's the whole of it; longer while the SM stores.
  // A lockstep leader issues the op's four quarters, its own first, and its
  // group completes with the last of them (models/sm90/lockstep.h).
  const Cycle whole = static_cast<Cycle>(op_interval(x, n) + store_stretch(x, cta) + 0.5);
  const bool per_partition = x.wgmma_tensor_cores == 4;
  for (uint32_t q = quarter; q < quarter + static_cast<uint32_t>(w.acts_for()); ++q) {
    const Cycle ii = per_partition ? whole : whole * (q + 1) / 4 - whole * q / 4;
    const Cycle start = occupy_tensor_core(
        cta, per_partition ? cta.tc_quarter_free[q] : cta.tc_free, local_now(w), ii);
    wg.open.done = std::max(wg.open.done, start + whole + completion_latency(x, rs));
    trace_op(cta, w, start, start + ii,
             [&] { return fmt::format("wgmma m64n{}k16{} q{}", n, rs ? " RS" : "", q); });
  }
}

}  // namespace

void follow_wgmma_stream(const sim::Warp& follower, const sim::Warp& leader) {
  const WarpGroups* l = find_groups(leader);
  if (l != nullptr) groups_of(follower).seq = l->seq;
}

void wgmma_mma(float* acc, int regs, uint64_t desc_a, uint64_t desc_b, bool accumulate,
               const Loc& loc, bool f16, bool tnsp_a, bool tnsp_b) {
  wgmma_op(acc, regs, desc_a, nullptr, desc_b, accumulate, loc, f16, tnsp_a, tnsp_b);
}

void wgmma_mma_rs(float* acc, int regs, const uint32_t* a_regs, uint64_t desc_b, bool accumulate,
                  const Loc& loc, bool f16, bool tnsp_b) {
  wgmma_op(acc, regs, 0, a_regs, desc_b, accumulate, loc, f16, false, tnsp_b);
}

void wgmma_fence(const Loc& loc) {
  if (sm100::api::skip_in_lockstep(gpu().warp(), loc)) return;
  // Synced: the group's ops go onto the SM's tensor core, which both
  // warpgroups share, in issue order, so a warp must not enqueue them at its
  // own time while warps behind it in time have not run yet (after an arrive
  // taken ahead, mbar::arrive_ahead, a warp's clock can lead by a group).
  sim::Warp& w = issue(loc);
  WarpGroups& wg = groups_of(w);
  wg.fenced = true;
  // The rest after the warp's last waited group (wgmma_rest_ns) runs from
  // the wait's return: what the warp did since (its release, the next
  // stage's acquire, blocked or not) covers it, and only what is left
  // stalls the fence.
  if (wg.rest_until > 0) {
    const Cycle now = local_now(w);
    if (wg.rest_until > now) w.stall_local(wg.rest_until - now, "wgmma.fence");
  }
  wg.rest_until = 0;
}

void wgmma_commit_group(const Loc& loc) {
  if (sm100::api::skip_in_lockstep(gpu().warp(), loc)) return;
  sim::Warp& w = issue_local(loc);
  WarpGroups& wg = groups_of(w);
  wg.committed.push_back(std::move(wg.open));
  wg.open = Group{};
}


void wgmma_wait_group(int n, const Loc& loc) {
  // The wait syncs first (the tensor core's queue it reads is written by the
  // other warps' issues up to now) and then waits out its groups without a
  // context switch: the stall is added to the warp's unpaid cost, which the
  // next operation that touches shared state (the stage's release) pays.
  if (sm100::api::skip_in_lockstep(gpu().warp(), loc)) return;
  sim::Warp& w = issue(loc);
  WarpGroups& wg = groups_of(w);
  Cta& cta = gpu().cta_of_current();
  const Extras& x = extras();
  // The wait's own issue slot comes after the completion it waits for (as
  // when the stall was slept): `now` is the warp's time before that slot
  // until the warp has stalled.
  Cycle slot = w.pending();
  while (wg.committed.size() > static_cast<size_t>(n)) {
    Group& g = wg.committed.front();
    if (x.wgmma_warpgroup_op && g.mmas > 0) {
      // The group completes with its warpgroup ops, each scheduled once the
      // last of the warpgroup's warps has issued it: wait for that first.
      WarpgroupOps& ops = wg_ops_of(cta, w);
      for (uint64_t k = g.seq_first; k < g.seq_end; ++k) {
        if (ops.at(k).issued < ops.members) {
          w.block_until(
              *ops.scheduled, [&ops, k] { return ops.at(k).issued >= ops.members; },
              [&w, k] {
                return fmt::format("wgmma.wait_group: warp {} waits for the other warps of its warpgroup to "
                                   "issue their wgmma.mma_async number {} (a warpgroup's wgmma is issued by "
                                   "all four of its warps)",
                                   w.index(), k);
              },
              kWaitGroup);
          slot = 0;
        }
        WgOp& op = ops.at(k);
        g.done = std::max(g.done, op.done);
        op.retired += w.acts_for();
      }
      while (!ops.ops.empty() && ops.ops.front().retired >= ops.members) {
        ops.ops.pop_front();
        ++ops.base;
      }
    }
    const Cycle now = local_now(w) - slot;
    Cycle queued = cta.tc_free;
    if (x.wgmma_tensor_cores == 4 && !x.wgmma_warpgroup_op) {
      // The warp's sub-partition's queue (a lockstep leader's: its followers' too).
      queued = 0;
      for (int i = 0; i < w.acts_for(); ++i)
        queued = std::max(queued, cta.tc_quarter_free[(w.index() + i) % 4]);
    }
    if (x.wgmma_interleave && wg.committed.size() == 1 && queued > now)
      g.done = std::max(g.done, queued + x.wgmma_latency_extra +
                                    static_cast<Cycle>(x.wgmma_drain_per_n * g.n + 0.5));
    if (g.done > now) {
      w.stall_local(g.done - now, kWaitGroup);
      slot = 0;
    }
    if (x.wgmma_rest_ns > 0 && g.mmas > 0) {
      // The rest runs from the group's completion; the tensor core's work
      // queued past it (the other warpgroup's ops issued by now) stretches
      // the part it overlaps.
      const Cycle rest = static_cast<Cycle>(x.wgmma_rest_ns * gpu().sm_clock().ghz() + 0.5);
      const Cycle busy = queued > g.done ? std::min(rest, queued - g.done) : 0;
      wg.rest_until = local_now(w) - slot + rest +
                      static_cast<Cycle>(x.wgmma_rest_stretch * static_cast<double>(busy) + 0.5);
    }
    if (sim::Observer* obs = gpu().obs())
      for (sim::OpId op : g.ops) obs->complete_local(w, op);
    wg.committed.pop_front();
  }
  wg.fenced = false;
  wg.waited = true;
}

void warpgroup_set_regs(const Loc& loc) { issue_local(loc); }

void st_global(void* dst, const void* v, uint32_t bytes, const Loc& loc) {
  gpu().warp().free_op();
  const auto addr = reinterpret_cast<uint64_t>(dst);
  if (gpu().gmem().find(addr, bytes) == nullptr) {
    gpu().finding("global", "global.out_of_range",
                  fmt::format("st.global of {} bytes at {}, outside every allocation", bytes,
                              gpu().gmem().describe(addr)),
                  loc);
    return;
  }
  if (sim::Observer* obs = gpu().obs()) {
    const sim::Range r{addr, addr + bytes};
    obs->access(gpu().warp(), 0, sim::Space::kGlobal, {&r, 1}, true, sim::Proxy::kGeneric,
                "st.global", loc);
  }
  std::memcpy(dst, v, bytes);
}

namespace {
// A warp's `instructions` store instructions of `bytes` in all, leaving
// through `path` (when `rate` > 0), which they hold for `path_bytes` (at
// least `bytes`); the warp cannot issue past its stores (the LSU queue is
// full). Behind L2 the bytes go to memory (write-back), sharing HBM
// bandwidth.
void store_through(WritePath& path, double rate, uint32_t bytes, uint32_t instructions, const Loc& loc,
                   double path_bytes = 0) {
  sim::Warp& w = issue(loc);
  w.spend(static_cast<Cycle>(instructions) * gpu().params().issue_cycles);
  w.sync();
  const Cycle now = gpu().engine().now();
  if (bytes > 0) gpu().hbm_transfer(now, bytes);
  if (rate <= 0) return;
  WritePath::Job job{gpu().cta_of_current().sm, std::max<double>(bytes, path_bytes)};
  path.submit(job, now);
  w.block_until(
      path.completed(job.sm), [&job] { return job.done; },
      [] { return std::string("waits for its st.global data to leave the SM"); }, "st.global");
}
}  // namespace

void account_global_store(uint32_t bytes, const Loc& loc) {
  // One 128-byte store instruction per 32 lanes, through the SM's store path
  // (store_bytes_per_cycle) and the write path all SMs share
  // (gpu_store_bytes_per_cycle), both shared fairly among the warps and SMs
  // storing (write_path.h).
  store_through(write_path(), extras().store_bytes_per_cycle, bytes, bytes / 128, loc);
}

void account_global_stores(const uint16_t* bytes_in_d, uint32_t instructions, const Loc& loc) {
  const Extras& x = extras();
  // At least store_instruction_cycles of the path per instruction, as bytes
  // at its rate.
  const double least = x.store_instruction_cycles * x.store_bytes_per_cycle;
  uint32_t bytes = 0;
  double path_bytes = 0;
  for (uint32_t i = 0; i < instructions; ++i) {
    bytes += bytes_in_d[i];
    path_bytes += std::max<double>(bytes_in_d[i], least);
  }
  store_through(write_path(), x.store_bytes_per_cycle, bytes, instructions, loc, path_bytes);
}

void account_global_store_v4(uint32_t bytes, const Loc& loc) {
  if (extras().store_v4_bytes_per_cycle <= 0) return account_global_store(bytes, loc);
  store_through(write_path_v4(), extras().store_v4_bytes_per_cycle, bytes, bytes / 512, loc);
}

}  // namespace sk::models::sm90::api
