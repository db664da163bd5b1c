#include "verify/harness/registry.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace sk::verify {
namespace {
std::map<std::string, KernelEntry>& table() {
  static std::map<std::string, KernelEntry> t;
  return t;
}
}  // namespace

CaseConfig CaseConfig::parse(const std::string& text) {
  CaseConfig c;
  c.text_ = text;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("config item '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw std::invalid_argument("config value '" + value + "' of '" + key + "' is not an integer");
    c.values_[key] = v;
  }
  return c;
}

int64_t CaseConfig::get(const std::string& key, int64_t fallback) const {
  read_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> CaseConfig::unread() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : values_)
    if (key != "default" && read_.count(key) == 0) out.push_back(key);
  return out;
}

uint32_t CaseConfig::get_in(const std::string& key, int64_t fallback, int64_t lo,
                            int64_t hi) const {
  const int64_t v = get(key, fallback);
  if (v < lo || v > hi)
    throw std::invalid_argument(key + " must be in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  return static_cast<uint32_t>(v);
}

bool register_kernel(const std::string& name, const std::string& description, CaseRunner run) {
  if (!table().emplace(name, KernelEntry{name, description, std::move(run)}).second) {
    std::fprintf(stderr, "verify: kernel '%s' registered twice\n", name.c_str());
    std::abort();
  }
  return true;
}

const KernelEntry* find_kernel(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<const KernelEntry*> kernels() {
  std::vector<const KernelEntry*> v;
  for (const auto& [name, e] : table()) v.push_back(&e);
  return v;
}

}  // namespace sk::verify
