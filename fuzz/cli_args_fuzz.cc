// cli_args_fuzz.cc: the `sim` command line and the parameter files, on
// arbitrary input.
//
// Input: tokens separated by newlines. A first token of run, verify or sweep
// parses the rest as that command's arguments (as `sim <command> ...`); a
// first token of params-sm100 or params-sm90 parses the rest of the input as
// that architecture's params.json text.
//
// Contract checked: parsing returns or throws the one error type the CLI
// reports as a usage error (exit 2); any other exception, a crash or
// undefined behaviour is a defect. A request that parses is one the
// simulator accepts (its family's validate, runner/families, is
// empty), and parameters that load are
// usable (finite, positive where they must be).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/sm100/params.h"
#include "models/sm90/params.h"
#include "sim/cli/args.h"
#include "sim/cli/run_args.h"
#include "sim/cli/sweep.h"
#include "runner/kernels/conv2d_run.h"
#include "runner/kernels/matmul_dispatch.h"

namespace {

[[noreturn]] void defect(const std::string& what) {
  std::fprintf(stderr, "cli_args_fuzz: %s\n", what.c_str());
  std::abort();
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t nl = s.find('\n', start);
    out.push_back(s.substr(start, nl == std::string::npos ? nl : nl - start));
    if (nl == std::string::npos) return out;
    start = nl + 1;
  }
}

template <class P>
void check_params(const P& p, const char* arch) {
  if (!(p.clock_ghz > 0) || !std::isfinite(p.clock_ghz) || p.num_sms < 1 ||
      p.smem_per_cta_bytes == 0)
    defect(std::string(arch) + " params loaded with an unusable clock, SM count or SMEM size");
}

void fuzz_params(const std::string& text, bool sm90) {
  try {
    if (sm90) {
      sk::models::sm100::Params p;
      sk::models::sm90::Extras x;
      sk::models::sm90::parse(text, p, x);
      check_params(p, "sm90");
    } else {
      check_params(sk::models::sm100::Params::from_json(text), "sm100");
    }
  } catch (const std::runtime_error&) {
    // A rejected file: the message names the architecture and the key.
  }
}

void fuzz_command(std::vector<std::string> tokens) {
  std::vector<char*> argv;
  for (auto& t : tokens) argv.push_back(t.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(tokens.size());
  const std::string& cmd = tokens[0];
  try {
    if (cmd == "sweep") {
      const sk::cli::SweepArgs a = sk::cli::parse_sweep_args(argc, argv.data());
      if (!a.help && (a.stages.empty() || a.tile_ns.empty()))
        defect("sim sweep parsed with no stage count or no tile width");
    } else {
      const auto& opts = cmd == "run" ? sk::cli::run_options() : sk::cli::verify_options();
      const sk::cli::RunArgs a = sk::cli::parse_run_args(argc, argv.data(), cmd.c_str(), opts);
      // Every family's validate includes the resource bounds.
      const std::string err = a.help ? std::string() : a.validate(a.q);
      if (!err.empty()) defect("parsed a request the simulator refuses: " + err);
    }
  } catch (const sk::cli::UsageError&) {
    // The documented outcome for bad input.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::vector<std::string> lines =
      split_lines(std::string(reinterpret_cast<const char*>(data), size));
  const std::string& first = lines[0];
  if (first == "params-sm100" || first == "params-sm90") {
    const std::string text(reinterpret_cast<const char*>(data) + first.size() + (lines.size() > 1),
                           size - first.size() - (lines.size() > 1));
    fuzz_params(text, first == "params-sm90");
    return 0;
  }
  if (first == "run" || first == "verify" || first == "sweep") fuzz_command(lines);
  return 0;
}
