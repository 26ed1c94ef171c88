#include "engine/legacy_records.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"
#include "engine/legacy_lz4.h"

namespace strata::engine {
namespace {

using Bytes = std::vector<std::byte>;

Bytes bytes(std::string_view s) {
  auto p = reinterpret_cast<const std::byte*>(s.data());
  return Bytes(p, p + s.size());
}

std::optional<std::string> text(std::optional<std::span<const std::byte>> s) {
  if (!s) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(s->data()), s->size());
}

// Writes legacy entries the way the protocol documents them, independently
// of the code under test.
void put_entry(Bytes& out, int64_t offset, int8_t magic, int8_t attrs, int64_t ts,
               const std::optional<Bytes>& key, const std::optional<Bytes>& value) {
  Bytes msg;
  auto put = [&msg](auto v) {
    std::byte b[sizeof(v)];
    be::store(b, v);
    msg.insert(msg.end(), b, b + sizeof(v));
  };
  put(int8_t{magic});
  put(int8_t{attrs});
  if (magic == 1) put(int64_t{ts});
  for (const auto& f : {key, value}) {
    put(static_cast<int32_t>(f ? f->size() : -1));
    if (f) msg.insert(msg.end(), f->begin(), f->end());
  }
  uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(msg.data()), static_cast<uInt>(msg.size())));
  std::byte head[16];
  be::store<int64_t>(head, offset);
  be::store<int32_t>(head + 8, static_cast<int32_t>(msg.size() + 4));
  be::store<uint32_t>(head + 12, crc);
  out.insert(out.end(), head, head + 16);
  out.insert(out.end(), msg.begin(), msg.end());
}

struct Rec {
  int64_t offset;
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp;
  bool operator==(const Rec&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Rec& r) {
  return os << "{" << r.offset << " " << r.key.value_or("null") << " " << r.value.value_or("null")
            << " " << r.timestamp << "}";
}

Bytes plain_set(int8_t magic, const std::vector<Rec>& recs) {
  Bytes out;
  for (const auto& r : recs) {
    put_entry(out, r.offset, magic, 0, r.timestamp,
              r.key ? std::optional<Bytes>(bytes(*r.key)) : std::nullopt,
              r.value ? std::optional<Bytes>(bytes(*r.value)) : std::nullopt);
  }
  return out;
}

// A wrapper whose inner offsets are 0..n-1 (relative in magic 1) and whose
// own offset is `last_offset`.
Bytes wrapper(int8_t magic, Compression codec, int64_t last_offset, const std::vector<Rec>& recs,
              int8_t extra_attrs = 0, int64_t wrapper_ts = -1) {
  std::vector<Rec> numbered = recs;
  for (size_t i = 0; i < numbered.size(); ++i)
    numbered[i].offset = static_cast<int64_t>(i);
  Bytes inner = plain_set(magic, numbered);
  Bytes compressed = compress(codec, inner).value();
  if (codec == Compression::kLz4 && magic == 0) {
    EXPECT_TRUE(set_lz4_header_checksum(compressed, Lz4HeaderChecksum::kKafkaLegacy).ok());
  }
  Bytes out;
  put_entry(out, last_offset, magic, static_cast<int8_t>(static_cast<int>(codec) | extra_attrs),
            wrapper_ts, std::nullopt, compressed);
  return out;
}

std::vector<Rec> walk(const Bytes& set, Result<void>* status = nullptr) {
  std::vector<Rec> out;
  auto st = for_each_legacy_record(set, {}, [&](const LegacyRecord& r) {
    out.push_back(Rec{r.offset.value(), text(r.key), text(r.value), r.timestamp});
    return true;
  });
  if (status != nullptr) {
    *status = st;
  } else {
    EXPECT_TRUE(st.ok()) << st.error().to_string();
  }
  return out;
}

// The records of a v2 batch, offsets and timestamps absolute.
std::vector<Rec> batch_records(const Bytes& batch) {
  auto h = validate_batch(batch, {.max_batch_bytes = 64 << 20});
  EXPECT_TRUE(h.ok()) << h.error().to_string();
  if (!h) return {};
  auto payload = std::span<const std::byte>(batch).subspan(kBatchHeaderSize);
  Bytes plain = decompress(h->compression(), payload, 64 << 20).value();
  std::vector<Rec> out;
  auto st = for_each_record(plain, h->records_count, [&](const RecordView& r) {
    out.push_back(Rec{h->base_offset.value() + r.offset_delta, text(r.key), text(r.value),
                      h->base_timestamp + r.timestamp_delta});
    return true;
  });
  EXPECT_TRUE(st.ok());
  return out;
}

const std::vector<Rec> kRecords = {
    {0, "k0", "v0", 1000}, {1, std::nullopt, "v1", 1003},        {2, "k2", std::nullopt, 998},
    {3, "", "", 1001},     {4, "k4", std::string(300, 'x'), -1},
};

std::vector<Rec> without_timestamps(std::vector<Rec> recs) {
  for (auto& r : recs)
    r.timestamp = kNoRecordTimestamp;
  return recs;
}

std::vector<Rec> shifted(std::vector<Rec> recs, int64_t by) {
  for (auto& r : recs)
    r.offset += by;
  return recs;
}

TEST(LegacyRecords, DetectsLegacyByTheMagicByte) {
  EXPECT_TRUE(starts_legacy(plain_set(0, kRecords)));
  EXPECT_TRUE(starts_legacy(plain_set(1, kRecords)));
  BatchBuilder b;
  b.add({.value = "v"});
  EXPECT_FALSE(starts_legacy(b.build().value()));
  EXPECT_FALSE(starts_legacy(Bytes(16)));
}

TEST(LegacyRecords, WalksPlainMessagesOfBothMagics) {
  EXPECT_EQ(walk(plain_set(1, kRecords)), kRecords);
  // Magic 0 has no timestamp field at all.
  EXPECT_EQ(walk(plain_set(0, kRecords)), without_timestamps(kRecords));
}

TEST(LegacyRecords, ExpandsWrappersOfEveryCodecWithAbsoluteOffsets) {
  for (auto codec : {Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
    SCOPED_TRACE(std::string(compression_name(codec)));
    // Magic 1: relative inner offsets, the wrapper has the last one's.
    EXPECT_EQ(walk(wrapper(1, codec, 104, kRecords)), shifted(kRecords, 100));
    // Magic 0: inner offsets are taken as written; lz4 has the old checksum.
    EXPECT_EQ(walk(wrapper(0, codec, 4, kRecords)), without_timestamps(kRecords));
  }
}

TEST(LegacyRecords, LogAppendTimeWrappersGiveTheirTimestampToEveryRecord) {
  Bytes set = wrapper(1, Compression::kGzip, 4, kRecords, legacy_attr::kLogAppendTime, 5555);
  std::vector<Rec> want = kRecords;
  for (auto& r : want)
    r.timestamp = 5555;
  EXPECT_EQ(walk(set), want);
}

TEST(LegacyRecords, WalksMixedSetsInOrder) {
  Bytes set = plain_set(1, {kRecords[0]});
  Bytes w = wrapper(1, Compression::kSnappy, 3, {kRecords[1], kRecords[2], kRecords[3]});
  set.insert(set.end(), w.begin(), w.end());
  Bytes tail = plain_set(0, {kRecords[4]});
  set.insert(set.end(), tail.begin(), tail.end());
  std::vector<Rec> want = kRecords;
  want[4].timestamp = kNoRecordTimestamp;
  EXPECT_EQ(walk(set), want);
}

Errc walk_error(const Bytes& set, const LegacyLimits& limits = {}) {
  auto st = for_each_legacy_record(set, limits, [](const LegacyRecord&) { return true; });
  EXPECT_FALSE(st.ok());
  return st.ok() ? Errc::kOk : st.error().code();
}

TEST(LegacyRecords, RefusesMalformedSetsWithTheRightError) {
  Bytes good = plain_set(1, kRecords);
  {
    Bytes bad = good;
    bad[30] ^= std::byte{1};  // inside the first message: CRC mismatch
    EXPECT_EQ(walk_error(bad), Errc::kCorruptMessage);
  }
  EXPECT_EQ(walk_error(Bytes(good.begin(), good.end() - 3)), Errc::kCorruptMessage);  // cut off
  {
    Bytes bad = good;
    bad.push_back(std::byte{0});  // stray byte
    EXPECT_EQ(walk_error(bad), Errc::kCorruptMessage);
  }
  {
    Bytes bad = good;
    be::store<int32_t>(bad.data() + 8, 3);  // below any message's fixed fields
    EXPECT_EQ(walk_error(bad), Errc::kCorruptMessage);
  }
  {
    Bytes bad;
    put_entry(bad, 0, 2, 0, 0, std::nullopt, bytes("v"));  // magic 2 inside a legacy set
    EXPECT_EQ(walk_error(bad), Errc::kInvalidRecord);
  }
  {
    Bytes bad;
    put_entry(bad, 0, 1, 0, -5, std::nullopt, bytes("v"));
    EXPECT_EQ(walk_error(bad), Errc::kInvalidRecord);
  }
  {
    // A key length running past the message (CRC recomputed so only the
    // length is wrong).
    Bytes bad;
    put_entry(bad, 0, 0, 0, -1, bytes("key"), bytes("value"));
    be::store<int32_t>(bad.data() + 18, 100);
    uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bad.data() + 16),
                                               static_cast<uInt>(bad.size() - 16)));
    be::store<uint32_t>(bad.data() + 12, crc);
    EXPECT_EQ(walk_error(bad), Errc::kInvalidRecord);
  }
  {
    Bytes bad;
    put_entry(bad, 0, 1, 4, 0, std::nullopt, bytes("zstd?"));
    EXPECT_EQ(walk_error(bad), Errc::kUnsupportedCompression);
  }
  {
    Bytes bad;
    put_entry(bad, 0, 1, 1, 0, std::nullopt, bytes("not gzip"));
    EXPECT_EQ(walk_error(bad), Errc::kInvalidRecord);
  }
  {
    Bytes bad;
    put_entry(bad, 0, 1, 2, 0, std::nullopt, std::nullopt);  // wrapper without a value
    EXPECT_EQ(walk_error(bad), Errc::kInvalidRecord);
  }
  EXPECT_EQ(walk_error(Bytes{}), Errc::kInvalidRecord);
}

TEST(LegacyRecords, RefusesNestedWrappersAndMixedMagics) {
  Bytes inner = wrapper(1, Compression::kGzip, 0, {kRecords[0]});
  Bytes nested;
  put_entry(nested, 0, 1, 1, 0, std::nullopt, compress(Compression::kGzip, inner).value());
  EXPECT_EQ(walk_error(nested), Errc::kInvalidRecord);

  Bytes magic0_inside = plain_set(0, {kRecords[0]});
  Bytes mixed;
  put_entry(mixed, 0, 1, 1, 0, std::nullopt, compress(Compression::kGzip, magic0_inside).value());
  EXPECT_EQ(walk_error(mixed), Errc::kInvalidRecord);
}

TEST(LegacyRecords, BoundsWhatWrappersMayExpandTo) {
  std::vector<Rec> big(50, Rec{0, "k", std::string(10000, 'z'), 1});
  Bytes set = wrapper(1, Compression::kGzip, 49, big);
  ASSERT_LT(set.size(), 10000u);  // compresses well: a small bomb
  EXPECT_EQ(walk_error(set, {.max_expanded_bytes = 100000}), Errc::kInvalidRecord);
  // Two wrappers share one budget.
  Bytes half = wrapper(1, Compression::kGzip, 24, std::vector<Rec>(big.begin(), big.begin() + 25));
  Bytes two = half;
  two.insert(two.end(), half.begin(), half.end());
  auto st = for_each_legacy_record(half, {.max_expanded_bytes = 300000},
                                   [](const LegacyRecord&) { return true; });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(walk_error(two, {.max_expanded_bytes = 300000}), Errc::kInvalidRecord);
}

TEST(LegacyRecords, UpConvertsToOneValidV2Batch) {
  struct Case {
    std::string name;
    Bytes set;
    Compression codec;
    std::vector<Rec> want;
  };
  std::vector<Rec> numbered = kRecords;  // offsets 0..n-1 whatever the client wrote
  std::vector<Case> cases = {
      {"magic1 plain", plain_set(1, shifted(kRecords, 77)), Compression::kNone, numbered},
      {"magic0 plain", plain_set(0, kRecords), Compression::kNone, without_timestamps(numbered)},
      {"magic1 gzip", wrapper(1, Compression::kGzip, 9, kRecords), Compression::kGzip, numbered},
      {"magic0 lz4", wrapper(0, Compression::kLz4, 4, kRecords), Compression::kLz4,
       without_timestamps(numbered)},
      {"magic1 snappy", wrapper(1, Compression::kSnappy, 4, kRecords), Compression::kSnappy,
       numbered},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto batch = up_convert(c.set, {});
    ASSERT_TRUE(batch.ok()) << batch.error().to_string();
    BatchHeader h = read_batch_header(batch->data());
    EXPECT_EQ(h.base_offset, Offset(0));
    EXPECT_EQ(h.compression(), c.codec);
    EXPECT_EQ(h.records_count, static_cast<int32_t>(c.want.size()));
    EXPECT_EQ(h.producer_id, -1);
    EXPECT_EQ(batch_records(*batch), c.want);
  }
}

TEST(LegacyRecords, UpConvertedMagic0RecordsHaveNoTimestamp) {
  auto batch = up_convert(plain_set(0, kRecords), {}).value();
  BatchHeader h = read_batch_header(batch.data());
  EXPECT_EQ(h.base_timestamp, kNoRecordTimestamp);
  EXPECT_EQ(h.max_timestamp, kNoRecordTimestamp);
  EXPECT_FALSE(h.log_append_time());
}

TEST(LegacyRecords, UpConversionFailsAsTheWalkDoes) {
  Bytes bad = plain_set(1, kRecords);
  bad[36] ^= std::byte{4};  // a value byte of the first message
  EXPECT_EQ(up_convert(bad, {}).error().code(), Errc::kCorruptMessage);
  // A timestamp delta that does not fit an int64.
  Bytes far = plain_set(1, {{0, "a", "b", -1}, {1, "a", "b", INT64_MAX}});
  EXPECT_EQ(up_convert(far, {}).error().code(), Errc::kInvalidRecord);
}

Bytes v2_batch(Compression codec, int64_t base_offset, bool log_append_time = false) {
  BatchBuilder b({.compression = codec,
                  .base_offset = Offset(base_offset),
                  .log_append_time = log_append_time});
  for (const auto& r : kRecords) {
    b.add({.key = r.key,
           .value = r.value,
           .timestamp = r.timestamp,
           .headers = {{"dropped", "by down-conversion"}}});
  }
  return b.build().value();
}

TEST(LegacyRecords, DownConvertsEveryCodecToBothMagics) {
  for (auto codec :
       {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
    SCOPED_TRACE(std::string(compression_name(codec)));
    Bytes batch = v2_batch(codec, 500);
    for (int8_t magic : {kMagicV0, kMagicV1}) {
      SCOPED_TRACE(static_cast<int>(magic));
      auto set = down_convert(batch, magic, Offset(0), 1 << 20);
      ASSERT_TRUE(set.ok()) << set.error().to_string();
      auto want = shifted(kRecords, 500);
      if (magic == kMagicV0) want = without_timestamps(want);
      EXPECT_EQ(walk(*set), want);
      // An uncompressed batch gives one message per record; a compressed
      // one a single wrapper of its codec holding the last offset.
      size_t entries = 0;
      int8_t first_attrs = 0;
      int64_t first_offset = 0;
      for (size_t pos = 0; pos < set->size(); ++entries) {
        if (entries == 0) {
          first_offset = be::load<int64_t>(set->data() + pos);
          first_attrs = be::load<int8_t>(set->data() + pos + legacy_field::kAttributes);
        }
        EXPECT_EQ(be::load<int8_t>(set->data() + pos + legacy_field::kMagic), magic);
        pos += 12 + static_cast<size_t>(be::load<int32_t>(set->data() + pos + 8));
      }
      EXPECT_EQ(entries, codec == Compression::kNone ? kRecords.size() : 1u);
      EXPECT_EQ(first_attrs & legacy_attr::kCompressionMask, static_cast<int>(codec));
      EXPECT_EQ(first_offset, codec == Compression::kNone ? 500 : 504);
    }
  }
}

TEST(LegacyRecords, DownConvertedMagic0Lz4UsesKafkasOldFrameChecksum) {
  auto set = down_convert(v2_batch(Compression::kLz4, 0), kMagicV0, Offset(0), 1 << 20).value();
  // The wrapper's value starts after offset, size, crc, magic, attributes,
  // key length (null) and value length.
  size_t at = 12 + 4 + 1 + 1 + 4 + 4;
  std::span<const std::byte> frame(set.data() + at, set.size() - at);
  uint32_t legacy = xxh32(frame.first(6));
  EXPECT_EQ(frame[6], static_cast<std::byte>((legacy >> 8) & 0xFF));
  EXPECT_FALSE(decompress(Compression::kLz4, frame, 1 << 20).ok());
}

TEST(LegacyRecords, DownConversionKeepsOnlyRecordsFromTheFetchOffset) {
  for (auto codec : {Compression::kNone, Compression::kGzip}) {
    SCOPED_TRACE(std::string(compression_name(codec)));
    Bytes batch = v2_batch(codec, 10);
    auto set = down_convert(batch, kMagicV1, Offset(12), 1 << 20).value();
    auto all = shifted(kRecords, 10);
    EXPECT_EQ(walk(set), std::vector<Rec>(all.begin() + 2, all.end()));
    EXPECT_TRUE(down_convert(batch, kMagicV1, Offset(15), 1 << 20).value().empty());
  }
}

TEST(LegacyRecords, DownConversionOfLogAppendTimeBatches) {
  Bytes batch = v2_batch(Compression::kGzip, 0);
  set_log_append_time(batch, 777777);
  auto set = down_convert(batch, kMagicV1, Offset(0), 1 << 20).value();
  EXPECT_NE(be::load<int8_t>(set.data() + legacy_field::kAttributes) & legacy_attr::kLogAppendTime,
            0);
  std::vector<Rec> want = kRecords;
  for (auto& r : want)
    r.timestamp = 777777;
  EXPECT_EQ(walk(set), want);
  size_t flagged = 0;
  ASSERT_TRUE(for_each_legacy_record(set, {}, [&](const LegacyRecord& r) {
                flagged += r.log_append_time ? 1 : 0;
                return true;
              }).ok());
  EXPECT_EQ(flagged, kRecords.size());
}

TEST(LegacyRecords, DownConversionRefusesZstdAndSkipsControlBatches) {
  EXPECT_EQ(
      down_convert(v2_batch(Compression::kZstd, 0), kMagicV1, Offset(0), 1 << 20).error().code(),
      Errc::kUnsupportedCompression);
  BatchBuilder control({.transactional = true, .control = true});
  control.add({.key = std::string("\0\0\0\1", 4), .value = std::string(6, '\0')});
  EXPECT_TRUE(down_convert(control.build().value(), kMagicV0, Offset(0), 1 << 20).value().empty());
  Bytes batch = v2_batch(Compression::kNone, 0);
  EXPECT_EQ(down_convert(std::span<const std::byte>(batch).first(batch.size() - 1), kMagicV0,
                         Offset(0), 1 << 20)
                .error()
                .code(),
            Errc::kCorruptMessage);
  EXPECT_EQ(down_convert(v2_batch(Compression::kGzip, 0), kMagicV0, Offset(0), 100).error().code(),
            Errc::kInvalidRecord);
}

TEST(LegacyRecords, DownThenUpConversionKeepsKeysAndValues) {
  for (auto codec : {Compression::kNone, Compression::kSnappy, Compression::kLz4}) {
    for (int8_t magic : {kMagicV0, kMagicV1}) {
      SCOPED_TRACE(std::string(compression_name(codec)) + " magic " + std::to_string(magic));
      auto set = down_convert(v2_batch(codec, 40), magic, Offset(0), 1 << 20).value();
      auto batch = up_convert(set, {});
      ASSERT_TRUE(batch.ok()) << batch.error().to_string();
      EXPECT_EQ(read_batch_header(batch->data()).compression(), codec);
      EXPECT_EQ(batch_records(*batch), magic == kMagicV0 ? without_timestamps(kRecords) : kRecords);
    }
  }
}

}  // namespace
}  // namespace strata::engine
