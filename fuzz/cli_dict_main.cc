// cli_dict_main.cc: prints the CLI fuzzer's dictionary (cli_dict.h), or with
// --write regenerates fuzz/cli_args.dict in the workspace `bazel run` was
// called from:
//   bazel run //fuzz:cli_dict -- --write
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fuzz/cli_dict.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc > 2 || (!mode.empty() && mode != "--write")) {
    std::fprintf(stderr, "usage: cli_dict [--write]\n");
    return 2;
  }
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string root = ws != nullptr ? std::string(ws) + "/" : std::string();
  std::ifstream in(root + "fuzz/cli_args_values.dict");
  if (!in) {
    std::fprintf(stderr, "cli_dict: cannot read %sfuzz/cli_args_values.dict\n", root.c_str());
    return 2;
  }
  std::ostringstream values;
  values << in.rdbuf();
  const std::string dict = sk::fuzz::cli_dictionary(values.str());
  if (mode.empty()) {
    std::cout << dict;
    return 0;
  }
  std::ofstream out(root + "fuzz/cli_args.dict");
  if (!(out << dict)) {
    std::fprintf(stderr, "cli_dict: cannot write %sfuzz/cli_args.dict\n", root.c_str());
    return 2;
  }
  std::fprintf(stderr, "cli_dict: wrote %sfuzz/cli_args.dict\n", root.c_str());
  return 0;
}
