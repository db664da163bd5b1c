// params_option.h: --params FILE, which `sim run`, `sim verify` and `sim sweep`
// share: the timing parameters of --arch from a file in the format of
// models/<arch>/params.json instead of the built-in ones.
//
// Invariants: the file is read and checked (keys, ranges, the arch it is
// for) before anything runs; every failure is a UsageError naming the file.
#pragma once

#include <string>

#include "sim/cli/options.h"

namespace sk::cli {

// --params FILE: timing parameters of --arch read from FILE (the format of
// models/<arch>/params.json) instead of the built-in ones. load_params_option
// reads and installs the file for `arch` when given (a forked simulation
// inherits it); every failure is a UsageError naming the file.
void add_params_option(po::options_description& o);
void load_params_option(const po::variables_map& vm, const std::string& arch);

}  // namespace sk::cli
