// api_tcgen05.cc: TMEM allocation, tcgen05.mma, commit and tcgen05.ld
// (PTX ISA 9.0 9.7.16; rules in research/verify.md 4.4).
//
// The tensor core is an async agent per SM: MMAs issue in order, one every
// initiation interval (N/2 cycles for M = 128), and complete after their
// latency. In functional mode an MMA reads its SMEM operands when it starts
// executing and accumulates into TMEM; tcgen05.commit arrives on its mbarrier
// when every tcgen05 op the thread issued before it has completed.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <tuple>
#include <systemc>

#include "models/common/element_types.h"
#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"
#include "models/sm100/tensor_core.h"
#include "models/sm100/umma_decode.h"
#include "engine/source_loc.h"

namespace sk::models::sm100::api {
using tc::find_alloc;
using tc::tmem_cells;

// ---- Shared with the 2-SM forms (tensor_core.h) ----------------------------

namespace tc {
namespace {
float to_float(uint16_t bits, uint32_t format) {
  return format == 1 ? bf16_to_float(bits) : fp16_to_float(bits);
}

uint16_t operand(const Cta& cta, const SmemDesc& d, bool mn_major, uint32_t row, uint32_t k) {
  uint32_t off = swizzled_offset(operand_offset(d, mn_major, row, k), d.swizzle);
  uint16_t v;
  std::memcpy(&v, cta.smem + off, 2);
  return v;
}

// One row of D (n columns at drow) (+)= arow x B^T for a K = 16 step, B's
// values K-major by column in bt (bt[k * n + j]). Each element adds its 16
// products in K order, one FP32 multiply and one FP32 add each, as a scalar
// loop would; eight columns at a time only interleave independent elements
// (about 3x faster).
void accumulate_row(const float (&arow)[16], const float* bt, size_t n, uint32_t* drow,
                    bool accumulate) {
  size_t n0 = 0;
  for (; n0 + 8 <= n; n0 += 8) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (accumulate) std::memcpy(acc, drow + n0, sizeof acc);
    for (size_t k = 0; k < 16; ++k)
      for (size_t j = 0; j < 8; ++j) acc[j] += arow[k] * bt[k * n + n0 + j];
    std::memcpy(drow + n0, acc, sizeof acc);
  }
  for (; n0 < n; ++n0) {
    float acc = accumulate ? std::bit_cast<float>(drow[n0]) : 0.0f;
    for (size_t k = 0; k < 16; ++k) acc += arow[k] * bt[k * n + n0];
    drow[n0] = std::bit_cast<uint32_t>(acc);
  }
}
}  // namespace

void execute_f16_mma(const MmaSpan& s, SmemDesc a, SmemDesc b, InstrDesc id, uint32_t col,
                     bool accumulate) {
  const uint32_t cols = gpu().params().tmem_columns;
  // B's values K-major by column (accumulate_row).
  const size_t nn = id.n;
  std::vector<float> bt(nn * 16);
  for (uint32_t n = 0; n < id.n; ++n) {
    const bool lo = n < s.n_split;
    const Cta& c = lo ? *s.lo : *s.hi;
    const uint32_t row = lo ? n : n - s.n_split;
    for (uint32_t k = 0; k < 16; ++k)
      bt[k * nn + n] = to_float(operand(c, b, id.b_mn_major, row, k), id.b_format);
  }
  for (uint32_t m = 0; m < id.m; ++m) {
    const bool lo = m < s.m_split;
    Cta& c = lo ? *s.lo : *s.hi;
    const uint32_t row = lo ? m : m - s.m_split;
    float arow[16];
    for (uint32_t k = 0; k < 16; ++k)
      arow[k] = to_float(operand(c, a, id.a_mn_major, row, k), id.a_format);
    accumulate_row(arow, bt.data(), nn, &c.tmem.data[static_cast<size_t>(row) * cols + col],
                   accumulate);
  }
}

std::vector<sim::Range> operand_chunks(const SmemDesc& d, bool mn_major, uint32_t rows) {
  std::vector<sim::Range> r;
  r.reserve(2 * rows);
  if (mn_major) {
    for (uint32_t k = 0; k < 16; ++k)
      for (uint32_t row = 0; row < rows; row += 8) {
        uint64_t off = swizzled_offset(mnmajor_offset(d, row, k), d.swizzle);
        r.push_back(sim::Range{off, off + 16});
      }
    return r;
  }
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t k : {0u, 8u}) {
      uint64_t off = swizzled_offset(kmajor_offset(d, row, k), d.swizzle);
      r.push_back(sim::Range{off, off + 16});
    }
  return r;
}

bool operand_in_smem(const Cta& cta, const SmemDesc& d, bool mn_major, uint32_t rows) {
  uint32_t last = operand_offset(d, mn_major, rows - 1, 15) + 2;
  uint32_t span = d.swizzle == Swizzle::kNone ? 0 : static_cast<uint32_t>(d.swizzle);
  return last + span <= cta.smem_size + span && d.start < cta.smem_size && last <= cta.smem_size;
}

bool require_full_warp(sim::Warp& w, const char* op, const Loc& loc) {
  if (w.all_lanes_active()) return true;
  gpu().finding("warp_collective", "tcgen05.partial_warp",
                fmt::format("{} is a .sync.aligned warp-collective instruction but was executed by "
                            "{} of 32 lanes (on hardware the warp hangs or the result is undefined)",
                            op, w.active_count()),
                loc);
  return false;
}

bool note_cta_group(Cta& cta, uint8_t group, const char* op, const Loc& loc) {
  TmemState& t = cta.tmem;
  if (t.cta_group == 0) t.cta_group = group;
  if (t.cta_group == group) return true;
  if (!t.mixed_reported) {
    t.mixed_reported = true;
    gpu().finding("tcgen05", "tcgen05.mixed_cta_group",
                  fmt::format("{} uses .cta_group::{} after this CTA's earlier tcgen05 ops used "
                              ".cta_group::{}; every tcgen05 op of a kernel uses one cta_group "
                              "(PTX 9.7.16.7.1)",
                              op, group, t.cta_group),
                  loc);
  }
  return false;
}

}  // namespace tc

namespace {
using tc::operand_chunks;
using tc::operand_in_smem;
using tc::require_full_warp;



// A kind::f16 tcgen05.mma's operands, decoded.
struct MmaOperands {
  SmemDesc a, b;
  InstrDesc id;
  uint32_t col = 0;  // first TMEM column of D
};

// Decodes and checks a kind::f16 tcgen05.mma's descriptors, operand ranges
// and TMEM destination; reports the first problem and returns nothing then.
std::optional<MmaOperands> checked_mma_operands(const Cta& cta, uint64_t a_desc, uint64_t b_desc,
                                                uint32_t idesc, uint32_t d_taddr, const Loc& loc) {
  const SmemDesc a = decode_smem_desc(a_desc), b = decode_smem_desc(b_desc);
  const InstrDesc id = decode_instr_desc(idesc);
  {
    const char* what = "A descriptor";
    std::string err = check_smem_desc(a);
    if (err.empty()) what = "B descriptor", err = check_smem_desc(b);
    if (err.empty()) what = "instruction descriptor", err = check_instr_desc(id);
    // An MN-major operand wider than one swizzle span needs the span-to-span
    // stride (LBO); 0 would read the first span again.
    for (const auto& [desc, mn, rows, name] :
         {std::tuple{a, id.a_mn_major, id.m, "A"}, std::tuple{b, id.b_mn_major, id.n, "B"}})
      if (err.empty() && mn && desc.swizzle != Swizzle::kNone &&
          rows > static_cast<uint32_t>(desc.swizzle) / 2 && desc.lbo == 0)
        what = "descriptor", err = fmt::format("{} is MN-major over {} rows but its leading byte "
                                               "offset (the stride between {}-row blocks) is 0",
                                               name, rows, static_cast<uint32_t>(desc.swizzle) / 2);
    if (!err.empty()) {
      gpu().finding("tcgen05", "tcgen05.bad_descriptor",
                    fmt::format("tcgen05.mma {}: {}", what, err), loc);
      return std::nullopt;
    }
  }
  if (!operand_in_smem(cta, a, id.a_mn_major, id.m) || !operand_in_smem(cta, b, id.b_mn_major, id.n)) {
    gpu().finding("tcgen05", "tcgen05.operand_out_of_range",
                  "tcgen05.mma operand described by a descriptor lies outside shared memory", loc);
    return std::nullopt;
  }
  const uint32_t col = d_taddr & 0xFFFF;
  if ((d_taddr >> 16) != 0 || find_alloc(cta, col, id.n) == cta.tmem.allocs.end()) {
    gpu().finding("tmem_access", "tmem.unallocated_access",
                  fmt::format("tcgen05.mma writes TMEM columns [{}, {}) (lane {}) outside any "
                              "allocation of this CTA",
                              col, col + id.n, d_taddr >> 16),
                  loc);
    return std::nullopt;
  }
  return MmaOperands{a, b, id, col};
}
}  // namespace

void report_ld_not_waited(sim::Warp& w, const std::source_location& loc) {
  if (w.follower()) {
    // Lockstep (models/sm90/lockstep.h): a follower's call that its leader
    // does not make for it. The check stays armed for its next call.
    gpu().finding("model", "model.lockstep_unreplayed",
                  fmt::format("warp {} issues an operation inside its warpgroup's converged region "
                              "(arch::warpgroup_converged_begin to _end) that the model does not run "
                              "in lockstep (mbarrier waits and arrivals, __syncwarp, wgmma and spins only)",
                              w.index()),
                  loc);
    return;
  }
  WarpAsync& wa = gpu().cta_of_current().warp_async[w.index()];
  w.issue_check = false;
  if (!wa.ld_pending) return;
  wa.ld_pending = false;
  gpu().finding("tmem_access", "tcgen05.ld_without_wait",
                "the warp continues past a tcgen05.ld (" + sim::format_site(wa.ld_site) +
                    ") without tcgen05.wait::ld; the loaded registers are undefined until the wait",
                loc);
}

namespace tc {
int64_t checked_alloc(sim::Warp& w, Cta& cta, const uint32_t* smem_dst, uint32_t num_cols,
                      const char* op, const Loc& loc) {
  require_full_warp(w, op, loc);
  const uint32_t total = gpu().params().tmem_columns;
  if (num_cols < 32 || num_cols > total || (num_cols & (num_cols - 1)) != 0) {
    gpu().finding("tmem", "tmem.bad_ncols",
                  fmt::format("{} of {} columns: nCols must be a power of two in [32, {}]", op,
                              num_cols, total),
                  loc);
    return -1;
  }
  // PTX 9.7.16.1.2: "the number of columns allocated should not increase
  // between any two allocations in the execution order within the CTA".
  if (cta.tmem.last_alloc_cols != 0 && num_cols > cta.tmem.last_alloc_cols)
    gpu().finding("tmem", "tmem.alloc_grows",
                  fmt::format("{} of {} columns after an allocation of {} in this CTA; "
                              "the number of columns must not increase between two allocations "
                              "of a CTA: allocate the larger block first",
                              op, num_cols, cta.tmem.last_alloc_cols),
                  loc);
  cta.tmem.last_alloc_cols = num_cols;
  if (cta.tmem.relinquished) {
    gpu().finding("tmem", "tmem.alloc_after_relinquish",
                  fmt::format("{} after tcgen05.relinquish_alloc_permit: the CTA gave up its "
                              "right to allocate",
                              op),
                  loc);
    return -1;
  }
  auto smem_off = reinterpret_cast<const uint8_t*>(smem_dst) - cta.smem;
  if (smem_off < 0 || smem_off + 4 > cta.smem_size || smem_off % 4 != 0) {
    gpu().finding("tmem", "tmem.bad_dst",
                  fmt::format("{} destination is not a 4-byte aligned shared-memory location", op),
                  loc);
    return -1;
  }
  return smem_off;
}

int64_t place_alloc(std::span<Cta* const> ctas, uint32_t num_cols) {
  const uint32_t total = gpu().params().tmem_columns;
  for (uint32_t c = 0; c + num_cols <= total; c += num_cols) {
    bool free = true;
    for (const Cta* cta : ctas)
      for (auto [s, n] : cta->tmem.allocs)
        if (c < s + n && s < c + num_cols) free = false;
    if (free) return c;
  }
  return -1;
}

void write_alloc_address(sim::Warp& w, Cta& cta, uint32_t* smem_dst, int64_t smem_off,
                         uint32_t col, const Loc& loc) {
  mbar::check_overwrite(gpu(), cta, static_cast<uint64_t>(smem_off), 4,
                        "tcgen05.alloc (its address write)", loc);
  const uint32_t taddr = col;  // lane 0, column col
  if (gpu().obs() != nullptr) {
    const sim::Range r{static_cast<uint64_t>(smem_off), static_cast<uint64_t>(smem_off) + 4};
    gpu().obs()->access_at(w, 0, cta.id, sim::Space::kSmem, {&r, 1}, true, sim::Proxy::kGeneric,
                           "tcgen05.alloc (address write)", loc);
  }
  std::memcpy(smem_dst, &taddr, 4);
}
}  // namespace tc

void tcgen05_alloc(uint32_t* smem_dst, uint32_t num_cols, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 1, "tcgen05.alloc", loc);
  const int64_t smem_off = tc::checked_alloc(w, cta, smem_dst, num_cols, "tcgen05.alloc", loc);
  if (smem_off < 0) return;
  // First fit, aligned to the allocation size; blocks while TMEM is full.
  Cta* const self[] = {&cta};
  int64_t col = tc::place_alloc(self, num_cols);
  if (col < 0) {
    w.block_until(
        *cta.tmem.freed, [&] { return (col = tc::place_alloc(self, num_cols)) >= 0; },
        [num_cols] {
          return fmt::format("tcgen05.alloc of {} columns: TMEM is full and nothing deallocates",
                             num_cols);
        },
        "tcgen05.alloc");
  }
  cta.tmem.allocs[static_cast<uint32_t>(col)] = num_cols;
  tc::write_alloc_address(w, cta, smem_dst, smem_off, static_cast<uint32_t>(col), loc);
}

namespace tc {
void dealloc(sim::Warp& w, Cta& cta, uint32_t taddr, uint32_t num_cols, const char* op,
             const Loc& loc) {
  require_full_warp(w, op, loc);
  uint32_t col = taddr & 0xFFFF;
  auto it = cta.tmem.allocs.find(col);
  if ((taddr >> 16) != 0 || it == cta.tmem.allocs.end() || it->second != num_cols) {
    gpu().finding("tmem", "tmem.bad_dealloc",
                  fmt::format("{} of {} columns at column {} does not name a live "
                              "allocation (double free, or a size or address that differs from the "
                              "alloc)",
                              op, num_cols, col),
                  loc);
    return;
  }
  Cycle now = gpu().engine().now();
  // With the race detector installed, the dealloc is checked as a TMEM write
  // against every access that is not ordered before it (tmem.dealloc_in_use);
  // without it, against the completion times of the tensor core's work.
  for (const auto& wa : cta.warp_async)
    if (gpu().obs() == nullptr && wa.tcgen05_done > now) {
      gpu().finding("tmem", "tmem.dealloc_in_flight",
                    fmt::format("{} of columns [{}, {}) while tcgen05 operations that "
                                "use TMEM are still in flight",
                                op, col, col + num_cols),
                    loc);
      break;
    }
  if (gpu().obs() != nullptr) {
    auto cells = tmem_cells(0, 128, col, num_cols);
    gpu().obs()->access(w, 0, sim::Space::kTmem, cells, true, sim::Proxy::kAsync,
                        op, loc);
  }
  cta.tmem.allocs.erase(it);
  cta.tmem.freed->notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tc

void tcgen05_dealloc(uint32_t taddr, uint32_t num_cols, const Loc& loc) {
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 1, "tcgen05.dealloc", loc);
  tc::dealloc(w, cta, taddr, num_cols, "tcgen05.dealloc", loc);
}

void tcgen05_relinquish_alloc_permit(const Loc& loc) {
  sim::Warp& w = issue(loc);
  require_full_warp(w, "tcgen05.relinquish_alloc_permit", loc);
  gpu().cta_of_current().tmem.relinquished = true;
}

void tcgen05_mma_f16_ss(uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                        bool accumulate, const Loc& loc) {
  // Only the tensor-core queue (fed by this CTA's MMA issuer) and events at
  // the MMA's start change: it runs at the warp's local time.
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 1, "tcgen05.mma", loc);
  const auto ops = checked_mma_operands(cta, a_desc, b_desc, idesc, d_taddr, loc);
  if (!ops) return;
  const auto& [a, b, id, col] = *ops;
  const Params& p = gpu().params();
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tc_issued("tcgen05.mma", gpu().engine().site_here(loc));
  for (int lane = 0; lane < w.active_count(); ++lane) {
    if (sim::Observer* obs = gpu().obs()) {
      sim::OpId op = obs->issue_async(w, "tcgen05.mma");
      auto ra = operand_chunks(a, id.a_mn_major, id.m), rb = operand_chunks(b, id.b_mn_major, id.n);
      obs->access(w, op, sim::Space::kSmem, ra, false, sim::Proxy::kAsync, "tcgen05.mma (A)", loc);
      obs->access(w, op, sim::Space::kSmem, rb, false, sim::Proxy::kAsync, "tcgen05.mma (B)", loc);
      auto rd = tmem_cells(0, id.m, col, id.n);
      obs->access(w, op, sim::Space::kTmem, rd, true, sim::Proxy::kAsync, "tcgen05.mma (D)", loc);
      wa.tc_live.push_back(op);
    }
    const Cycle ii = static_cast<Cycle>(id.n * p.umma_ii_per_n + 0.5);
    const Cycle start = tc::enqueue(cta, w, ii).start;
    if (gpu().functional())
      gpu().engine().at(start, [&cta, a, b, id, col, accumulate] {
        tc::execute_f16_mma(tc::MmaSpan{&cta, &cta, id.m, id.n}, a, b, id, col, accumulate);
      });
    auto& tr = gpu().engine().trace();
    if (cta.traced)
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), start, start + ii,
                               fmt::format("mma {}x{}x16{}", id.m, id.n, accumulate ? "" : " (init)"),
                               {{"tmem_col", col}},
                               0,
                               w.take_flow()});
  }
}

namespace tc {
namespace {
// Functional mode: D (+)= A x B^T for one K = 16 step with A in TMEM (row m:
// lane m, columns a_col .. a_col + 7, element 2c in column c's low half).
void execute_f16_mma_ts(Cta& cta, uint32_t a_col, SmemDesc b, InstrDesc id, uint32_t col,
                        bool accumulate) {
  const uint32_t cols = gpu().params().tmem_columns;
  const size_t nn = id.n;
  std::vector<float> bt(nn * 16);  // K-major by column (accumulate_row)
  for (uint32_t n = 0; n < id.n; ++n)
    for (uint32_t k = 0; k < 16; ++k)
      bt[k * nn + n] = to_float(operand(cta, b, id.b_mn_major, n, k), id.b_format);
  for (uint32_t m = 0; m < id.m; ++m) {
    const uint32_t* row = &cta.tmem.data[static_cast<size_t>(m) * cols];
    float arow[16];
    for (uint32_t c = 0; c < 8; ++c)
      for (uint32_t h = 0; h < 2; ++h)
        arow[2 * c + h] = to_float(static_cast<uint16_t>(row[a_col + c] >> (16 * h)), id.a_format);
    accumulate_row(arow, bt.data(), nn, &cta.tmem.data[static_cast<size_t>(m) * cols + col],
                   accumulate);
  }
}
}  // namespace
}  // namespace tc

void tcgen05_mma_f16_ts(uint32_t d_taddr, uint32_t a_taddr, uint64_t b_desc, uint32_t idesc,
                        bool accumulate, const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 1, "tcgen05.mma", loc);
  const SmemDesc b = decode_smem_desc(b_desc);
  const InstrDesc id = decode_instr_desc(idesc);
  {
    const char* what = "B descriptor";
    std::string err = check_smem_desc(b);
    if (err.empty()) what = "instruction descriptor", err = check_instr_desc(id);
    if (err.empty() && id.a_mn_major)
      what = "instruction descriptor",
      err = "A comes from TMEM, which holds it K-major: the transpose-A bit must be 0";
    if (err.empty() && id.m != 128)
      what = "instruction descriptor", err = fmt::format("M = {} with A from TMEM: this model "
                                                         "takes M = 128 (one row per TMEM lane)",
                                                         id.m);
    if (err.empty() && id.b_mn_major && b.swizzle != Swizzle::kNone &&
        id.n > static_cast<uint32_t>(b.swizzle) / 2 && b.lbo == 0)
      what = "descriptor", err = fmt::format("B is MN-major over {} rows but its leading byte "
                                             "offset is 0", id.n);
    if (!err.empty()) {
      gpu().finding("tcgen05", "tcgen05.bad_descriptor",
                    fmt::format("tcgen05.mma (A from TMEM) {}: {}", what, err), loc);
      return;
    }
  }
  if (!operand_in_smem(cta, b, id.b_mn_major, id.n)) {
    gpu().finding("tcgen05", "tcgen05.operand_out_of_range",
                  "tcgen05.mma operand described by a descriptor lies outside shared memory", loc);
    return;
  }
  const uint32_t col = d_taddr & 0xFFFF, a_col = a_taddr & 0xFFFF;
  for (const auto& [c, n, what] : {std::tuple{col, id.n, "writes D at"}, std::tuple{a_col, 8u, "reads A at"}})
    if ((what[0] == 'w' ? d_taddr : a_taddr) >> 16 != 0 || find_alloc(cta, c, n) == cta.tmem.allocs.end()) {
      gpu().finding("tmem_access", "tmem.unallocated_access",
                    fmt::format("tcgen05.mma {} TMEM columns [{}, {}) outside any allocation of "
                                "this CTA",
                                what, c, c + n),
                    loc);
      return;
    }
  const Params& p = gpu().params();
  WarpAsync& wa = cta.warp_async[w.index()];
  wa.tc_issued("tcgen05.mma", gpu().engine().site_here(loc));
  for (int lane = 0; lane < w.active_count(); ++lane) {
    if (sim::Observer* obs = gpu().obs()) {
      sim::OpId op = obs->issue_async(w, "tcgen05.mma");
      auto rb = operand_chunks(b, id.b_mn_major, id.n);
      obs->access(w, op, sim::Space::kSmem, rb, false, sim::Proxy::kAsync, "tcgen05.mma (B)", loc);
      auto ra = tmem_cells(0, id.m, a_col, 8);
      obs->access(w, op, sim::Space::kTmem, ra, false, sim::Proxy::kAsync, "tcgen05.mma (A in TMEM)",
                  loc);
      auto rd = tmem_cells(0, id.m, col, id.n);
      obs->access(w, op, sim::Space::kTmem, rd, true, sim::Proxy::kAsync, "tcgen05.mma (D)", loc);
      wa.tc_live.push_back(op);
    }
    const Cycle ii = static_cast<Cycle>(id.n * p.umma_ii_per_n + 0.5);
    const Cycle start = tc::enqueue(cta, w, ii).start;
    if (gpu().functional())
      gpu().engine().at(start, [&cta, a_col, b, id, col, accumulate] {
        tc::execute_f16_mma_ts(cta, a_col, b, id, col, accumulate);
      });
    if (cta.traced)
      gpu().engine().trace().slice(
          sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), start, start + ii,
                          fmt::format("mma {}x{}x16 A:tmem{}", id.m, id.n, accumulate ? "" : " (init)"),
                          {{"tmem_col", col}},
                          0,
                          w.take_flow()});
  }
}

namespace tc {
void commit(sim::Warp& w, Cta& cta, std::span<const CommitDest> dests, const Loc& loc) {
  // The segment's bookkeeping follows the first destination's barrier.
  Mbarrier* b = dests.front().bar;
  WarpAsync& wa = cta.warp_async[w.index()];
  // tcgen05.alive_at_exit: the commit ends the open segment; the first lane's
  // arrival records the phase it lands in. Commits no longer needed (one
  // after them was waited for) are dropped here.
  TcSegment seg = wa.tc_open;
  seg.bar = b;
  seg.commit = gpu().engine().site_here(loc);
  wa.tc_open = TcSegment{};
  wa.tc_commits.push_back(seg);
  const uint64_t seq = wa.tc_dropped + wa.tc_commits.size() - 1;
  if (wa.tc_commits.size() > 16) {
    size_t keep = 0;
    for (size_t i = wa.tc_commits.size(); i-- > 0;)
      if (tc_waited(wa.tc_commits[i])) {
        keep = i + 1;
        break;
      }
    wa.tc_commits.erase(wa.tc_commits.begin(), wa.tc_commits.begin() + static_cast<long>(keep));
    wa.tc_dropped += keep;
  }
  const int wi = w.index();
  for (int lane = 0; lane < w.active_count(); ++lane) {
    // The commit covers every tcgen05 op this thread issued before it.
    sim::OpId op = 0;
    std::vector<sim::OpId> covered;
    if (sim::Observer* obs = gpu().obs()) {
      std::erase_if(wa.tc_live, [&](sim::OpId o) { return obs->known_complete(w, o); });
      op = obs->issue_async(w, "tcgen05.commit");
      covered = wa.tc_live;
    }
    Cycle when = std::max(local_now(w), wa.tcgen05_done) +
                 gpu().engine().schedule().agent_delay(sim::Agent::kSignal, 16);
    auto& tr = gpu().engine().trace();
    uint64_t flow = cta.traced ? tr.new_flow() : 0;
    if (flow != 0)
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), when, when,
                               "commit -> " + (b->name.empty() ? std::string("mbarrier") : b->name),
                               {},
                               flow,
                               0});
    // Each destination's arrival (a peer's after the SM-to-SM latency); the
    // first also records the phase it lands in.
    for (size_t i = 0; i < dests.size(); ++i) {
      Cta& dc = *dests[i].cta;
      Mbarrier* db = dests[i].bar;
      const Cycle at = when + (&dc == &cta ? 0 : gpu().params().dsmem_latency);
      // A peer's arrival has its own flow from the issuer's tensor core track.
      uint64_t dflow = flow;
      if (&dc != &cta && flow != 0) {
        dflow = tr.new_flow();
        tr.slice(sim::TraceSlice{gpu().engine_track(cta, "tensor core", 10), when, when,
                                 fmt::format("commit -> CTA {} {}", dc.id,
                                             db->name.empty() ? std::string("mbarrier") : db->name),
                                 {},
                                 dflow,
                                 0});
      }
      gpu().engine().at(at, [&cta, &dc, db, flow = dflow, op, covered, wi, seq,
                             first = lane == 0 && i == 0] {
        WarpAsync& wa = cta.warp_async[static_cast<size_t>(wi)];
        if (first && db->valid && seq >= wa.tc_dropped)
          wa.tc_commits[seq - wa.tc_dropped].landed = static_cast<int64_t>(db->phase);
        mbar::arrive_async(gpu(), dc, *db, flow, "tcgen05.commit", op, covered);
      });
    }
  }
}

}  // namespace tc

void tcgen05_commit(uint64_t* bar, const Loc& loc) {
  // The arrive happens at `when`, scheduled: local time suffices.
  sim::Warp& w = issue_local(loc);
  Cta& cta = gpu().cta_of_current();
  tc::note_cta_group(cta, 1, "tcgen05.commit", loc);
  Mbarrier* b = mbar::checked(gpu(), bar, "tcgen05.commit", loc);
  if (b == nullptr) return;
  const tc::CommitDest d{&cta, b};
  tc::commit(w, cta, {&d, 1}, loc);
}

namespace {
// A 32x32b.x32 tcgen05.ld or .st by warp w at taddr: the whole warp issues
// it, its lanes are the warp's quarter of TMEM and its 32 columns lie in an
// allocation; reports the first problem (`verb`: "reads" or "writes") and
// returns false then.
bool checked_warp_access(sim::Warp& w, const Cta& cta, uint32_t taddr, const char* op,
                         const char* verb, const Loc& loc) {
  require_full_warp(w, op, loc);
  const uint32_t lane0 = taddr >> 16, col = taddr & 0xFFFF;
  const uint32_t quarter = static_cast<uint32_t>(w.index()) % 4;
  if (lane0 != 32 * quarter) {
    gpu().finding("tmem_access", "tmem.lane_quarter",
                  fmt::format("warp {} (warpgroup quarter {}) {} TMEM lanes [{}, {}); it may only "
                              "access lanes [{}, {})",
                              w.index(), quarter, verb, lane0, lane0 + 32, 32 * quarter,
                              32 * quarter + 32),
                  loc);
    return false;
  }
  if (find_alloc(cta, col, 32) == cta.tmem.allocs.end()) {
    gpu().finding("tmem_access", "tmem.unallocated_access",
                  fmt::format("{} {} TMEM columns [{}, {}) outside any allocation", op, verb, col,
                              col + 32),
                  loc);
    return false;
  }
  return true;
}

}  // namespace

void tcgen05_ld_32x32b_x32(uint32_t taddr, uint32_t (&dst)[32][32], const Loc& loc) {
  Cta& cta = gpu().cta_of_current();
  // Several loads may be in flight before one wait::ld.
  WarpAsync& pending = cta.warp_async[gpu().warp().index()];
  const bool was_pending = pending.ld_pending;
  pending.ld_pending = false;
  sim::Warp& w = issue(loc);
  pending.ld_pending = was_pending;
  w.issue_check = was_pending;
  if (!checked_warp_access(w, cta, taddr, "tcgen05.ld", "reads", loc)) return;
  const uint32_t lane0 = taddr >> 16, col = taddr & 0xFFFF;
  if (gpu().functional()) {
    const uint32_t cols = gpu().params().tmem_columns;
    for (uint32_t l = 0; l < 32; ++l)
      std::memcpy(dst[l], &cta.tmem.data[static_cast<size_t>(lane0 + l) * cols + col], 128);
  }
  WarpAsync& wa = cta.warp_async[w.index()];
  if (sim::Observer* obs = gpu().obs()) {
    sim::OpId op = obs->issue_async(w, "tcgen05.ld");
    auto cells = tmem_cells(lane0, 32, col, 32);
    obs->access(w, op, sim::Space::kTmem, cells, false, sim::Proxy::kAsync, "tcgen05.ld", loc);
    wa.lds.push_back(op);
  }
  wa.ld_ready = gpu().engine().now() + gpu().params().tmem_ld_cycles +
                gpu().engine().schedule().agent_delay(sim::Agent::kTensorCore,
                                                      gpu().params().tmem_ld_cycles);
  wa.ld_pending = true;
  w.issue_check = true;
  wa.ld_site = gpu().engine().site_here(loc);
}

void tcgen05_wait_ld(const Loc& loc) {
  gpu().cta_of_current().warp_async[gpu().warp().index()].ld_pending = false;
  sim::Warp& w = issue(loc);
  WarpAsync& wa = gpu().cta_of_current().warp_async[w.index()];
  Cycle now = gpu().engine().now();
  if (wa.ld_ready > now) w.stall(wa.ld_ready - now, "tcgen05.ld");
  if (sim::Observer* obs = gpu().obs())
    for (sim::OpId op : wa.lds) obs->complete_local(w, op);
  wa.lds.clear();
}

void tcgen05_st_32x32b_x32(uint32_t taddr, const uint32_t (&src)[32][32], const Loc& loc) {
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  if (!checked_warp_access(w, cta, taddr, "tcgen05.st", "writes", loc)) return;
  const uint32_t lane0 = taddr >> 16, col = taddr & 0xFFFF;
  if (gpu().functional()) {
    const uint32_t cols = gpu().params().tmem_columns;
    for (uint32_t l = 0; l < 32; ++l)
      std::memcpy(&cta.tmem.data[static_cast<size_t>(lane0 + l) * cols + col], src[l], 128);
  }
  WarpAsync& wa = cta.warp_async[w.index()];
  if (sim::Observer* obs = gpu().obs()) {
    sim::OpId op = obs->issue_async(w, "tcgen05.st");
    auto cells = tmem_cells(lane0, 32, col, 32);
    obs->access(w, op, sim::Space::kTmem, cells, true, sim::Proxy::kAsync, "tcgen05.st", loc);
    wa.sts.push_back(op);
  }
  // Stores issue back to back; wait::st waits for the last.
  wa.st_ready = std::max(wa.st_ready, gpu().engine().now()) + gpu().params().tmem_st_cycles;
}

void tcgen05_wait_st(const Loc& loc) {
  sim::Warp& w = issue(loc);
  WarpAsync& wa = gpu().cta_of_current().warp_async[w.index()];
  const Cycle now = gpu().engine().now();
  if (wa.st_ready > now) w.stall(wa.st_ready - now, "tcgen05.st");
  if (sim::Observer* obs = gpu().obs())
    for (sim::OpId op : wa.sts) obs->complete_local(w, op);
  wa.sts.clear();
}

void tcgen05_fence_before_thread_sync(const Loc& loc) { issue_local(loc); }
void tcgen05_fence_after_thread_sync(const Loc& loc) { issue_local(loc); }

}  // namespace sk::models::sm100::api
