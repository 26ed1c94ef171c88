#include "engine/batch_timestamps.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"

namespace strata::engine {
namespace {

std::vector<std::byte> make_batch(const std::vector<TimestampMs>& timestamps,
                                  Compression codec = Compression::kNone) {
  BatchBuilder b({.compression = codec});
  for (size_t i = 0; i < timestamps.size(); ++i) {
    b.add({.key = "k" + std::to_string(i),
           .value = std::string(40, 'v'),
           .timestamp = timestamps[i]});
  }
  return b.build().value();
}

// The same records compressed with `codec`, header fields copied, CRC fixed.
std::vector<std::byte> compress_batch(const std::vector<std::byte>& plain, Compression codec) {
  auto payload = compress(codec, std::span(plain).subspan(kBatchHeaderSize)).value();
  std::vector<std::byte> out(kBatchHeaderSize + payload.size());
  std::copy_n(plain.begin(), kBatchHeaderSize, out.begin());
  std::copy(payload.begin(), payload.end(), out.begin() + kBatchHeaderSize);
  be::store<int32_t>(out.data() + batch_field::kLength,
                     static_cast<int32_t>(out.size() - kBatchLogOverhead));
  auto attrs = be::load<int16_t>(out.data() + batch_field::kAttributes);
  be::store<int16_t>(out.data() + batch_field::kAttributes,
                     static_cast<int16_t>(attrs | static_cast<int16_t>(codec)));
  be::store<uint32_t>(out.data() + batch_field::kCrc, compute_batch_crc(out));
  return out;
}

Result<TimestampMs> derive(std::vector<std::byte>& batch,
                           std::optional<TimestampLimits> limits = std::nullopt) {
  auto h = validate_batch(batch, BatchLimits{});
  if (!h) return h.error();
  return derive_max_timestamp(batch, *h, limits);
}

class DeriveMaxTimestamp : public ::testing::TestWithParam<Compression> {};

TEST_P(DeriveMaxTimestamp, IgnoresTheProducersFieldWhateverItSays) {
  // Record timestamps out of order; the field claims -1, 0, the far future.
  for (TimestampMs claimed : {int64_t{-1}, int64_t{0}, int64_t{1} << 60, int64_t{5000}}) {
    auto batch = make_batch({5000, 9000, 7000, 8000}, GetParam());
    set_max_timestamp(batch, claimed);
    auto max = derive(batch);
    ASSERT_TRUE(max.ok()) << max.error().to_string();
    EXPECT_EQ(*max, 9000) << "claimed " << claimed;
  }
}

TEST_P(DeriveMaxTimestamp, RecordsWithoutTimestampsGiveNoTimestamp) {
  auto batch = make_batch({-1, -1, -1}, GetParam());
  auto max = derive(batch);
  ASSERT_TRUE(max.ok()) << max.error().to_string();
  EXPECT_EQ(*max, kNoRecordTimestamp);
  // And no limit refuses a record that carries no timestamp.
  auto limited =
      derive(batch, TimestampLimits{.now = 1'000'000, .before_max_ms = 10, .after_max_ms = 10});
  ASSERT_TRUE(limited.ok()) << limited.error().to_string();
}

TEST_P(DeriveMaxTimestamp, RefusesRecordsOutsideTheLimits) {
  const TimestampMs now = 1'000'000;
  auto past = make_batch({now - 50, now - 5000}, GetParam());
  auto r = derive(past, TimestampLimits{.now = now, .before_max_ms = 1000});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidTimestamp);
  EXPECT_NE(r.error().message().find("message.timestamp.before.max.ms=1000"), std::string::npos)
      << r.error().message();

  auto future = make_batch({now + 5000}, GetParam());
  r = derive(future, TimestampLimits{.now = now, .after_max_ms = 1000});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidTimestamp);
  EXPECT_NE(r.error().message().find("after"), std::string::npos);

  // At the edges the records pass.
  auto edges = make_batch({now - 1000, now + 1000}, GetParam());
  r = derive(edges, TimestampLimits{.now = now, .before_max_ms = 1000, .after_max_ms = 1000});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r, now + 1000);
}

TEST_P(DeriveMaxTimestamp, ExtremeTimestampsDoNotOverflowTheLimitCheck) {
  // now - ts does not fit in 64 bits either way: beyond every limit.
  auto ancient = make_batch({INT64_MIN + 1, INT64_MIN + 2}, GetParam());
  auto r = derive(
      ancient,
      TimestampLimits{.now = INT64_MAX, .before_max_ms = INT64_MAX - 1, .after_max_ms = INT64_MAX});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidTimestamp);
  EXPECT_NE(r.error().message().find("before"), std::string::npos);
  auto far = make_batch({INT64_MAX - 1}, GetParam());
  r = derive(far,
             TimestampLimits{
                 .now = INT64_MIN + 1, .before_max_ms = INT64_MAX, .after_max_ms = INT64_MAX - 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidTimestamp);
  EXPECT_NE(r.error().message().find("after"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Codecs, DeriveMaxTimestamp,
                         ::testing::Values(Compression::kNone, Compression::kGzip,
                                           Compression::kSnappy, Compression::kLz4,
                                           Compression::kZstd),
                         [](const auto& info) {
                           return std::string(compression_name(info.param));
                         });

TEST(DeriveMaxTimestamp, ChecksTheRecordsOfCompressedBatches) {
  // Two records whose second claims offset delta 5: validate_batch cannot
  // see it inside the compressed payload; the walk does.
  auto plain = make_batch({1, 2});
  size_t second = kBatchHeaderSize + 1 +
                  static_cast<size_t>(be::load<uint8_t>(plain.data() + kBatchHeaderSize)) / 2;
  // Record layout: length varint, attributes, timestamp delta, offset delta.
  ASSERT_EQ(plain[second + 3], std::byte{2});  // zig-zag of offset delta 1
  plain[second + 3] = std::byte{10};           // zig-zag of 5
  auto lz4 = compress_batch(plain, Compression::kLz4);
  auto r = derive(lz4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidRecord);

  auto short_count = compress_batch(make_batch({1, 2, 3}), Compression::kZstd);
  be::store<int32_t>(short_count.data() + batch_field::kRecordsCount, 4);
  be::store<int32_t>(short_count.data() + batch_field::kLastOffsetDelta, 3);
  be::store<uint32_t>(short_count.data() + batch_field::kCrc, compute_batch_crc(short_count));
  r = derive(short_count);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidRecord);
}

}  // namespace
}  // namespace strata::engine
