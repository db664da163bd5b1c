// isolate.cc: see isolate.h.
#include "engine/isolate.h"

#include <fmt/format.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <vector>

namespace sk::sim {
namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int fd = -1;  // read end of the result pipe
  Clock::time_point deadline;
  std::string data;
};

[[noreturn]] void child_main(int fd, const std::function<std::string()>& fn) {
  // A child runs one simulation (or a few, for power-limited clocks) and
  // exits: memory it frees stays in its heap for the next run to reuse
  // instead of going back to the kernel and being faulted in, zeroed, again.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::string out;
  int code = 0;
  try {
    out = "R" + fn();
  } catch (const std::exception& e) {
    out = std::string("E") + e.what();
    code = 3;
  }
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = write(fd, out.data() + off, out.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  close(fd);
  fflush(stdout);
  fflush(stderr);
  _exit(code);
}

// Forks a child running fn; on failure returns a Child with pid -1 and the
// reason in data.
Child start(size_t index, const std::function<std::string()>& fn, double wall_limit_s) {
  Child c;
  c.index = index;
  int fds[2];
  if (pipe(fds) != 0) {
    c.data = std::string("pipe failed: ") + std::strerror(errno);
    return c;
  }
  fflush(stdout);
  fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    c.data = std::string("fork failed: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return c;
  }
  if (pid == 0) {
    close(fds[0]);
    // Die with the parent; it may have died before this took effect.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    child_main(fds[1], fn);
  }
  close(fds[1]);
  c.pid = pid;
  c.fd = fds[0];
  c.deadline = Clock::now() + std::chrono::milliseconds(
                                  static_cast<int64_t>(hard_wall_limit(wall_limit_s) * 1000));
  return c;
}

// Reaps a child whose pipe reached end-of-file (or that was killed).
IsolatedResult finish(Child& c, bool timed_out, double wall_limit_s) {
  close(c.fd);
  if (timed_out) kill(c.pid, SIGKILL);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  IsolatedResult r;
  if (timed_out) {
    r.killed = true;
    r.error = fmt::format(
        "simulation did not stop at the wall-clock limit of {:.0f} s (kernel code looping without "
        "calling the simulator?) and was killed after {:.0f} s; no summary",
        wall_limit_s, hard_wall_limit(wall_limit_s));
  } else if (WIFSIGNALED(status)) {
    r.error = fmt::format("simulation process died with signal {} ({})", WTERMSIG(status),
                          strsignal(WTERMSIG(status)));
  } else if (!c.data.empty() && c.data[0] == 'E') {
    r.error = c.data.substr(1);
  } else if (c.data.empty() || c.data[0] != 'R') {
    r.error = fmt::format("simulation process exited with status {} and no result",
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    r.ok = true;
    r.payload = c.data.substr(1);
  }
  return r;
}

}  // namespace

void run_isolated_pool(size_t n, int jobs, double wall_limit_s,
                       const std::function<std::string(size_t)>& task,
                       const std::function<bool(size_t, IsolatedResult)>& done) {
  const size_t width = static_cast<size_t>(std::max(1, jobs));
  std::vector<Child> running;
  size_t next = 0;
  bool launching = true;
  char buf[65536];
  while (true) {
    while (launching && next < n && running.size() < width) {
      const size_t i = next++;
      Child c = start(i, [&task, i] { return task(i); }, wall_limit_s);
      if (c.pid < 0) {
        IsolatedResult r;
        r.error = c.data;
        launching = done(i, std::move(r));
        continue;
      }
      running.push_back(std::move(c));
    }
    if (running.empty()) return;
    std::vector<pollfd> fds;
    Clock::time_point soonest = running.front().deadline;
    for (const Child& c : running) {
      fds.push_back(pollfd{c.fd, POLLIN, 0});
      soonest = std::min(soonest, c.deadline);
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(soonest - Clock::now()).count();
    const int pr = poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(left, 0, 1000)));
    if (pr < 0 && errno != EINTR) {
      // Cannot wait on the pipes: stop every child rather than spin.
      for (Child& c : running) done(c.index, finish(c, true, wall_limit_s));
      return;
    }
    const Clock::time_point now = Clock::now();
    std::vector<Child> still;
    for (size_t k = 0; k < running.size(); ++k) {
      Child& c = running[k];
      bool ended = false, timed_out = false;
      if (pr > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        const ssize_t got = read(c.fd, buf, sizeof buf);
        if (got > 0)
          c.data.append(buf, static_cast<size_t>(got));
        else if (got == 0 || errno != EINTR)
          ended = true;
      }
      if (!ended && now >= c.deadline) ended = timed_out = true;
      if (!ended) {
        still.push_back(std::move(c));
        continue;
      }
      if (!done(c.index, finish(c, timed_out, wall_limit_s))) launching = false;
    }
    running = std::move(still);
  }
}

IsolatedResult run_isolated(const std::function<std::string()>& fn, double wall_limit_s) {
  IsolatedResult out;
  run_isolated_pool(
      1, 1, wall_limit_s, [&fn](size_t) { return fn(); },
      [&out](size_t, IsolatedResult r) {
        out = std::move(r);
        return true;
      });
  return out;
}

}  // namespace sk::sim
