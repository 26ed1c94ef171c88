#include "bench/strata_bench/histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace strata::bench {
namespace {

TEST(LatencyHistogramTest, BucketsTileTheRangeWithoutGapsOrOverlap) {
  for (size_t b = 0; b + 1 < 7000; ++b) {
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b)), b);
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_high(b)), b);
    ASSERT_EQ(LatencyHistogram::bucket_high(b) + 1, LatencyHistogram::bucket_low(b + 1));
  }
}

TEST(LatencyHistogramTest, BucketWidthIsWithinOnePartIn128) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = rng() >> (rng() % 64);
    size_t b = LatencyHistogram::bucket_of(v);
    uint64_t lo = LatencyHistogram::bucket_low(b), hi = LatencyHistogram::bucket_high(b);
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    ASSERT_LE(static_cast<double>(hi - lo), static_cast<double>(std::max<uint64_t>(lo, 1)) / 128);
  }
}

TEST(LatencyHistogramTest, QuantilesMatchASortedCopyWithinPrecision) {
  std::mt19937_64 rng(42);
  // Log-normal-ish latencies from microseconds to seconds.
  std::lognormal_distribution<double> dist(std::log(2e6), 1.5);
  LatencyHistogram h;
  std::vector<int64_t> values;
  for (int i = 0; i < 200000; ++i) {
    auto v = static_cast<int64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
  for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    size_t rank =
        std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(values.size()))));
    int64_t exact = values[rank - 1];
    int64_t got = h.quantile(q);
    EXPECT_GE(got, exact) << "q=" << q;
    EXPECT_LE(static_cast<double>(got - exact), static_cast<double>(exact) / 128 + 1) << "q=" << q;
  }
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (int64_t v = 0; v < 100000; v += 7) {
    ((v / 7) % 3 == 0 ? a : b).record(v * 1000);
    all.record(v * 1000);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double q : {0.1, 0.5, 0.99, 0.999})
    EXPECT_EQ(a.quantile(q), all.quantile(q));
}

TEST(LatencyHistogramTest, EmptyNegativeAndReset) {
  LatencyHistogram h;
  EXPECT_EQ(h.quantile(0.99), 0);
  EXPECT_EQ(h.mean(), 0);
  h.record(-5);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.max(), 0);
  h.record(1'000'000);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.quantile(1.0), 0);
}

}  // namespace
}  // namespace strata::bench
