// api_memory.cc: identity, LDS and global loads and stores, LDS DMA and
// s_waitcnt (kernels/arch/gfx942/device/{identity,memory,lds_dma,waitcnt}.h).
//
// Invariants: every LDS access is checked against the workgroup's LDS and
// recorded with the observer before its bytes move; a bad access is a finding
// and reads zeros. Global data is real only in functional mode. An LDS DMA is
// one async operation per wave instruction whose LDS bytes land when it
// completes (or when its issuer's s_waitcnt_vmcnt retires it); nothing but
// vmcnt orders it.
#include <fmt/format.h>

#include <cstring>
#include <systemc>

#include "models/mi300x/api.h"
#include "models/mi300x/api_common.h"

namespace sk::models::mi300x::api {

uint32_t lane_idx() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  return w.current_lane() < 0 ? 0 : static_cast<uint32_t>(w.current_lane());
}
uint32_t wave_idx() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  return static_cast<uint32_t>(w.index());
}
uint32_t block_idx() {
  sim::Warp& w = gpu().warp();
  w.free_op();
  return static_cast<uint32_t>(w.cta());
}
uint32_t num_blocks() { return static_cast<uint32_t>(gpu().grid()); }
uint32_t waves_per_block() { return static_cast<uint32_t>(gpu().waves_per_block()); }
uint8_t* dynamic_lds() { return gpu().wg_of_current().lds; }

int64_t lds_range(const void* p, uint32_t bytes, const char* op, const Loc& loc) {
  Workgroup& wg = gpu().wg_of_current();
  const auto off = reinterpret_cast<const uint8_t*>(p) - wg.lds;
  const uint32_t align = std::min<uint32_t>(bytes, 16);
  if (off < 0 || off + bytes > static_cast<std::ptrdiff_t>(wg.lds_size) || off % align != 0) {
    gpu().finding("lds", "lds.bad_access",
                  fmt::format("{} of {} bytes at LDS offset {} is misaligned or outside the "
                              "workgroup's {} bytes of LDS",
                              op, bytes, static_cast<long>(off), wg.lds_size),
                  loc);
    return -1;
  }
  return off;
}

uint32_t lds_addr(const void* p, const Loc& loc) {
  gpu().warp().free_op();
  Workgroup& wg = gpu().wg_of_current();
  const auto off = reinterpret_cast<const uint8_t*>(p) - wg.lds;
  if (off < 0 || off > static_cast<std::ptrdiff_t>(wg.lds_size)) {
    gpu().finding("lds", "lds.bad_address",
                  "pointer converted to an LDS address is outside the workgroup's LDS", loc);
    return 0;
  }
  return static_cast<uint32_t>(off);
}

namespace {

// The calling lane's wave (charging the instruction's issue on its first lane).
// Memory instructions run at the wave's own time without a context switch:
// the LDS pipe, the vector memory path and HBM are reserved from local_now(),
// and the bytes they move are ordered against other waves only by the
// synchronisation that already paid the wave's time (a counter wait, a
// barrier, s_waitcnt), as in a race-free kernel they must be.
sim::Warp& lane_issue(bool first, const Loc& loc) {
  if (first) return issue_local(loc);
  sim::Warp& w = gpu().warp();
  w.free_op();
  return w;
}

void observe(sim::Warp& w, sim::OpId op, sim::Space space, uint64_t lo, uint32_t bytes, bool write,
             const char* what, const Loc& loc) {
  if (gpu().obs() == nullptr) return;
  const sim::Range r{lo, lo + bytes};
  gpu().obs()->access(w, op, space, {&r, 1}, write, sim::Proxy::kGeneric, what, loc);
}

// Drops the leading plain (non-DMA) vector memory operations that have
// completed by `t`: they need no wait to be forgotten.
void prune(WaveState& ws, Cycle t) {
  while (!ws.vm.empty() && ws.vm.front().op == 0 && !ws.vm.front().writes && ws.vm.front().done <= t)
    ws.vm.pop_front();
  while (!ws.lgkm.empty() && ws.lgkm.front() <= t) ws.lgkm.pop_front();
}

// memcpy of a lane's few bytes, with the common sizes inlined.
inline void copy_lane(void* dst, const void* src, uint32_t bytes) {
  switch (bytes) {
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    default: std::memcpy(dst, src, bytes);
  }
}

void lds_access(const void* p, void* data, uint32_t bytes, bool write, const Loc& loc,
                const char* what = nullptr) {
  bool first = false;
  LaneInstr* in = gpu().lane_instr(LaneInstr::kLds, first);
  sim::Warp& w = lane_issue(first, loc);
  if (what == nullptr) what = write ? "ds_write" : "ds_read";
  const int64_t off = lds_range(p, bytes, what, loc);
  WaveState& ws = gpu().wave_state();
  if (first) {
    const Cycle t = local_now(w);
    prune(ws, t);
    const uint64_t moved = uint64_t{bytes} * (in != nullptr ? w.active_count() : 1);
    const Cycle moved_by = gpu().lds_transfer(t, moved);
    const Cycle done = moved_by + (write ? 0 : gpu().params().lds_latency);
    if (gpu().traces_current()) {  // the pipe's passes, ending at moved_by
      const auto passes = static_cast<Cycle>(
          std::max(1.0, static_cast<double>(moved) / gpu().params().lds_bytes_per_cycle) + 0.999);
      gpu().trace_busy("LDS", Gpu::kLdsTrackRank, moved_by - std::min(passes, moved_by), moved_by,
                       what);
    }
    ws.lgkm.push_back(done);
    if (!write) ws.regs_ready = std::max(ws.regs_ready, done);
    ++gpu().cu_of_current().lds_instructions;
  }
  // An unsampled visit (timing mode) runs only the lowest lane, standing
  // for the wave: its offset serves no bank-conflict count, and a read gets
  // zeros without touching LDS (the other lanes get no data at all, and
  // timing mode's LDS DMA lands no bytes).
  const bool lone = in != nullptr && !ws.sampled;
  if (in != nullptr) {
    in->bytes = bytes;
    if (off >= 0 && !lone) in->lds.emplace_back(w.current_lane(), static_cast<uint32_t>(off));
  }
  if (off < 0 || (lone && !write)) {
    if (!write) std::memset(data, 0, bytes);
    if (off < 0) return;
  }
  observe(w, 0, sim::Space::kSmem, static_cast<uint64_t>(off), bytes, write, what, loc);
  if (lone && !write) return;
  if (write && in == nullptr && bytes <= 4) {
    auto& stores = ws.word_stores;
    if (stores.size() == WaveState::kWordStores) stores.erase(stores.begin());
    stores.emplace_back(static_cast<uint64_t>(off), loc);
  }
  uint8_t* cell = gpu().wg_of_current().lds + off;
  if (write)
    copy_lane(cell, data, bytes);
  else
    copy_lane(data, cell, bytes);
}

void global_access(const void* p, void* data, uint32_t bytes, bool write, const Loc& loc) {
  bool first = false;
  LaneInstr* in = gpu().lane_instr(LaneInstr::kGlobal, first);
  sim::Warp& w = lane_issue(first, loc);
  const char* what = write ? "global_store" : "global_load";
  const auto addr = reinterpret_cast<uint64_t>(p);
  if (first) {
    WaveState& ws = gpu().wave_state();
    const Cycle t = local_now(w);
    prune(ws, t);
    const uint64_t moved = uint64_t{bytes} * (in != nullptr ? w.active_count() : 1);
    double after_vmem = 0;
    const Cycle done = gpu().global_access(t, addr, moved, write, &after_vmem);
    ws.vm.push_back(VmOp{done, 0, nullptr, ++ws.vm_issued, false, sim::Site{loc, 0}});
    if (!write) ws.regs_ready = std::max(ws.regs_ready, done);
    CuStats& st = gpu().cu_of_current();
    (write ? st.global_bytes_stored : st.global_bytes_loaded) += moved;
    if (in != nullptr) {
      in->write = write;
      in->after_vmem = after_vmem;
      in->vm_seq = ws.vm_issued;
      in->done = done;
    }
  }
  if (in != nullptr) {
    in->bytes = bytes;
    in->addrs.push_back(addr);
  }
  if (gpu().gmem().find(addr, bytes) == nullptr) {
    gpu().finding("global", "global.out_of_bounds",
                  fmt::format("{} of {} bytes at {} is outside every global allocation", what,
                              bytes, gpu().gmem().describe(addr)),
                  loc);
    if (!write) std::memset(data, 0, bytes);
    return;
  }
  observe(w, 0, sim::Space::kGlobal, addr, bytes, write, what, loc);
  if (!gpu().functional()) {
    if (!write) std::memset(data, 0, bytes);
    return;
  }
  uint8_t* cell = gpu().gmem().host(addr);
  if (write)
    std::memcpy(cell, data, bytes);
  else
    std::memcpy(data, cell, bytes);
}

// One lane's part of an LDS DMA (or the whole wave's, outside a lane loop):
// the dword at `src` (0 without reading when !valid) lands at
// lds_base + 4 * lane when the instruction completes.
void lds_dma(void* lds_base, uint64_t src, bool valid, const char* what, const Loc& loc) {
  bool first = false;
  LaneInstr* in = gpu().lane_instr(LaneInstr::kDma, first);
  sim::Warp& w = lane_issue(first, loc);
  Workgroup& wg = gpu().wg_of_current();
  const int64_t base = reinterpret_cast<uint8_t*>(lds_base) - wg.lds;
  std::shared_ptr<DmaWrites> dma;
  sim::OpId op = 0;
  if (first) {
    WaveState& ws = gpu().wave_state();
    const Cycle t = local_now(w);
    prune(ws, t);
    op = gpu().obs() != nullptr ? gpu().obs()->issue_async(w, "lds_dma") : 0;
    // Timing mode moves no bytes, so the landing needs no event of its own.
    if (gpu().functional()) dma = std::make_shared<DmaWrites>();
    const uint64_t moved = uint64_t{4} * w.active_count();
    double after_vmem = 0;
    const Cycle done = gpu().global_access(t, src, moved, false, &after_vmem);
    ws.vm.push_back(VmOp{done, op, dma, ++ws.vm_issued, true, gpu().engine().site_here(loc)});
    // Inside a lane loop the landing waits for the loop's end, when the
    // other lanes' blocks have set the instruction's completion.
    if (dma && in == nullptr) gpu().engine().at(done, [dma] { dma->apply(); });
    CuStats& cu = gpu().cu_of_current();
    cu.global_bytes_loaded += moved;
    if (!cu.dma_busy.empty() && t <= cu.dma_busy.back().second)
      cu.dma_busy.back().second = std::max(cu.dma_busy.back().second, done);
    else
      cu.dma_busy.emplace_back(t, done);
    cu.maybe_fold(gpu().engine().now());
    if (in != nullptr) {
      in->dma = dma;
      in->op = op;
      in->dma_base = base;
      in->bytes = 4;
      in->after_vmem = after_vmem;
      in->vm_seq = ws.vm_issued;
      in->done = done;
    }
  } else {
    dma = in->dma;
    op = in->op;
  }
  if (in != nullptr) {
    in->addrs.push_back(src);
    if (!first && in->dma_base != base)
      gpu().finding("lds_dma", "lds_dma.bad_base",
                    fmt::format("{}: lanes of one instruction pass different LDS bases ({} and {}); "
                                "the base is wave-uniform (it goes through M0)",
                                what, static_cast<long>(in->dma_base), static_cast<long>(base)),
                    loc);
  }
  if (base < 0 || base % 4 != 0 || base + 4 > static_cast<int64_t>(wg.lds_size)) {
    gpu().finding("lds_dma", "lds_dma.bad_base",
                  fmt::format("{}: LDS base offset {} is not a 4-byte aligned offset inside the "
                              "workgroup's {} bytes of LDS",
                              what, static_cast<long>(base), wg.lds_size),
                  loc);
    return;
  }
  const uint64_t lanes = w.current_lane() >= 0 ? uint64_t{1} << w.current_lane() : w.active_mask();
  for (uint64_t m = lanes; m != 0; m &= m - 1) {
    const int l = __builtin_ctzll(m);
    const uint64_t dst = static_cast<uint64_t>(base) + 4u * static_cast<uint32_t>(l);
    if (dst + 4 > wg.lds_size) {
      gpu().finding("lds_dma", "lds_dma.bad_base",
                    fmt::format("{}: lane {} writes LDS offset {}, past the workgroup's {} bytes",
                                what, l, dst, wg.lds_size),
                    loc);
      continue;
    }
    uint32_t v = 0;
    if (valid) {
      if (gpu().gmem().find(src, 4) == nullptr) {
        gpu().finding("global", "global.out_of_bounds",
                      fmt::format("{} reads 4 bytes at {}, outside every global allocation", what,
                                  gpu().gmem().describe(src)),
                      loc);
      } else {
        observe(w, op, sim::Space::kGlobal, src, 4, false, what, loc);
        if (gpu().functional()) std::memcpy(&v, gpu().gmem().host(src), 4);
      }
    }
    observe(w, op, sim::Space::kSmem, dst, 4, true, what, loc);
    if (dma) dma->words.emplace_back(wg.lds + dst, v);
  }
}

}  // namespace

void ld_lds(const void* p, void* out, uint32_t bytes, const Loc& loc) {
  lds_access(p, out, bytes, false, loc);
}
void st_lds(void* p, const void* v, uint32_t bytes, const Loc& loc) {
  lds_access(p, const_cast<void*>(v), bytes, true, loc);
}
uint32_t ld_lds_u16x2(const uint16_t* lo, const uint16_t* hi, const Loc& loc) {
  uint16_t l = 0, h = 0;
  lds_access(lo, &l, 2, false, loc, "ds_read_u16");
  lds_access(hi, &h, 2, false, loc, "ds_read_u16");
  return uint32_t{l} | uint32_t{h} << 16;
}
void ld_global(const void* p, void* out, uint32_t bytes, const Loc& loc) {
  global_access(p, out, bytes, false, loc);
}
void st_global(void* p, const void* v, uint32_t bytes, const Loc& loc) {
  global_access(p, const_cast<void*>(v), bytes, true, loc);
}

void global_load_lds_dword(void* lds_base, const void* global_src, const Loc& loc) {
  lds_dma(lds_base, reinterpret_cast<uint64_t>(global_src), true, "global_load_lds_dword", loc);
}

void buffer_load_dword_lds(void* lds_base, BufferRsrc rsrc, uint32_t byte_offset, const Loc& loc) {
  // Decoded from the bits (buffer_rsrc.h), independently of make_buffer_rsrc.
  const uint64_t base = rsrc.w[0] | (static_cast<uint64_t>(rsrc.w[1] & 0xFFFFu) << 32);
  const uint32_t num_records = rsrc.w[2];
  const bool desc_ok = rsrc.w[3] == 0x00020000u && (rsrc.w[1] >> 16) == 0;
  if (!desc_ok)
    gpu().finding("lds_dma", "lds_dma.bad_descriptor",
                  fmt::format("buffer_load_dword_lds: descriptor words 1 and 3 are {:#010x} and "
                              "{:#010x}; a raw buffer needs stride 0, no swizzle and word 3 = "
                              "0x00020000 (DATA_FORMAT 32), so every lane reads 0",
                              rsrc.w[1], rsrc.w[3]),
                  loc);
  const bool valid = desc_ok && uint64_t{byte_offset} + 4 <= num_records;
  lds_dma(lds_base, base + byte_offset, valid, "buffer_load_dword_lds", loc);
}

void retire_vm(sim::Warp& w, WaveState& ws, size_t n) {
  if (ws.vm.size() <= n) return;
  // They retire in order: the wave waits once, for the latest of them (the
  // same stall as waiting for each in turn), then lands their bytes.
  Cycle until = 0;
  for (size_t i = 0; i + n < ws.vm.size(); ++i) until = std::max(until, ws.vm[i].done);
  stall_until(w, until, kVmcntStall);
  while (ws.vm.size() > n) {
    VmOp op = std::move(ws.vm.front());
    ws.vm.pop_front();
    if (op.writes) op.writes->apply();
    if (op.op != 0 && gpu().obs() != nullptr) gpu().obs()->complete_local(w, op.op);
  }
}

// An s_waitcnt with something to wait for takes its issue and its wait in
// one sleep (issue_local, then stall_until); one with nothing to wait for
// pays the wave's cost first as any issue does.
void s_waitcnt_vmcnt(int n, const Loc& loc) {
  WaveState& ws = gpu().wave_state();
  const auto keep = static_cast<size_t>(n);
  sim::Warp& w = ws.vm.size() > keep ? issue_local(loc) : issue(loc);
  retire_vm(w, ws, keep);
}

void s_waitcnt_lgkmcnt(int n, const Loc& loc) {
  WaveState& ws = gpu().wave_state();
  const auto keep = static_cast<size_t>(n);
  if (ws.lgkm.size() <= keep) {
    issue(loc);
    return;
  }
  sim::Warp& w = issue_local(loc);
  Cycle until = 0;
  while (ws.lgkm.size() > keep) {
    until = std::max(until, ws.lgkm.front());
    ws.lgkm.pop_front();
  }
  stall_until(w, until, kLgkmcntStall);
}

}  // namespace sk::models::mi300x::api
