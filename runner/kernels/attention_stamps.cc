// attention_stamps.cc: see attention_stamps.h.
#include "runner/kernels/attention_stamps.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "models/sm100/gpu.h"
#include "runner/report/median.h"
#include "runner/report/span_overlap.h"

namespace sk::sim {
namespace json = boost::json;

namespace {
constexpr int kBlockPoints = kPoints;
using report::median;
}  // namespace

void StampLog::record(AttentionPoint point, uint32_t tile, uint32_t block) {
  models::sm100::Gpu& gpu = models::sm100::Gpu::current();
  const Warp& w = gpu.warp();
  // The first warp of each consumer warpgroup (warps 4 and 8), as the bench
  // reads thread 128 x warpgroup of the consumers.
  if (w.index() < 4 || w.index() % 4 != 0) return;
  const uint32_t wg = static_cast<uint32_t>(w.index() / 4 - 1);
  const uint32_t cta = static_cast<uint32_t>(w.cta());
  const uint64_t now = gpu.engine().now() + w.pending();
  if (point >= kTileStart) {
    tiles_[{cta, wg, tile}][point - kTileStart] = now;  // a new entry starts all zero
    return;
  }
  if (cta == 0) blocks_[{wg, tile, block}][point] = now;
}

json::object StampLog::to_json(uint32_t grid) const {
  json::object out;
  // CTA 0's tiles, per warpgroup, in order.
  json::array tiles;
  for (uint32_t wg = 0; wg < 2; ++wg) {
    std::vector<double> seg[5];
    for (uint32_t k = 0;; ++k) {
      const auto it = tiles_.find({0, wg, k * grid});
      if (it == tiles_.end()) break;
      const auto next = tiles_.find({0, wg, (k + 1) * grid});
      const auto& t = it->second;
      const double q = double(t[1] - t[0]), b = double(t[2] - t[1]), st = double(t[3] - t[2]);
      const bool has_next = next != tiles_.end();
      const double nx = has_next ? double(next->second[0] - t[3]) : 0.0;
      tiles.push_back(json::object{{"warpgroup", wg},
                                   {"tile", k},
                                   {"q_wait", q},
                                   {"blocks", b},
                                   {"store", st},
                                   {"to_next_tile", nx}});
      seg[0].push_back(q), seg[1].push_back(b), seg[2].push_back(st);
      if (has_next) seg[3].push_back(nx), seg[4].push_back(q + b + st + nx);
    }
    if (!seg[3].empty())
      out[wg == 0 ? "tile_median_wg0" : "tile_median_wg1"] =
          json::object{{"q_wait", median(seg[0])}, {"blocks", median(seg[1])},
                       {"store", median(seg[2])},  {"to_next_tile", median(seg[3])},
                       {"tile_cycles", median(seg[4])}};
  }
  out["tiles"] = std::move(tiles);

  // A block's segments: point i to point i + 1, the last to the next block's start.
  static const char* const kSegments[kBlockPoints] = {"k_ready", "turn",    "issue", "s_ready",
                                                      "softmax", "pv_done", "to_p",  "to_next_block"};
  for (uint32_t wg = 0; wg < 2; ++wg) {
    std::vector<double> seg[kBlockPoints], period;
    for (const auto& [key, b] : blocks_) {
      const auto [w, tile, n] = key;
      if (w != wg || n == 0) continue;
      const auto next = blocks_.find({wg, tile, n + 1});
      if (next == blocks_.end()) continue;  // the tile's last block
      for (int i = 0; i + 1 < kBlockPoints; ++i) seg[i].push_back(double(b[i + 1] - b[i]));
      seg[kBlockPoints - 1].push_back(double(next->second[kBlockStart] - b[kBlockEnd]));
      period.push_back(double(next->second[kBlockStart] - b[kBlockStart]));
    }
    if (period.empty()) continue;
    json::object m;
    for (int i = 0; i < kBlockPoints; ++i) m[kSegments[i]] = median(seg[i]);
    m["period"] = median(period);
    m["blocks"] = period.size();
    out[wg == 0 ? "block_median_wg0" : "block_median_wg1"] = std::move(m);
  }

  // Every CTA's epilogues: the SM's span, and how many SMs store at once.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  std::vector<double> span;
  for (const auto& [key, t0] : tiles_) {
    const auto [cta, wg, tile] = key;
    if (wg != 0) continue;
    const auto t1 = tiles_.find({cta, 1, tile});
    if (t1 == tiles_.end() || t0[3] == 0 || t1->second[3] == 0) continue;
    spans.push_back({std::min(t0[2], t1->second[2]), std::max(t0[3], t1->second[3])});
    span.push_back(double(spans.back().second - spans.back().first));
  }
  out["epilogues"] = json::object{{"ctas_storing_mean", report::mean_open(spans)},
                                  {"span_cycles_median", median(span)},
                                  {"count", span.size()}};
  return out;
}

}  // namespace sk::sim
