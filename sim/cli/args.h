// args.h: strict parsing of CLI values. Every failure is a one-line message
// for a UsageError, which the CLI reports with exit status 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sk::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Decimal digits only (no sign, no spaces), value in [lo, hi].
uint64_t parse_uint(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);

// `path` made absolute against the directory `bazel run` was started from.
std::string resolve_path(const std::string& path);

// Checks that `path` could be written (an existing writable file, or a new
// file in a writable directory) without touching it.
void require_writable(const std::string& flag, const std::string& path);

}  // namespace sk::cli
