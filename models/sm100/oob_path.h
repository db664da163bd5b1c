// oob_path.h: the GPU's path for the rows of TMA boxes that lie outside their
// tensor (zero-filled rows: a 128-row box of a matrix with fewer rows).
//
// Measured apart on the H200 (hw/h200/l2_stream.cu, sections oob and
// oob_depth): such rows pass a path of the whole GPU whose rate no single
// figure describes. It depends on how many SMs have such boxes in flight, how
// many each keeps in flight and how many rows of each box lie outside: from
// 132 SMs, 127 rows outside, it passes 7.6 rows per cycle with one box in
// flight per SM and 22 with eight; from 33 SMs or fewer it keeps up with every
// SM's port; between, it switches between the two. The model reads the
// measured surface (OobRates, in the parameter file) at the load each box
// meets (OobPath), or, without a surface, one rate
// (Params::tma_oob_rows_per_cycle).
//
// Invariants: the path's free time never decreases (SharedLink); a box is in
// flight from its issue to its landing; a lookup never extrapolates beyond the
// grid: SMs and rows outside go up to the next grid point (the last beyond
// it), boxes in flight per SM interpolate linearly between grid points where
// both limit the path and take the nearer point where one does not.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/common/shared_link.h"

namespace sk::models::sm100 {

using Cycle = uint64_t;

// Rows per SM cycle of the zero-fill path on a grid of rows outside x SMs
// loading x boxes in flight per SM; 0 where the SMs' own ports, not the path,
// were the limit.
struct OobRates {
  std::vector<uint32_t> outside, sms, depths;  // strictly increasing axes
  std::vector<double> rows_per_cycle;          // [outside][sms][depth]
  bool empty() const { return rows_per_cycle.empty(); }
  // The path's rate for boxes with `rows_outside` rows outside when `loading`
  // SMs have such boxes in flight, `depth` each on average; 0: not limited.
  double at(uint32_t rows_outside, uint32_t loading, double depth) const;
  // Empty when the surface is well formed (or absent), else why not.
  std::string check() const;
};

// The path itself: passes each box's rows at the rate of the load it meets.
class OobPath {
 public:
  // Rows offered at `start` by a box issued at `issued` on SM `sm`; returns
  // when they have passed. `fixed` (rows per cycle) is the rate when `rates`
  // is empty.
  Cycle pass(const OobRates& rates, double fixed, int sm, Cycle issued, Cycle start, uint32_t rows);
  // The box issued last on `sm` lands at `done` (only with a surface).
  void landed_at(int sm, Cycle done);

 private:
  void retire(Cycle now);
  SharedLink link_;
  std::vector<std::pair<Cycle, int>> flight_;  // min-heap of (landing, SM)
  std::vector<uint32_t> per_sm_;               // boxes in flight by SM
  uint32_t loading_ = 0;                       // SMs with a box in flight
};

}  // namespace sk::models::sm100
