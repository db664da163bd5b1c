#include "sim/core/isolate.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <exception>

namespace sk::sim {

IsolatedResult run_isolated(const std::function<std::string()>& fn, double wall_limit_s) {
  IsolatedResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = std::string("pipe failed: ") + std::strerror(errno);
    return r;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork failed: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
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
      ssize_t n = write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    fflush(stdout);
    fflush(stderr);
    _exit(code);
  }
  close(fds[1]);
  std::string data;
  char buf[65536];
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(wall_limit_s * 1000));
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int pr = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    r.error = fmt::format("simulation exceeded the wall-clock limit of {:.0f} s and was stopped",
                          wall_limit_s);
  } else if (WIFSIGNALED(status)) {
    r.error = fmt::format("simulation process died with signal {} ({})", WTERMSIG(status),
                          strsignal(WTERMSIG(status)));
  } else if (!data.empty() && data[0] == 'E') {
    r.error = data.substr(1);
  } else if (data.empty() || data[0] != 'R') {
    r.error = fmt::format("simulation process exited with status {} and no result",
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    r.ok = true;
    r.payload = data.substr(1);
  }
  return r;
}

}  // namespace sk::sim
