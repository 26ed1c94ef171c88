#include "server/fetch_records.h"

#include <gtest/gtest.h>

#include "engine/batch_builder.h"
#include "engine/compression.h"
#include "engine/legacy_records.h"

namespace strata::server {
namespace {

using engine::Compression;

// `count` batches of `records` records each, with values of `value_bytes`,
// one after another in one buffer (as a read returns them), offsets from 0.
struct Read {
  std::vector<SharedBytes> slices;
  std::vector<size_t> sizes;  // of each batch
};

Read make_read(int count, int records, size_t value_bytes, Compression codec = Compression::kNone) {
  std::vector<std::byte> all;
  Read r;
  int64_t offset = 0;
  for (int b = 0; b < count; ++b) {
    engine::BatchBuilder builder({.compression = codec, .base_offset = Offset(offset)});
    for (int i = 0; i < records; ++i)
      builder.add({.key = "k", .value = std::string(value_bytes, 'v'), .timestamp = 100 + i});
    auto batch = builder.build().value();
    r.sizes.push_back(batch.size());
    all.insert(all.end(), batch.begin(), batch.end());
    offset += records;
  }
  r.slices.push_back(SharedBytes::adopt(std::move(all)));
  return r;
}

size_t sum(const std::vector<size_t>& v, size_t n) {
  size_t s = 0;
  for (size_t i = 0; i < n; ++i)
    s += v[i];
  return s;
}

TEST(FetchRecords, MagicFollowsTheFetchVersion) {
  EXPECT_EQ(fetch_magic(0), 0);
  EXPECT_EQ(fetch_magic(1), 0);
  EXPECT_EQ(fetch_magic(2), 1);
  EXPECT_EQ(fetch_magic(3), 1);
  EXPECT_EQ(fetch_magic(4), 2);
  EXPECT_EQ(fetch_magic(13), 2);
}

TEST(FetchRecords, TakesWholeBatchesWithinTheResponseBudget) {
  Read r = make_read(5, 3, 100);
  size_t three = sum(r.sizes, 3);
  FetchBudget budget{.left = three + 10};
  auto taken = take_records(r.slices, 1 << 20, engine::kMagicV2, Offset(0), budget);
  ASSERT_FALSE(taken.error);
  EXPECT_EQ(taken.bytes, three);
  EXPECT_EQ(taken.records.size(), three);
  EXPECT_EQ(budget.left, 10u);
  EXPECT_FALSE(budget.first_batch);
  // Served as stored: a slice of the read, not a copy.
  ASSERT_EQ(taken.records.slices.size(), 1u);
  EXPECT_EQ(taken.records.slices[0].data(), r.slices[0].data());

  // The next partition gets nothing once the budget cannot hold a batch.
  Read next = make_read(2, 3, 100);
  auto none = take_records(next.slices, 1 << 20, engine::kMagicV2, Offset(0), budget);
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_TRUE(none.records.slices.empty());
  EXPECT_EQ(budget.left, 10u);
}

TEST(FetchRecords, TheFirstBatchOfTheResponseGoesInWhateverItsSize) {
  Read r = make_read(3, 2, 5000);
  FetchBudget budget{.left = 100};
  auto taken = take_records(r.slices, 200, engine::kMagicV2, Offset(0), budget);
  EXPECT_EQ(taken.bytes, r.sizes[0]);
  EXPECT_EQ(budget.left, 0u);
  // Not for a later partition: that one waits for the next fetch.
  Read other = make_read(1, 2, 5000);
  auto later = take_records(other.slices, 1 << 20, engine::kMagicV2, Offset(0), budget);
  EXPECT_EQ(later.bytes, 0u);
}

TEST(FetchRecords, HonoursThePartitionLimitAfterTheFirstBatch) {
  Read r = make_read(6, 2, 100);
  FetchBudget budget{.left = 1 << 20};
  size_t limit = sum(r.sizes, 2) + r.sizes[2] / 2;
  auto taken = take_records(r.slices, limit, engine::kMagicV2, Offset(0), budget);
  EXPECT_EQ(taken.bytes, sum(r.sizes, 2));
}

TEST(FetchRecords, SlicesSpanningSeveralBatchesAreCutOnBatchBoundaries) {
  Read a = make_read(2, 1, 50);
  Read b = make_read(3, 1, 50);
  std::vector<SharedBytes> slices = {a.slices[0], b.slices[0]};
  FetchBudget budget{.left = sum(a.sizes, 2) + sum(b.sizes, 2)};
  auto taken = take_records(slices, 1 << 20, engine::kMagicV2, Offset(0), budget);
  ASSERT_EQ(taken.records.slices.size(), 2u);
  EXPECT_EQ(taken.records.slices[0].size(), sum(a.sizes, 2));
  EXPECT_EQ(taken.records.slices[1].size(), sum(b.sizes, 2));
}

std::vector<int64_t> legacy_offsets(const kafka::Records& records) {
  std::vector<int64_t> out;
  for (const auto& s : records.slices) {
    auto st = engine::for_each_legacy_record(s.span(), {}, [&](const engine::LegacyRecord& r) {
      out.push_back(r.offset.value());
      return true;
    });
    EXPECT_TRUE(st.ok()) << st.error().to_string();
  }
  return out;
}

TEST(FetchRecords, DownConvertsBatchByBatchFromTheFetchOffset) {
  for (int8_t magic : {engine::kMagicV0, engine::kMagicV1}) {
    for (auto codec : {Compression::kNone, Compression::kGzip}) {
      SCOPED_TRACE(std::to_string(magic) + " " + std::string(engine::compression_name(codec)));
      Read r = make_read(4, 3, 20, codec);
      FetchBudget budget{.left = 1 << 20};
      auto taken = take_records(r.slices, 1 << 20, magic, Offset(4), budget);
      ASSERT_FALSE(taken.error);
      EXPECT_EQ(legacy_offsets(taken.records), (std::vector<int64_t>{4, 5, 6, 7, 8, 9, 10, 11}));
      EXPECT_EQ(taken.bytes, taken.records.size());
      EXPECT_EQ(budget.left, static_cast<size_t>(1 << 20) - taken.bytes);
    }
  }
}

TEST(FetchRecords, DownConvertedBytesCountAgainstTheLimits) {
  // Uncompressed magic 0 messages are larger than their v2 records, so a
  // budget of exactly the stored size holds fewer converted batches.
  Read r = make_read(4, 10, 10);
  FetchBudget budget{.left = sum(r.sizes, 4)};
  auto taken = take_records(r.slices, 1 << 20, engine::kMagicV0, Offset(0), budget);
  ASSERT_FALSE(taken.error);
  EXPECT_LE(taken.bytes, sum(r.sizes, 4));
  auto offsets = legacy_offsets(taken.records);
  ASSERT_FALSE(offsets.empty());
  EXPECT_LT(offsets.size(), 40u);
  EXPECT_EQ(offsets.size() % 10, 0u);  // whole batches only
}

TEST(FetchRecords, ZstdCannotBeDownConverted) {
  Read zstd = make_read(2, 2, 10, Compression::kZstd);
  FetchBudget budget{.left = 1 << 20};
  auto taken = take_records(zstd.slices, 1 << 20, engine::kMagicV1, Offset(0), budget);
  ASSERT_TRUE(taken.error);
  EXPECT_EQ(taken.error->code(), Errc::kUnsupportedCompression);
  EXPECT_TRUE(budget.first_batch);

  // After a convertible batch the zstd one just ends what is taken.
  Read plain = make_read(1, 2, 10);
  std::vector<SharedBytes> mixed = {plain.slices[0], zstd.slices[0]};
  taken = take_records(mixed, 1 << 20, engine::kMagicV1, Offset(0), budget);
  EXPECT_FALSE(taken.error);
  EXPECT_EQ(legacy_offsets(taken.records), (std::vector<int64_t>{0, 1}));
  // Fetch v4+ serves zstd batches as stored.
  FetchBudget v2_budget{.left = 1 << 20};
  EXPECT_FALSE(take_records(zstd.slices, 1 << 20, engine::kMagicV2, Offset(0), v2_budget).error);
}

}  // namespace
}  // namespace strata::server
