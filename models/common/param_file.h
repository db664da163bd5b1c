// param_file.h: reading a models/<arch>/params.json file, shared by the
// architectures' parameter loaders.
//
// Invariants: every value read must carry a "source" (its provenance) and be
// a finite number within the range its reader gives (whole where it counts
// something), or the file is rejected; errors are std::runtime_error naming
// the architecture and the key. No value read is ever cast out of range.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

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

// The "value" of `key`'s entry: the entry present, with a source.
inline const boost::json::value& param_value(const boost::json::object& params, const char* key,
                                             const char* arch) {
  const std::string where = std::string(arch) + " params: \"" + key + "\"";
  auto it = params.find(key);
  if (it == params.end() || !it->value().is_object())
    throw std::runtime_error(std::string(arch) + " params: missing \"" + key + "\"");
  const auto& entry = it->value().as_object();
  if (!entry.contains("source")) throw std::runtime_error(where + " has no source");
  const auto v = entry.find("value");
  if (v == entry.end()) throw std::runtime_error(where + " has no value");
  return v->value();
}

// The value of `key`: present, with a source, a finite number in [lo, hi].
inline double param(const boost::json::object& params, const char* key, const char* arch,
                    double lo, double hi) {
  const std::string where = std::string(arch) + " params: \"" + key + "\"";
  const boost::json::value& v = param_value(params, key, arch);
  if (!v.is_number()) throw std::runtime_error(where + " has no numeric value");
  const double x = v.to_number<double>();
  if (!(x >= lo && x <= hi))  // also false for NaN
    throw std::runtime_error(where + " is " + std::to_string(x) + ", outside [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

// The list value of `key`: present, with a source, an array of whole
// numbers in [lo, hi] (possibly empty).
inline std::vector<uint32_t> param_list(const boost::json::object& params, const char* key,
                                        const char* arch, uint32_t lo, uint32_t hi) {
  const std::string where = std::string(arch) + " params: \"" + key + "\"";
  const boost::json::value& v = param_value(params, key, arch);
  if (!v.is_array()) throw std::runtime_error(where + " has no list value");
  std::vector<uint32_t> out;
  for (const auto& e : v.as_array()) {
    if (!e.is_number()) throw std::runtime_error(where + " holds a value that is not a number");
    const double x = e.to_number<double>();
    if (!(x >= lo && x <= hi) || x != static_cast<double>(static_cast<uint32_t>(x)))
      throw std::runtime_error(where + " holds " + std::to_string(x) + ", not a whole number in [" +
                               std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out.push_back(static_cast<uint32_t>(x));
  }
  return out;
}

// A file given by the user (--params) is read strictly: a key that appears
// twice in one object, a top-level key other than arch, device, note and
// params, or a parameter that `builtin` (the architecture's own params.json)
// does not have is an error naming the key and its line. A typo would
// otherwise leave the built-in value in force and nobody would be told.
inline void check_param_keys(const std::string& text, const std::string& builtin,
                             const char* arch) {
  const std::string who = std::string(arch) + " params: ";
  struct Frame {
    bool object = false;
    std::string name;                    // the key this object or array is the value of
    std::map<std::string, int> keys;     // key -> line
  };
  std::vector<Frame> stack;
  std::vector<std::pair<std::string, int>> top, params;  // keys of the top level and of "params"
  std::string last_key;
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '{' || c == '[') {
      stack.push_back(Frame{c == '{', last_key, {}});
      last_key.clear();
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == '"') {
      std::string s;
      const int at = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') ++line;
        s += text[i];
      }
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' ||
                                 text[j] == '\n'))
        ++j;
      if (stack.empty() || !stack.back().object || j >= text.size() || text[j] != ':') continue;
      Frame& f = stack.back();
      if (auto [it, fresh] = f.keys.emplace(s, at); !fresh)
        throw std::runtime_error(who + "line " + std::to_string(at) + ": duplicate key \"" + s +
                                 "\" (first at line " + std::to_string(it->second) + ")");
      if (stack.size() == 1) top.emplace_back(s, at);
      if (stack.size() == 2 && f.name == "params") params.emplace_back(s, at);
      last_key = s;
    }
  }
  for (const auto& [k, at] : top)
    if (k != "arch" && k != "device" && k != "note" && k != "params")
      throw std::runtime_error(who + "line " + std::to_string(at) + ": unknown key \"" + k +
                               "\" (a parameter file has arch, device, note and params)");
  const boost::json::object known = param_table(builtin, arch);
  for (const auto& [k, at] : params)
    if (!known.contains(k))
      throw std::runtime_error(who + "line " + std::to_string(at) + ": unknown parameter \"" + k +
                               "\" (models/" + arch + "/params.json lists the " +
                               std::to_string(known.size()) + " parameters)");
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
