// progress.h: what sim prints on stderr while it works: the --progress and
// --no-progress options, the estimate line before a long run, and the
// done/total counter of sim sweep and sim verify.
//
// Invariants: nothing here writes to stdout, so the summaries and JSON are the
// same with progress on or off; on a terminal the counter rewrites one line
// and clears it at the end, in a log it prints whole lines at most every five
// seconds (and the last one).
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <cstddef>
#include <string>

namespace sk::cli {

namespace po = boost::program_options;

// --progress / --no-progress (default: on when stderr is a terminal).
void add_progress_options(po::options_description& o);
struct ProgressMode {
  bool on = false;
  bool terminal = false;  // stderr is a terminal
};
// Throws UsageError when both are given.
ProgressMode parse_progress(const po::variables_map& vm);

// "estimate: 12 configurations, about 40 min of wall time at --jobs 2 (each
// under --wall-limit 600 s)": the line before a long sweep or verify.
std::string batch_estimate_line(size_t n, const std::string& unit, double wall_s, int jobs,
                                double wall_limit_s);

// "sim sweep: 3/12 configurations done, 41 s, ETA 2 min" on stderr.
class DoneCounter {
 public:
  DoneCounter(std::string what, std::string unit, size_t total, ProgressMode mode);
  ~DoneCounter();
  DoneCounter(const DoneCounter&) = delete;
  DoneCounter& operator=(const DoneCounter&) = delete;
  // One more finished.
  void done();
  // The line for `done` of the total after `elapsed_s` seconds (for tests).
  std::string line(size_t done, double elapsed_s) const;

 private:
  std::string what_, unit_;
  size_t total_ = 0, done_ = 0;
  ProgressMode mode_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace sk::cli
