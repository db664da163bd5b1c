// sim_trace_export.h: renders the simulator's TraceLog as a Perfetto trace.
//
// The TraceLog records complete slices in any order and may hold slices that
// overlap on one track (two TMA loads into the same stage). The exporter
// splits such tracks into numbered sibling lanes so every emitted track is
// properly nested, turns zero-length slices into instants, and keeps only
// flows with exactly one origin and one strictly later terminating slice (a
// phase flip that releases several waiters links to the first of them).
#pragma once

#include <ostream>

#include "engine/trace_log.h"

namespace sk::traces {

// Writes the whole trace; throws std::runtime_error on a stream failure.
void write_perfetto(const sim::TraceLog& log, std::ostream& out);

}  // namespace sk::traces
