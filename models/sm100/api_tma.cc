// api_tma.cc: TMA tensor loads and stores, bulk async-groups and proxy fences
// (PTX ISA 9.0 9.7.9.25; rules in research/verify.md 4.2).
//
// A load is an async agent: issued by a lane, it streams the box from global
// memory (zero-filling out-of-bounds elements, which still count towards the
// transaction bytes), writes it into SMEM with the tensor map's swizzle, then
// performs complete_tx on the barrier. A store reads its SMEM box when issued
// (modelled as a read window ending at read_done) and writes the in-bounds part
// of the box to global memory at write_done. The checks, timing and completion
// that every load shares live in tma_common.h; the tiled load and the store
// take tiled maps only (an im2col map is the finding tma.wrong_mode), through
// the instruction of the map's rank (.2d or .3d; another is tma.rank_mismatch);
// a rank-3 box is one plane of the tensor, kept in L2 under the plane's
// address. The im2col load is in api_tma_im2col.cc. A multicast load
// (.multicast::cluster) reads the box once and delivers it, with its
// complete_tx, to the same SMEM and barrier offsets in every CTA of its mask.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"
#include "models/sm100/tma_common.h"

namespace sk::models::sm100::api {
namespace {
using tma::box_span;
using tma::observe_box;
using tma::smem_box;
using tma::valid_map;

// A tiled box's coordinates: c0 the contiguous dim, c1 the row, c2 the plane
// (rank-3 maps; 0 for rank 2).
struct BoxAt {
  int32_t c0 = 0, c1 = 0, c2 = 0;
};

// Whether plane c2 of the map lies inside the tensor (rank 2: plane 0 only),
// and the global address of its first element.
bool plane_in(const TensorMapModel& map, int32_t c2) {
  return map.rank < 3 ? c2 == 0 : c2 >= 0 && static_cast<uint64_t>(c2) < map.dims[2];
}
uint64_t plane_address(const TensorMapModel& map, int32_t c2) {
  return map.global_address + static_cast<uint64_t>(static_cast<int64_t>(c2)) * map.stride2_bytes;
}

// Copies one box between global memory and SMEM. to_smem: global -> SMEM
// (zero fill outside the tensor); otherwise SMEM -> global (clipped). `smem`
// holds the SMEM window starting at offset `window` (the CTA's live SMEM, or a
// snapshot of the box taken when a store's read completed).
void move_box(uint8_t* smem, uint32_t window, const TensorMapModel& map, uint32_t smem_off,
              BoxAt at, bool to_smem) {
  const uint32_t eb = map.elem_bytes;
  const uint32_t row_bytes = map.box[0] * eb;
  const bool plane = plane_in(map, at.c2);
  uint8_t* gbase = plane ? gpu().gmem().host(plane_address(map, at.c2)) : nullptr;
  for (uint32_t j = 0; j < map.box[1]; ++j) {
    int64_t y = static_cast<int64_t>(at.c1) + j;
    bool row_in = plane && y >= 0 && static_cast<uint64_t>(y) < map.dims[1];
    for (uint32_t b = 0; b < row_bytes; b += eb) {
      int64_t x = static_cast<int64_t>(at.c0) + b / eb;
      bool in = row_in && x >= 0 && static_cast<uint64_t>(x) < map.dims[0];
      uint32_t s = swizzled_offset(smem_off + j * row_bytes + b, map.swizzle);
      uint8_t* sp = smem + (s - window);
      if (to_smem) {
        if (in)
          std::memcpy(sp, gbase + y * map.stride1_bytes + x * eb, eb);
        else
          std::memset(sp, 0, eb);
      } else if (in) {
        std::memcpy(gbase + y * map.stride1_bytes + x * eb, sp, eb);
      }
    }
  }
}

// Global-memory rows of the box that lie inside the tensor, as byte ranges.
std::vector<sim::Range> global_rows(const TensorMapModel& map, BoxAt at) {
  std::vector<sim::Range> rows;
  const int64_t x0 = std::max<int64_t>(at.c0, 0);
  const int64_t x1 = std::min<int64_t>(int64_t{at.c0} + map.box[0], static_cast<int64_t>(map.dims[0]));
  if (x0 >= x1 || !plane_in(map, at.c2)) return rows;
  const uint64_t base = plane_address(map, at.c2);
  for (uint32_t j = 0; j < map.box[1]; ++j) {
    int64_t y = int64_t{at.c1} + j;
    if (y < 0 || static_cast<uint64_t>(y) >= map.dims[1]) continue;
    uint64_t row = base + static_cast<uint64_t>(y) * map.stride1_bytes;
    rows.push_back(sim::Range{row + x0 * map.elem_bytes, row + x1 * map.elem_bytes});
  }
  return rows;
}

// A tiled instruction of `rank` dims on a map of another rank is a finding
// (the hardware's behaviour is undefined); the operation is dropped.
bool check_rank(const TensorMapModel& map, uint32_t rank, const char* op, const Loc& loc) {
  if (map.rank == rank) return true;
  gpu().finding("tma", "tma.rank_mismatch",
                fmt::format("{} names {} coordinates, but the tensor map has rank {} "
                            "(use the .{}d form)",
                            op, rank, map.rank, map.rank),
                loc);
  return false;
}

// The destinations of a multicast load: every CTA of `mask` in the cluster,
// with the barrier at bar's offset in each (PTX 9.7.9.25.5.2: the data and
// the complete_tx go to the same offsets in each destination CTA). Empty,
// after a finding, when the mask or a destination's barrier is unusable.
std::vector<tma::LoadDest> multicast_dests(Cta& cta, uint64_t* bar, uint16_t mask, const char* op,
                                           const Loc& loc) {
  const int size = gpu().cluster_size();
  if (mask == 0 || (size < 16 && (mask >> size) != 0)) {
    gpu().finding("tma", "tma.multicast_mask",
                  fmt::format("{}: ctaMask {:#06x} names {} of a cluster of {} CTA(s); every set "
                              "bit must be a rank of the cluster and at least one must be set",
                              op, mask, mask == 0 ? "no CTA" : "ranks outside", size),
                  loc);
    return {};
  }
  const int64_t off = mbar::barrier_offset(gpu(), bar, op, loc);
  if (off < 0) return {};
  std::vector<tma::LoadDest> dests;
  for (uint32_t r = 0; r < 16; ++r) {
    if (((mask >> r) & 1u) == 0) continue;
    Cta* peer = gpu().peer(cta, r);
    Mbarrier* b = mbar::peer_barrier(gpu(), cta, *peer, off, op, "multicasts into", loc);
    if (b == nullptr) return {};
    dests.push_back(tma::LoadDest{peer, b});
  }
  return dests;
}

// The destination of a .cta_group::2 load: this CTA's SMEM, completing on
// the barrier at bar's offset in CTA `bar_rank`, which must be this CTA or
// its pair peer. Empty, after a finding, otherwise.
std::vector<tma::LoadDest> pair_dest(Cta& cta, uint64_t* bar, uint32_t bar_rank, const char* op,
                                     const Loc& loc) {
  Cta* bc = gpu().peer(cta, bar_rank);
  if (bc == nullptr || (bar_rank != cta.cluster_rank && bar_rank != (cta.cluster_rank ^ 1u))) {
    gpu().finding("tma", "tma.pair_barrier",
                  fmt::format("{} by CTA {} (rank {}) completes on a barrier of rank {}: with "
                              ".cta_group::2 the barrier is in the issuing CTA or its pair peer "
                              "(rank {})",
                              op, cta.id, cta.cluster_rank, bar_rank, cta.cluster_rank ^ 1u),
                  loc);
    return {};
  }
  const int64_t off = mbar::barrier_offset(gpu(), bar, op, loc);
  if (off < 0) return {};
  Mbarrier* b = mbar::peer_barrier(gpu(), cta, *bc, off, op, "completes on", loc);
  if (b == nullptr) return {};
  return {tma::LoadDest{&cta, b, bc}};
}

// mask 0: a plain load into this CTA; else a multicast to the CTAs of mask.
// pair_rank >= 0: a .cta_group::2 load completing on that rank's barrier.
void load_tiled(void* smem_dst, const TensorMapModel* map, uint64_t* bar, uint32_t rank, BoxAt at,
                uint16_t mask, const Loc& loc, int pair_rank = -1) {
  // The load changes the barrier only through its complete_tx, scheduled at
  // its completion; it runs at the warp's local time.
  static constexpr const char* kOp = "cp.async.bulk.tensor (load)";
  sim::Warp& w = issue_local(loc);
  if (!valid_map(map, loc) || !tma::check_mode(*map, TensorMapMode::kTiled, kOp, loc) ||
      !check_rank(*map, rank, kOp, loc))
    return;
  Cta& cta = gpu().cta_of_current();
  int64_t off = smem_box(cta, smem_dst, *map, kOp, loc);
  if (off < 0) return;
  std::vector<tma::LoadDest> dests;
  if (pair_rank >= 0) {
    dests = pair_dest(cta, bar, static_cast<uint32_t>(pair_rank),
                      "cp.async.bulk.tensor.cta_group::2", loc);
    if (dests.empty()) return;
  } else if (mask == 0) {
    Mbarrier* b = mbar::checked(gpu(), bar, "cp.async.bulk.tensor complete_tx", loc);
    if (b == nullptr) return;
    dests.push_back(tma::LoadDest{&cta, b});
  } else {
    dests = multicast_dests(cta, bar, mask, "cp.async.bulk.tensor.multicast::cluster", loc);
    if (dests.empty()) return;
  }
  const TensorMapModel m = *map;  // the engine reads the map at issue
  // L2 keeps the box under its plane's address: planes are separate matrices.
  const tma::L2Part part{BoxKey{plane_address(m, at.c2), at.c0, at.c1, m.box[0], m.box[1]},
                         m.box_bytes()};
  tma::PageSpan pages;
  uint32_t oob = m.rank >= 2 ? m.box[1] : 0;  // a plane outside the tensor: every row
  if (plane_in(m, at.c2)) {
    TensorMapModel plane = m;
    plane.global_address = plane_address(m, at.c2);
    plane.rank = 2;
    pages = tma::tiled_pages(plane, at.c0, at.c1);
    oob = tma::oob_rows(m, at.c1);
  }
  tma::issue_load(
      w, cta, dests, map, m, off, {&part, 1}, pages, oob, [&] { return global_rows(m, at); },
      [&] {
        std::vector<std::pair<std::string, int64_t>> args{{"c0", at.c0}, {"c1", at.c1}};
        if (rank == 3) {
          args.emplace_back("c2", at.c2);
          return std::pair{fmt::format("load ({},{},{})", at.c0, at.c1, at.c2), std::move(args)};
        }
        return std::pair{fmt::format("load ({},{})", at.c0, at.c1), std::move(args)};
      },
      [&] {
        // The map travels with the event only when bytes move (functional mode).
        auto data = gpu().functional() ? std::make_unique<TensorMapModel>(m) : nullptr;
        return [data = std::move(data), off, at](Cta& c) {
          if (data) move_box(c.smem, 0, *data, static_cast<uint32_t>(off), at, true);
        };
      },
      loc);
}

void store_tiled(const TensorMapModel* map, const void* smem_src, uint32_t rank, BoxAt at,
                 const Loc& loc) {
  static constexpr const char* kOp = "cp.async.bulk.tensor (store)";
  sim::Warp& w = issue_local(loc);
  if (!valid_map(map, loc) || !tma::check_mode(*map, TensorMapMode::kTiled, kOp, loc) ||
      !check_rank(*map, rank, kOp, loc))
    return;
  Cta& cta = gpu().cta_of_current();
  int64_t off = smem_box(cta, smem_src, *map, kOp, loc);
  if (off < 0) return;
  const TensorMapModel m = *map;
  WarpAsync& wa = cta.warp_async[w.index()];
  for (int lane = 0; lane < w.active_count(); ++lane) {
    if (gpu().obs() != nullptr) {
      sim::OpId rd = gpu().obs()->issue_async(w, "tma.store.read");
      sim::OpId wr = gpu().obs()->issue_async(w, "tma.store.write");
      const sim::Range box{static_cast<uint64_t>(off), static_cast<uint64_t>(off) + box_span(m)};
      observe_box(rd, sim::Space::kSmem, {&box, 1}, false, "TMA store", loc);
      auto rows = global_rows(m, at);
      observe_box(wr, sim::Space::kGlobal, rows, true, "TMA store", loc);
      wa.open.reads.push_back(rd);
      wa.open.writes.push_back(wr);
    }
    Cycle now = local_now(w);
    const Params& p = gpu().params();
    const Cycle link_done = gpu().hbm_transfer(now, m.box_bytes());
    // The box is read out of SMEM as its bytes leave: after the store's
    // unloaded read latency and no sooner than they pass the write path.
    Cycle read_done = p.tma_store_read_latency > 0
                          ? std::max(now + p.tma_store_read_latency, link_done)
                          : now + m.box_bytes() / 64 + 32;  // SMEM read at ~64 B/cycle
    read_done += gpu().engine().schedule().agent_delay(sim::Agent::kTma, read_done - now);
    Cycle write_done = std::max(now + p.tma_store_latency, link_done);
    write_done = std::max(write_done, read_done) +
                 gpu().engine().schedule().agent_delay(sim::Agent::kTma, write_done - now);
    tensormap_read(map, write_done, loc);
    wa.open.read_done = std::max(wa.open.read_done, read_done);
    wa.open.write_done = std::max(wa.open.write_done, write_done);
    if (wa.open.stores++ == 0) wa.open.first = gpu().engine().site_here(loc);
    wa.open_nonempty = true;
    if (gpu().functional()) {
      // Snapshot the box at read completion, write it at write completion.
      auto snapshot = std::make_shared<std::vector<uint8_t>>();
      uint32_t o = static_cast<uint32_t>(off);
      uint32_t span = std::min(box_span(m), cta.smem_size - o);
      gpu().engine().at(read_done, [&cta, snapshot, o, span] {
        snapshot->assign(cta.smem + o, cta.smem + o + span);
      });
      gpu().engine().at(write_done, [snapshot, map = std::make_unique<TensorMapModel>(m), o, at] {
        move_box(snapshot->data(), o, *map, o, at, false);
      });
    }
    auto& tr = gpu().engine().trace();
    if (cta.traced)
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "TMA store", 50), now, write_done,
                               rank == 3 ? fmt::format("store ({},{},{})", at.c0, at.c1, at.c2)
                                         : fmt::format("store ({},{})", at.c0, at.c1),
                               {{"bytes", m.box_bytes()}},
                               0,
                               w.take_flow()});
  }
}

}  // namespace

void prefetch_tensormap(const TensorMapModel* map, const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  if (!valid_map(map, loc)) return;
  tensormap_read(map, local_now(w), loc);
  tma::descriptor_ready(gpu().cta_of_current(), map, local_now(w));
}

void tma_load_2d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0, int32_t c1,
                 const Loc& loc) {
  load_tiled(smem_dst, map, bar, 2, BoxAt{c0, c1, 0}, 0, loc);
}

void tma_load_3d(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0, int32_t c1,
                 int32_t c2, const Loc& loc) {
  load_tiled(smem_dst, map, bar, 3, BoxAt{c0, c1, c2}, 0, loc);
}

void tma_load_2d_multicast(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0,
                           int32_t c1, uint16_t cta_mask, const Loc& loc) {
  load_tiled(smem_dst, map, bar, 2, BoxAt{c0, c1, 0}, cta_mask, loc);
}

void tma_load_3d_multicast(void* smem_dst, const TensorMapModel* map, uint64_t* bar, int32_t c0,
                           int32_t c1, int32_t c2, uint16_t cta_mask, const Loc& loc) {
  load_tiled(smem_dst, map, bar, 3, BoxAt{c0, c1, c2}, cta_mask, loc);
}

void tma_load_2d_pair(void* smem_dst, const TensorMapModel* map, uint64_t* bar,
                      uint32_t bar_rank, int32_t c0, int32_t c1, const Loc& loc) {
  load_tiled(smem_dst, map, bar, 2, BoxAt{c0, c1, 0}, 0, loc, static_cast<int>(bar_rank));
}

void tma_load_3d_pair(void* smem_dst, const TensorMapModel* map, uint64_t* bar,
                      uint32_t bar_rank, int32_t c0, int32_t c1, int32_t c2, const Loc& loc) {
  load_tiled(smem_dst, map, bar, 3, BoxAt{c0, c1, c2}, 0, loc, static_cast<int>(bar_rank));
}

void tma_store_2d(const TensorMapModel* map, const void* smem_src, int32_t c0, int32_t c1,
                  const Loc& loc) {
  store_tiled(map, smem_src, 2, BoxAt{c0, c1, 0}, loc);
}

void tma_store_3d(const TensorMapModel* map, const void* smem_src, int32_t c0, int32_t c1,
                  int32_t c2, const Loc& loc) {
  store_tiled(map, smem_src, 3, BoxAt{c0, c1, c2}, loc);
}

void bulk_commit_group(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  WarpAsync& wa = gpu().cta_of_current().warp_async[w.index()];
  // An empty group is legal and completes at once.
  wa.groups.push_back(wa.open_nonempty ? std::move(wa.open) : BulkGroup{});
  wa.open = BulkGroup{};
  wa.open_nonempty = false;
}

namespace {
// Waits until all but the newest n committed groups have finished reading
// their sources (reads_only) or completed. Groups whose reads were waited for
// stay queued (wa.reads_waited counts them) until their writes are waited for.
void wait_groups(int n, bool reads_only, const Loc& loc) {
  sim::Warp& w = issue(loc);
  WarpAsync& wa = gpu().cta_of_current().warp_async[w.index()];
  sim::Observer* obs = gpu().obs();
  const size_t keep = static_cast<size_t>(std::max(n, 0));
  const size_t count = wa.groups.size() > keep ? wa.groups.size() - keep : 0;
  for (size_t i = reads_only ? wa.reads_waited : 0; i < count; ++i) {
    BulkGroup& g = wa.groups[i];
    Cycle now = gpu().engine().now();
    Cycle t = reads_only ? g.read_done : g.write_done;
    if (t > now) w.stall(t - now, reads_only ? "bulk wait_group.read" : "bulk wait_group");
    if (obs != nullptr) {
      for (sim::OpId op : g.reads) obs->complete_local(w, op);
      if (!reads_only)
        for (sim::OpId op : g.writes) obs->complete_local(w, op);
    }
    g.reads.clear();
  }
  if (reads_only) {
    wa.reads_waited = std::max(wa.reads_waited, count);
  } else {
    wa.groups.erase(wa.groups.begin(), wa.groups.begin() + static_cast<std::ptrdiff_t>(count));
    wa.reads_waited = wa.reads_waited > count ? wa.reads_waited - count : 0;
  }
}
}  // namespace

void bulk_wait_group_read(int n, const Loc& loc) { wait_groups(n, true, loc); }
void bulk_wait_group(int n, const Loc& loc) { wait_groups(n, false, loc); }
void fence_proxy_async_shared(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  if (gpu().obs() != nullptr) gpu().obs()->fence_proxy_async(w, sim::FenceScope::kShared);
}
void fence_proxy_async_global(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  if (gpu().obs() != nullptr) gpu().obs()->fence_proxy_async(w, sim::FenceScope::kGlobal);
}
void fence_proxy_async(const Loc& loc) {
  sim::Warp& w = issue_local(loc);
  if (gpu().obs() != nullptr) gpu().obs()->fence_proxy_async(w, sim::FenceScope::kAll);
}

}  // namespace sk::models::sm100::api
