// cli_dict.h: the libFuzzer dictionary of cli_args_fuzz, generated from what
// the CLI accepts: the commands the fuzzer dispatches, every option of
// `sim run`, `sim verify` and `sim sweep` (their family fields come from the
// family registry), every family, architecture and choice the registry
// declares, then the hand-kept values (fuzz/cli_args_values.dict).
//
// Invariants: the output is deterministic (registration and option order,
// each token once) and every line is a comment or one quoted token with `"`
// and `\` escaped, as libFuzzer's -dict= reads it.
#pragma once

#include <string>

namespace sk::fuzz {

// The dictionary text; `values` is the hand-kept values file, appended as is.
std::string cli_dictionary(const std::string& values);

}  // namespace sk::fuzz
