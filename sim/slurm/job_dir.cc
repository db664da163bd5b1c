// job_dir.cc: see job_dir.h.
#include "sim/slurm/job_dir.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sk::slurm {
namespace json = boost::json;

namespace {

constexpr const char* kFormat = "sk-sim-slurm-job 1";

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0;
}

bool dir_is_empty(const std::string& p) {
  DIR* d = opendir(p.c_str());
  if (d == nullptr) return false;
  bool empty = true;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") {
      empty = false;
      break;
    }
  }
  closedir(d);
  return empty;
}

// mkdir -p; returns "" or the reason.
std::string make_dirs(const std::string& path) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty() || is_dir(cur)) continue;
    if (mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST)
      return fmt::format("cannot create '{}': {}", cur, std::strerror(errno));
  }
  return "";
}

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(json::string(s));
  return a;
}

std::vector<std::string> strings_from(const json::value& v) {
  std::vector<std::string> out;
  for (const auto& x : v.as_array()) out.emplace_back(x.as_string().c_str());
  return out;
}

std::vector<uint32_t> indices_from(const json::value& v) {
  std::vector<uint32_t> out;
  for (const auto& x : v.as_array()) out.push_back(json::value_to<uint32_t>(x));
  return out;
}

}  // namespace

std::string JobDir::slice_file(uint32_t slice) const {
  return fmt::format("{}/slices/slice-{}.json", dir, slice);
}
std::string JobDir::log_out(const std::string& job, uint32_t slice) const {
  return fmt::format("{}/logs/slice-{}.{}.out", dir, slice, job);
}
std::string JobDir::log_err(const std::string& job, uint32_t slice) const {
  return fmt::format("{}/logs/slice-{}.{}.err", dir, slice, job);
}
std::string JobDir::exit_marker(const std::string& job, uint32_t slice) const {
  return fmt::format("{}/status/slice-{}.{}.exit", dir, slice, job);
}

std::string absolute_path(const std::string& path) {
  std::string p = path;
  if (p.empty() || p[0] != '/') {
    char buf[4096];
    if (getcwd(buf, sizeof buf) == nullptr)
      throw Error(fmt::format("cannot resolve '{}': {}", path, std::strerror(errno)));
    p = std::string(buf) + "/" + p;
  }
  // Drop "." components and repeated or trailing slashes; ".." is kept.
  std::string out;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    const std::string part = p.substr(start, end - start);
    if (!part.empty() && part != ".") out += "/" + part;
    start = end + 1;
  }
  return out.empty() ? "/" : out;
}

JobDir create_job_dir(const std::string& path) {
  if (path.empty()) throw Error("--slurm needs a directory");
  JobDir d{absolute_path(path)};
  if (exists(d.dir)) {
    if (!is_dir(d.dir)) throw Error(fmt::format("--slurm: '{}' exists and is not a directory", d.dir));
    if (exists(d.manifest()))
      throw Error(fmt::format("--slurm: '{}' already holds a job (sim collect --resume {} "
                              "completes it; give a new directory for a new job)",
                              d.dir, d.dir));
    if (!dir_is_empty(d.dir))
      throw Error(fmt::format("--slurm: '{}' is a directory that is not empty and not a job "
                              "directory",
                              d.dir));
  }
  if (std::string err = make_dirs(d.dir); !err.empty()) throw Error("--slurm: " + err);
  if (access(d.dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("--slurm: cannot write in '{}': {}", d.dir, std::strerror(errno)));
  for (const char* sub : {"slices", "logs", "status"}) {
    const std::string p = d.dir + "/" + sub;
    if (mkdir(p.c_str(), 0777) != 0 && errno != EEXIST)
      throw Error(fmt::format("--slurm: cannot create '{}': {}", p, std::strerror(errno)));
  }
  return d;
}

JobDir open_job_dir(const std::string& path) {
  if (path.empty()) throw Error("no job directory given");
  JobDir d{absolute_path(path)};
  if (!is_dir(d.dir)) throw Error(fmt::format("'{}' is not a directory", d.dir));
  if (!exists(d.manifest()))
    throw Error(fmt::format("'{}' is not a job directory (it holds no manifest.json)", d.dir));
  return d;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return !in.bad();
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      const int e = errno;
      unlink(tmp.c_str());
      throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(e)));
    }
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(e)));
  }
}

void write_manifest(const JobDir& d, const Manifest& m) {
  json::array slices;
  for (size_t i = 0; i < m.slices.size(); ++i)
    slices.emplace_back(json::object{{"slice", i}, {"items", m.slices[i]}});
  json::array subs;
  for (const Submission& s : m.submissions) {
    json::array idx;
    for (uint32_t i : s.slices) idx.emplace_back(i);
    subs.emplace_back(json::object{{"job_id", s.job_id},
                                   {"slices", std::move(idx)},
                                   {"sbatch", strings(s.sbatch)},
                                   {"submitted_unix", s.submitted_unix}});
  }
  const json::object o{{"format", kFormat},
                       {"command", m.command},
                       {"argv", strings(m.argv)},
                       {"task_args", strings(m.task_args)},
                       {"binary", m.binary},
                       {"workdir", m.workdir},
                       {"json", m.json_path},
                       {"partition", m.partition},
                       {"time_limit", m.time_limit},
                       {"cpus_per_task", m.cpus_per_task},
                       {"items", m.items},
                       {"slices", std::move(slices)},
                       {"submissions", std::move(subs)}};
  write_file_atomic(d.manifest(), json::serialize(o) + "\n");
}

Manifest read_manifest(const JobDir& d) {
  std::string text;
  if (!read_file(d.manifest(), text))
    throw Error(fmt::format("cannot read '{}': {}", d.manifest(), std::strerror(errno)));
  try {
    const json::object o = json::parse(text).as_object();
    if (o.at("format").as_string() != kFormat)
      throw Error(fmt::format("'{}' is not a manifest of this sim (format '{}')", d.manifest(),
                              std::string(o.at("format").as_string().c_str())));
    Manifest m;
    m.command = o.at("command").as_string().c_str();
    m.argv = strings_from(o.at("argv"));
    m.task_args = strings_from(o.at("task_args"));
    m.binary = o.at("binary").as_string().c_str();
    m.workdir = o.at("workdir").as_string().c_str();
    m.json_path = o.at("json").as_string().c_str();
    m.partition = o.at("partition").as_string().c_str();
    m.time_limit = o.at("time_limit").as_string().c_str();
    m.cpus_per_task = json::value_to<uint32_t>(o.at("cpus_per_task"));
    m.items = json::value_to<uint64_t>(o.at("items"));
    for (const auto& s : o.at("slices").as_array()) {
      const auto& so = s.as_object();
      if (json::value_to<size_t>(so.at("slice")) != m.slices.size())
        throw Error(fmt::format("'{}': the slices are not numbered 0, 1, ...", d.manifest()));
      m.slices.push_back(so.at("items").as_array());
    }
    for (const auto& s : o.at("submissions").as_array()) {
      const auto& so = s.as_object();
      Submission sub;
      sub.job_id = so.at("job_id").as_string().c_str();
      sub.slices = indices_from(so.at("slices"));
      sub.sbatch = strings_from(so.at("sbatch"));
      sub.submitted_unix = json::value_to<int64_t>(so.at("submitted_unix"));
      for (uint32_t i : sub.slices)
        if (i >= m.slices.size())
          throw Error(fmt::format("'{}': submission {} names slice {} of {}", d.manifest(),
                                  sub.job_id, i, m.slices.size()));
      m.submissions.push_back(std::move(sub));
    }
    if (m.command != "sweep" && m.command != "verify")
      throw Error(fmt::format("'{}': unknown command '{}'", d.manifest(), m.command));
    return m;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("'{}' is not a valid manifest: {}", d.manifest(), e.what()));
  }
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'')
      o += "'\\''";
    else
      o += c;
  }
  return o + "'";
}

std::string sbatch_script(const JobDir& d, const Manifest& m) {
  std::string args;
  for (const std::string& a : m.task_args) args += " " + shell_quote(a);
  const size_t n = m.slices.size();
  return fmt::format(
      "#!/bin/sh\n"
      "# job.sbatch: one slice of `sim {cmd}` per Slurm array task, written by sim\n"
      "# (manifest.json next to it records the command and the slices; sim collect\n"
      "# merges the results). Slice I of {n} writes slices/slice-I.json; how sim\n"
      "# ended goes to status/slice-I.JOB.exit.\n"
      "i=\"${{SLURM_ARRAY_TASK_ID:?run this script as a Slurm array task}}\"\n"
      "job=\"${{SLURM_ARRAY_JOB_ID:-none}}\"\n"
      "dir={dir}\n"
      "cd {workdir} || {{ echo \"exit 2 (no working directory)\" >\"$dir/status/slice-$i.$job.exit\"; exit 2; }}\n"
      "trap 'echo \"signal TERM\" >\"$dir/status/slice-$i.$job.exit\"; exit 143' TERM\n"
      "{binary} {cmd}{args} --slice \"$i/{n}\" --slice-out \"$dir/slices/slice-$i.json\"\n"
      "rc=$?\n"
      "echo \"exit $rc\" >\"$dir/status/slice-$i.$job.exit\"\n"
      "exit \"$rc\"\n",
      fmt::arg("cmd", m.command), fmt::arg("n", n), fmt::arg("dir", shell_quote(d.dir)),
      fmt::arg("workdir", shell_quote(m.workdir)), fmt::arg("binary", shell_quote(m.binary)),
      fmt::arg("args", args));
}

}  // namespace sk::slurm
