// report.h: the human-readable summary of a run (the JSON form is to_json).
#pragma once

#include <string>

#include "runner/result/run_result.h"

namespace sk::cli {

std::string format_text(const sim::RunResult& r);

}  // namespace sk::cli
