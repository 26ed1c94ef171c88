// Result<T>: a T or an Error, returned by every operation that can fail for a
// reason other than a bug. [[nodiscard]] so a failure cannot be ignored by
// accident.
//
//   Result<Offset> r = log.end_offset_for(...);
//   if (!r) return r.error();
//   use(*r);
#pragma once

#include <optional>
#include <utility>
#include <variant>

#include "base/check.h"
#include "base/error.h"

namespace strata {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    STRATA_CHECK(ok(), "value() of a failed Result: {}", std::get<1>(v_).to_string());
    return std::get<0>(v_);
  }
  const T& value() const& {
    STRATA_CHECK(ok(), "value() of a failed Result: {}", std::get<1>(v_).to_string());
    return std::get<0>(v_);
  }
  T&& value() && {
    STRATA_CHECK(ok(), "value() of a failed Result: {}", std::get<1>(v_).to_string());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    STRATA_CHECK(!ok(), "error() of a successful Result");
    return std::get<1>(v_);
  }
  Error&& error() && {
    STRATA_CHECK(!ok(), "error() of a successful Result");
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // kOk, or the error's code.
  Errc code() const { return error_ ? error_->code() : Errc::kOk; }
  const Error& error() const& {
    STRATA_CHECK(!ok(), "error() of a successful Result");
    return *error_;
  }
  Error&& error() && {
    STRATA_CHECK(!ok(), "error() of a successful Result");
    return std::move(*error_);
  }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

inline Status ok_status() {
  return Status();
}

}  // namespace strata

// Returns the error of a failed Result from the enclosing function.
#define STRATA_TRY(expr)                            \
  do {                                              \
    auto&& strata_try_result_ = (expr);             \
    if (!strata_try_result_.ok()) {                 \
      return std::move(strata_try_result_).error(); \
    }                                               \
  } while (false)

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)

// Declares `lhs` from the value of a Result, or returns its error.
#define STRATA_ASSIGN_OR_RETURN(lhs, expr) \
  STRATA_ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(strata_result_, __LINE__), lhs, expr)
#define STRATA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).error();      \
  lhs = std::move(tmp).value()
