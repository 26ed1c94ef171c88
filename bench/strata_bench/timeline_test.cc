#include "bench/strata_bench/timeline.h"

#include <gtest/gtest.h>

namespace strata::bench {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(Timeline, LatenciesLandInTheSecondTheirMessageWasSentIn) {
  const int64_t start = 5 * kSecond;
  TimelineRecorder a(start, 3), b(0, 3);
  b.start_at(start);
  a.publish(start, 1'000'000);                // second 0
  a.publish(start + kSecond - 1, 2'000'000);  // still second 0
  a.publish(start + 2 * kSecond, 7'000'000);  // second 2
  b.publish(start + kSecond, 3'000'000);      // second 1
  b.e2e(start + 2 * kSecond + 5, 9'000'000);  // second 2
  // Outside the window: dropped.
  a.publish(start - 1, 1);
  a.publish(start + 3 * kSecond, 1);
  b.e2e(start + 10 * kSecond, 1);

  Timeline t(3);
  t.merge(a);
  t.merge(b);
  ASSERT_EQ(t.seconds().size(), 3u);
  EXPECT_EQ(t.seconds()[0].publish.count(), 2u);
  EXPECT_EQ(t.seconds()[0].publish.max(), 2'000'000);
  EXPECT_EQ(t.seconds()[1].publish.count(), 1u);
  EXPECT_EQ(t.seconds()[2].publish.count(), 1u);
  EXPECT_EQ(t.seconds()[2].publish.max(), 7'000'000);
  EXPECT_EQ(t.seconds()[0].e2e.count(), 0u);
  EXPECT_EQ(t.seconds()[2].e2e.count(), 1u);
  EXPECT_EQ(t.seconds()[2].e2e.max(), 9'000'000);
}

TEST(Timeline, PageCacheIsReadFromTheKernel) {
  auto s = sample_page_cache();
  // All three lines must be found; the cache holds at least this binary.
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_GT(s->cached_bytes, 0u);
}

}  // namespace
}  // namespace strata::bench
