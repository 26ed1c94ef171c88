// The log never judges data by a timestamp it did not derive: batches whose
// maxTimestamp field is -1, 0, in the future or inconsistent with their
// records are stored with the records' own maximum, retention keeps fresh
// data, records without timestamps are kept for retention.ms after their
// write, and segments written before the broker derived timestamps are
// repaired when the log opens.
#include <fstream>

#include "engine/batch_timestamps.h"
#include "engine/compression.h"
#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

using testing::LogFixture;

constexpr int64_t kDayMs = 86'400'000;

class LogTimestampsTest : public LogFixture, public ::testing::WithParamInterface<Compression> {
 protected:
  void SetUp() override {
    // Compressed batches of these records are a few dozen bytes.
    bool plain = GetParam() == Compression::kNone;
    config_.segment_bytes = plain ? 4 * 1024 : 512;
    config_.index_interval_bytes = plain ? 1024 : 128;
    config_.retention_ms = kDayMs;
  }

  // A batch of fresh records (stamped with the clock) whose maxTimestamp
  // field claims `claimed`.
  std::vector<std::byte> fresh_batch_claiming(TimestampMs claimed) {
    TimestampMs now = clock_.now_ms();
    auto bytes = make_batch(
        5, 200, [now](int r) { return now - 4 + r; }, GetParam());
    set_max_timestamp(bytes, claimed);
    return bytes;
  }

  // Every stored batch carries its records' largest timestamp.
  void expect_stored_max_is_derived() {
    for (const auto& [base, m] : model_) {
      TimestampMs expect = kNoRecordTimestamp;
      for (TimestampMs t : m.record_timestamps)
        expect = std::max(expect, t);
      EXPECT_EQ(m.header.max_timestamp, expect) << "batch at " << base;
    }
    // And so does what a read returns.
    for (const auto& batch : split(read(log_->log_start_offset(), 1 << 30).value())) {
      auto h = read_batch_header(batch.data());
      EXPECT_EQ(h.max_timestamp, model_.at(h.base_offset).header.max_timestamp);
    }
  }

  // Time lookups agree with a scan of the model's records at many targets.
  void expect_lookups_match_model() {
    std::vector<TimestampMs> targets = {0, kNoRecordTimestamp, INT64_MIN};
    for (const auto& [base, m] : model_) {
      for (TimestampMs t : m.record_timestamps) {
        targets.push_back(t);
        targets.push_back(t + 1);
      }
    }
    for (TimestampMs ts : targets)
      expect_lookup_matches_model(ts);
  }

  // The time index holds exactly the running maximum of derived timestamps.
  void expect_time_index_derived() {
    auto entries = index_->time_entries(uid_).value();
    ASSERT_FALSE(entries.empty());
    for (const auto& e : entries) {
      TimestampMs max_before = index::kNoTimestamp;
      for (const auto& [base, m] : model_) {
        if (base >= e.offset) break;
        max_before = std::max(max_before, m.header.max_timestamp);
      }
      EXPECT_EQ(e.max_timestamp_before, max_before) << "entry at " << e.offset;
    }
  }

  void reopen_cleanly() {
    close_cleanly();
    ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  }
};

TEST_P(LogTimestampsTest, ClaimedMaxTimestampsNeverExpireFreshData) {
  ASSERT_TRUE(open_log().ok());
  const TimestampMs now = clock_.now_ms();
  const std::vector<TimestampMs> claims = {-1, 0, now - 30 * kDayMs, now + 100 * 365 * kDayMs,
                                           now - 4};
  for (int i = 0; i < 40; ++i) {
    auto r = append(fresh_batch_claiming(claims[static_cast<size_t>(i) % claims.size()]));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
  }
  ASSERT_GT(log_->segments().size(), 4u);
  expect_stored_max_is_derived();

  clock_.advance_ms(10'000);
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  expect_reads_match_model(1 << 20);
  expect_lookups_match_model();
  expect_time_index_derived();

  // After a clean restart (no scan) and after a crash (a scan) the same.
  reopen_cleanly();
  EXPECT_FALSE(log_->recovery().scanned);
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  expect_lookups_match_model();
  crash(/*lose_index_memtable=*/false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  expect_reads_match_model(1 << 20);
  expect_lookups_match_model();

  // Once the records are older than retention.ms, the closed segments go.
  size_t segments = log_->segments().size();
  clock_.advance_ms(kDayMs);
  EXPECT_EQ(log_->enforce_retention().value(), segments - 1);
}

TEST_P(LogTimestampsTest, RecordsWithoutTimestampsAreKeptForRetentionAfterTheirWrite) {
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 30; ++i) {
    auto bytes = make_batch(
        5, 200, [](int) { return kNoRecordTimestamp; }, GetParam());
    ASSERT_TRUE(append(std::move(bytes)).ok());
  }
  ASSERT_GT(log_->segments().size(), 3u);
  expect_stored_max_is_derived();
  // No record has a timestamp: no lookup finds one.
  EXPECT_FALSE(lookup(0).value().has_value());

  clock_.advance_ms(kDayMs / 2);
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  reopen_cleanly();
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  crash(/*lose_index_memtable=*/true);
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  expect_reads_match_model(1 << 20);

  // A day after the last write the closed segments are due.
  size_t segments = log_->segments().size();
  clock_.advance_ms(kDayMs + 1);
  EXPECT_EQ(log_->enforce_retention().value(), segments - 1);
}

TEST_P(LogTimestampsTest, RecordTimestampsOutsideTheLimitsAreRefusedAndNothingIsWritten) {
  config_.message_timestamp_before_max_ms = 60'000;
  config_.message_timestamp_difference_max_ms = 3'600'000;  // stands in for "after"
  ASSERT_TRUE(open_log().ok());
  const TimestampMs now = clock_.now_ms();
  auto old = make_batch(
      3, 50, [now](int r) { return now - 120'000 + r; }, GetParam());
  auto st = append(std::move(old));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kInvalidTimestamp);
  auto future = make_batch(
      3, 50, [now](int r) { return now + 2 * 3'600'000 + r; }, GetParam());
  st = append(std::move(future));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kInvalidTimestamp);
  EXPECT_EQ(log_->log_end_offset(), Offset(0));
  EXPECT_EQ(log_->segments().size_bytes(), 0u);
  // Inside the window, and records without a timestamp, are taken.
  ASSERT_TRUE(append(make_batch(
                         3, 50, [now](int r) { return now - 50'000 + r; }, GetParam()))
                  .ok());
  ASSERT_TRUE(append(make_batch(
                         3, 50, [](int) { return kNoRecordTimestamp; }, GetParam()))
                  .ok());
  EXPECT_EQ(log_->log_end_offset(), Offset(6));
}

TEST_P(LogTimestampsTest, SegmentsWrittenBeforeTimestampsWereDerivedAreRepairedOnOpen) {
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 30; ++i) {
    TimestampMs now = clock_.now_ms();
    ASSERT_TRUE(append(make_batch(
                           4, 300, [now](int r) { return now + r; }, GetParam()))
                    .ok());
    clock_.advance_ms(1000);
  }
  ASSERT_GT(log_->segments().size(), 3u);
  auto applied = index_->applied(uid_).value().value();
  auto entries = index_->offset_entries(uid_).value();
  close_cleanly();

  // Make the directory look as the broker left it before the fix: every
  // batch's maxTimestamp as a client that sends -1 wrote it, the index built
  // from those fields, and no segment meta records.
  for (const auto& e : std::filesystem::directory_iterator(log_dir())) {
    if (!parse_segment_file_name(e.path().filename().string())) continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto* data = reinterpret_cast<std::byte*>(raw.data());
    for (size_t pos = 0; pos < raw.size();) {
      auto size = static_cast<size_t>(peek_batch_size(data + pos));
      set_max_timestamp(std::span(data + pos, size), -1);
      pos += size;
    }
    f.seekp(0);
    f.write(raw.data(), static_cast<std::streamsize>(raw.size()));
  }
  // Reads return the bytes as stored; the model's records are unchanged.
  for (auto& [base, m] : model_)
    set_max_timestamp(m.bytes, -1);
  open_index();
  ASSERT_TRUE(index_->drop_partition(uid_).ok());
  index::IndexStore::Update old(uid_);
  for (auto e : entries) {
    e.max_timestamp_before = e.offset == Offset(0) ? index::kNoTimestamp : -1;
    old.add(e);
  }
  applied.max_timestamp = -1;
  old.set_applied(applied);
  ASSERT_TRUE(index_->write(old).ok());
  ASSERT_TRUE(index_->set_recovery_point(uid_, applied).ok());

  // A day after the first write the old code would see every segment as
  // expired; the repaired log keeps all but what is a day old.
  clock_.advance_ms(10'000);
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_TRUE(log_->recovery().scanned);
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  expect_reads_match_model(1 << 20);
  expect_lookups_match_model();
  expect_time_index_derived();

  // The repair is done once: the next clean start trusts what it wrote.
  reopen_cleanly();
  EXPECT_FALSE(log_->recovery().scanned);
  expect_lookups_match_model();
}

INSTANTIATE_TEST_SUITE_P(Codecs, LogTimestampsTest,
                         ::testing::Values(Compression::kNone, Compression::kLz4,
                                           Compression::kZstd),
                         [](const auto& info) {
                           return std::string(compression_name(info.param));
                         });

}  // namespace
}  // namespace strata::engine
