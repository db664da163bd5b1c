#include "sim/core/source_loc.h"

#include <string_view>

namespace sk::sim {

std::string format_location(const std::source_location& loc) {
  std::string_view file = loc.file_name();
  // Strip the build's absolute prefix so reports name repository paths.
  for (std::string_view top : {"kernels/", "tests/", "models/", "sim/", "verify/"}) {
    auto pos = file.rfind(top);
    if (pos != std::string_view::npos) {
      file = file.substr(pos);
      break;
    }
  }
  if (file.empty()) return "";
  return std::string(file) + ":" + std::to_string(loc.line());
}

}  // namespace sk::sim
