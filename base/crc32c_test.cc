#include "base/crc32c.h"

#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace strata {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

TEST(Crc32c, KnownVectors) {
  // Check values of the Castagnoli CRC (RFC 3720, appendix B.4).
  EXPECT_EQ(crc32c::value(bytes_of("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c::value(bytes_of("")), 0u);
  std::vector<std::byte> zeros(32, std::byte{0});
  EXPECT_EQ(crc32c::value(zeros), 0x8A9136AAu);
  std::vector<std::byte> ones(32, std::byte{0xFF});
  EXPECT_EQ(crc32c::value(ones), 0x62A8AB43u);
}

TEST(Crc32c, ImplementationsAgreeOnEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::vector<std::byte> buf(1100);
  for (auto& b : buf)
    b = static_cast<std::byte>(rng());
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; len + start <= buf.size(); len += 13) {
      std::span<const std::byte> s(buf.data() + start, len);
      ASSERT_EQ(crc32c::extend_portable(0, s), crc32c::extend_sse42(0, s))
          << "start " << start << " len " << len;
    }
  }
}

TEST(Crc32c, ImplementationsAgreeOnLongInputs) {
  // Long enough for the three-stream paths of the hardware version, with
  // lengths around their block boundaries.
  std::mt19937 rng(11);
  std::vector<std::byte> buf(200'016);
  for (auto& b : buf)
    b = static_cast<std::byte>(rng());
  for (size_t len : {size_t{767}, size_t{768}, size_t{769}, size_t{24575}, size_t{24576},
                     size_t{24577}, size_t{49152 + 768 + 13}, size_t{199'999}}) {
    for (size_t start : {size_t{0}, size_t{3}}) {
      std::span<const std::byte> s(buf.data() + start, len);
      ASSERT_EQ(crc32c::extend_portable(0x12345678, s), crc32c::extend_sse42(0x12345678, s))
          << "len " << len << " start " << start;
    }
  }
}

TEST(Crc32c, ExtendEqualsWholeValue) {
  std::string_view text = "the quick brown fox jumps over the lazy dog";
  auto whole = crc32c::value(bytes_of(text));
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    auto part = crc32c::value(bytes_of(text.substr(0, cut)));
    EXPECT_EQ(crc32c::extend(part, bytes_of(text.substr(cut))), whole) << cut;
  }
}

}  // namespace
}  // namespace strata
