#include "sim/cli/args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

#include "runner/family/family.h"

namespace sk::cli {

uint64_t parse_uint(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  if (std::string err = sim::whole_number_error(flag, text, lo, hi); !err.empty())
    throw UsageError(err);
  return std::stoull(text);
}

std::vector<std::string> comma_items(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<uint64_t> parse_uint_list(const std::string& flag, const std::string& text, uint64_t lo,
                                      uint64_t hi, const std::vector<uint64_t>& allowed) {
  auto syntax = [&] {
    return UsageError(
        fmt::format("{} expects a list like 2,4 or a range like 2-8, got '{}'", flag, text));
  };
  auto is_allowed = [&](uint64_t v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  };
  auto allowed_text = [&] {
    std::string s;
    for (uint64_t a : allowed) s += (s.empty() ? "" : ", ") + std::to_string(a);
    return s;
  };
  std::set<uint64_t> out;
  for (const std::string& item : comma_items(text)) {
    const size_t dash = item.find('-');
    if (item.empty() || (dash != std::string::npos &&
                         (dash == 0 || dash + 1 == item.size() || item.find('-', dash + 1) != std::string::npos)))
      throw syntax();
    if (dash == std::string::npos) {
      const uint64_t v = parse_uint(flag, item, lo, hi);
      if (!is_allowed(v))
        throw UsageError(fmt::format("{} {} is not supported ({})", flag, v, allowed_text()));
      out.insert(v);
    } else {
      const uint64_t a = parse_uint(flag, item.substr(0, dash), lo, hi);
      const uint64_t b = parse_uint(flag, item.substr(dash + 1), lo, hi);
      if (a > b)
        throw UsageError(fmt::format("{}: the range {} goes down (write {}-{})", flag, item, b, a));
      size_t found = 0;
      for (uint64_t v = a; v <= b; ++v)
        if (is_allowed(v)) ++found, out.insert(v);
      if (found == 0)
        throw UsageError(
            fmt::format("{}: the range {} holds no supported value ({})", flag, item, allowed_text()));
    }
  }
  return std::vector<uint64_t>(out.begin(), out.end());
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
  if (path == "-") throw UsageError(fmt::format("{} needs a file path ('-' is not supported)", flag));
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

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec1, ec2;
  const auto pa = std::filesystem::weakly_canonical(a, ec1);
  const auto pb = std::filesystem::weakly_canonical(b, ec2);
  if (!ec1 && !ec2 && pa == pb) return true;
  struct stat sa {}, sb {};
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

void write_output(const std::string& flag, const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << "\n" << std::flush;
    return;
  }
  std::ofstream out(path);
  out << text << "\n";
  out.close();
  if (!out)
    throw UsageError(fmt::format("{}: writing '{}' failed: {}", flag, path, std::strerror(errno)));
}

}  // namespace sk::cli
