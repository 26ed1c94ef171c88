#include "base/malloc_tuning.h"

#include <cstdlib>
#include <string_view>

#include <malloc.h>

namespace strata {
namespace {

// Buffers up to this size come from the heap, never from their own mapping.
constexpr int kMmapThresholdBytes = 32 << 20;
// Free memory at a heap's top is given back only beyond this much.
constexpr int kTrimThresholdBytes = 256 << 20;

}  // namespace

std::string tune_malloc_for_large_buffers() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr &&
      std::string_view(tunables).find("glibc.malloc.") != std::string_view::npos) {
    return "malloc: left as GLIBC_TUNABLES sets it";
  }
  if (mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) != 1 ||
      mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) != 1) {
    return "malloc: glibc refused the thresholds; left at its defaults";
  }
  return "malloc: buffers up to 32 MiB reuse heap memory (mmap threshold 32 MiB, trim threshold "
         "256 MiB)";
}

}  // namespace strata
