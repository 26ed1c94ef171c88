#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace strata::internal {

void check_failed(const char* file, int line, const char* cond, const std::string& msg) {
  std::fprintf(stderr, "%s:%d: invariant violated: %s: %s\n", file, line, cond, msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace strata::internal
