// active_log.h: the log a kernel's probe writes to while a Scope has
// installed it (the runner's stamp logs, attention_stamps.h and
// matmul_stamps.h): a probe is a static function the kernel calls, so the log
// it writes to is found through a static pointer of the log's type.
//
// Invariants: get() is null unless a Scope of that Log type is alive; scopes
// nest, and each restores the log it found when it ends.
#pragma once

namespace sk::sim {

template <class Log>
class ActiveLog {
 public:
  static Log* get() { return active_; }

  // Installs `log` for the lifetime of the scope (null: none).
  class Scope {
   public:
    explicit Scope(Log* log) : prev_(active_) { active_ = log; }
    ~Scope() { active_ = prev_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Log* prev_;
  };

 private:
  static inline Log* active_ = nullptr;
};

}  // namespace sk::sim
