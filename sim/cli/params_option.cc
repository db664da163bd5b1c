// params_option.cc: --params (params_option.h).
#include "sim/cli/params_option.h"

#include <fmt/format.h>

#include <fstream>

#include "runner/kernels/matmul_dispatch.h"
#include "sim/cli/args.h"

namespace sk::cli {

void add_params_option(po::options_description& o) {
  o.add_options()("params", po::value<std::string>(),
                  "timing parameters of --arch from FILE (the format of models/<arch>/params.json) "
                  "instead of the built-in ones");
}

void load_params_option(const po::variables_map& vm, const std::string& arch) {
  if (!vm.count("params")) return;
  const std::string path = resolve_path(vm["params"].as<std::string>());
  // A parameter file is a few KiB; read at most a little past the cap, so
  // /dev/zero or a wrong multi-GB file is refused at once.
  constexpr size_t kMaxParamsBytes = 1 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--params: cannot read '{}'", path));
  std::string text(kMaxParamsBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) throw UsageError(fmt::format("--params: cannot read '{}'", path));
  if (text.size() > kMaxParamsBytes)
    throw UsageError(fmt::format("--params {}: larger than {} bytes, not a parameter file", path,
                                 kMaxParamsBytes));
  if (std::string err = sim::use_params_file(arch, text); !err.empty())
    throw UsageError(fmt::format("--params {}: {}", path, err));
}

}  // namespace sk::cli
