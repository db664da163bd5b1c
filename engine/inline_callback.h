// inline_callback.h: a move-only void() callable stored inline, without heap
// allocation, for the engine's timed events (a TMA completion, a commit's
// arrive): millions of them per full-grid run, each one a closure over a few
// pointers and values.
//
// Invariants: the callable is constructed in the buffer and destroyed exactly
// once (by the destructor or a move, which transfers it); a closure larger
// than kBytes or more aligned than max_align_t is a compile-time error, not a
// silent heap fallback.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace sk::sim {

class InlineCallback {
 public:
  static constexpr size_t kBytes = 128;

  InlineCallback() = default;
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, InlineCallback>>>
  InlineCallback(F&& f) {  // NOLINT: implicit, like std::function
    static_assert(sizeof(D) <= kBytes, "closure too large for an engine event; capture less");
    static_assert(alignof(D) <= alignof(std::max_align_t), "closure over-aligned");
    ::new (static_cast<void*>(buf_)) D(std::forward<F>(f));
    ops_ = &kOps<D>;
  }
  InlineCallback(InlineCallback&& o) noexcept { take(o); }
  InlineCallback& operator=(InlineCallback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  InlineCallback(const InlineCallback&) = delete;
  InlineCallback& operator=(const InlineCallback&) = delete;
  ~InlineCallback() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->call(buf_); }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* dst, void* src);  // move-constructs at dst, destroys src
    void (*destroy)(void*);
  };
  template <class D>
  static constexpr Ops kOps = {
      [](void* p) { (*static_cast<D*>(p))(); },
      [](void* dst, void* src) {
        ::new (dst) D(std::move(*static_cast<D*>(src)));
        static_cast<D*>(src)->~D();
      },
      [](void* p) { static_cast<D*>(p)->~D(); }};

  void take(InlineCallback& o) {
    if (o.ops_ == nullptr) return;
    o.ops_->move(buf_, o.buf_);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }
  void reset() {
    if (ops_ != nullptr) ops_->destroy(buf_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char buf_[kBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace sk::sim
