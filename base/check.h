// Invariant checks in two tiers.
//
// STRATA_CHECK(cond, fmt, args...) is always on: it guards invariants whose
// violation means a bug (never bad user input) and aborts with the message,
// file and line. STRATA_DCHECK is the same in debug builds and compiles to
// nothing under NDEBUG, for checks too expensive for the hot path.
#pragma once

#include <fmt/format.h>

namespace strata::internal {
[[noreturn]] void check_failed(const char* file, int line, const char* cond,
                               const std::string& msg);
}  // namespace strata::internal

#define STRATA_CHECK(cond, ...)                                                              \
  do {                                                                                       \
    if (__builtin_expect(!(cond), 0)) {                                                      \
      ::strata::internal::check_failed(__FILE__, __LINE__, #cond, fmt::format(__VA_ARGS__)); \
    }                                                                                        \
  } while (false)

#ifdef NDEBUG
#define STRATA_DCHECK(cond, ...) \
  do {                           \
  } while (false)
#else
#define STRATA_DCHECK(cond, ...) STRATA_CHECK(cond, __VA_ARGS__)
#endif
