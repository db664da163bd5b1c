// api_tensormap.cc: tensor maps changed by the kernel (tensormap.replace) and
// the tensormap proxy fences that publish the change to TMA (PTX ISA 9.0
// 9.7.9.26 tensormap.replace, 9.7.13.4 fence.proxy.tensormap).
//
// TMA reads a tensor map through the tensormap proxy. A kernel that retargets
// a map in global memory (grouped and pointer-array GEMMs do, per group) writes
// it through the generic proxy, so the write reaches TMA only after the writer
// runs fence.proxy.tensormap::generic.release and the thread that issues the
// TMA runs fence.proxy.tensormap::generic.acquire on that map. The map must
// also stay unchanged while a TMA operation that reads it is in flight; the
// model treats an operation as reading its map until it completes.
//
// Rules (class tensormap):
//   tensormap.missing_fence_proxy_tensormap  a TMA uses a map whose latest
//       write was not released, or not acquired by the issuing warp
//   tensormap.write_while_in_use  tensormap.replace while a TMA reading the
//       map is in flight
//   tensormap.replace_not_global  the map is not in global memory (maps in
//       kernel parameters or constant memory are read-only)
//   tensormap.bad_replace  an address that is not 16-byte aligned, a dimension
//       the map does not have, or a zero extent
// Visibility is tracked per map and per warp by simulated time order: a release
// covers the writes its warp made to any map before it, an acquire makes the
// released writes of that map visible to its warp.
#include <fmt/format.h>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "engine/source_loc.h"

namespace sk::models::sm100::api {
namespace {
std::string map_name(const void* map) {
  const auto addr = reinterpret_cast<uint64_t>(map);
  if (gpu().functional() && gpu().gmem().find(addr, 1) != nullptr)
    return "tensor map at " + gpu().gmem().describe(addr);
  return "tensor map";
}

// Common checks of a tensormap.replace; returns the map's state, or nullptr
// when the write must not happen.
TensorMapState* begin_replace(TensorMapModel* map, const Loc& loc) {
  issue(loc);
  if (map == nullptr || map->magic != TensorMapModel::kMagic) {
    gpu().finding("tma", "tma.bad_descriptor",
                  "tensormap.replace on a tensor map that was never encoded", loc);
    return nullptr;
  }
  // In timing mode global memory has no bytes, so maps can only be checked
  // against it when bytes are real.
  if (gpu().functional() &&
      gpu().gmem().find(reinterpret_cast<uint64_t>(map), sizeof(TensorMapModel)) == nullptr) {
    gpu().finding("tensormap", "tensormap.replace_not_global",
                  "tensormap.replace on a tensor map outside global memory; maps passed as "
                  "kernel parameters or in constant memory are read-only, copy the map to a "
                  "global workspace first",
                  loc);
    return nullptr;
  }
  TensorMapState& st = gpu().tensormap_state(map);
  const Cycle now = gpu().engine().now();
  if (st.in_use_until > now && !st.in_use_reported) {
    st.in_use_reported = true;
    gpu().finding("tensormap", "tensormap.write_while_in_use",
                  fmt::format("tensormap.replace on {} while the TMA issued at {} still reads it "
                              "(in flight until cycle {}, now {}); wait for that operation's "
                              "completion (its mbarrier phase or bulk group) before changing the "
                              "map, or switch between two maps",
                              map_name(map), sim::format_site(st.use_site), st.in_use_until,
                              now),
                  loc);
  }
  ++st.writes;
  st.last_writer = gpu().grid_warp();
  st.write_site = sim::format_location(loc);
  return &st;
}
}  // namespace

void tensormap_replace_global_address(TensorMapModel* map, uint64_t address, const Loc& loc) {
  if (address % 16 != 0) {
    issue(loc);
    gpu().finding("tensormap", "tensormap.bad_replace",
                  fmt::format("tensormap.replace.global_address with {:#x}, which is not 16-byte "
                              "aligned",
                              address),
                  loc);
    return;
  }
  if (begin_replace(map, loc) != nullptr) map->global_address = address;
}

void tensormap_replace_global_dim(TensorMapModel* map, int dim, uint32_t size, const Loc& loc) {
  if (map != nullptr && map->magic == TensorMapModel::kMagic &&
      (dim < 0 || static_cast<uint32_t>(dim) >= map->rank || size == 0)) {
    issue(loc);
    gpu().finding("tensormap", "tensormap.bad_replace",
                  fmt::format("tensormap.replace.global_dim {} = {} on a rank-{} map: {}", dim,
                              size, map->rank,
                              size == 0 ? "extents must be positive" : "no such dimension"),
                  loc);
    return;
  }
  if (begin_replace(map, loc) != nullptr) map->dims[dim] = size;
}

void fence_proxy_tensormap_release(const Loc& loc) {
  issue(loc);
  const int me = gpu().grid_warp();
  // Walks the maps this launch has used; kernels use few.
  for (auto& [map, st] : gpu().tensormaps())
    if (st.last_writer == me) st.released = st.writes;
}

void fence_proxy_tensormap_acquire(const TensorMapModel* map, const Loc& loc) {
  issue(loc);
  TensorMapState& st = gpu().tensormap_state(map);
  uint64_t& seen = st.acquired[gpu().grid_warp()];
  seen = std::max(seen, st.released);
}

void tensormap_read(const TensorMapModel* map, Cycle until, const Loc& loc) {
  TensorMapState& st = gpu().tensormap_state(map);
  const auto it = st.acquired.find(gpu().grid_warp());
  const uint64_t seen = it == st.acquired.end() ? 0 : it->second;
  if (seen < st.writes && !st.fence_reported) {
    st.fence_reported = true;
    const std::string why =
        st.released < st.writes
            ? "no fence.proxy.tensormap::generic.release followed the write"
            : "the issuing warp did not run fence.proxy.tensormap::generic.acquire on the map "
              "after the writer's release";
    gpu().finding("tensormap", "tensormap.missing_fence_proxy_tensormap",
                  fmt::format("TMA reads {} changed by tensormap.replace at {}, but {}; the TMA "
                              "unit may use the stale map",
                              map_name(map), st.write_site, why),
                  loc);
  }
  if (until >= st.in_use_until) {
    st.in_use_until = until;
    st.use_site = gpu().engine().site_here(loc);
  }
}

}  // namespace sk::models::sm100::api
