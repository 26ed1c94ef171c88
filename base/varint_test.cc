#include "base/varint.h"

#include <array>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(Varint, ZigzagRoundTripsExtremes) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{63}, int64_t{-64}, int64_t{64},
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    std::array<std::byte, 10> buf{};
    size_t n = varint::write_zigzag64(buf.data(), v);
    EXPECT_EQ(n, varint::zigzag64_size(v));
    const std::byte* p = buf.data();
    auto got = varint::read_zigzag64(p, buf.data() + n);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, v);
    EXPECT_EQ(p, buf.data() + n);
  }
}

TEST(Varint, ZigzagEncodingMatchesProtobuf) {
  std::array<std::byte, 10> buf{};
  // -1 encodes as 1, 1 as 2, -2 as 3 (protobuf sint encoding).
  varint::write_zigzag32(buf.data(), -1);
  EXPECT_EQ(buf[0], std::byte{1});
  varint::write_zigzag32(buf.data(), 1);
  EXPECT_EQ(buf[0], std::byte{2});
  varint::write_zigzag32(buf.data(), -2);
  EXPECT_EQ(buf[0], std::byte{3});
}

TEST(Varint, RejectsTruncatedAndOverlongInput) {
  std::array<std::byte, 11> buf{};
  buf.fill(std::byte{0x80});
  const std::byte* p = buf.data();
  EXPECT_FALSE(varint::read_unsigned(p, buf.data() + 3, 10).has_value());
  p = buf.data();
  EXPECT_FALSE(varint::read_unsigned(p, buf.data() + buf.size(), 10).has_value());
  // A 32-bit varint may not carry more than 32 bits.
  std::array<std::byte, 5> big{std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF},
                               std::byte{0x1F}};
  p = big.data();
  EXPECT_FALSE(varint::read_u32(p, big.data() + big.size()).has_value());
}

}  // namespace
}  // namespace strata
