// source_loc.h: kernel call-site locations carried into findings.
#pragma once

#include <source_location>
#include <string>

namespace sk::sim {

// "kernels/pipeline/tile_pipeline.h:88" (path relative to the repository root).
std::string format_location(const std::source_location& loc);

}  // namespace sk::sim
