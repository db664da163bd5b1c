// distributed.cc: see distributed.h. Submitting, the array task's slice, and
// the merge, for sweep and verify; the Slurm side is sim/slurm/.
#include "sim/cli/distributed.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <set>

#include "sim/cli/args.h"
#include "sim/cli/options.h"
#include "sim/cli/verify_report.h"
#include "runner/kernels/matmul_dispatch.h"
#include "sim/slurm/job.h"
#include "verify/explore/report.h"

namespace sk::cli {
namespace json = boost::json;
using slurm::JobDir;
using slurm::Manifest;
using slurm::SliceState;
using slurm::SliceStatus;

namespace {

constexpr const char* kSliceFormat = "sk-sim-slice 1";
constexpr uint32_t kDefaultTasks = 32;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    throw UsageError(fmt::format("--slurm: cannot find the sim binary through /proc/self/exe: {}",
                                 std::strerror(errno)));
  return std::string(buf, static_cast<size_t>(n));
}

// Where relative paths of the command are meant from (see resolve_path).
std::string working_dir() {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (wd != nullptr && *wd != 0) return wd;
  char buf[4096];
  if (getcwd(buf, sizeof buf) == nullptr)
    throw UsageError(fmt::format("--slurm: no working directory: {}", std::strerror(errno)));
  return buf;
}

// The items of slice `slice` of `count`: i with i % count == slice.
std::vector<size_t> slice_items(size_t items, uint32_t slice, uint32_t count) {
  std::vector<size_t> v;
  for (size_t i = slice; i < items; i += count) v.push_back(i);
  return v;
}

// ---------------------------------------------------------------- submitting

struct JobPlan {
  std::string command;  // sweep | verify
  const DistributedArgs* dist = nullptr;
  std::string json_path;
  uint64_t items = 0;
  int jobs = 1;
  // Describes item i for the manifest (a configuration or a seed).
  std::function<json::value(size_t)> describe;
};

int merge_job(const JobDir& d, Manifest& m, const std::string& json_path);

int submit_job(const JobPlan& p) {
  const DistributedArgs& dist = *p.dist;
  const slurm::Tools tools = slurm::find_tools();
  const auto missing = slurm::missing_tools(tools, {"sbatch", "squeue"});
  if (!missing.empty())
    throw UsageError(fmt::format("sim {}: --slurm needs Slurm's client commands on PATH; not "
                                 "found: {} (is Slurm installed?)",
                                 p.command, join(missing, ", ")));
  const std::string binary = self_exe();
  const std::string workdir = working_dir();
  const JobDir d = slurm::create_job_dir(dist.slurm_dir);
  Manifest m;
  m.command = p.command;
  m.argv = dist.argv;
  m.task_args = dist.task_args;
  m.binary = binary;
  m.workdir = workdir;
  m.json_path = p.json_path;
  m.partition = dist.partition;
  m.time_limit = dist.time_limit;
  m.items = p.items;
  const uint32_t n = static_cast<uint32_t>(
      std::min<uint64_t>(dist.tasks != 0 ? dist.tasks : kDefaultTasks, p.items));
  size_t widest = 0;
  for (uint32_t i = 0; i < n; ++i) {
    json::array items;
    for (size_t k : slice_items(p.items, i, n)) items.push_back(p.describe(k));
    widest = std::max(widest, items.size());
    m.slices.push_back(std::move(items));
  }
  m.cpus_per_task = static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(p.jobs, widest)));
  slurm::write_file_atomic(d.script(), slurm::sbatch_script(d, m));
  chmod(d.script().c_str(), 0755);
  slurm::write_manifest(d, m);
  std::ostream& out = p.json_path == "-" ? std::cerr : std::cout;
  if (n == 0) {
    out << fmt::format("nothing to run: no {} to simulate; {} holds the (empty) job\n",
                       p.command == "sweep" ? "configuration fits" : "schedule", d.dir);
    return dist.wait ? merge_job(d, m, m.json_path) : 0;
  }
  std::vector<uint32_t> all(n);
  for (uint32_t i = 0; i < n; ++i) all[i] = i;
  slurm::Submission sub;
  try {
    sub = slurm::submit(d, m, tools, all);
  } catch (const slurm::Error& e) {
    throw UsageError(fmt::format("{} ({} keeps the job: sim collect --resume {} submits it)",
                                 e.what(), d.dir, d.dir));
  }
  out << fmt::format("submitted job {}: {} array task{} of sim {} over {} {}; results in {}\n",
                     sub.job_id, n, n == 1 ? "" : "s", p.command, p.items,
                     p.command == "sweep" ? "configurations" : "schedules", d.dir);
  if (!dist.wait) {
    out << fmt::format("merge with: sim collect {} (--wait to wait for the job)\n", d.dir);
    return 0;
  }
  out << std::flush;
  slurm::wait_for_job(d, m, tools);
  return merge_job(d, m, m.json_path);
}

// ------------------------------------------------------------ the array task

void write_slice(const DistributedArgs& dist, const std::string& command, json::array items,
                 double wall_s) {
  const json::object doc{{"format", kSliceFormat},
                         {"command", command},
                         {"slice", dist.slice},
                         {"of", dist.slice_count},
                         {"task_args", json::value_from(dist.task_args)},
                         {"items", std::move(items)},
                         {"wall_s", wall_s}};
  try {
    slurm::write_file_atomic(dist.slice_out, json::serialize(doc) + "\n");
  } catch (const slurm::Error& e) {
    throw UsageError(fmt::format("--slice-out: {}", e.what()));
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What names a sweep's configuration i in a job's manifest and slices: its
// index, tile N and stages, and each axis the sweep varies (kernel, cluster,
// tile group, K split, kernel schedule, tile M); same_item checks a manifest item against the plan's point.
json::object sweep_item(const SweepArgs& a, const Sweep& s, size_t i) {
  const sim::MatmulRequest& q = s.points[i].q;
  json::object o{{"index", i}, {"tile_n", q.tile_n}, {"stages", q.stages}};
  if (!a.variants.empty()) o["kernel"] = q.amd_kernel;
  if (!a.clusters.empty()) o["cluster"] = fmt::format("{}x{}", q.cluster_m, q.cluster_n);
  if (!a.tile_groups.empty()) o["tile_group"] = q.tile_group;
  if (!a.split_ks.empty()) o["split_k"] = q.split_k;
  if (!a.pingpongs.empty()) o["kernel_schedule"] = kernel_schedule_name(q.pingpong);
  if (!a.tile_ms.empty()) o["tile_m"] = q.tile_m;
  return o;
}

bool same_item(const SweepArgs& a, const Sweep& s, size_t i, const json::object& item) {
  json::object want = sweep_item(a, s, i);
  for (const auto& [key, value] : want)
    if (!item.contains(key) || item.at(key) != value) return false;
  return true;
}

int sweep_task(const SweepArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const DistributedArgs& dist = a.dist;
  Sweep s = plan_sweep(a.problem, a.base, a.axes());
  const std::vector<size_t> which = slice_items(s.points.size(), dist.slice, dist.slice_count);
  std::vector<json::object> raw(s.points.size());
  run_sweep_points(
      s, which, a.jobs, a.wall, [&a](const sim::MatmulRequest& q) { return a.problem.run(q); },
      [&](size_t i, const sim::IsolatedResult& r) {
        json::object o = sweep_item(a, s, i);
        if (r.ok)
          o["result"] = json::parse(r.payload);
        else
          o["error"] = r.error;
        raw[i] = std::move(o);
      });
  json::array items;
  for (size_t i : which) items.push_back(std::move(raw[i]));
  const double wall = seconds_since(t0);
  write_slice(dist, "sweep", std::move(items), wall);
  std::cout << fmt::format("slice {} of {}: {} configurations in {:.2f} s, results in {}\n",
                           dist.slice, dist.slice_count, which.size(), wall, dist.slice_out);
  return 0;
}

int verify_task(const RunArgs& in) {
  const auto t0 = std::chrono::steady_clock::now();
  const DistributedArgs& dist = in.dist;
  verify::ExploreOptions eo;
  eo.seeds = verify::shard_seeds(in.q.seed, in.schedules, static_cast<int>(dist.slice),
                                 static_cast<int>(dist.slice_count));
  eo.jobs = in.jobs;
  eo.wall_limit_s = in.wall;
  sim::MatmulRequest base = in.q;
  base.progress = false;
  in.problem.share_inputs(base);  // one data seed for every schedule of the slice
  const auto out = verify::run_schedules(
      [&base, &in](uint64_t seed) {
        sim::MatmulRequest q = base;
        q.seed = seed;
        return in.simulate(q);
      },
      eo);
  json::array items;
  for (size_t i = 0; i < out.size(); ++i) {
    json::object o{{"seed", eo.seeds[i]}};
    if (out[i].ok) {
      json::array fs;
      for (const auto& f : out[i].findings) fs.push_back(sim::finding_to_json(f));
      o["findings"] = std::move(fs);
      if (out[i].limited) o["limited"] = true;
      if (out[i].sync_digest != 0) o["sync_digest"] = out[i].sync_digest;
    } else {
      o["error"] = out[i].error;
    }
    items.push_back(std::move(o));
  }
  const double wall = seconds_since(t0);
  write_slice(dist, "verify", std::move(items), wall);
  std::cout << fmt::format("slice {} of {}: {} schedules in {:.2f} s, results in {}\n", dist.slice,
                           dist.slice_count, out.size(), wall, dist.slice_out);
  return 0;
}

// ------------------------------------------------------------------ merging

// argv for re-parsing the job's request: {command, task args...}.
struct Argv {
  std::vector<std::string> tokens;
  std::vector<char*> ptrs;
  explicit Argv(const Manifest& m) : tokens{m.command} {
    tokens.insert(tokens.end(), m.task_args.begin(), m.task_args.end());
    for (auto& t : tokens) ptrs.push_back(t.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(tokens.size()); }
  char** argv() { return ptrs.data(); }
};

// Slice i's result file: its items, or false with the reason in `why`.
bool load_slice(const JobDir& d, const Manifest& m, uint32_t i, json::array& items,
                std::string& why) {
  std::string text;
  if (!slurm::read_file(d.slice_file(i), text)) {
    why = fmt::format("cannot read {}", d.slice_file(i));
    return false;
  }
  try {
    const json::object doc = json::parse(text).as_object();
    if (doc.at("format").as_string() != kSliceFormat || doc.at("command").as_string() != m.command)
      why = "it is not a result file of this job's command";
    else if (json::value_to<uint64_t>(doc.at("slice")) != i ||
             json::value_to<uint64_t>(doc.at("of")) != m.slices.size())
      why = fmt::format("it holds slice {} of {}", json::serialize(doc.at("slice")),
                        json::serialize(doc.at("of")));
    else if (json::value_to<std::vector<std::string>>(doc.at("task_args")) != m.task_args)
      why = "it was run with other arguments than the manifest's";
    if (!why.empty()) {
      why = fmt::format("{}: {}", d.slice_file(i), why);
      return false;
    }
    items = doc.at("items").as_array();
    return true;
  } catch (const std::exception& e) {
    why = fmt::format("{} does not parse: {}", d.slice_file(i), e.what());
    return false;
  }
}

void mark_failed(SliceStatus& st, const std::string& why) {
  st.state = SliceState::kFailed;
  st.detail = "unusable result: " + why;
}

// The span from the first submission to the newest result file, for the text.
double job_wall(const JobDir& d, const Manifest& m, const std::vector<SliceStatus>& states) {
  if (m.submissions.empty()) return 0;
  int64_t first = m.submissions.front().submitted_unix, last = first;
  for (const auto& s : m.submissions) first = std::min(first, s.submitted_unix);
  for (const SliceStatus& st : states) {
    struct stat sb {};
    if (st.state == SliceState::kDone && stat(d.slice_file(st.slice).c_str(), &sb) == 0)
      last = std::max<int64_t>(last, sb.st_mtime);
  }
  return static_cast<double>(std::max<int64_t>(0, last - first));
}

std::vector<const SliceStatus*> missing_slices(const std::vector<SliceStatus>& states) {
  std::vector<const SliceStatus*> v;
  for (const SliceStatus& st : states)
    if (st.state != SliceState::kDone) v.push_back(&st);
  return v;
}

std::string describe_item(const std::string& command, const json::value& item) {
  if (command == "sweep") {
    const auto& o = item.as_object();
    return fmt::format("tile N {} stages {}{}{}{}", json::serialize(o.at("tile_n")),
                       json::serialize(o.at("stages")),
                       o.contains("kernel") ? " " + json::value_to<std::string>(o.at("kernel"))
                                            : std::string(),
                       o.contains("cluster")
                           ? " cluster " + json::value_to<std::string>(o.at("cluster"))
                           : std::string(),
                       o.contains("tile_group")
                           ? " tile group " + json::serialize(o.at("tile_group"))
                           : std::string());
  }
  return "seed " + json::serialize(item);
}

// The PARTIAL block of the text: which slices are missing, why, and their items.
std::string partial_text(const JobDir& d, const Manifest& m,
                         const std::vector<const SliceStatus*>& missing, uint64_t missing_items) {
  std::string t = fmt::format(
      "PARTIAL: {} of {} slices missing, {} of {} {} not in the results above:\n", missing.size(),
      m.slices.size(), missing_items, m.items, m.command == "sweep" ? "configurations" : "schedules");
  bool queued = false;
  for (const SliceStatus* st : missing) {
    queued = queued || slurm::queued(st->state);
    const json::array& items = m.slices[st->slice];
    std::string list;
    for (size_t k = 0; k < items.size() && k < 8; ++k)
      list += (k ? ", " : "") + describe_item(m.command, items[k]);
    if (items.size() > 8) list += fmt::format(", ... ({} in all)", items.size());
    t += fmt::format("  slice {} {}{}: {}\n", st->slice, slurm::state_name(st->state),
                     st->detail.empty() ? "" : " (" + st->detail + ")", list);
  }
  if (queued) t += fmt::format("the job is still running: sim collect --wait {}\n", d.dir);
  t += fmt::format("sim collect --resume {} submits the slices that are not queued again\n", d.dir);
  return t;
}

// "partial": true and "missing": [{slice, state, detail, job, configurations|seeds}].
void mark_partial(json::object& doc, const Manifest& m,
                  const std::vector<const SliceStatus*>& missing) {
  json::array arr;
  for (const SliceStatus* st : missing)
    arr.push_back(json::object{{"slice", st->slice},
                               {"state", slurm::state_name(st->state)},
                               {"detail", st->detail},
                               {"job", st->job},
                               {m.command == "sweep" ? "configurations" : "seeds",
                                m.slices[st->slice]}});
  doc["partial"] = true;
  doc["missing"] = std::move(arr);
}

int merge_sweep(const JobDir& d, const Manifest& m, std::vector<SliceStatus>& states,
                const std::string& json_path) {
  Argv args(m);
  const SweepArgs a = parse_sweep_args(args.argc(), args.argv());
  Sweep s = plan_sweep(a.problem, a.base, a.axes());
  const uint32_t n = static_cast<uint32_t>(m.slices.size());
  bool same = s.points.size() == m.items;
  for (uint32_t i = 0; same && i < n; ++i) {
    const auto want = slice_items(s.points.size(), i, n);
    same = want.size() == m.slices[i].size();
    for (size_t k = 0; same && k < want.size(); ++k) {
      same = same_item(a, s, want[k], m.slices[i][k].as_object());
    }
  }
  if (!same)
    throw UsageError(fmt::format("{}: the job's configurations are not the ones this sim plans for "
                                 "its arguments (was it built from other sources?)",
                                 d.manifest()));
  std::vector<bool> have(s.points.size(), false);
  for (SliceStatus& st : states) {
    if (st.state != SliceState::kDone) continue;
    json::array items;
    std::string why;
    if (!load_slice(d, m, st.slice, items, why)) {
      mark_failed(st, why);
      continue;
    }
    // All items checked before any is used: a bad file leaves no trace.
    const auto want = slice_items(s.points.size(), st.slice, n);
    std::vector<std::pair<size_t, sim::IsolatedResult>> got;
    try {
      for (const auto& v : items) {
        const auto& o = v.as_object();
        sim::IsolatedResult r;
        r.ok = o.contains("result");
        if (r.ok)
          r.payload = json::serialize(o.at("result"));
        else
          r.error = json::value_to<std::string>(o.at("error"));
        got.emplace_back(json::value_to<size_t>(o.at("index")), std::move(r));
      }
    } catch (const std::exception& e) {
      mark_failed(st, fmt::format("{}: {}", d.slice_file(st.slice), e.what()));
      continue;
    }
    bool ok = got.size() == want.size();
    for (size_t k = 0; ok && k < got.size(); ++k) ok = got[k].first == want[k];
    if (!ok) {
      mark_failed(st, fmt::format("{}: not the configurations of slice {}", d.slice_file(st.slice),
                                  st.slice));
      continue;
    }
    for (auto& [i, r] : got) {
      set_sweep_result(s.points[i], r);
      have[i] = true;
    }
  }
  const auto missing = missing_slices(states);
  Sweep merged;
  merged.skipped = s.skipped;
  for (size_t i = 0; i < s.points.size(); ++i)
    if (have[i]) merged.points.push_back(std::move(s.points[i]));
  rank_sweep(merged);
  merged.wall_s = job_wall(d, m, states);
  json::object doc = sweep_to_json(merged, a.problem, a.base);
  if (!missing.empty()) mark_partial(doc, m, missing);
  if (!json_path.empty()) write_output("--json", json_path, json::serialize(doc));
  std::ostream& text = json_path == "-" ? std::cerr : std::cout;
  const std::string partial =
      missing.empty() ? "" : partial_text(d, m, missing, s.points.size() - merged.points.size());
  if (!partial.empty()) text << "PARTIAL RESULT (see the end)\n";
  text << format_sweep_text(merged, a.problem, a.base) << partial;
  if (!missing.empty()) return kExitIncomplete;
  return sweep_exit_code(merged.points);
}

int merge_verify(const JobDir& d, const Manifest& m, std::vector<SliceStatus>& states,
                 const std::string& json_path) {
  Argv args(m);
  const RunArgs in = parse_run_args(args.argc(), args.argv(), "verify", verify_options());
  const uint32_t n = static_cast<uint32_t>(m.slices.size());
  std::vector<uint64_t> seeds;
  for (uint64_t i = 0; i < in.schedules; ++i) seeds.push_back(in.q.seed + i);
  bool same = seeds.size() == m.items;
  std::vector<std::vector<uint64_t>> want(n);
  for (uint32_t i = 0; same && i < n; ++i) {
    want[i] = verify::shard_seeds(in.q.seed, in.schedules, static_cast<int>(i), static_cast<int>(n));
    same = json::value_to<std::vector<uint64_t>>(json::value(m.slices[i])) == want[i];
  }
  if (!same)
    throw UsageError(fmt::format("{}: the job's schedules are not the ones its arguments give",
                                 d.manifest()));
  std::vector<verify::ScheduleOutcome> out(seeds.size());
  for (SliceStatus& st : states) {
    if (st.state != SliceState::kDone) continue;
    json::array items;
    std::string why;
    if (!load_slice(d, m, st.slice, items, why)) {
      mark_failed(st, why);
      continue;
    }
    std::vector<std::pair<uint64_t, verify::ScheduleOutcome>> got;
    try {
      for (const auto& v : items) {
        const auto& o = v.as_object();
        verify::ScheduleOutcome r;
        r.done = true;
        r.ok = o.contains("findings");
        r.limited = o.contains("limited");
        if (o.contains("sync_digest")) r.sync_digest = json::value_to<uint64_t>(o.at("sync_digest"));
        if (r.ok)
          for (const auto& f : o.at("findings").as_array()) r.findings.push_back(sim::finding_from_json(f));
        else
          r.error = json::value_to<std::string>(o.at("error"));
        got.emplace_back(json::value_to<uint64_t>(o.at("seed")), std::move(r));
      }
    } catch (const std::exception& e) {
      mark_failed(st, fmt::format("{}: {}", d.slice_file(st.slice), e.what()));
      continue;
    }
    bool ok = got.size() == want[st.slice].size();
    for (size_t k = 0; ok && k < got.size(); ++k) ok = got[k].first == want[st.slice][k];
    if (!ok) {
      mark_failed(st, fmt::format("{}: not the schedules of slice {}", d.slice_file(st.slice),
                                  st.slice));
      continue;
    }
    for (auto& [seed, r] : got) out[seed - in.q.seed] = std::move(r);
  }
  const auto missing = missing_slices(states);
  uint64_t missing_items = 0;
  for (const SliceStatus* st : missing) missing_items += m.slices[st->slice].size();
  verify::ExploreReport rep = verify::merge_schedules(seeds, std::move(out), false);
  rep.wall_s = job_wall(d, m, states);
  json::object doc = verify_to_json(in, rep);
  if (!missing.empty()) mark_partial(doc, m, missing);
  if (!json_path.empty()) write_output("--json", json_path, json::serialize(doc));
  std::ostream& text = json_path == "-" ? std::cerr : std::cout;
  if (!missing.empty()) text << "PARTIAL RESULT (see the end)\n";
  text << verify_header(in) << verify::format_report(rep, replay_command(in));
  if (!missing.empty()) text << partial_text(d, m, missing, missing_items);
  if (!missing.empty()) return kExitIncomplete;
  return verify_exit_code(rep);
}

int merge_job(const JobDir& d, Manifest& m, const std::string& json_path) {
  const slurm::Tools tools = slurm::find_tools();
  std::vector<SliceStatus> states = slurm::slice_states(d, m, tools);
  return m.command == "sweep" ? merge_sweep(d, m, states, json_path)
                              : merge_verify(d, m, states, json_path);
}

}  // namespace

int sweep_distributed(const SweepArgs& a) {
  if (a.dist.task()) return sweep_task(a);
  const Sweep plan = plan_sweep(a.problem, a.base, a.axes());
  require_runnable(plan);
  JobPlan p;
  p.command = "sweep";
  p.dist = &a.dist;
  p.json_path = a.json_path;
  p.items = plan.points.size();
  p.jobs = a.jobs;
  p.describe = [&plan, &a](size_t i) -> json::value { return sweep_item(a, plan, i); };
  return submit_job(p);
}

int verify_distributed(const RunArgs& in) {
  if (in.dist.task()) return verify_task(in);
  JobPlan p;
  p.command = "verify";
  p.dist = &in.dist;
  p.json_path = in.json_path;
  p.items = in.schedules;
  p.jobs = in.jobs;
  const uint64_t first = in.q.seed;
  p.describe = [first](size_t i) -> json::value { return first + i; };
  return submit_job(p);
}

int cmd_collect(int argc, char** argv) {
  po::options_description opts("sim collect options");
  opts.add_options()("help,h", "show this help")
      ("resume", po::value<std::string>(),
       "submit the slices of job directory DIR that have no result and are not queued again, "
       "as one array job")
      ("wait", "wait until none of the job's tasks is queued, then merge")
      ("json", po::value<std::string>(),
       "write the merged JSON to FILE, or - for stdout (default: the submitting command's --json)")
      ("partition", po::value<std::string>(), "--resume: the partition (default: the job's)")
      ("time-limit", po::value<std::string>(), "--resume: each task's time limit (default: the job's)");
  po::options_description positional;
  positional.add_options()("dir", po::value<std::string>(), "the job directory");
  const po::variables_map vm = parse_options(argc, argv, "collect", opts, &positional, "dir");
  std::string dir = vm.count("dir") ? vm["dir"].as<std::string>() : "";
  if (vm.count("help")) {
    std::cout << "usage: sim collect DIR [--wait] [--json FILE|-]\n"
                 "       sim collect --resume DIR [--wait] [--json FILE|-] [--partition P] "
                 "[--time-limit T]\n"
                 "Merges the results of `sim sweep|verify ... --slurm DIR` into the local run's "
                 "table, findings\nand JSON. Exit status: 0 complete and clean, 1 findings, 2 bad "
                 "usage, 3 incomplete (PARTIAL).\n"
              << opts;
    return 0;
  }
  const bool resume = vm.count("resume") > 0;
  if (resume && !dir.empty())
    throw UsageError(fmt::format("sim collect: give the directory once (sim collect --resume DIR), "
                                 "got '{}' and --resume",
                                 dir));
  if (resume) dir = vm["resume"].as<std::string>();
  if (dir.empty()) throw UsageError("sim collect: no job directory given (sim collect DIR)");
  for (const char* o : {"partition", "time-limit"})
    if (vm.count(o) && !resume) throw UsageError(fmt::format("sim collect: --{} needs --resume", o));
  const JobDir d = slurm::open_job_dir(resolve_path(dir));
  Manifest m = slurm::read_manifest(d);
  std::string json_path = parse_json_path(vm);
  if (!vm.count("json")) json_path = m.json_path;
  std::ostream& out = json_path == "-" ? std::cerr : std::cout;
  const slurm::Tools tools = slurm::find_tools();
  const bool wait = vm.count("wait") > 0;
  if (resume || wait) {
    const auto missing = resume ? slurm::missing_tools(tools, {"sbatch", "squeue"})
                                : slurm::missing_tools(tools, {"squeue"});
    if (!missing.empty())
      throw UsageError(fmt::format("sim collect: {} needs Slurm's client commands on PATH; not "
                                   "found: {}",
                                   resume ? "--resume" : "--wait", join(missing, ", ")));
  }
  if (resume) {
    std::string queue_error;
    const auto states = slurm::slice_states(d, m, tools, &queue_error);
    if (!queue_error.empty())
      throw UsageError(fmt::format("sim collect --resume: cannot tell which slices are still "
                                   "queued: {}",
                                   queue_error));
    std::vector<uint32_t> again;
    size_t queued = 0;
    for (const SliceStatus& st : states) {
      if (slurm::queued(st.state))
        ++queued;
      else if (st.state != SliceState::kDone)
        again.push_back(st.slice);
    }
    if (again.empty()) {
      out << fmt::format("nothing to resubmit: {} slices done, {} queued\n",
                         states.size() - queued, queued);
    } else {
      if (vm.count("partition")) m.partition = parse_partition(vm["partition"].as<std::string>());
      if (vm.count("time-limit"))
        m.time_limit = parse_time_limit(vm["time-limit"].as<std::string>());
      slurm::Submission sub;
      try {
        sub = slurm::submit(d, m, tools, again);
      } catch (const slurm::Error& e) {
        throw UsageError(fmt::format("sim collect --resume: {}", e.what()));
      }
      out << fmt::format("submitted job {}: slice{} {} of sim {} again; results in {}\n",
                         sub.job_id, again.size() == 1 ? "" : "s", slurm::array_spec(again),
                         m.command, d.dir);
    }
    if (!wait) return 0;
  }
  if (wait) {
    out << std::flush;
    slurm::wait_for_job(d, m, tools);
  }
  return merge_job(d, m, json_path);
}

}  // namespace sk::cli
