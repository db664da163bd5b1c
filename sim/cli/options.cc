// options.cc: see options.h. Messages name the command and the option.
#include "sim/cli/options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <vector>

#include "sim/cli/args.h"

namespace sk::cli {

namespace {

// boost's error_with_option_name::what() substitutes placeholders such as
// %original_token% into its message until none is left, so an argument that
// itself contains one ("--x%original_token%") never terminates. The message
// is therefore built here from the option name, which is read verbatim.
std::string option_error_message(const po::error_with_option_name& e) {
  const std::string name = e.get_option_name();
  if (dynamic_cast<const po::unknown_option*>(&e) != nullptr)
    return fmt::format("unknown option '{}' (--help lists them)", name);
  if (dynamic_cast<const po::multiple_occurrences*>(&e) != nullptr)
    return fmt::format("option '{}' is given more than once", name);
  if (dynamic_cast<const po::ambiguous_option*>(&e) != nullptr)
    return fmt::format("option '{}' is ambiguous (write it in full)", name);
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&e)) {
    if (syntax->kind() == po::invalid_syntax::missing_parameter)
      return fmt::format("option '{}' needs a value", name);
    if (syntax->kind() == po::invalid_syntax::extra_parameter)
      return fmt::format("option '{}' takes no value", name);
  }
  return fmt::format("cannot parse option '{}'", name);
}

}  // namespace

po::variables_map parse_options(int argc, char** argv, const std::string& cmd,
                                const po::options_description& opts,
                                const po::options_description* hidden,
                                const char* positional) {
  // Every argument is an option; anything else lands in "stray" and is refused.
  po::options_description all;
  all.add(opts);
  if (hidden != nullptr) all.add(*hidden);
  all.add_options()("stray", po::value<std::vector<std::string>>());
  po::positional_options_description rest;
  if (positional != nullptr) rest.add(positional, 1);
  rest.add("stray", -1);
  po::variables_map vm;
  try {
    // Whole option names only: with prefix matching, a typo such as
    // --stage would silently be taken for --stages.
    namespace style = po::command_line_style;
    po::store(po::command_line_parser(argc, argv)
                  .options(all)
                  .positional(rest)
                  .style(style::default_style & ~style::allow_guessing)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error_with_option_name& e) {
    throw UsageError("sim " + cmd + ": " + option_error_message(e));
  } catch (const po::error& e) {
    throw UsageError("sim " + cmd + ": " + e.what());
  }
  if (vm.count("stray"))
    throw UsageError(fmt::format("sim {}: unexpected argument '{}' (options start with --)", cmd,
                                 vm["stray"].as<std::vector<std::string>>().front()));
  return vm;
}

bool print_help(const po::variables_map& vm, const std::string& cmd,
                const po::options_description& opts) {
  if (!vm.count("help")) return false;
  std::cout << "usage: sim " << cmd
            << " [--kernel FAMILY] [--arch ARCH] FAMILY'S FIELDS [options]\n"
               "  (sim list shows the families, their architectures and configurations;\n"
               "  matmul, the default, takes --m M --n N --k K)\n"
            << opts;
  return true;
}

bool parse_out_f32(const po::variables_map& vm) {
  const std::string out_dtype = vm["out-dtype"].as<std::string>();
  if (out_dtype != "bf16" && out_dtype != "f32")
    throw UsageError(fmt::format("--out-dtype must be bf16 or f32, got '{}'", out_dtype));
  return out_dtype == "f32";
}

std::string parse_json_path(const po::variables_map& vm) {
  if (!vm.count("json")) return "";
  std::string path = resolve_path(vm["json"].as<std::string>());
  if (path != "-") require_writable("--json", path);
  return path;
}

void add_sm_clock_option(po::options_description& o) {
  o.add_options()("sm-clock", po::value<std::string>(),
                  "--arch sm100 and sm90: run the SMs at this clock in GHz, as with locked clocks, or at "
                  "T,R: the tensor phase at T and the rest at R (default: the clocks the board's power "
                  "limits allow for this kernel); the memory side keeps its own");
}

SmClocks parse_sm_clock(const po::variables_map& vm, const std::string& arch) {
  SmClocks c;
  if (!vm.count("sm-clock")) return c;
  if (arch != "sm90" && arch != "sm100")
    throw UsageError("--sm-clock is modelled for NVIDIA only (--arch sm100 or sm90)");
  const std::string t = vm["sm-clock"].as<std::string>();
  auto ghz = [&t](const std::string& part) {
    char* end = nullptr;
    const double g = part.empty() ? 0 : std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !(g >= 0.1 && g <= 10))
      throw UsageError(fmt::format("--sm-clock expects GHz in [0.1, 10] or two of them as T,R, got '{}'", t));
    return g;
  };
  const auto comma = t.find(',');
  c.tensor_ghz = ghz(t.substr(0, comma));
  c.rest_ghz = comma == std::string::npos ? c.tensor_ghz : ghz(t.substr(comma + 1));
  return c;
}

}  // namespace sk::cli
