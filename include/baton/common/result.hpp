// baton::Result<T, E>: a minimal stand-in for std::expected (C++23), with the same member names
// (has_value, value, error, operator bool, operator->, operator*), so moving to std::expected is
// a one-line change once the toolchain is C++23.
//
// Failure guarantee used across baton: a function returning an error leaves its object
// unchanged unless its comment says otherwise.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace baton {

template <typename E>
struct Unexpected {
  E error;
};

template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

template <typename T, typename E>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  template <typename G>
  Result(Unexpected<G> u) : v_(std::in_place_index<1>, E(std::move(u.error))) {}  // NOLINT

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  const E& error() const& { return std::get<1>(v_); }
  E& error() & { return std::get<1>(v_); }

  // Constructs the value in place, replacing what was there: no temporary to move from (a hot
  // path's Result built from a local moved the value three times, issue 20).
  template <typename... A>
  T& emplace(A&&... args) {
    return v_.template emplace<0>(std::forward<A>(args)...);
  }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

 private:
  void check() const {
    // Accessing the value of an error result is a programming error, as with std::expected.
    if (!has_value()) std::abort();
  }
  std::variant<T, E> v_;
};

// Result<void, E>.
struct Ok {};

template <typename E>
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Ok) {}  // NOLINT
  template <typename G>
  Status(Unexpected<G> u) : error_(E(std::move(u.error))), failed_(true) {}  // NOLINT
  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return !failed_; }
  const E& error() const { return error_; }

 private:
  E error_{};
  bool failed_ = false;
};

// A cold-path error: a code plus a human-readable detail naming what was found vs expected.
template <typename Code>
struct Error {
  Code code{};
  std::string detail;
};

}  // namespace baton
