#include "engine/legacy_lz4.h"

#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "engine/compression.h"

namespace strata::engine {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

std::vector<std::byte> lz4_frame(size_t n) {
  std::vector<std::byte> plain(n);
  for (size_t i = 0; i < n; ++i)
    plain[i] = static_cast<std::byte>(i * 7 % 13);
  return compress(Compression::kLz4, plain).value();
}

TEST(Xxh32, MatchesPublishedValues) {
  EXPECT_EQ(xxh32(bytes_of("")), 0x02CC5D05u);
  EXPECT_EQ(xxh32(bytes_of("abc")), 0x32D153FFu);
  // Longer than 16 bytes: the four-lane path.
  EXPECT_EQ(xxh32(bytes_of("Nobody inspects the spammish repetition")), 0xE2293B2Fu);
}

TEST(Lz4HeaderChecksum, StandardIsWhatLz4Writes) {
  auto frame = lz4_frame(1000);
  auto before = frame;
  ASSERT_TRUE(set_lz4_header_checksum(frame, Lz4HeaderChecksum::kStandard).ok());
  EXPECT_EQ(frame, before);
}

TEST(Lz4HeaderChecksum, KafkaLegacyCoversTheMagicAndIsRefusedByStandardDecoders) {
  auto frame = lz4_frame(1000);
  ASSERT_TRUE(set_lz4_header_checksum(frame, Lz4HeaderChecksum::kKafkaLegacy).ok());
  // magic(4) FLG BD HC: the old checksum hashes bytes 0..5.
  uint32_t h = xxh32(std::span<const std::byte>(frame).first(6));
  EXPECT_EQ(frame[6], static_cast<std::byte>((h >> 8) & 0xFF));
  uint32_t standard = xxh32(std::span<const std::byte>(frame).subspan(4, 2));
  ASSERT_NE(frame[6], static_cast<std::byte>((standard >> 8) & 0xFF));
  EXPECT_FALSE(decompress(Compression::kLz4, frame, 1 << 20).ok());

  ASSERT_TRUE(set_lz4_header_checksum(frame, Lz4HeaderChecksum::kStandard).ok());
  auto plain = decompress(Compression::kLz4, frame, 1 << 20);
  ASSERT_TRUE(plain.ok()) << plain.error().to_string();
  EXPECT_EQ(plain->size(), 1000u);
}

TEST(Lz4HeaderChecksum, RefusesWhatIsNotAFrame) {
  std::vector<std::byte> junk(16, std::byte{0x11});
  EXPECT_EQ(set_lz4_header_checksum(junk, Lz4HeaderChecksum::kStandard).error().code(),
            Errc::kInvalidRecord);
  auto frame = lz4_frame(10);
  std::vector<std::byte> cut(frame.begin(), frame.begin() + 6);  // HC missing
  EXPECT_EQ(set_lz4_header_checksum(cut, Lz4HeaderChecksum::kStandard).error().code(),
            Errc::kInvalidRecord);
}

}  // namespace
}  // namespace strata::engine
