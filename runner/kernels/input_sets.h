// input_sets.h: the L2 a launch finds when the measurement rotates over input
// sets, as hw/h200/gemm_bench.cu times every configuration.
//
// gemm_bench times each configuration over S sets of A and B in turn (S =
// min(8, ceil(192 MB / a set's bytes)); hw/h200/sweep_report.py's
// bench_input_sets computes it for the reports) so that the launches do not find
// their operands in L2; for a small problem the S sets fit in L2 together and
// every launch finds its operands there, on the board, where a lone launch in
// the model starts from an empty L2. `sim run --input-sets S` asks the model
// for the same: before the launch its L2 model is walked through what the
// launches since this set's last use did: this set's boxes read (from an SM
// beside each half of L2), its D written, then S - 1 other sets of the same
// sizes read and their D's written. What of this set is still resident then
// is in L2 when the launch starts (landed before cycle 0); the capacity and
// the replacement are the L2 model's own.
//
// Invariants: sets 0 preloads nothing (the default: a lone launch); the other
// sets' boxes and the D's never share a key with this launch's boxes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/sm100/gpu.h"
#include "models/sm100/tensor_map.h"

namespace sk::runner {

// Walks `l2` (of `l2_bytes`, halves by SM as Params::l2_side) through
// `sets` launches' traffic as above: `maps` are this launch's tiled operand
// maps (every aligned box of each is read), `d_bytes` what each launch
// writes.
void preload_input_sets(models::sm100::L2& l2, const std::vector<uint32_t>& l2_side, uint64_t l2_bytes,
                        std::span<const models::sm100::TensorMapModel* const> maps, uint64_t d_bytes,
                        uint32_t sets);
// The same on gpu's L2.
void preload_input_sets(models::sm100::Gpu& gpu, std::span<const models::sm100::TensorMapModel* const> maps,
                        uint64_t d_bytes, uint32_t sets);

}  // namespace sk::runner
