// problem.cc: see problem.h.
#include "sim/cli/problem.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "sim/cli/args.h"

namespace sk::cli {
namespace {

po::typed_value<std::string>* value_of(const sim::Field&) {
  return po::value<std::string>();
}

void add_field(po::options_description& o, const sim::Field& f) {
  std::string help = f.help;
  if (!f.default_value.empty() && help.find("default") == std::string::npos)
    help += " (default " + f.default_value + ")";
  if (f.kind == sim::Field::Kind::kFlag)
    o.add_options()(f.name.c_str(), help.c_str());
  else
    o.add_options()(f.name.c_str(), value_of(f), help.c_str());
}

// The families that declare field `name`.
std::vector<std::string> owners(const std::string& name) {
  std::vector<std::string> out;
  for (const sim::Family& f : sim::families())
    if (f.field(name) != nullptr) out.push_back(f.name);
  return out;
}

}  // namespace

void add_family_options(po::options_description& o) {
  std::vector<std::string> archs = sim::all_archs();
  o.add_options()("help,h", "show this help")
      ("kernel", po::value<std::string>()->default_value(sim::families().front().name),
       "kernel family (sim list)")
      ("arch", po::value<std::string>(),
       fmt::format("architecture: {} (default: the family's first, sim list)",
                   sim::joined(archs, ", ")).c_str());
  std::set<std::string> added;
  for (const sim::Family& fam : sim::families()) {
    const bool first = &fam == &sim::families().front();
    po::options_description group(fmt::format(
        "{} (--kernel {}{}{})", fam.name, fam.name, fam.fields_note.empty() ? "" : "; ",
        fam.fields_note));
    for (const sim::Field& f : fam.fields)
      if (added.insert(f.name).second) add_field(first ? o : group, f);
    if (!first && !group.options().empty()) o.add(group);
  }
}

Problem parse_problem(const po::variables_map& vm, const std::string& cmd,
                      sim::MatmulRequest& q, const std::map<std::string, std::string>& given_text) {
  Problem p;
  const std::string kernel = vm["kernel"].as<std::string>();
  p.family = sim::find_family(kernel);
  if (p.family == nullptr)
    throw UsageError(fmt::format("unknown kernel '{}' (sim list shows the kernels)", kernel));
  const sim::Family& fam = *p.family;
  std::vector<std::string> fam_archs;
  for (const auto& a : fam.archs) fam_archs.push_back(a.arch);
  const std::string arch = vm.count("arch") ? vm["arch"].as<std::string>() : fam_archs.front();
  const std::vector<std::string> archs = sim::all_archs();
  if (std::find(archs.begin(), archs.end(), arch) == archs.end())
    throw UsageError(
        fmt::format("unknown architecture '{}' ({})", arch, sim::joined(archs, ", ")));
  if (fam.space(arch) == nullptr)
    throw UsageError(fmt::format("--kernel {} is modelled on {}, not '{}'", kernel,
                                 sim::joined(fam_archs, ", "), arch));
  // A field of another family is refused, never ignored.
  std::vector<std::string> mine;
  for (const sim::Field& f : fam.fields) mine.push_back("--" + f.name);
  for (const sim::Family& other : sim::families())
    for (const sim::Field& f : other.fields)
      if (vm.count(f.name) && fam.field(f.name) == nullptr) {
        if (const auto note = fam.foreign_field_notes.find(f.name);
            note != fam.foreign_field_notes.end())
          throw UsageError(fmt::format("--{} is not an option of --kernel {}: {}", f.name, kernel,
                                       note->second));
        throw UsageError(fmt::format(
            "--{} is not an option of --kernel {} ({} takes {}; --{} is for --kernel {})", f.name,
            kernel, kernel, sim::joined(mine, " "), f.name, sim::joined(owners(f.name), " or ")));
      }
  const auto given = [&vm, &given_text](const sim::Field& f) -> std::optional<std::string> {
    if (const auto it = given_text.find(f.name); it != given_text.end()) return it->second;
    if (!vm.count(f.name)) return std::nullopt;
    return f.kind == sim::Field::Kind::kFlag ? std::string() : vm[f.name].as<std::string>();
  };
  if (std::string err = sim::fill_values(fam, given, fmt::format("sim {} --kernel {}: ", cmd, kernel),
                                         p.values);
      !err.empty())
    throw UsageError(err);
  q.arch = arch;
  if (std::string err = fam.bind(p.values, q); !err.empty()) throw UsageError(err);
  return p;
}

Problem make_problem(const std::string& kernel, const sim::Values& values) {
  Problem p;
  p.family = sim::find_family(kernel);
  if (p.family == nullptr) throw std::invalid_argument("no family '" + kernel + "'");
  p.values = values;
  return p;
}

std::string Problem::options() const {
  std::string s;
  for (const sim::Field& f : family->fields) {
    if (!values.has(f.name)) continue;
    s += " --" + f.name;
    if (f.kind != sim::Field::Kind::kFlag) s += " " + values.str(f.name);
  }
  return s;
}

boost::json::object Problem::extra_json() const {
  boost::json::object o;
  bool gemm_only = true;
  for (const sim::Field& f : family->fields) {
    const bool given = f.kind == sim::Field::Kind::kFlag ? values.flag(f.name) : values.has(f.name);
    gemm_only = gemm_only && (!given || f.name == "m" || f.name == "n" || f.name == "k");
  }
  if (gemm_only) return o;  // the document's m, n and k say it all
  for (const sim::Field& f : family->fields) {
    if (f.kind == sim::Field::Kind::kFlag) {
      o[f.name] = values.flag(f.name);
    } else if (!values.has(f.name)) {
      continue;
    } else if (f.kind == sim::Field::Kind::kUint) {
      o[f.name] = values.uint(f.name);
    } else if (f.kind == sim::Field::Kind::kNumber) {
      o[f.name] = values.number(f.name);
    } else {
      o[f.name] = values.str(f.name);
    }
  }
  return o;
}

}  // namespace sk::cli
