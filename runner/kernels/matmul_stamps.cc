// matmul_stamps.cc: see matmul_stamps.h.
#include "runner/kernels/matmul_stamps.h"

#include <utility>
#include <vector>

#include "models/sm100/gpu.h"
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

json::object MatmulStampLog::to_json(uint32_t grid) const {
  std::vector<double> all[5];
  json::array shown;
  for (const auto& [key, t] : tiles_) {
    const auto [cta, wg, tile] = key;
    const auto next = tiles_.find({cta, wg, tile + grid});
    if (next == tiles_.end() || t[kMmTileStored] == 0) continue;
    const double v[5] = {double(t[kMmFirstFull]) - double(t[kMmTileStart]),
                         double(t[kMmMainloopDone]) - double(t[kMmFirstFull]),
                         double(t[kMmTileStored]) - double(t[kMmMainloopDone]),
                         double(next->second[kMmTileStart]) - double(t[kMmTileStored]),
                         double(next->second[kMmTileStart]) - double(t[kMmTileStart])};
    for (int i = 0; i < 5; ++i) all[i].push_back(v[i]);
    if (cta == 0 && tile / grid < kShown) {
      json::object row{{"warpgroup", wg}, {"tile", tile / grid}, {"start", t[kMmTileStart]}};
      for (int i = 0; i < 5; ++i) row[kPhases[i]] = v[i];
      shown.push_back(std::move(row));
    }
  }
  json::object medians{{"tiles", all[0].size()}};
  for (int i = 0; i < 5; ++i) medians[kPhases[i]] = median(all[i]);
  return json::object{{"tile_medians", std::move(medians)}, {"cta0_tiles", std::move(shown)}};
}

}  // namespace sk::sim
