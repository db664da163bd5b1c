// options.h: the command-line pieces `sim run`, `sim verify` and `sim sweep`
// share: strict option parsing, --help, --out-dtype, --json and --sm-clock
// (the family options are in problem.h).
//
// Invariants: every argument must be a declared option (a stray positional
// argument is refused, never ignored); every failure is a UsageError with a
// one-line message, raised before anything is run or written.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

namespace sk::cli {

namespace po = boost::program_options;

// Parses argv (argv[0] is the command) against `opts` and, when given,
// `hidden` (options --help does not list). With `positional`, the name of an
// option in `hidden`, the first argument that is not an option is its value.
po::variables_map parse_options(int argc, char** argv, const std::string& cmd,
                                const po::options_description& opts,
                                const po::options_description* hidden = nullptr,
                                const char* positional = nullptr);

// With --help: prints the usage of `sim cmd` and returns true.
bool print_help(const po::variables_map& vm, const std::string& cmd,
                const po::options_description& opts);

// --out-dtype: true for f32, false for bf16.
bool parse_out_f32(const po::variables_map& vm);

// --json, if given: "-" or a path that can be written; else "".
std::string parse_json_path(const po::variables_map& vm);

// --sm-clock T or T,R (GHz, 0.1-10 each): the SMs' clock in the tensor phase
// and in the rest, as with locked clocks; NVIDIA architectures only.
void add_sm_clock_option(po::options_description& o);
struct SmClocks {
  double tensor_ghz = 0, rest_ghz = 0;  // 0: the power-limited clocks
};
SmClocks parse_sm_clock(const po::variables_map& vm, const std::string& arch);

}  // namespace sk::cli
