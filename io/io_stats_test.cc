#include "io/io_stats.h"

#include <gtest/gtest.h>

namespace strata::io {
namespace {

TEST(LatencySummary, QuantilesAnswerTheUpperBoundOfTheirPowerOfTwoBucket) {
  LatencySummary s;
  EXPECT_EQ(s.quantile_us(0.99), 0u);
  for (int i = 0; i < 98; ++i)
    s.record(100);  // bucket [64, 128)
  s.record(5000);   // [4096, 8192)
  s.record(70000);  // the max
  EXPECT_EQ(s.count(), 100u);
  EXPECT_EQ(s.max_us(), 70000u);
  EXPECT_EQ(s.quantile_us(0.5), 127u);
  EXPECT_EQ(s.quantile_us(0.98), 8191u);
  EXPECT_EQ(s.quantile_us(0.999), 70000u);  // never above the max
  s.record(0);
  EXPECT_EQ(s.quantile_us(0.0), 0u);
  s.reset();
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.max_us(), 0u);
}

TEST(IoStats, JsonNamesEveryOperation) {
  IoStats st;
  st.sync.record(3000);
  std::string j = st.to_json();
  EXPECT_EQ(j.find(R"("sync":{"n":1,"p50_us":2047,"p99_us":2047,"max_us":3000})"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find(R"("sync":{"n":1,"p50_us":3000,"p99_us":3000,"max_us":3000})"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find(R"("write":{"n":0)"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("loop_lag":)"), std::string::npos) << j;
}

}  // namespace
}  // namespace strata::io
