// timeline_svg.h: one CTA's trace as a standalone SVG timeline (`--timeline`).
//
// Draws the CTA's role tracks (one per warp) and the engine tracks that serve
// it (TMA loads per stage, tensor core, TMA store) over a window of cycles,
// with a label column, a time axis, a legend and a tooltip per slice.
//
// Invariants: the output depends only on the TraceLog and the options (same
// input, same bytes); every text node and attribute is XML-escaped; every
// drawn slice lies within the drawing area (slices crossing the window are
// clipped, slices outside it are left out); on error the result is "" and
// *error says why.
#pragma once

#include <string>

#include "engine/trace_log.h"

namespace sk::sim {

struct TimelineOptions {
  int cta = 0;
  Cycle from = 0;
  Cycle to = 0;  // 0: the end of the last slice in the log
  int width_px = 1200;
};

// Draws the role tracks (and the engine tracks: TMA loads per stage, tensor
// core, TMA store) of one CTA over [from, to) as a standalone SVG document.
// Returns "" and sets *error when the CTA has no tracks (or the window or
// width is unusable).
std::string render_timeline_svg(const TraceLog& log, const TimelineOptions& opt,
                                 std::string* error);

}  // namespace sk::sim
