// family.cc: see family.h.
#include "runner/family/family.h"

#include <fmt/format.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

namespace sk::sim {

Field uint_field(std::string name, std::string help, uint64_t lo, uint64_t hi,
                 std::string default_value) {
  Field f;
  f.name = std::move(name);
  f.kind = Field::Kind::kUint;
  f.help = std::move(help);
  f.lo = lo;
  f.hi = hi;
  f.default_value = std::move(default_value);
  return f;
}

Field number_field(std::string name, std::string help, double min, double max,
                   std::string default_value) {
  Field f;
  f.name = std::move(name);
  f.kind = Field::Kind::kNumber;
  f.help = std::move(help);
  f.min = min;
  f.max = max;
  f.default_value = std::move(default_value);
  return f;
}

Field choice_field(std::string name, std::string help, std::vector<std::string> choices,
                   std::string default_value) {
  Field f;
  f.name = std::move(name);
  f.kind = Field::Kind::kChoice;
  f.help = std::move(help);
  f.choices = std::move(choices);
  f.default_value = std::move(default_value);
  return f;
}

Field flag_field(std::string name, std::string help) {
  Field f;
  f.name = std::move(name);
  f.kind = Field::Kind::kFlag;
  f.help = std::move(help);
  return f;
}

Field required(Field f) {
  f.required = true;
  return f;
}

Field with_word(Field f, std::string word) {
  f.word = std::move(word);
  return f;
}

Field needing(Field f, std::string other) {
  f.needs = std::move(other);
  return f;
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

namespace {

// "a, b or c"
std::string alternatives(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
  return s;
}

}  // namespace

std::string parse_field(const Field& f, const std::string& text) {
  const std::string flag = "--" + f.name;
  switch (f.kind) {
    case Field::Kind::kUint:
      if (f.word.empty()) return whole_number_error(flag, text, f.lo, f.hi);
      if (text == f.word) return "";
      if (whole_number_error(flag, text, f.lo, f.hi).empty()) return "";
      return fmt::format("{} expects a whole number in [{}, {}] or '{}', got '{}'", flag, f.lo, f.hi,
                         f.word, text);
    case Field::Kind::kNumber: {
      char* end = nullptr;
      const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(v >= f.min && v <= f.max))
        return fmt::format("{} expects a number in [{:g}, {:g}], got '{}'", flag, f.min, f.max,
                           text);
      return "";
    }
    case Field::Kind::kChoice:
      for (const auto& c : f.choices)
        if (c == text) return "";
      return fmt::format("{} must be {}, got '{}'", flag, alternatives(f.choices), text);
    case Field::Kind::kFlag:
      return "";
  }
  return "";
}

std::string whole_number_error(const std::string& flag, const std::string& text, uint64_t lo,
                               uint64_t hi) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return fmt::format("{} expects a whole number, got '{}'", flag, text);
  const uint64_t v = std::stoull(text);
  if (v < lo || v > hi) return fmt::format("{} must be in [{}, {}], got {}", flag, lo, hi, v);
  return "";
}

std::string fill_values(const Family& f,
                        const std::function<std::optional<std::string>(const Field&)>& given,
                        const std::string& missing_prefix, Values& out) {
  std::set<std::string> seen;  // the fields given
  for (const Field& x : f.fields) {
    const std::optional<std::string> text = given(x);
    if (text) seen.insert(x.name);
    if (!text) {
      if (x.required)
        return fmt::format("{}--{}{} is required", missing_prefix, x.name,
                           x.kind == Field::Kind::kChoice ? " " + joined(x.choices, "|")
                                                          : std::string());
      if (!x.default_value.empty()) out.set(x.name, x.default_value);
      continue;
    }
    if (x.kind == Field::Kind::kFlag) {
      out.set(x.name, "1");
      continue;
    }
    if (std::string err = parse_field(x, *text); !err.empty()) return err;
    out.set(x.name, *text);
  }
  for (const Field& x : f.fields)
    if (!x.needs.empty() && seen.count(x.name) && !seen.count(x.needs))
      return fmt::format("--{} needs --{}", x.name, x.needs);
  return "";
}

const std::string& Values::str(const std::string& name) const {
  const auto it = text_.find(name);
  if (it == text_.end()) throw std::logic_error("family field '" + name + "' has no value");
  return it->second;
}

uint64_t uint_value(const std::string& text) {
  // parse_field let through a whole number or the field's word.
  return text.find_first_not_of("0123456789") == std::string::npos ? std::stoull(text) : 0;
}

uint64_t Values::uint(const std::string& name) const { return uint_value(str(name)); }

double Values::number(const std::string& name) const { return std::strtod(str(name).c_str(), nullptr); }

RunResult Family::simulate(const Values& v, const MatmulRequest& q) const {
  RunResult r = run(v, q);
  if (bytes) set_roofline(r, flops(v, q), bytes(v, q));
  return r;
}

const ArchSpace* Family::space(const std::string& arch) const {
  for (const auto& a : archs)
    if (a.arch == arch) return &a;
  return nullptr;
}

const Field* Family::field(const std::string& n) const {
  for (const auto& f : fields)
    if (f.name == n) return &f;
  return nullptr;
}

}  // namespace sk::sim
