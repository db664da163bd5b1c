// cli_dict_test.cc: fuzz/cli_args.dict is what cli_dict.cc generates from the
// CLI and the family registry (so a new family's options and choices reach the
// fuzzer), and the generator's output is a dictionary libFuzzer reads.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fuzz/cli_dict.h"
#include "runner/families/registry.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("fuzz/cli_args.dict is the generated dictionary") {
  const std::string want = sk::fuzz::cli_dictionary(read("fuzz/cli_args_values.dict"));
  CHECK_MESSAGE(read("fuzz/cli_args.dict") == want,
                "fuzz/cli_args.dict is stale: run  bazel run //fuzz:cli_dict -- --write");
}

TEST_CASE("every line is a comment or one quoted token, and the registry's names are in it") {
  const std::string dict = sk::fuzz::cli_dictionary("\"x\"\n");
  std::istringstream in(dict);
  std::string line;
  int tokens = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    REQUIRE_MESSAGE(line.size() >= 2, line);
    CHECK_MESSAGE((line.front() == '"' && line.back() == '"'), line);
    for (size_t i = 1; i + 1 < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
        continue;
      }
      CHECK_MESSAGE(line[i] != '"', "unescaped quote in " << line);
    }
    ++tokens;
  }
  CHECK(tokens > 40);
  auto has = [&](const std::string& t) { return dict.find("\n\"" + t + "\"\n") != std::string::npos; };
  for (const auto& f : sk::sim::families()) {
    CHECK_MESSAGE(has(f.name), f.name);
    for (const auto& a : f.archs) CHECK_MESSAGE(has(a.arch), a.arch);
    for (const auto& x : f.fields) {
      CHECK_MESSAGE(has("--" + x.name), x.name);
      for (const auto& c : x.choices) CHECK_MESSAGE(has(c), c);
    }
  }
  for (const char* o : {"--kernel", "--arch", "--tile-n", "--stages", "--slurm", "--schedules"})
    CHECK_MESSAGE(has(o), o);
  CHECK(has("x"));  // the values file, appended
}

extern "C" int sc_main(int argc, char* argv[]) {
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
