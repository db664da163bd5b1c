// param_file.h: reading a models/<arch>/params.json file, shared by the
// architectures' parameter loaders.
//
// Invariants: every value read must carry a "source" (its provenance) and be
// a finite number within the range its reader gives (whole where it counts
// something), or the file is rejected; errors are std::runtime_error naming
// the architecture and the key. No value read is ever cast out of range.
#pragma once

#include <boost/json.hpp>
#include <stdexcept>
#include <string>

namespace sk::models {

// The "params" object of a parameter file's text.
inline boost::json::object param_table(const std::string& text, const char* arch) {
  boost::json::error_code ec;
  auto doc = boost::json::parse(text, ec);
  if (ec || !doc.is_object() || !doc.as_object().contains("params") ||
      !doc.as_object().at("params").is_object())
    throw std::runtime_error(std::string(arch) + " params: not a parameter file");
  if (const auto* a = doc.as_object().if_contains("arch"); a != nullptr && a->is_string() &&
                                                            a->as_string() != arch)
    throw std::runtime_error(std::string(arch) + " params: a parameter file for " +
                             std::string(a->as_string()) + ", not " + arch);
  return doc.as_object().at("params").as_object();
}

// The value of `key`: present, with a source, a finite number in [lo, hi].
inline double param(const boost::json::object& params, const char* key, const char* arch,
                    double lo, double hi) {
  const std::string where = std::string(arch) + " params: \"" + key + "\"";
  auto it = params.find(key);
  if (it == params.end() || !it->value().is_object())
    throw std::runtime_error(std::string(arch) + " params: missing \"" + key + "\"");
  const auto& entry = it->value().as_object();
  if (!entry.contains("source")) throw std::runtime_error(where + " has no source");
  const auto v = entry.find("value");
  if (v == entry.end() || !v->value().is_number())
    throw std::runtime_error(where + " has no numeric value");
  const double x = v->value().to_number<double>();
  if (!(x >= lo && x <= hi))  // also false for NaN
    throw std::runtime_error(where + " is " + std::to_string(x) + ", outside [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

// A whole-number value of `key` in [lo, hi] (hi at most 2^53, exact in a double).
inline uint64_t param_count(const boost::json::object& params, const char* key, const char* arch,
                            uint64_t lo, uint64_t hi) {
  const double x = param(params, key, arch, static_cast<double>(lo), static_cast<double>(hi));
  if (x != static_cast<double>(static_cast<uint64_t>(x)))
    throw std::runtime_error(std::string(arch) + " params: \"" + key + "\" must be a whole number");
  return static_cast<uint64_t>(x);
}

}  // namespace sk::models
