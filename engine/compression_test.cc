#include "engine/compression.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

std::vector<std::byte> sample(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> v(n);
  // Half random, half repetitive: compressible but not trivially.
  for (size_t i = 0; i < n; ++i) {
    v[i] = (i / 64) % 2 ? static_cast<std::byte>(rng()) : static_cast<std::byte>('a' + i % 7);
  }
  return v;
}

class Codecs : public ::testing::TestWithParam<Compression> {};

TEST_P(Codecs, RoundTripsSmallAndLargeInputs) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}, size_t{1} << 20}) {
    auto in = sample(n, static_cast<unsigned>(n));
    auto packed = compress(GetParam(), in);
    ASSERT_TRUE(packed.ok()) << packed.error().to_string();
    auto out = decompress(GetParam(), *packed, 8 << 20);
    ASSERT_TRUE(out.ok()) << compression_name(GetParam()) << " " << n << ": "
                          << out.error().to_string();
    EXPECT_EQ(*out, in) << compression_name(GetParam()) << " " << n;
  }
}

TEST_P(Codecs, RefusesToExpandBeyondTheLimit) {
  std::vector<std::byte> zeros(1 << 20, std::byte{0});
  auto packed = compress(GetParam(), zeros).value();
  auto out = decompress(GetParam(), packed, 4096);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code(), Errc::kInvalidRecord);
  EXPECT_NE(out.error().message().find("beyond"), std::string::npos) << out.error().to_string();
}

class RealCodecs : public ::testing::TestWithParam<Compression> {};

TEST_P(RealCodecs, RejectTruncatedInput) {
  auto in = sample(5000, 3);
  auto packed = compress(GetParam(), in).value();
  // Cut the data in half: every codec must notice.
  std::vector<std::byte> cut(packed.begin(), packed.begin() + static_cast<long>(packed.size() / 2));
  auto out = decompress(GetParam(), cut, 1 << 20);
  EXPECT_FALSE(out.ok()) << compression_name(GetParam());
}

INSTANTIATE_TEST_SUITE_P(All, Codecs,
                         ::testing::Values(Compression::kNone, Compression::kGzip,
                                           Compression::kSnappy, Compression::kLz4,
                                           Compression::kZstd),
                         [](const auto& info) {
                           return std::string(compression_name(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(All, RealCodecs,
                         ::testing::Values(Compression::kGzip, Compression::kSnappy,
                                           Compression::kLz4, Compression::kZstd),
                         [](const auto& info) {
                           return std::string(compression_name(info.param));
                         });

TEST(Snappy, ReadsRawSnappyWithoutXerialFraming) {
  // librdkafka writes plain snappy; the Java client writes xerial frames.
  auto in = sample(3000, 9);
  auto framed = compress(Compression::kSnappy, in).value();
  // Strip the 16-byte xerial header and the 4-byte block length of the single block.
  std::vector<std::byte> raw(framed.begin() + 20, framed.end());
  auto out = decompress(Compression::kSnappy, raw, 1 << 20);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  EXPECT_EQ(*out, in);
}

}  // namespace
}  // namespace strata::engine
