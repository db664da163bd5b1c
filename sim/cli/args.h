// args.h: strict parsing of CLI values. Every failure is a one-line message
// for a UsageError, which the CLI reports with exit status 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sk::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Decimal digits only (no sign, no spaces), value in [lo, hi].
uint64_t parse_uint(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);

// The items of a comma list ("1,4,8"), in order; an empty item stays (its
// caller's check refuses it).
std::vector<std::string> comma_items(const std::string& list);

// A comma list of values and ranges ("2,4", "2-8", "2-4,7"), each value
// parsed as by parse_uint; returned sorted, without repeats. With `allowed`
// non-empty, a value must be one of it and a range selects the allowed values
// within it (at least one).
std::vector<uint64_t> parse_uint_list(const std::string& flag, const std::string& text, uint64_t lo,
                                      uint64_t hi, const std::vector<uint64_t>& allowed = {});

// `path` made absolute against the directory `bazel run` was started from.
std::string resolve_path(const std::string& path);

// Checks that `path` could be written (an existing writable file, or a new
// file in a writable directory) without touching it.
void require_writable(const std::string& flag, const std::string& path);

// True when the two paths name one file (the same path once made absolute
// and normalized, or, when both exist, the same inode).
bool same_file(const std::string& a, const std::string& b);

// Writes `text` and a newline to stdout when path is "-", else to the file;
// throws UsageError when the file cannot be written in full.
void write_output(const std::string& flag, const std::string& path, const std::string& text);

}  // namespace sk::cli
