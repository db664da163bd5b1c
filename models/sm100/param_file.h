// param_file.h: reading a models/<arch>/params.json file, shared by the
// architectures' parameter loaders.
//
// Invariants: every value read must carry a "source" (its provenance), or the
// file is rejected; errors are std::runtime_error with the architecture name.
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
  return doc.as_object().at("params").as_object();
}

// The value of `key`, which must have a source.
inline double param(const boost::json::object& params, const char* key, const char* arch) {
  auto it = params.find(key);
  if (it == params.end() || !it->value().is_object())
    throw std::runtime_error(std::string(arch) + " params: missing \"" + key + "\"");
  const auto& entry = it->value().as_object();
  if (!entry.contains("source"))
    throw std::runtime_error(std::string(arch) + " params: \"" + key + "\" has no source");
  return boost::json::value_to<double>(entry.at("value"));
}

}  // namespace sk::models
