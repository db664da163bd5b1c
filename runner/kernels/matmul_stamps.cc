// matmul_stamps.cc: see matmul_stamps.h.
#include "runner/kernels/matmul_stamps.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "models/sm100/gpu.h"
#include "runner/report/kblock_trip.h"
#include "runner/report/median.h"

namespace sk::sim {
namespace json = boost::json;

namespace {
using report::median;
constexpr const char* kPhases[] = {"first_wait", "mainloop", "epilogue", "to_next", "period"};
constexpr int kShown = 8;  // CTA 0's tiles listed one by one
}  // namespace

void MatmulStampLog::record(MatmulPoint point, uint64_t tile) {
  models::sm100::Gpu& gpu = models::sm100::Gpu::current();
  const Warp& w = gpu.warp();
  // The first warp of each consumer warpgroup (warps 4 and 8), as the bench
  // reads threads 128 and 256.
  if (w.index() < 4 || w.index() % 4 != 0) return;
  const uint32_t wg = static_cast<uint32_t>(w.index() / 4 - 1);
  tiles_[{static_cast<uint32_t>(w.cta()), wg, tile}][point] = gpu.engine().now() + w.pending();
}

void MatmulStampLog::record_kblock(KblockPoint point, uint64_t tile, uint32_t kb) {
  models::sm100::Gpu& gpu = models::sm100::Gpu::current();
  const Warp& w = gpu.warp();
  // The producer warp (warp 0) and the first warp of each consumer
  // warpgroup, as the bench reads threads 0, 128 and 256.
  if (w.index() % 4 != 0 || static_cast<uint32_t>(w.cta()) >= kKbCtas) return;
  const uint32_t role = static_cast<uint32_t>(w.index() / 4);
  kblocks_[{static_cast<uint32_t>(w.cta()), role, tile, kb}][point] = gpu.engine().now() + w.pending();
}

json::object MatmulStampLog::to_json(uint32_t step, uint32_t stages, uint32_t k_blocks) const {
  std::vector<double> all[5], whole[3];
  json::array shown;
  uint64_t first = 0, last = 0;
  for (const auto& [key, t] : tiles_) {
    const auto [cta, wg, tile] = key;
    if (t[kMmTileStored] != 0) {
      whole[0].push_back(double(t[kMmFirstFull]) - double(t[kMmTileStart]));
      whole[1].push_back(double(t[kMmMainloopDone]) - double(t[kMmFirstFull]));
      whole[2].push_back(double(t[kMmTileStored]) - double(t[kMmMainloopDone]));
      first = whole[0].size() == 1 ? t[kMmTileStart] : std::min(first, t[kMmTileStart]);
      last = std::max(last, t[kMmTileStored]);
    }
    const auto next = tiles_.find({cta, wg, tile + step});
    if (next == tiles_.end() || t[kMmTileStored] == 0) continue;
    const double v[5] = {double(t[kMmFirstFull]) - double(t[kMmTileStart]),
                         double(t[kMmMainloopDone]) - double(t[kMmFirstFull]),
                         double(t[kMmTileStored]) - double(t[kMmMainloopDone]),
                         double(next->second[kMmTileStart]) - double(t[kMmTileStored]),
                         double(next->second[kMmTileStart]) - double(t[kMmTileStart])};
    for (int i = 0; i < 5; ++i) all[i].push_back(v[i]);
    if (cta == 0 && tile / step < kShown) {
      json::object row{{"warpgroup", wg}, {"tile", tile / step}, {"start", t[kMmTileStart]}};
      for (int i = 0; i < 5; ++i) row[kPhases[i]] = v[i];
      shown.push_back(std::move(row));
    }
  }
  json::object medians{{"tiles", all[0].size()}};
  for (int i = 0; i < 5; ++i) medians[kPhases[i]] = median(all[i]);
  // Per tile index t (a CTA's t-th tile, the first kShown), over the CTAs'
  // warpgroup 0: the percentiles of the main loop's end after the first tile
  // start, and the median epilogue.
  json::array spread;
  for (uint64_t t = 0; t < kShown; ++t) {
    std::vector<double> ends, epi;
    for (const auto& [key, v] : tiles_) {
      const auto [cta, wg, tile] = key;
      if (wg != 0 || tile / step != t || v[kMmTileStored] == 0) continue;
      ends.push_back(double(v[kMmMainloopDone]) - double(first));
      epi.push_back(double(v[kMmTileStored]) - double(v[kMmMainloopDone]));
    }
    if (ends.empty()) break;
    std::sort(ends.begin(), ends.end());
    auto pct = [&ends](double q) { return ends[static_cast<size_t>(q * double(ends.size() - 1) + 0.5)]; };
    spread.push_back(json::object{{"tile", t}, {"p10", pct(0.1)}, {"p50", pct(0.5)}, {"p90", pct(0.9)},
                                  {"epilogue", median(epi)}, {"ctas", ends.size()}});
  }
  json::object whole_medians{{"tiles", whole[0].size()}, {"span_cycles", last - first}};
  for (int i = 0; i < 3; ++i) whole_medians[kPhases[i]] = median(whole[i]);
  json::object out{{"tile_medians", std::move(medians)},
                   {"all_tiles", std::move(whole_medians)},
                   {"tile_spread", std::move(spread)},
                   {"cta0_tiles", std::move(shown)}};
  if (stages > 0 && !kblocks_.empty()) {
    // The first CTAs' stamped tiles, by their index in the CTA's walk: from
    // the one kblock_first_tile names for CTA 0's count of tiles.
    uint64_t cta0_tiles = 0;
    for (const auto& [key, v] : kblocks_)
      if (std::get<0>(key) == 0) cta0_tiles = std::max(cta0_tiles, std::get<2>(key) / step + 1);
    const uint64_t first = report::kblock_first_tile(cta0_tiles);
    std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, std::array<uint64_t, kKbPoints>> by_local;
    for (const auto& [key, v] : kblocks_) {
      const auto [cta, role, tile, kb] = key;
      const uint64_t nth = tile / step;
      if (nth >= first && nth < first + kKbTiles) by_local[{cta, role, nth - first, kb}] = v;
    }
    auto at = [&by_local](uint32_t c, uint32_t role, uint32_t t, uint32_t kb, uint32_t point) -> uint64_t {
      const auto it = by_local.find({c, role, t, kb});
      return it == by_local.end() ? 0 : it->second[point];
    };
    const report::KblockTrip trip = report::kblock_trip(at, kKbCtas, kKbTiles, k_blocks, stages);
    out["kblocks"] = json::object{{"samples", trip.samples},
                                  {"kblock", trip.kblock},
                                  {"issue_to_full", trip.issue_to_full},
                                  {"hold", trip.hold},
                                  {"release_to_issue", trip.release_to_issue},
                                  {"consumer_wait", trip.consumer_wait}};
  }
  return out;
}

}  // namespace sk::sim
