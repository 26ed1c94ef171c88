#include "engine/record_batch.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "base/varint.h"
#include "engine/batch_builder.h"

namespace strata::engine {
namespace {

std::vector<std::byte> make_batch(int records, Compression codec = Compression::kNone,
                                  size_t value_size = 10) {
  BatchBuilder b({.compression = codec});
  for (int i = 0; i < records; ++i) {
    b.add({.key = "key-" + std::to_string(i),
           .value = std::string(value_size, static_cast<char>('a' + i % 26)),
           .timestamp = 1000 + i,
           .headers = {{"h", "v" + std::to_string(i)}, {"null", std::nullopt}}});
  }
  return b.build().value();
}

void restamp_crc(std::vector<std::byte>& batch) {
  be::store<uint32_t>(batch.data() + batch_field::kCrc, compute_batch_crc(batch));
}

BatchLimits client_limits() {
  return BatchLimits{.require_zero_base_offset = true};
}

TEST(RecordBatch, BuiltBatchValidatesAndReadsBack) {
  auto batch = make_batch(5);
  auto h = validate_batch(batch, client_limits());
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->records_count, 5);
  EXPECT_EQ(h->last_offset_delta, 4);
  EXPECT_EQ(h->base_timestamp, 1000);
  EXPECT_EQ(h->max_timestamp, 1004);
  EXPECT_EQ(h->total_size(), batch.size());
  EXPECT_EQ(h->compression(), Compression::kNone);

  int seen = 0;
  auto st =
      for_each_record(std::span(batch).subspan(kBatchHeaderSize), 5, [&](const RecordView& r) {
        EXPECT_EQ(r.offset_delta, seen);
        EXPECT_EQ(r.timestamp_delta, seen);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(r.key->data()), r.key->size()),
                  "key-" + std::to_string(seen));
        std::vector<std::pair<std::string, std::optional<std::string>>> headers;
        EXPECT_TRUE(for_each_header(r, [&](auto k, auto v) {
                      headers.emplace_back(
                          std::string(reinterpret_cast<const char*>(k.data()), k.size()),
                          v ? std::optional<std::string>(
                                  std::string(reinterpret_cast<const char*>(v->data()), v->size()))
                            : std::nullopt);
                    }).ok());
        EXPECT_EQ(headers.size(), 2u);
        EXPECT_EQ(headers[0].second, "v" + std::to_string(seen));
        EXPECT_FALSE(headers[1].second.has_value());
        ++seen;
        return true;
      });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(seen, 5);
}

TEST(RecordBatch, NullKeyAndValueRoundTrip) {
  BatchBuilder b;
  b.add({.key = std::nullopt, .value = std::nullopt, .timestamp = 5});
  auto batch = b.build().value();
  ASSERT_TRUE(validate_batch(batch, client_limits()).ok());
  auto st = for_each_record(std::span(batch).subspan(kBatchHeaderSize), 1, [](const RecordView& r) {
    EXPECT_FALSE(r.key.has_value());
    EXPECT_FALSE(r.value.has_value());
    return true;
  });
  EXPECT_TRUE(st.ok());
}

TEST(RecordBatch, StampingOffsetAndEpochKeepsTheCrcValid) {
  auto batch = make_batch(3);
  set_base_offset(batch.data(), Offset(123456));
  set_leader_epoch(batch.data(), LeaderEpoch(7));
  auto h = check_batch_integrity(batch);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->base_offset, Offset(123456));
  EXPECT_EQ(h->leader_epoch, LeaderEpoch(7));
  EXPECT_EQ(h->last_offset(), Offset(123458));
}

TEST(RecordBatch, LogAppendTimeRewritesMaxTimestampAndCrc) {
  auto batch = make_batch(3);
  uint32_t before = read_batch_header(batch.data()).crc;
  set_log_append_time(batch, 99999);
  auto h = check_batch_integrity(batch);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_TRUE(h->log_append_time());
  EXPECT_EQ(h->max_timestamp, 99999);
  EXPECT_NE(h->crc, before);
}

struct Malformed {
  const char* name;
  std::function<void(std::vector<std::byte>&)> mutate;
  Errc expected;
  const char* message_part;
};

class MalformedBatch : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedBatch, IsRejectedWithItsOwnError) {
  auto batch = make_batch(4);
  GetParam().mutate(batch);
  auto r =
      validate_batch(batch, BatchLimits{.max_batch_bytes = 4096, .require_zero_base_offset = true});
  ASSERT_FALSE(r.ok()) << GetParam().name;
  EXPECT_EQ(r.error().code(), GetParam().expected) << r.error().to_string();
  EXPECT_NE(r.error().message().find(GetParam().message_part), std::string::npos)
      << r.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedBatch,
    ::testing::Values(
        Malformed{"bad_crc", [](auto& b) { b.back() ^= std::byte{1}; }, Errc::kCorruptMessage,
                  "CRC"},
        Malformed{"wrong_magic", [](auto& b) { b[batch_field::kMagic] = std::byte{1}; },
                  Errc::kUnsupportedMagic, "magic 1"},
        Malformed{"count_mismatch",
                  [](auto& b) {
                    be::store<int32_t>(b.data() + batch_field::kRecordsCount, 5);
                    restamp_crc(b);
                  },
                  Errc::kInvalidRecord, "does not match record count"},
        Malformed{"fewer_records_than_counted",
                  [](auto& b) {
                    be::store<int32_t>(b.data() + batch_field::kRecordsCount, 5);
                    be::store<int32_t>(b.data() + batch_field::kLastOffsetDelta, 4);
                    restamp_crc(b);
                  },
                  Errc::kInvalidRecord, "fewer than its count"},
        Malformed{"zero_records",
                  [](auto& b) {
                    be::store<int32_t>(b.data() + batch_field::kRecordsCount, 0);
                    be::store<int32_t>(b.data() + batch_field::kLastOffsetDelta, -1);
                    restamp_crc(b);
                  },
                  Errc::kInvalidRecord, "not positive"},
        Malformed{"oversize",
                  [](auto& b) {
                    BatchBuilder big;
                    big.add({.value = std::string(5000, 'x')});
                    b = big.build().value();
                  },
                  Errc::kMessageTooLarge, "max.message.bytes"},
        Malformed{"truncated", [](auto& b) { b.resize(b.size() - 3); }, Errc::kTruncatedBatch,
                  "cut off"},
        Malformed{"truncated_header", [](auto& b) { b.resize(10); }, Errc::kTruncatedBatch,
                  "cannot hold"},
        Malformed{"negative_batch_length",
                  [](auto& b) { be::store<int32_t>(b.data() + batch_field::kLength, -20); },
                  Errc::kCorruptMessage, "negative batch length"},
        Malformed{"batch_length_below_header",
                  [](auto& b) { be::store<int32_t>(b.data() + batch_field::kLength, 30); },
                  Errc::kCorruptMessage, "below"},
        Malformed{"negative_record_length",
                  [](auto& b) {
                    std::byte* p = b.data() + kBatchHeaderSize;
                    // Record length varint -5 (zig-zag 9) in place of the first length.
                    varint::write_zigzag32(p, -5);
                    restamp_crc(b);
                  },
                  Errc::kInvalidRecord, "negative record length"},
        Malformed{"trailing_bytes", [](auto& b) { b.push_back(std::byte{0}); },
                  Errc::kInvalidRecord, "follow"},
        Malformed{"nonzero_base_offset", [](auto& b) { set_base_offset(b.data(), Offset(5)); },
                  Errc::kInvalidRecord, "base offset 5"},
        Malformed{"control_from_client",
                  [](auto& b) {
                    auto attrs = be::load<int16_t>(b.data() + batch_field::kAttributes);
                    be::store<int16_t>(b.data() + batch_field::kAttributes,
                                       static_cast<int16_t>(attrs | batch_attr::kControl |
                                                            batch_attr::kTransactional));
                    restamp_crc(b);
                  },
                  Errc::kControlBatchRejected, "control"},
        Malformed{"producer_without_sequence",
                  [](auto& b) {
                    be::store<int64_t>(b.data() + batch_field::kProducerId, 42);
                    restamp_crc(b);
                  },
                  Errc::kInvalidRecord, "negative base sequence"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RecordBatch, CompressedBatchesValidateOnHeaderAndCrc) {
  for (auto codec :
       {Compression::kGzip, Compression::kSnappy, Compression::kLz4, Compression::kZstd}) {
    auto batch = make_batch(20, codec, 200);
    auto h = validate_batch(batch, client_limits());
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->compression(), codec);
    EXPECT_LT(batch.size(), 20u * 200u);  // the repetitive values compress
  }
}

}  // namespace
}  // namespace strata::engine
