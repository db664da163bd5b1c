#include "runner/kernels/input_sets.h"

#include <algorithm>
#include <vector>

namespace sk::runner {
namespace {
using models::sm100::BoxKey;
using models::sm100::TensorMapModel;

// An SM beside each half of L2 (one SM when L2 is one cache).
std::vector<int> readers(const std::vector<uint32_t>& l2_side) {
  if (l2_side.empty()) return {0};
  std::vector<int> out;
  for (uint32_t side : {0u, 1u}) {
    const auto it = std::find(l2_side.begin(), l2_side.end(), side);
    if (it != l2_side.end()) out.push_back(static_cast<int>(it - l2_side.begin()));
  }
  return out;
}

// The matrices of `m` (its planes: dim 2 of a rank-3 map, else one).
uint64_t planes(const TensorMapModel& m) { return m.rank >= 3 ? m.dims[2] : 1; }

// Reads every aligned box of `m` as the launch's loads key them (the plane's
// address, the box's corner and shape); `tag` != 0 stands for another set's
// copy of the same tensor (a key no load of this launch makes).
void read_boxes(models::sm100::L2& l2, const TensorMapModel& m, uint64_t tag, const std::vector<int>& sms) {
  for (uint64_t c2 = 0; c2 < planes(m); ++c2) {
    const uint64_t base = (m.global_address + c2 * m.stride2_bytes) ^ (tag << 56);
    for (uint64_t c1 = 0; c1 < m.dims[1]; c1 += m.box[1])
      for (uint64_t c0 = 0; c0 < m.dims[0]; c0 += m.box[0]) {
        const BoxKey key{base, static_cast<int32_t>(c0), static_cast<int32_t>(c1), m.box[0], m.box[1]};
        for (int sm : sms) l2.preload_read(sm, key, m.box_bytes());
      }
  }
}

// One launch's D, written: entries of 64 KiB under keys of their own.
void write_d(models::sm100::L2& l2, uint64_t bytes, uint64_t tag) {
  constexpr uint64_t kChunk = 64 * 1024;
  for (uint64_t off = 0; off < bytes; off += kChunk) {
    const BoxKey key{(uint64_t{0xD} << 60) ^ (tag << 56), static_cast<int32_t>(off / kChunk), 0, 0, 0};
    l2.preload_written(key, std::min(kChunk, bytes - off));
  }
}
}  // namespace

void preload_input_sets(models::sm100::L2& l2, const std::vector<uint32_t>& l2_side, uint64_t l2_bytes,
                        std::span<const TensorMapModel* const> maps, uint64_t d_bytes, uint32_t sets) {
  if (sets == 0) return;
  uint64_t set_bytes = 0;
  for (const TensorMapModel* m : maps) {
    set_bytes += planes(*m) * ((m->dims[0] + m->box[0] - 1) / m->box[0]) * ((m->dims[1] + m->box[1] - 1) / m->box[1]) *
                 m->box_bytes();
  }
  // Replacement is LRU and this set goes first: once the other sets' boxes
  // alone exceed the capacity (twice what a half holds), none of it is left,
  // and the walk is skipped.
  if (static_cast<double>(sets - 1) * static_cast<double>(set_bytes) > static_cast<double>(l2_bytes)) return;
  const std::vector<int> sms = readers(l2_side);
  for (uint32_t s = 0; s < sets; ++s) {  // s = 0: this launch's set, the longest ago
    for (const TensorMapModel* m : maps) read_boxes(l2, *m, s, sms);
    write_d(l2, d_bytes, s);
  }
}

void preload_input_sets(models::sm100::Gpu& gpu, std::span<const TensorMapModel* const> maps, uint64_t d_bytes,
                        uint32_t sets) {
  preload_input_sets(gpu.l2(), gpu.params().l2_side, gpu.params().l2_bytes, maps, d_bytes, sets);
}

}  // namespace sk::runner
