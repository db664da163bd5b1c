// distributed_args.cc: see distributed_args.h.
#include "sim/cli/distributed_args.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "sim/cli/args.h"

namespace sk::cli {
namespace {

// Options a task does not run with: the Slurm and slice options, and the
// output the merge writes.
const std::set<std::string>& not_for_tasks() {
  static const std::set<std::string> s{"slurm", "partition", "tasks", "time-limit", "wait",
                                       "slice", "slice-out", "json",  "help",       "stray"};
  return s;
}

// Options whose value is a path a task reads.
bool is_input_path(const std::string& name) { return name == "params"; }

std::string absolute(const std::string& path) {
  const std::string p = resolve_path(path);
  if (p.empty() || p[0] == '/') return p;
  char buf[4096];
  if (getcwd(buf, sizeof buf) == nullptr) return p;
  return std::string(buf) + "/" + p;
}

bool valid_time_limit(const std::string& t) {
  if (t == "UNLIMITED" || t == "INFINITE" || t == "unlimited" || t == "infinite") return true;
  // [days-]hours[:minutes[:seconds]] or minutes[:seconds] (sbatch --time).
  size_t i = 0;
  auto digits = [&] {
    const size_t a = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > a && i - a <= 6;
  };
  if (!digits()) return false;
  if (i < t.size() && t[i] == '-') {
    ++i;
    if (!digits()) return false;
  }
  for (int parts = 0; i < t.size(); ++parts) {
    if (parts == 2 || t[i] != ':') return false;
    ++i;
    if (!digits()) return false;
  }
  return true;
}

}  // namespace

std::string parse_partition(const std::string& text) {
  if (text.empty() || text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_.,-") != std::string::npos)
    throw UsageError(fmt::format("--partition expects a Slurm partition name, got '{}'", text));
  return text;
}

std::string parse_time_limit(const std::string& text) {
  if (!valid_time_limit(text))
    throw UsageError(fmt::format("--time-limit expects minutes, M:S, H:M:S, D-H, D-H:M or "
                                 "D-H:M:S, got '{}'",
                                 text));
  return text;
}

void add_slurm_options(po::options_description& o) {
  po::options_description s("Slurm (docs/slurm.md)");
  s.add_options()
      ("slurm", po::value<std::string>(),
       "submit one Slurm array job whose tasks run slices of this command and write their "
       "results to the new directory DIR; sim collect DIR merges them")
      ("partition", po::value<std::string>(), "--slurm: the partition (default: the site's)")
      ("tasks", po::value<std::string>(),
       "--slurm: array tasks (slices), 1-1000 (default: one per item, at most 32)")
      ("time-limit", po::value<std::string>(),
       "--slurm: each task's time limit, as sbatch --time takes it (minutes, H:M:S, D-H)")
      ("wait", "--slurm: wait for the job, then merge and report as sim collect DIR does");
  o.add(s);
}

po::options_description slice_options() {
  po::options_description o("array task");
  o.add_options()("slice", po::value<std::string>(), "run slice I of N (I/N)")
      ("slice-out", po::value<std::string>(), "write the slice's results to FILE");
  return o;
}

DistributedArgs parse_distributed_args(const po::variables_map& vm, int argc, char** argv,
                                       const std::string& cmd) {
  DistributedArgs a;
  for (int i = 1; i < argc; ++i) a.argv.emplace_back(argv[i]);
  auto text = [&](const char* name) { return vm.count(name) ? vm[name].as<std::string>() : ""; };
  if (vm.count("slurm")) {
    a.slurm_dir = resolve_path(text("slurm"));
    if (a.slurm_dir.empty()) throw UsageError(fmt::format("sim {}: --slurm needs a directory", cmd));
  }
  for (const char* needs : {"partition", "tasks", "time-limit", "wait"})
    if (vm.count(needs) && !a.submit())
      throw UsageError(fmt::format("sim {}: --{} needs --slurm DIR", cmd, needs));
  if (vm.count("partition")) a.partition = parse_partition(text("partition"));
  if (vm.count("tasks")) a.tasks = static_cast<uint32_t>(parse_uint("--tasks", text("tasks"), 1, 1000));
  if (vm.count("time-limit")) a.time_limit = parse_time_limit(text("time-limit"));
  a.wait = vm.count("wait") > 0;
  if (vm.count("slice") != vm.count("slice-out"))
    throw UsageError(fmt::format("sim {}: --slice and --slice-out go together", cmd));
  if (vm.count("slice")) {
    if (a.submit()) throw UsageError(fmt::format("sim {}: --slice is for array tasks, not --slurm", cmd));
    const std::string s = text("slice");
    const size_t slash = s.find('/');
    if (slash == std::string::npos)
      throw UsageError(fmt::format("--slice expects I/N, got '{}'", s));
    a.slice_count = static_cast<uint32_t>(parse_uint("--slice N", s.substr(slash + 1), 1, 100000));
    a.slice = static_cast<uint32_t>(parse_uint("--slice I", s.substr(0, slash), 0, a.slice_count - 1));
    a.slice_out = resolve_path(text("slice-out"));
    require_writable("--slice-out", a.slice_out);
  }
  for (const auto& [name, value] : vm) {
    if (value.defaulted() || not_for_tasks().count(name)) continue;
    a.task_args.push_back("--" + name);
    if (value.value().empty()) continue;  // a switch such as --functional
    const std::string* v = boost::any_cast<std::string>(&value.value());
    if (v == nullptr) throw UsageError(fmt::format("sim {}: option --{} is not text", cmd, name));
    a.task_args.push_back(is_input_path(name) ? absolute(*v) : *v);
  }
  return a;
}

}  // namespace sk::cli
