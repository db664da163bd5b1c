// registry.h: kernels that the verifier can run by name.
//
// A kernel registers a CaseRunner: given a configuration ("m=384,n=256,
// stages=3") and a schedule seed, it runs one simulation and returns its
// RunResult. `sim verify` and the sk_verify_test harness look kernels up here.
// Registration happens in static initializers, so a library that registers
// kernels must be linked with alwayslink = True.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/result/run_result.h"

namespace sk::verify {

// key=value pairs separated by commas; values are integers.
class CaseConfig {
 public:
  // Throws std::invalid_argument with a one-line reason on malformed text.
  static CaseConfig parse(const std::string& text);
  // get, get_in and has record the keys a case reads, so that a key no case
  // reads (a misspelling) can be reported: unread().
  int64_t get(const std::string& key, int64_t fallback) const;
  // get() as a uint32_t in [lo, hi]; throws std::invalid_argument naming the
  // key and the range when the value is outside it.
  uint32_t get_in(const std::string& key, int64_t fallback, int64_t lo, int64_t hi) const;
  bool has(const std::string& key) const {
    read_.insert(key);
    return values_.count(key) > 0;
  }
  // The keys given that no get, get_in or has asked for ("default", the
  // placeholder of an empty config, excepted).
  std::vector<std::string> unread() const;
  const std::string& text() const { return text_; }
  const std::map<std::string, int64_t>& values() const { return values_; }

 private:
  std::string text_;
  std::map<std::string, int64_t> values_;
  mutable std::set<std::string> read_;
};

using CaseRunner = std::function<sim::RunResult(const CaseConfig& config, uint64_t seed)>;

struct KernelEntry {
  std::string name, description;
  CaseRunner run;
};

// Returns true (so it can initialise a static); a duplicate name aborts.
bool register_kernel(const std::string& name, const std::string& description, CaseRunner run);
const KernelEntry* find_kernel(const std::string& name);
std::vector<const KernelEntry*> kernels();

}  // namespace sk::verify
