// report.h: how exploration results read, for people and for JUnit.
#pragma once

#include <string>

#include "verify/explore/explorer.h"

namespace sk::verify {

// A short text block: rule, message, location, details, the seed that
// reproduces it and how often it was seen. `replay` is the command prefix that
// replays a seed (the seed is appended), or empty.
std::string format_found(const FoundFinding& f, uint64_t explored, const std::string& replay);

// Summary of a whole exploration.
std::string format_report(const ExploreReport& r, const std::string& replay);

std::string xml_escape(const std::string& s);

}  // namespace sk::verify
