#include "base/malloc_tuning.h"

#include <memory>

#include <gtest/gtest.h>
#include <malloc.h>
#include <stdlib.h>

namespace strata {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcMalloc = false;  // the sanitizer's allocator answers
#else
constexpr bool kGlibcMalloc = true;
#endif

// Each ctest case runs in its own process, so the thresholds set here do not
// leak into another case.
TEST(MallocTuningTest, AMegabyteBufferComesFromTheHeapOnceTuned) {
  if (!kGlibcMalloc) GTEST_SKIP() << "not glibc's malloc";
  ASSERT_EQ(unsetenv("GLIBC_TUNABLES"), 0);
  EXPECT_NE(tune_malloc_for_large_buffers().find("reuse heap memory"), std::string::npos);
  size_t mapped_before = mallinfo2().hblks;
  auto buffer = std::make_unique<char[]>(1 << 20);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "a 1 MiB buffer got its own mapping";
}

TEST(MallocTuningTest, TheOperatorsMallocTunablesWin) {
  ASSERT_EQ(setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=7", 1), 0);
  EXPECT_EQ(tune_malloc_for_large_buffers(), "malloc: left as GLIBC_TUNABLES sets it");
  if (kGlibcMalloc) {
    size_t mapped_before = mallinfo2().hblks;
    auto buffer = std::make_unique<char[]>(1 << 20);
    EXPECT_EQ(mallinfo2().hblks, mapped_before + 1) << "glibc's default maps 1 MiB on its own";
  }
  // Other tunables do not count as tuning malloc.
  ASSERT_EQ(setenv("GLIBC_TUNABLES", "glibc.rtld.optional_static_tls=512", 1), 0);
  EXPECT_NE(tune_malloc_for_large_buffers(), "malloc: left as GLIBC_TUNABLES sets it");
  unsetenv("GLIBC_TUNABLES");
}

}  // namespace
}  // namespace strata
