#include "tools/murmur2.h"

#include <string>

#include <gtest/gtest.h>

namespace strata::tools {
namespace {

int32_t hash(const std::string& s) {
  return murmur2(std::as_bytes(std::span(s.data(), s.size())));
}

TEST(Murmur2, MatchesTheJavaClient) {
  // Values of org.apache.kafka.common.utils.Utils.murmur2.
  EXPECT_EQ(hash("21"), -973932308);
  EXPECT_EQ(hash("foobar"), -790332482);
  EXPECT_EQ(hash("a-little-bit-long-string"), -985981536);
  EXPECT_EQ(hash("a-little-bit-longer-string"), -1486304829);
  EXPECT_EQ(hash("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
  EXPECT_EQ(hash("abc"), 479470107);
}

TEST(Murmur2, PartitionIsThePositiveHashModuloTheCount) {
  std::string key = "foobar";
  auto b = std::as_bytes(std::span(key.data(), key.size()));
  EXPECT_EQ(java_partition(b, 10), (-790332482 & 0x7fffffff) % 10);
  for (int n = 1; n < 50; ++n) {
    int32_t p = java_partition(b, n);
    EXPECT_GE(p, 0);
    EXPECT_LT(p, n);
  }
}

}  // namespace
}  // namespace strata::tools
