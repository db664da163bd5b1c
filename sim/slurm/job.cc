// job.cc: see job.h.
#include "sim/slurm/job.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

namespace sk::slurm {
namespace {

struct QueueEntry {
  std::string state;   // PENDING, RUNNING, ...
  std::string reason;  // why pending
};

using Queue = std::map<std::pair<std::string, uint32_t>, QueueEntry>;  // (array job, index)

// The array tasks of this user that Slurm still holds; "" or why it failed.
std::string read_queue(const Tools& tools, Queue& q) {
  if (tools.squeue.empty()) return "squeue is not on PATH";
  const CommandResult r = run_command({tools.squeue, "--noheader", "--array",
                                       fmt::format("--user={}", getuid()), "--format=%F %K %T %r"});
  if (r.status != 0)
    return fmt::format("squeue failed (exit {}): {}", r.status, first_line(r.err + r.out));
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string job, index, state, reason;
    if (!(f >> job >> index >> state)) continue;
    std::getline(f, reason);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) continue;
    const size_t a = reason.find_first_not_of(' ');
    q[{job, static_cast<uint32_t>(std::stoul(index))}] =
        QueueEntry{state, a == std::string::npos ? "" : reason.substr(a)};
  }
  return "";
}

std::string last_line(const std::string& text) {
  size_t end = text.size();
  while (end > 0) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = first_line(text.substr(from, end - from));
    if (!line.empty()) return line;
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

// Slurm's own note in a task's stderr: "*** JOB 12 ON node CANCELLED AT ... ***".
bool slurm_note(const std::string& err_log, SliceState& state, std::string& detail) {
  const size_t at = err_log.find("*** JOB ");
  if (at == std::string::npos) return false;
  const size_t eol = err_log.find('\n', at);
  const std::string note = first_line(err_log.substr(at, eol == std::string::npos ? eol : eol - at));
  if (note.find("DUE TO TIME LIMIT") != std::string::npos)
    state = SliceState::kTimedOut;
  else if (note.find("DUE TO NODE FAIL") != std::string::npos)
    state = SliceState::kFailed;
  else if (note.find("CANCELLED") != std::string::npos)
    state = SliceState::kCancelled;
  else
    state = SliceState::kFailed;
  detail = "slurmstepd: " + note;
  return true;
}

// sacct's record of one array task, where the site keeps accounting.
bool sacct_state(const Tools& tools, const std::string& job, uint32_t slice, SliceState& state,
                 std::string& detail) {
  if (tools.sacct.empty()) return false;
  const CommandResult r =
      run_command({tools.sacct, "--noheader", "--parsable2", "--allocations",
                   fmt::format("--jobs={}_{}", job, slice), "--format=State,ExitCode"});
  const std::string line = first_line(r.out);
  if (r.status != 0 || line.empty()) return false;
  const std::string st = line.substr(0, line.find('|'));
  detail = "sacct: " + line;
  if (st.rfind("CANCELLED", 0) == 0 || st == "PREEMPTED")
    state = SliceState::kCancelled;
  else if (st == "TIMEOUT" || st == "DEADLINE")
    state = SliceState::kTimedOut;
  else if (st == "PENDING" || st == "REQUEUED")
    state = SliceState::kPending;
  else if (st == "RUNNING" || st == "COMPLETING" || st == "SUSPENDED")
    state = SliceState::kRunning;
  else
    state = SliceState::kFailed;  // FAILED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL; COMPLETED without a result
  return true;
}

std::string slurm_path(const std::string& p) {
  // sbatch expands %-patterns in --output and --error; a literal % is %%.
  std::string o;
  for (char c : p) o += c == '%' ? std::string("%%") : std::string(1, c);
  return o;
}

}  // namespace

const char* state_name(SliceState s) {
  switch (s) {
    case SliceState::kDone: return "done";
    case SliceState::kPending: return "pending";
    case SliceState::kRunning: return "running";
    case SliceState::kCancelled: return "cancelled";
    case SliceState::kTimedOut: return "timed out";
    case SliceState::kFailed: return "failed";
    case SliceState::kLost: return "lost";
    case SliceState::kNotSubmitted: return "not submitted";
  }
  return "?";
}

bool queued(SliceState s) { return s == SliceState::kPending || s == SliceState::kRunning; }

std::string array_spec(const std::vector<uint32_t>& slices) {
  std::vector<uint32_t> v = slices;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return out;
}

Submission submit(const JobDir& d, Manifest& m, const Tools& tools,
                  const std::vector<uint32_t>& slices) {
  if (tools.sbatch.empty()) throw Error("sbatch is not on PATH");
  if (slices.empty()) throw Error("nothing to submit");
  Submission s;
  s.slices = slices;
  s.sbatch = {tools.sbatch,
              "--parsable",
              "--array=" + array_spec(slices),
              "--job-name=sim-" + m.command,
              "--ntasks=1",
              fmt::format("--cpus-per-task={}", m.cpus_per_task),
              "--chdir=" + m.workdir,
              "--output=" + slurm_path(d.dir) + "/logs/slice-%a.%A.out",
              "--error=" + slurm_path(d.dir) + "/logs/slice-%a.%A.err"};
  if (!m.partition.empty()) s.sbatch.push_back("--partition=" + m.partition);
  if (!m.time_limit.empty()) s.sbatch.push_back("--time=" + m.time_limit);
  s.sbatch.push_back(d.script());
  const CommandResult r = run_command(s.sbatch);
  if (r.status != 0) {
    const std::string why = first_line(r.err.empty() ? r.out : r.err);
    throw Error(fmt::format("sbatch failed (exit {}): {}", r.status, why.empty() ? "no message" : why));
  }
  const std::string line = first_line(r.out);
  s.job_id = line.substr(0, line.find(';'));
  if (s.job_id.empty() || s.job_id.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("sbatch printed no job id: '{}'", line));
  s.submitted_unix = static_cast<int64_t>(std::time(nullptr));
  m.submissions.push_back(s);
  write_manifest(d, m);
  return s;
}

std::vector<SliceStatus> slice_states(const JobDir& d, const Manifest& m, const Tools& tools,
                                      std::string* queue_error_out) {
  Queue q;
  const std::string queue_error = read_queue(tools, q);  // before the result files: see job.h
  if (queue_error_out != nullptr) *queue_error_out = queue_error;
  std::vector<SliceStatus> out;
  for (uint32_t i = 0; i < m.slices.size(); ++i) {
    SliceStatus st;
    st.slice = i;
    for (auto it = m.submissions.rbegin(); it != m.submissions.rend() && st.job.empty(); ++it)
      if (std::find(it->slices.begin(), it->slices.end(), i) != it->slices.end()) st.job = it->job_id;
    std::string text;
    if (access(d.slice_file(i).c_str(), F_OK) == 0) {
      st.state = SliceState::kDone;
    } else if (st.job.empty()) {
      st.state = SliceState::kNotSubmitted;
      st.detail = "no submission covers it";
    } else if (auto e = q.find({st.job, i}); e != q.end()) {
      st.state = e->second.state == "PENDING" ? SliceState::kPending : SliceState::kRunning;
      st.detail = fmt::format("job {}_{} {}", st.job, i, e->second.state);
      if (st.state == SliceState::kPending && !e->second.reason.empty() &&
          e->second.reason != "None")
        st.detail += " (" + e->second.reason + ")";
    } else if (read_file(d.log_err(st.job, i), text) && slurm_note(text, st.state, st.detail)) {
    } else if (std::string mark; read_file(d.exit_marker(st.job, i), mark)) {
      const std::string how = first_line(mark);
      const std::string last = last_line(text);
      st.state = how.rfind("signal", 0) == 0 ? SliceState::kCancelled : SliceState::kFailed;
      st.detail = fmt::format("sim {}{}", how == "exit 0" ? "exited 0 but wrote no result" : how,
                              last.empty() ? "" : ": " + last);
    } else if (sacct_state(tools, st.job, i, st.state, st.detail)) {
    } else {
      st.state = SliceState::kLost;
      st.detail = queue_error.empty()
                      ? fmt::format("job {}_{} is not in the queue and left no result, Slurm note "
                                    "or exit record",
                                    st.job, i)
                      : fmt::format("no result, and the queue cannot be read: {}", queue_error);
    }
    out.push_back(std::move(st));
  }
  return out;
}

void wait_for_job(const JobDir& d, const Manifest& m, const Tools& tools, double give_up_s) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto failing_since = Clock::time_point::max();
  std::string last_report;
  const bool tty = isatty(2) != 0;
  for (;;) {
    Queue q;
    const std::string err = read_queue(tools, q);
    const auto now = Clock::now();
    if (!err.empty()) {
      if (failing_since == Clock::time_point::max()) failing_since = now;
      if (std::chrono::duration<double>(now - failing_since).count() > give_up_s)
        throw Error(fmt::format("{} for {:.0f} s; the job may still be running (sim collect --wait "
                                "{} waits again)",
                                err, give_up_s, d.dir));
    } else {
      failing_since = Clock::time_point::max();
      size_t pending = 0, running = 0;
      for (const auto& [key, e] : q)
        for (const Submission& s : m.submissions)
          if (s.job_id == key.first) (e.state == "PENDING" ? pending : running) += 1;
      if (pending + running == 0) {
        if (tty && !last_report.empty()) std::cerr << "\n";
        return;
      }
      const std::string report = fmt::format("waiting for {}: {} running, {} pending", d.dir,
                                             running, pending);
      if (tty && report != last_report) std::cerr << "\r" << report << std::flush;
      last_report = report;
    }
    const double elapsed = std::chrono::duration<double>(now - t0).count();
    const double pause = std::min(10.0, 1.0 + elapsed / 20.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(pause * 1000)));
  }
}

}  // namespace sk::slurm
