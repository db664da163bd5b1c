// tma_common.h: helpers shared by the TMA load paths (api_tma.cc for tiled
// boxes, api_tma_im2col.cc for im2col columns); not part of the API.
//
// Every TMA load, whatever its mode, goes through issue_load(): the same
// checks of the map and the SMEM destination, the same timing (the SM's
// ingest port, L2 and HBM bandwidth, miss merging in L2), the same race
// detector events (one async op per load: the global ranges it reads, the SMEM
// box it writes) and the same completion (the bytes land, then complete_tx of
// the full box bytes on the barrier). Invariants: a load that passed the
// checks always completes and always counts map.box_bytes() on its barrier,
// zero-filled bytes included; in timing mode no bytes move and nothing is
// allocated per load beyond what the observer asks for.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"

namespace sk::models::sm100::api::tma {

// Bytes after which a swizzle pattern repeats; the SMEM alignment a box needs.
inline uint32_t swizzle_repeat(Swizzle s) {
  switch (s) {
    case Swizzle::k128B: return 1024;
    case Swizzle::k64B: return 512;
    case Swizzle::k32B: return 256;
    default: return 128;
  }
}

inline const char* mode_name(TensorMapMode m) {
  return m == TensorMapMode::kIm2col ? "im2col" : "tiled";
}

inline bool valid_map(const TensorMapModel* map, const Loc& loc) {
  if (map == nullptr || map->magic != TensorMapModel::kMagic) {
    gpu().finding("tma", "tma.bad_descriptor",
                  "TMA issued with a tensor map that was never encoded", loc);
    return false;
  }
  return true;
}

// An encoded map used by an instruction of the other mode (a tiled map with
// the .im2col load or the reverse) is a finding; the operation is dropped.
inline bool check_mode(const TensorMapModel& map, TensorMapMode want, const char* op,
                       const Loc& loc) {
  if (map.mode == want) return true;
  gpu().finding("tma", "tma.wrong_mode",
                fmt::format("{} needs a{} {} tensor map, but the map was encoded in {} mode "
                            "(cuTensorMapEncode{})",
                            op, want == TensorMapMode::kIm2col ? "n" : "", mode_name(want),
                            mode_name(map.mode),
                            map.mode == TensorMapMode::kIm2col ? "Im2col" : "Tiled"),
                loc);
  return false;
}

// Checks that [off, off + bytes) lies in SMEM with the alignment the swizzle
// mode needs; returns the offset or -1.
inline int64_t smem_box(Cta& cta, const void* p, const TensorMapModel& map, const char* op,
                        const Loc& loc) {
  auto off = reinterpret_cast<const uint8_t*>(p) - cta.smem;
  uint32_t align = swizzle_repeat(map.swizzle);
  if (off < 0 || off + map.box_bytes() > cta.smem_size) {
    gpu().finding("tma", "tma.smem_out_of_range",
                  fmt::format("{}: box of {} B at shared offset {} does not fit in the CTA's {} B "
                              "of shared memory",
                              op, map.box_bytes(), static_cast<long>(off), cta.smem_size),
                  loc);
    return -1;
  }
  if (off % align != 0) {
    gpu().finding("tma", "tma.smem_misaligned",
                  fmt::format("{}: shared destination offset {} is not {}-byte aligned, as {} "
                              "requires",
                              op, static_cast<long>(off), align,
                              map.swizzle == Swizzle::kNone
                                  ? std::string("TMA")
                                  : fmt::format("{}B swizzle", static_cast<int>(map.swizzle))),
                  loc);
    return -1;
  }
  return off;
}

// Bytes of SMEM a box touches from its (aligned) start, swizzle included:
// a swizzle permutes the 16-byte chunks inside each span of its width (32,
// 64 or 128 bytes; tensor_map.cc swizzled_offset), so a box's last partial
// span may land anywhere in that span and nothing past it. (Not the
// repeat: a box of 5 rows of 128 bytes, 128B swizzle, touches 640 bytes, and
// a kernel may write the rows after it.)
inline uint32_t box_span(const TensorMapModel& map) {
  const uint32_t width = swizzle_repeat(map.swizzle) / 8;  // 128, 64, 32, or 16 (none)
  return (map.box_bytes() + width - 1) / width * width;
}

// Records the accesses of a TMA operation for the race detector.
inline void observe_box(sim::OpId op, sim::Space space, std::span<const sim::Range> r, bool write,
                        const char* what, const Loc& loc) {
  gpu().obs()->access(gpu().warp(), op, space, r, write, sim::Proxy::kAsync, what, loc);
}

// The global bytes of a load, for the translation cache: `rows` rows of
// `row_bytes` bytes, `stride` bytes apart from `addr` (rows 0: none, a box
// wholly out of bounds or a map kind not tracked).
struct PageSpan {
  uint64_t addr = 0, stride = 0;
  uint32_t rows = 0, row_bytes = 0;
};
constexpr unsigned kPageShift = models::kDevicePageShift;

// The pages of tiled box (c0, c1) of a rank-2 map, clipped to the tensor.
inline PageSpan tiled_pages(const TensorMapModel& m, int32_t c0, int32_t c1) {
  const int64_t r0 = std::max<int64_t>(c1, 0);
  const int64_t r1 = std::min<int64_t>(int64_t{c1} + m.box[1], static_cast<int64_t>(m.dims[1])) - 1;
  const int64_t e0 = std::max<int64_t>(c0, 0);
  const int64_t e1 = std::min<int64_t>(int64_t{c0} + m.box[0], static_cast<int64_t>(m.dims[0])) - 1;
  if (m.rank != 2 || r1 < r0 || e1 < e0) return {};
  return {m.global_address + static_cast<uint64_t>(r0) * m.stride1_bytes +
              static_cast<uint64_t>(e0) * m.elem_bytes,
          m.stride1_bytes, static_cast<uint32_t>(r1 - r0 + 1),
          static_cast<uint32_t>((e1 - e0 + 1) * m.elem_bytes)};
}

// Rows of tiled box row coordinate c1 of map `m` (rank 2 or more) that lie
// wholly outside the tensor's rows, [0, dims[1]): zero-filled.
inline uint32_t oob_rows(const TensorMapModel& m, int32_t c1) {
  if (m.rank < 2) return 0;
  const int64_t lo = std::max<int64_t>(c1, 0);
  const int64_t hi = std::min<int64_t>(int64_t{c1} + m.box[1], static_cast<int64_t>(m.dims[1]));
  return m.box[1] - static_cast<uint32_t>(std::max<int64_t>(hi - lo, 0));
}

// Rows of `s` that start inside a 32-byte sector. The start of row r is
// addr + r * stride, so modulo 32 the rows repeat every 32 / gcd(stride mod
// 32, 32) rows: one period is counted, then scaled.
inline uint32_t unaligned_rows(const PageSpan& s) {
  if (s.rows == 0) return 0;
  const uint64_t step = s.stride % 32, first = s.addr % 32;
  if (step == 0) return first != 0 ? s.rows : 0;
  const uint32_t period = static_cast<uint32_t>(32 / std::gcd<uint64_t>(step, 32));
  auto count = [&](uint32_t n) {
    uint32_t c = 0;
    for (uint32_t r = 0; r < n; ++r) c += (first + r * step) % 32 != 0 ? 1 : 0;
    return c;
  };
  return s.rows / period * count(period) + count(s.rows % period);
}

// Looks one page up in the CTA's translation cache (least recently used
// out) and enters it; true on a miss.
inline bool tlb_lookup(Cta& cta, uint64_t page, uint32_t entries) {
  const uint64_t tick = ++cta.tlb_tick;
  uint32_t at = 0, lru = 0;
  while (at < cta.tlb_size && cta.tlb_page[at] != page) {
    if (cta.tlb_used[at] < cta.tlb_used[lru]) lru = at;
    ++at;
  }
  bool miss = false;
  if (at == cta.tlb_size) {  // a miss: a free entry, or the least recently used
    miss = true;
    at = cta.tlb_size < entries ? cta.tlb_size++ : lru;
    cta.tlb_page[at] = page;
  }
  cta.tlb_used[at] = tick;
  return miss;
}

// Looks up every page a load touches; true when any missed. At most ~512
// lookups per box whatever its strides (at most 256 rows).
inline bool tlb_miss(Cta& cta, const PageSpan& s, uint32_t entries) {
  if (s.rows == 0) return false;
  bool miss = false;
  const uint64_t page_bytes = uint64_t{1} << kPageShift;
  if (s.stride < page_bytes) {  // rows closer than a page: every page of the range
    const uint64_t last = s.addr + (s.rows - 1) * s.stride + s.row_bytes - 1;
    for (uint64_t page = s.addr >> kPageShift; page <= last >> kPageShift; ++page)
      miss |= tlb_lookup(cta, page, entries);
    return miss;
  }
  for (uint32_t r = 0; r < s.rows; ++r) {  // a page or two per row
    const uint64_t lo = s.addr + r * s.stride, hi = lo + s.row_bytes - 1;
    for (uint64_t page = lo >> kPageShift; page <= hi >> kPageShift; ++page)
      miss |= tlb_lookup(cta, page, entries);
  }
  return miss;
}

// When, asked at `now`, `cta`'s SM holds the descriptor of `map` (never
// before now): the first use (a load or prefetch.tensormap) fetches it,
// tensormap_fetch_latency cycles; later ones find it fetched or on its way.
inline Cycle descriptor_ready(Cta& cta, const void* map, Cycle now) {
  const uint32_t fetch = gpu().params().tensormap_fetch_latency;
  if (fetch == 0) return now;
  for (const auto& [m, ready] : cta.maps_fetched)
    if (m == map) return std::max(now, ready);
  cta.maps_fetched.emplace_back(map, now + fetch);
  return now + fetch;
}

// One part of a load's L2 residency: the key it is tracked under and the
// bytes a miss brings from HBM. A tiled box is one part (its own bytes); an
// im2col column is one part per input row it touches.
struct L2Part {
  BoxKey key;
  uint64_t bytes = 0;
};

// Completion time of a load of `bytes` whose L2 residency is tracked under
// `parts`, issued now by `cta`. The SM ingest port serialises a CTA's loads, at
// its own rate or, with tma_fair_share, at its share of the L2 bandwidth among
// the SMs loading; L2 bandwidth is shared by all SMs, and so is HBM bandwidth
// for boxes that miss in L2 (whose fill also takes L2 bandwidth,
// l2_fill_factor). A box another CTA is already fetching arrives when that
// fetch lands (miss merging). Under load every box also waits
// tma_loaded_latency scaled by the share of SMs loading, and a box touching a
// page the SM's translation cache lacks waits tlb_miss_latency. A load whose
// parts all hit takes the hit path; otherwise the missed parts' bytes come
// from HBM, tma_base_latency after they pass the port, and the load also
// waits for the parts that hit. On the port and
// in L2 a row of `pages` that starts inside a 32-byte sector costs
// tma_unaligned_row_factor times its bytes. The box's `oob` rows outside its
// tensor pass the GPU's zero-fill path (tma_oob_rows_per_cycle, or the rate
// of its load: oob_path.h), and the SM's port is not free for its next load
// before they have.
inline Cycle load_done(Cta& cta, uint64_t box_bytes, std::span<const L2Part> parts,
                       const PageSpan& pages, uint32_t oob, Cycle now) {
  const Params& p = gpu().params();
  uint64_t bytes = box_bytes;
  if (p.tma_unaligned_row_factor > 1)
    bytes += static_cast<uint64_t>((p.tma_unaligned_row_factor - 1) * unaligned_rows(pages) *
                                   static_cast<double>(pages.row_bytes));
  const double loading = static_cast<double>(gpu().loading_sms() + (cta.loads_in_flight == 0 ? 1 : 0));
  double rate = p.sm_ingest_bytes_per_cycle;
  if (p.tma_fair_share) rate = std::min(rate, p.l2_bytes_per_cycle / loading);
  const double port_start = std::max(static_cast<double>(now), static_cast<double>(cta.tma_free));
  Cycle port_done = static_cast<Cycle>(port_start + static_cast<double>(bytes) / rate + 0.999);
  if (oob > 0 && p.oob_path_on())
    port_done = std::max(port_done, gpu().oob_fill(cta.sm, now, static_cast<Cycle>(port_start), oob));
  cta.tma_free = port_done;
  L2Reads l2;
  for (const L2Part& part : parts) gpu().l2().read(cta.sm, part.key, part.bytes, l2);
  cta.l2_hits += l2.parts_hit;
  const uint64_t missed = l2.hbm_bytes;
  Cycle done;
  if (missed == 0) {
    const Cycle l2_done = gpu().l2_transfer(now, bytes);
    done = std::max({now + p.tma_l2_latency, port_done + p.tma_l2_latency / 2, l2_done,
                     static_cast<Cycle>(l2.hit_ready) + p.tma_l2_latency / 2});
  } else {
    const Cycle l2_done =
        gpu().l2_transfer(now, bytes + static_cast<uint64_t>(p.l2_fill_factor * static_cast<double>(missed)));
    const Cycle hbm_done = gpu().hbm_transfer(now, missed);
    Cycle queue = 0;
    if (p.hbm_queue_latency > 0) {
      const double u = gpu().hbm_load(now);
      queue = static_cast<Cycle>(p.hbm_queue_latency * u / (1 - u) + 0.5);
    }
    // A lone box from HBM lands tma_base_latency after its bytes have
    // passed the SM's port: the calibration's base + bytes / rate (H200: a
    // lone 32 KiB box 1,206 cycles, a stage's two 16 KiB boxes 1,171).
    done = std::max({port_done + p.tma_base_latency + queue, hbm_done, l2_done});
    if (l2.any_hit) done = std::max<Cycle>(done, l2.hit_ready + p.tma_l2_latency / 2);
  }
  gpu().l2().land(l2, done);
  if (p.tma_loaded_latency > 0)
    done += static_cast<Cycle>(p.tma_loaded_latency * loading / p.num_sms + 0.5);
  if (p.tlb_entries > 0 && tlb_miss(cta, pages, p.tlb_entries)) done += p.tlb_miss_latency;
  if (oob > 0 && p.oob_path_on()) gpu().oob_landed(cta.sm, done);
  return done + gpu().engine().schedule().agent_delay(sim::Agent::kTma, done - now);
}

// Where a load lands: a CTA's SMEM (at the load's offset) and the barrier
// its complete_tx signals. A plain load has one (the issuing CTA); a
// multicast load one per CTA of its mask.
// Where a load's box lands (cta) and which barrier its complete_tx goes to:
// bar lives in bar_cta, the destination itself unless a .cta_group::2 load
// completes on its pair leader's barrier.
struct LoadDest {
  Cta* cta;
  Mbarrier* bar;
  Cta* bar_cta = nullptr;  // null: cta
};

// The SM ingest port of a multicast destination other than the issuer: the
// box's bytes enter that SM at its own rate; returns when they have.
inline Cycle port_done(Cta& cta, uint64_t bytes, Cycle now) {
  const double rate = gpu().params().sm_ingest_bytes_per_cycle;
  const double start = std::max(static_cast<double>(now), static_cast<double>(cta.tma_free));
  cta.tma_free = static_cast<Cycle>(start + static_cast<double>(bytes) / rate + 0.999);
  return cta.tma_free;
}

// Issues one load per active lane of `w` (of CTA `cta`) into SMEM offset
// `off` of every destination, completing on each destination's barrier. The
// box is read from L2 (and HBM) once, whatever the number of destinations;
// each destination SM ingests its bytes, and each past the issuer spends
// tma_multicast_l2_share x the bytes of the L2's rate. `map` is the map as the kernel
// passed it (its tensormap-proxy use is recorded); the load itself works on
// the copy `m` taken at issue. Callbacks, called only when needed:
//   rows()        -> std::vector<sim::Range>: global bytes read (observer on)
//   slice()       -> std::pair<std::string, args>: trace slice name and args
//                    (the CTA is traced)
//   make_mover()  -> a callable mover(Cta&) run when the load completes; it
//                    writes the box into that CTA's SMEM in functional mode
//                    and must do nothing in timing mode. It is captured in
//                    the engine event, so it must stay small (a pointer and
//                    a few words); one is made per destination.
template <class RowsFn, class SliceFn, class MoverFn>
void issue_load(sim::Warp& w, Cta& cta, std::span<const LoadDest> dests, const TensorMapModel* map,
                const TensorMapModel& m, int64_t off, std::span<const L2Part> parts,
                const PageSpan& pages, uint32_t oob, RowsFn&& rows, SliceFn&& slice, MoverFn&& make_mover,
                const Loc& loc) {
  const uint32_t bytes = m.box_bytes();
  for (const LoadDest& d : dests)
    mbar::check_overwrite(gpu(), *d.cta, static_cast<uint64_t>(off), box_span(m),
                          "a TMA load's box", loc);
  for (int lane = 0; lane < w.active_count(); ++lane) {
    sim::OpId op = 0;
    if (sim::Observer* obs = gpu().obs()) {
      op = obs->issue_async(w, "tma.load");
      const std::vector<sim::Range> global = rows();
      const sim::Range box{static_cast<uint64_t>(off), static_cast<uint64_t>(off) + box_span(m)};
      observe_box(op, sim::Space::kGlobal, global, false, "TMA load", loc);
      for (const LoadDest& d : dests)
        obs->access_at(w, op, d.cta->id, sim::Space::kSmem, {&box, 1}, true, sim::Proxy::kAsync,
                       "TMA load", loc);
    }
    Cycle begin = local_now(w);
    // The box request leaves once the SM holds the map's descriptor.
    const Cycle start = descriptor_ready(cta, map, begin);
    const Cycle issuer_done = load_done(cta, bytes, parts, pages, oob, start);
    gpu().note_tma_l2_read(bytes);
    Cycle last = issuer_done;
    auto& tr = gpu().engine().trace();
    const double share = gpu().params().tma_multicast_l2_share;
    for (const LoadDest& d : dests) {
      Cta& dc = *d.cta;
      Cycle done = issuer_done;
      if (&dc != &cta) {
        done = std::max(done, port_done(dc, bytes, start) + gpu().params().tma_l2_latency / 2);
        if (share > 0) {  // the peer's copy spends the L2's rate too
          const auto copy = static_cast<uint64_t>(share * bytes + 0.5);
          gpu().note_tma_l2_copy(copy);
          done = std::max(done, gpu().l2_transfer(start, copy));
        }
      }
      last = std::max(last, done);
      gpu().load_started(dc);
      note_busy(dc.tma_busy, begin, done);
      gpu().count_bytes_in_flight(dc, begin, bytes);
      gpu().count_bytes_in_flight(dc, done, -static_cast<int64_t>(bytes));
      dc.bytes_loaded += bytes;
      uint64_t dflow = 0;
      if (dc.traced) {
        dflow = tr.new_flow();
        std::string stage = d.bar->name.empty() ? std::string("TMA") : "TMA " + d.bar->name;
        auto [name, args] = slice();
        args.insert(args.begin(), std::pair<std::string, int64_t>{"bytes", bytes});
        if (&dc != &cta) {
          // A flow from the issuing CTA's TMA track into the receiver's.
          uint64_t xflow = 0;
          if (cta.traced) {
            xflow = tr.new_flow();
            tr.slice(sim::TraceSlice{gpu().engine_track(cta, stage, 0), begin, begin,
                                     fmt::format("multicast -> CTA {}", dc.id),
                                     {{"bytes", bytes}},
                                     xflow,
                                     0});
          }
          // The receiver's slice starts when the box can first reach it.
          const Cycle arrive = std::min(done, start + gpu().params().tma_l2_latency / 2 + 1);
          name += fmt::format(" (multicast from CTA {})", cta.id);
          tr.slice(sim::TraceSlice{gpu().engine_track(dc, stage, 0), arrive, done, std::move(name),
                                   std::move(args), dflow, xflow});
        } else {
          tr.slice(sim::TraceSlice{gpu().engine_track(dc, stage, 0), begin, done, std::move(name),
                                   std::move(args), dflow, w.take_flow()});
        }
      }
      Mbarrier* bp = d.bar;
      Cta& bc = d.bar_cta != nullptr ? *d.bar_cta : dc;
      mbar::load_issued(*bp, loc, cta.id);
      gpu().engine().at(done, [&dc, &bc, mover = make_mover(), bp, bytes, dflow, op]() mutable {
        mover(dc);
        gpu().load_landed(dc);
        mbar::complete_tx(gpu(), bc, *bp, bytes, dflow, op);
      });
    }
    tensormap_read(map, last, loc);
  }
}

}  // namespace sk::models::sm100::api::tma
