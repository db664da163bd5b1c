// commands.cc: see commands.h.
#include "sim/slurm/commands.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sk::slurm {

CommandResult run_command(const std::vector<std::string>& argv) {
  CommandResult r;
  if (argv.empty()) {
    r.status = 127;
    r.err = "no command";
    return r;
  }
  int out[2], err[2];
  if (pipe(out) != 0) {
    r.status = 127;
    r.err = std::string("pipe failed: ") + std::strerror(errno);
    return r;
  }
  if (pipe(err) != 0) {
    r.status = 127;
    r.err = std::string("pipe failed: ") + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    execvp(args[0], args.data());
    const std::string msg = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    ssize_t ignored = write(2, msg.data(), msg.size());
    (void)ignored;
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    r.status = 127;
    r.err = std::string("fork failed: ") + std::strerror(errno);
    close(out[0]);
    close(err[0]);
    return r;
  }
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = read(fds[k].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[k]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  const std::string p = path;
  size_t start = 0;
  for (;;) {
    const size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? colon : colon - start);
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + name;
    struct stat st {};
    if (stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(cand.c_str(), X_OK) == 0)
      return cand;
    if (colon == std::string::npos) return "";
    start = colon + 1;
  }
}

Tools find_tools() {
  return Tools{find_on_path("sbatch"), find_on_path("squeue"), find_on_path("scancel"),
               find_on_path("sacct")};
}

std::vector<std::string> missing_tools(const Tools& t, std::initializer_list<const char*> needed) {
  std::vector<std::string> out;
  for (const char* n : needed) {
    const std::string name = n;
    const std::string& path = name == "sbatch"    ? t.sbatch
                              : name == "squeue"  ? t.squeue
                              : name == "scancel" ? t.scancel
                                                  : t.sacct;
    if (path.empty()) out.push_back(name);
  }
  return out;
}

std::string first_line(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t a = line.find_first_not_of(" \t\r");
    if (a != std::string::npos) {
      const size_t b = line.find_last_not_of(" \t\r");
      return line.substr(a, b - a + 1);
    }
    start = end + 1;
  }
  return "";
}

}  // namespace sk::slurm
