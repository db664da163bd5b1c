// timeline_svg.h: CTAs' traces as a standalone SVG timeline (`--timeline`).
//
// Draws each chosen CTA (an AMD workgroup) as a labelled block over one
// window of cycles: its warp tracks (what each warp issues, is busy with and
// waits on) and the engine tracks of its SM or CU (TMA loads per stage, the
// tensor core, TMA store, CLC; on MI300X each SIMD's MFMAs and the LDS pipe),
// with a label column, a cycle axis and, given the run's clock, a µs axis;
// then one legend of the kinds of slice drawn, and a tooltip per slice. A
// track whose overlapping slices would need more than kMaxLanes lanes (dense
// stores) is drawn as one row, each stretch shaded by how many of its slices
// are in flight, with the count in its label and tooltips.
//
// Invariants: the output depends only on the TraceLog and the options (same
// input, same bytes); every text node and attribute is XML-escaped; every
// drawn slice lies within the drawing area (slices crossing the window are
// clipped, slices outside it are left out); the legend lists exactly the
// kinds of the slices drawn; on error the result is "" and *error says why.
#pragma once

#include <string>
#include <vector>

#include "engine/trace_log.h"

namespace sk::sim {

struct TimelineCta {
  int id = 0;
  std::string why;  // why it is drawn, in its heading (e.g. "busiest"); "" none
};

struct TimelineOptions {
  std::vector<TimelineCta> ctas{TimelineCta{}};  // one block each, in this order
  Cycle from = 0;
  Cycle to = 0;  // 0: the end of the last slice in the log
  int width_px = 1200;
  double clock_ghz = 0;  // > 0: a µs axis at this clock under the cycle axis
};

// Overlapping slices of one track take up to this many lanes; more, and the
// track is drawn as one row shaded by how many are in flight.
inline constexpr int kMaxLanes = 4;

// Draws the CTAs' tracks over [from, to) as a standalone SVG document.
// Returns "" and sets *error when a CTA has no tracks, no CTA is given, or
// the window or width is unusable.
std::string render_timeline_svg(const TraceLog& log, const TimelineOptions& opt,
                                std::string* error);

// What `--timeline-cta busiest` and `slowest` choose from: each CTA's busy
// cycles (its warps' time alive and not blocked, summed) and the cycle its
// last warp ended.
struct CtaActivity {
  int cta = 0;
  Cycle busy = 0, end = 0;
};
enum class CtaPick { kBusiest, kSlowest };

// kSlowest: the CTA that ended last. kBusiest: the busiest CTA of the SM (CU)
// whose CTAs were busy longest together, the SM read from the log's track
// tree (a CTA the log does not place counts as an SM of its own). Ties go to
// the lowest CTA id; -1 when `ctas` is empty.
int pick_cta(const TraceLog& log, const std::vector<CtaActivity>& ctas, CtaPick pick);

}  // namespace sk::sim
