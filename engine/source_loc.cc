#include "engine/source_loc.h"

#include <string_view>

namespace sk::sim {

std::string format_location(const std::source_location& loc) {
  std::string_view file = loc.file_name();
  // Reports name repository paths. Bazel compiles with paths relative to the
  // workspace root, sometimes spelled "./x"; an absolute path (a sandbox or
  // execroot) is cut after the workspace directory, else at the first known
  // top-level directory.
  while (file.substr(0, 2) == "./") file.remove_prefix(2);
  if (!file.empty() && file.front() == '/') {
    constexpr std::string_view kExecroot = "/execroot/";
    if (auto pos = file.find(kExecroot); pos != std::string_view::npos) {
      file.remove_prefix(pos + kExecroot.size());
      if (auto slash = file.find('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
    } else {
      for (std::string_view top :
           {"/kernels/", "/tests/", "/models/", "/sim/", "/verify/", "/examples/"}) {
        if (auto p = file.rfind(top); p != std::string_view::npos) {
          file.remove_prefix(p + 1);
          break;
        }
      }
    }
  }
  if (file.empty()) return "";
  return std::string(file) + ":" + std::to_string(loc.line());
}

}  // namespace sk::sim
