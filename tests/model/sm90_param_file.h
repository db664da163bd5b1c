// sm90_param_file.h: the H200 parameter file (models/sm90/params.json, a
// test's data) with some parameters' values replaced, as text for
// sk::models::sm90::use_params. Test-only.
//
// Invariants: only the named parameters' "value" changes; each must exist in
// the file (a test that names one the file lacks fails).
#pragma once

#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>

namespace sk::test {

inline std::string sm90_params_with(
    std::initializer_list<std::pair<const char*, boost::json::value>> values) {
  std::ifstream f("models/sm90/params.json");
  REQUIRE(f.good());
  std::stringstream text;
  text << f.rdbuf();
  boost::json::value v = boost::json::parse(text.str());
  auto& p = v.at("params").as_object();
  for (const auto& [key, value] : values) {
    REQUIRE_MESSAGE(p.contains(key), "no parameter " << key);
    p.at(key).as_object()["value"] = value;
  }
  return boost::json::serialize(v);
}

// The file cut to `sms` SMs in one GPC (the L2's side table, the GPC list and
// the SM layout of the 132-SM file dropped: CTA c on SM c), for launches
// whose waves a test counts.
inline std::string sm90_params_with_sms(int sms) {
  return sm90_params_with({{"num_sms", sms},
                           {"l2_side", boost::json::array{}},
                           {"gpc_sms", boost::json::array{}},
                           {"sm_gpc", boost::json::array{}}});
}

}  // namespace sk::test
