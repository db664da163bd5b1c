#include "sim/cli/args.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace sk::cli {

uint64_t parse_uint(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("{} expects a whole number, got '{}'", flag, text));
  uint64_t v = std::stoull(text);
  if (v < lo || v > hi)
    throw UsageError(fmt::format("{} must be in [{}, {}], got {}", flag, lo, hi, v));
  return v;
}

std::string resolve_path(const std::string& path) {
  // Under `bazel run` the process starts in its runfiles tree; relative paths
  // are meant relative to where the user typed the command.
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path == "-" || path[0] == '/' || wd == nullptr || *wd == 0) return path;
  return std::string(wd) + "/" + path;
}

void require_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(fmt::format("{} needs a file path", flag));
  // Checked without creating or truncating anything: a rejected command must
  // leave the file system as it was.
  if (access(path.c_str(), F_OK) == 0) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw UsageError(fmt::format("{}: '{}' is a directory", flag, path));
    if (access(path.c_str(), W_OK) != 0)
      throw UsageError(fmt::format("{}: cannot write '{}': {}", flag, path, std::strerror(errno)));
    return;
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{}: cannot write '{}': {}", flag, path, std::strerror(errno)));
}

}  // namespace sk::cli
