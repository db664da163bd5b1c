#include "sim/cli/args.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sk::cli {

uint64_t parse_uint(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("{} expects a whole number, got '{}'", flag, text));
  uint64_t v = std::stoull(text);
  if (v < lo || v > hi)
    throw UsageError(fmt::format("{} must be in [{}, {}], got {}", flag, lo, hi, v));
  return v;
}

void require_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(fmt::format("{} needs a file path", flag));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    throw UsageError(fmt::format("{}: cannot write '{}': {}", flag, path, std::strerror(errno)));
  std::fclose(f);
}

}  // namespace sk::cli
