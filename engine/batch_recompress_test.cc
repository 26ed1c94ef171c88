#include "engine/batch_recompress.h"

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"

namespace strata::engine {
namespace {

constexpr Compression kCodecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy,
                                   Compression::kLz4, Compression::kZstd};

std::vector<std::byte> make_batch(Compression codec) {
  BatchOptions o;
  o.compression = codec;
  o.producer_id = 4711;
  o.producer_epoch = 3;
  o.base_sequence = 17;
  o.transactional = true;
  BatchBuilder b(o);
  for (int i = 0; i < 50; ++i) {
    RecordSpec r;
    if (i % 7 != 0) r.key = "key-" + std::to_string(i % 5);
    if (i % 11 != 3) r.value = std::string(static_cast<size_t>(i * 13 % 200), 'a' + i % 26);
    r.timestamp = 1700000000000 + (i * 7919) % 5000;  // not monotonic
    if (i % 3 == 0) r.headers = {{"h", "v" + std::to_string(i)}, {"null", std::nullopt}};
    b.add(std::move(r));
  }
  return b.build().value();
}

// The uncompressed record bytes of a batch.
std::vector<std::byte> records_of(std::span<const std::byte> batch) {
  auto h = read_batch_header(batch.data());
  return decompress(h.compression(), batch.subspan(kBatchHeaderSize), 64 << 20).value();
}

class RecompressBetweenCodecs
    : public ::testing::TestWithParam<std::tuple<Compression, Compression>> {};

TEST_P(RecompressBetweenCodecs, KeepsEverythingButTheCodec) {
  auto [from, to] = GetParam();
  auto in = make_batch(from);
  auto r = recompress_batch(in, {.codec = to});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  if (from == to) {
    EXPECT_FALSE(r->has_value());
    return;
  }
  ASSERT_TRUE(r->has_value());
  const auto& out = **r;
  auto v = validate_batch(out, {.max_batch_bytes = 1 << 20});
  ASSERT_TRUE(v.ok()) << v.error().to_string();
  auto a = read_batch_header(in.data());
  auto b = *v;
  EXPECT_EQ(b.compression(), to);
  EXPECT_EQ(b.attributes & ~batch_attr::kCompressionMask,
            a.attributes & ~batch_attr::kCompressionMask);
  EXPECT_TRUE(b.transactional());
  EXPECT_EQ(b.base_offset, a.base_offset);
  EXPECT_EQ(b.leader_epoch, a.leader_epoch);
  EXPECT_EQ(b.last_offset_delta, a.last_offset_delta);
  EXPECT_EQ(b.base_timestamp, a.base_timestamp);
  EXPECT_EQ(b.max_timestamp, a.max_timestamp);
  EXPECT_EQ(b.producer_id, 4711);
  EXPECT_EQ(b.producer_epoch, 3);
  EXPECT_EQ(b.base_sequence, 17);
  EXPECT_EQ(b.records_count, 50);
  EXPECT_EQ(b.total_size(), out.size());
  EXPECT_EQ(b.crc, compute_batch_crc(out));
  // Byte for byte the same records.
  EXPECT_EQ(records_of(out), records_of(in));
}

INSTANTIATE_TEST_SUITE_P(AllPairs, RecompressBetweenCodecs,
                         ::testing::Combine(::testing::ValuesIn(kCodecs),
                                            ::testing::ValuesIn(kCodecs)),
                         [](const auto& info) {
                           return std::string(compression_name(std::get<0>(info.param))) + "_to_" +
                                  std::string(compression_name(std::get<1>(info.param)));
                         });

TEST(Recompress, LevelsAreApplied) {
  auto in = make_batch(Compression::kNone);
  for (int level : {1, 19, -5}) {
    auto r = recompress_batch(in, {.codec = Compression::kZstd, .level = level});
    ASSERT_TRUE(r.ok() && r->has_value()) << level;
    EXPECT_EQ(records_of(**r), records_of(in));
  }
  for (int level : {1, 9}) {
    auto r = recompress_batch(in, {.codec = Compression::kGzip, .level = level});
    ASSERT_TRUE(r.ok() && r->has_value()) << level;
    EXPECT_EQ(records_of(**r), records_of(in));
  }
  auto fast = recompress_batch(in, {.codec = Compression::kLz4, .level = 1}).value().value();
  auto high = recompress_batch(in, {.codec = Compression::kLz4, .level = 17}).value().value();
  EXPECT_EQ(records_of(high), records_of(in));
  EXPECT_LE(high.size(), fast.size());
}

TEST(Recompress, ACorruptBatchIsRefusedNotResealed) {
  auto in = make_batch(Compression::kGzip);
  in[in.size() - 3] ^= std::byte{0x40};
  auto r = recompress_batch(in, {.codec = Compression::kZstd});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kCorruptMessage);
}

TEST(Recompress, RecordsThatDoNotMatchTheCountAreRefused) {
  auto in = make_batch(Compression::kNone);
  // One record more than there are, with a CRC that matches the lie.
  be::store<int32_t>(in.data() + batch_field::kRecordsCount, 51);
  be::store<uint32_t>(in.data() + batch_field::kCrc, compute_batch_crc(in));
  auto r = recompress_batch(in, {.codec = Compression::kLz4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidRecord);
}

TEST(Recompress, ADecompressionBombIsRefused) {
  BatchBuilder b({.compression = Compression::kZstd});
  b.add({.value = std::string(1 << 20, 'x')});
  auto in = b.build().value();
  auto r = recompress_batch(in, {.codec = Compression::kGzip, .max_records_bytes = 4096});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidRecord);
}

TEST(Recompress, LegacyMagicIsLeftForOtherStages) {
  auto in = make_batch(Compression::kNone);
  in[batch_field::kMagic] = std::byte{1};
  auto r = recompress_batch(in, {.codec = Compression::kZstd});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

}  // namespace
}  // namespace strata::engine
