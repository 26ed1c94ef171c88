// Log compaction in the engine: the key map, a cleaning's result, its swap,
// and recovery from a crash at every step of it.
#include <deque>

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "engine/batch_timestamps.h"
#include "engine/compression.h"
#include "engine/control_record.h"
#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

struct ReadRecord {
  Offset offset;
  std::optional<std::string> key;
  std::optional<std::string> value;
  bool operator==(const ReadRecord&) const = default;
};

class LogCompactionTest : public testing::LogFixture {
 protected:
  void SetUp() override {
    config_.cleanup_compact = true;
    config_.cleanup_delete = false;
    config_.segment_bytes = 600;  // a few batches per segment
    config_.delete_retention_ms = 0;
    ASSERT_TRUE(open_log().ok());
  }

  // One batch of (key, value) records; a null value is a tombstone.
  void produce(const std::vector<std::pair<std::string, std::optional<std::string>>>& records,
               Compression codec = Compression::kNone) {
    BatchBuilder b({.compression = codec});
    for (const auto& [k, v] : records)
      b.add({.key = k, .value = v, .timestamp = clock_.now_ms()});
    auto r = append(b.build().value());
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    Offset o = r->base_offset;
    for (const auto& [k, v] : records) {
      produced_.push_back(ReadRecord{o, k, v});
      o = o + 1;
    }
  }

  // Every record the log serves, read from the start the way a consumer
  // does: each read from the offset after the last batch it got.
  std::vector<ReadRecord> read_all(size_t max_bytes = 1 << 20) {
    std::vector<ReadRecord> out;
    Offset at = log_->log_start_offset();
    while (at < log_->log_end_offset()) {
      auto r = read(at, max_bytes);
      EXPECT_TRUE(r.ok()) << r.error().to_string();
      if (!r.ok()) break;
      auto batches = split(*r);
      EXPECT_FALSE(batches.empty()) << "a read at " << at << " below the end got nothing";
      if (batches.empty()) break;
      for (const auto& bytes : batches) {
        auto h = check_batch_integrity(bytes).value();
        EXPECT_GE(h.last_offset(), at);
        std::span<const std::byte> payload = std::span(bytes).subspan(kBatchHeaderSize);
        std::vector<std::byte> plain;
        if (h.compression() != Compression::kNone) {
          plain = decompress(h.compression(), payload, 1 << 24).value();
          payload = plain;
        }
        EXPECT_TRUE(for_each_record(payload, h.records_count, [&](const RecordView& rv) {
                      auto str = [](auto s) -> std::optional<std::string> {
                        if (!s) return std::nullopt;
                        return string_of(*s);
                      };
                      out.push_back(
                          ReadRecord{h.base_offset + rv.offset_delta, str(rv.key), str(rv.value)});
                      return true;
                    }).ok());
        at = h.next_offset();
      }
    }
    return out;
  }

  // Runs one cleaning to its end; returns whether it was installed.
  bool clean(bool force = true) {
    auto plan = log_->compaction().plan(log_->log_end_offset(), force);
    if (!plan) return false;
    auto result = clean_segments(*plan, fs_, *index_);
    auto installed = log_->compaction().finish(*plan, std::move(result));
    EXPECT_TRUE(installed.ok()) << installed.error().to_string();
    return installed.ok() && *installed;
  }

  // What a compacted log must show below `cleaned` (every offset below it
  // was cleaned with a key map that saw everything): each record is the one
  // produced at its offset; of each key only the latest record below the
  // end; tombstones gone there; everything at or above `cleaned` intact.
  void expect_compacted(const std::vector<ReadRecord>& got, Offset cleaned) {
    std::map<Offset, ReadRecord> produced;
    std::map<std::string, Offset> latest;
    for (const auto& r : produced_) {
      produced[r.offset] = r;
      latest[*r.key] = r.offset;
    }
    std::set<Offset> seen;
    for (const auto& r : got) {
      ASSERT_TRUE(produced.count(r.offset)) << "offset " << r.offset << " was never produced";
      EXPECT_EQ(r, produced[r.offset]) << "at offset " << r.offset;
      seen.insert(r.offset);
      if (r.offset < cleaned) {
        EXPECT_EQ(latest[*r.key], r.offset) << "superseded record at " << r.offset << " kept";
        EXPECT_TRUE(r.value.has_value()) << "tombstone at " << r.offset << " kept";
      }
    }
    for (const auto& [offset, r] : produced) {
      bool must_stay = offset >= cleaned || (latest[*r.key] == offset && r.value);
      if (must_stay) {
        EXPECT_TRUE(seen.count(offset))
            << "record at " << offset << " (key " << *r.key << ") is gone";
      }
    }
  }

  // Many keys rewritten, some deleted, over several segments and codecs.
  void produce_history(int batches) {
    for (int i = 0; i < batches; ++i) {
      std::vector<std::pair<std::string, std::optional<std::string>>> recs;
      for (int j = 0; j < 3; ++j) {
        int key = (i * 7 + j * 3) % 11;
        std::optional<std::string> value = "v" + std::to_string(i) + "." + std::to_string(j);
        if ((i + j) % 9 == 4) value.reset();
        recs.emplace_back("key" + std::to_string(key), value);
      }
      produce(recs, static_cast<Compression>(i % 5));
    }
  }

  std::vector<ReadRecord> produced_;
};

TEST_F(LogCompactionTest, ACleaningKeepsTheLatestRecordOfEachKeyAtItsOffset) {
  produce_history(40);
  ASSERT_TRUE(flush().ok());
  ASSERT_GT(log_->segments().size(), 4u);
  uint64_t before = log_->segments().size_bytes();
  auto plan = log_->compaction().plan(log_->log_end_offset());
  ASSERT_TRUE(plan.has_value());
  Offset cleaned = plan->end;
  plan->chunk_keys = 2;  // judged two keys at a time: chunks end inside batches' runs
  auto result = clean_segments(*plan, fs_, *index_);
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_LT(result->stats.records_kept, result->stats.records_read);
  ASSERT_TRUE(log_->compaction().finish(*plan, std::move(result)).value());
  EXPECT_LT(log_->segments().size_bytes(), before);
  EXPECT_EQ(log_->compaction().state().cleaned_through, cleaned);
  expect_compacted(read_all(), cleaned);

  // The same after a clean restart, and after a crash that scans it all.
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_FALSE(log_->recovery().scanned);
  expect_compacted(read_all(), cleaned);
  crash(false);
  std::filesystem::remove_all(index_dir());  // the index rebuilt from the logs
  ASSERT_TRUE(open_log().ok());
  EXPECT_FALSE(log_->recovery().defect.has_value()) << log_->recovery().defect->to_string();
  expect_compacted(read_all(), cleaned);
  // The rebuilt key map cleans as well as the first one did.
  produce_history(10);
  ASSERT_TRUE(flush().ok());
  auto again = log_->compaction().plan(log_->log_end_offset(), true);
  ASSERT_TRUE(again.has_value());
  cleaned = again->end;
  ASSERT_TRUE(log_->compaction().finish(*again, clean_segments(*again, fs_, *index_)).value());
  expect_compacted(read_all(), cleaned);
}

// The index's applied marker and recovery point are written without a WAL,
// so a crash can bring back ones older than a later cleaning's swap (which
// is synced): such a marker names a byte position in a file the cleaning
// rewrote. Found by the transactional compacted fault sweep (seeds 12006,
// 12008, 12013, 12023), where recovery took it for a batch boundary, read a
// length out of the middle of a batch and cut the log there.
TEST_F(LogCompactionTest, AMarkerOlderThanACleaningDoesNotCutTheLog) {
  close_cleanly();
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  produce({{"dup", "first"}});
  produce({{"u0", std::string(37, 'x')}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(index_->flush().ok());  // the markers now on disk point inside segment 0
  auto stale = index_->applied(uid_).value();
  ASSERT_TRUE(stale.has_value());
  ASSERT_EQ(stale->segment, Offset(0));
  ASSERT_GT(stale->position.value(), 0u);
  // Records of uneven sizes over several segments, then one superseding
  // the first record: the cleaning rewrites segment 0 without it, so the
  // old position falls inside a batch.
  for (int i = 1; i < 30; ++i)
    produce({{"u" + std::to_string(i), std::string(5 + (i * 13) % 41, 'y')}});
  produce({{"dup", "second"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  ASSERT_TRUE(flush().ok());
  auto before = read_all();
  Offset end = log_->log_end_offset();

  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_EQ(index_ == nullptr, true);
  open_index(/*flush_on_close=*/false);
  ASSERT_EQ(index_->applied(uid_).value(), stale);  // the old marker came back
  ASSERT_TRUE(open_log().ok());
  EXPECT_FALSE(log_->recovery().defect.has_value()) << log_->recovery().defect->to_string();
  EXPECT_EQ(log_->log_end_offset(), end);
  EXPECT_EQ(read_all(), before);
  expect_compacted(read_all(), log_->compaction().state().cleaned_through);
}

TEST_F(LogCompactionTest, AConsumerReadsAcrossEveryHoleToTheEnd) {
  // Each segment's records all superseded by the next segment's.
  for (int round = 0; round < 6; ++round) {
    produce({{"a", "a" + std::to_string(round)}, {"b", "b" + std::to_string(round)}});
    produce({{"c", "c" + std::to_string(round)}});
  }
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  // A read at every offset below the end gets the first batch at or after it.
  for (Offset o = log_->log_start_offset(); o < log_->log_end_offset(); o = o + 1) {
    auto r = read(o, 1 << 20);
    ASSERT_TRUE(r.ok());
    auto batches = split(*r);
    ASSERT_FALSE(batches.empty()) << "read at " << o;
    EXPECT_GE(read_batch_header(batches[0].data()).last_offset(), o);
  }
  expect_compacted(read_all(), log_->compaction().state().cleaned_through);
}

TEST_F(LogCompactionTest, ATombstoneStaysForDeleteRetentionAfterTheFirstCleaningThatSawIt) {
  config_.delete_retention_ms = 60'000;
  log_->set_config(config_);
  produce({{"k", "v1"}});
  produce({{"k", std::nullopt}});
  for (int i = 0; i < 8; ++i)
    produce({{"other" + std::to_string(i), "x"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  auto got = read_all();
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0], (ReadRecord{Offset(1), "k", std::nullopt})) << "the tombstone stays, v1 goes";
  clock_.advance_ms(60'000);
  for (int i = 0; i < 8; ++i)
    produce({{"more" + std::to_string(i), "y"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  got = read_all();
  EXPECT_TRUE(
      std::none_of(got.begin(), got.end(), [](const ReadRecord& r) { return r.key == "k"; }));
  // Its key-map entry went with it.
  EXPECT_FALSE(index_->key_entry(uid_, index::key_hash(bytes_of("k"))).value().has_value());
}

TEST_F(LogCompactionTest, OnlySegmentsOlderThanTheMinimumLagAndBelowTheStableOffsetAreCleaned) {
  config_.min_compaction_lag_ms = 10'000;
  log_->set_config(config_);
  for (int i = 0; i < 10; ++i)
    produce({{"k", "v" + std::to_string(i)}});
  ASSERT_TRUE(flush().ok());
  EXPECT_EQ(log_->compaction().cleanable(log_->log_end_offset()).end, log_->log_start_offset());
  EXPECT_FALSE(log_->compaction().plan(log_->log_end_offset(), true).has_value());
  clock_.advance_ms(10'000);
  // Below a stable offset of 3 only the segments that end by it.
  auto c = log_->compaction().cleanable(Offset(3));
  EXPECT_LE(c.end, Offset(3));
  auto all = log_->compaction().cleanable(log_->log_end_offset());
  EXPECT_GT(all.end, c.end);
  // Never the active segment.
  EXPECT_EQ(all.end, log_->segments().bases().back());
  EXPECT_DOUBLE_EQ(all.dirty_ratio(), 1.0);
  ASSERT_TRUE(clean(false));  // a ratio of 1 is over min.cleanable.dirty.ratio
  EXPECT_DOUBLE_EQ(log_->compaction().cleanable(log_->log_end_offset()).dirty_ratio(), 0.0);
  EXPECT_FALSE(log_->compaction().plan(log_->log_end_offset(), false).has_value());
}

TEST_F(LogCompactionTest, CompactAndDeleteAlsoDeletesByRetention) {
  config_.cleanup_delete = true;
  config_.retention_ms = 60'000;
  config_.segment_ms = 60'000;  // the first append after the clock moves rolls
  log_->set_config(config_);
  for (int i = 0; i < 10; ++i)
    produce({{"k" + std::to_string(i), "old"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  Offset end_before = log_->log_end_offset();
  clock_.advance_ms(120'000);
  for (int i = 0; i < 10; ++i)
    produce({{"k" + std::to_string(i), "new"}});
  ASSERT_TRUE(flush().ok());
  // The old segments expired: gone, cleaned or not; the active one stays.
  EXPECT_GT(log_->enforce_retention().value(), 0u);
  EXPECT_GE(log_->log_start_offset(), end_before);
  auto got = read_all();
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(
      std::all_of(got.begin(), got.end(), [](const ReadRecord& r) { return r.value == "new"; }));
}

TEST_F(LogCompactionTest, ALogDirtyPastMaxCompactionLagIsCleanedWhateverItsRatio) {
  config_.min_cleanable_dirty_ratio = 0.99;
  config_.max_compaction_lag_ms = 10'000;
  log_->set_config(config_);
  for (int i = 0; i < 20; ++i)
    produce({{"k" + std::to_string(i), "first"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  // A little more: dirty, far below the ratio.
  for (int i = 0; i < 10; ++i)
    produce({{"k" + std::to_string(i), "second"}});
  ASSERT_TRUE(flush().ok());
  auto c = log_->compaction().cleanable(log_->log_end_offset());
  ASSERT_GT(c.dirty_bytes, 0u);
  EXPECT_LT(c.dirty_ratio(), 0.99);
  EXPECT_FALSE(c.overdue);
  EXPECT_FALSE(log_->compaction().plan(log_->log_end_offset()).has_value());
  clock_.advance_ms(10'000);
  EXPECT_TRUE(log_->compaction().cleanable(log_->log_end_offset()).overdue);
  EXPECT_TRUE(clean(/*force=*/false));
}

TEST_F(LogCompactionTest, ARecordSupersededOnlyAboveTheStableOffsetStays) {
  produce({{"k", "old"}});
  for (int i = 0; i < 8; ++i)
    produce({{"x" + std::to_string(i), "x"}});
  produce({{"k", "new"}});
  ASSERT_TRUE(flush().ok());
  Offset newer = produced_.back().offset;
  // Stable below the newer record: the old one must stay.
  auto plan = log_->compaction().plan(newer, true);
  ASSERT_TRUE(plan.has_value());
  ASSERT_TRUE(log_->compaction().finish(*plan, clean_segments(*plan, fs_, *index_)).value());
  auto got = read_all();
  EXPECT_EQ(got.front(), (ReadRecord{Offset(0), "k", "old"}));
}

TEST_F(LogCompactionTest, ATruncationVoidsTheKeyMapEntriesItCut) {
  produce({{"k", "kept"}});
  for (int i = 0; i < 8; ++i)
    produce({{"x" + std::to_string(i), "x"}});
  produce({{"k", "cut"}});
  Offset cut = produced_.back().offset;
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(log_->truncate_to(cut).ok());
  produced_.pop_back();
  produce({{"y", "after the cut"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  // The map's entry for k named the cut record: k's first value stays.
  auto got = read_all();
  EXPECT_EQ(got.front(), (ReadRecord{Offset(0), "k", "kept"}));
}

// Keys whose hashes collide share one key-map entry, which holds the whole
// key of the latest record of either: a record of the other key is kept
// (never judged by the wrong key), the entry's own key is compacted as usual.
TEST_F(LogCompactionTest, KeysWhoseHashesCollideAreNeverCompactedByEachOther) {
  index::set_key_hash_for_testing([](std::span<const std::byte> key) -> uint64_t {
    auto k = string_of(key);
    return k == "apple" || k == "melon" ? 42 : std::hash<std::string>{}(k);
  });
  struct Restore {
    ~Restore() { index::set_key_hash_for_testing(nullptr); }
  } restore;
  produce({{"apple", "a1"}});
  produce({{"melon", "m1"}});
  produce({{"apple", "a2"}});
  produce({{"melon", "m2"}});  // the shared entry now names melon at this offset
  for (int i = 0; i < 8; ++i)
    produce({{"x" + std::to_string(i), "x"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  std::vector<ReadRecord> fruit;
  for (const auto& r : read_all()) {
    if (r.key == "apple" || r.key == "melon") fruit.push_back(r);
  }
  // apple's records are both kept (the entry is melon's); melon's first goes.
  EXPECT_EQ(fruit, (std::vector<ReadRecord>{{Offset(0), "apple", "a1"},
                                            {Offset(2), "apple", "a2"},
                                            {Offset(3), "melon", "m2"}}));
  // A later apple takes the entry: from then on melon's records are kept and
  // apple's earlier ones go.
  produce({{"apple", "a3"}});
  for (int i = 0; i < 8; ++i)
    produce({{"y" + std::to_string(i), "y"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  fruit.clear();
  for (const auto& r : read_all()) {
    if (r.key == "apple" || r.key == "melon") fruit.push_back(r);
  }
  EXPECT_EQ(fruit,
            (std::vector<ReadRecord>{{Offset(3), "melon", "m2"}, {Offset(12), "apple", "a3"}}));
}

TEST_F(LogCompactionTest, AbortedRecordsGoAndDoNotSupersedeCommittedOnes) {
  produce({{"k", "committed"}});
  // A transaction that writes k and aborts.
  BatchBuilder b(
      {.producer_id = 5, .producer_epoch = 0, .base_sequence = 0, .transactional = true});
  b.add({.key = "k", .value = "aborted", .timestamp = clock_.now_ms()});
  auto txn = append(b.build().value());
  ASSERT_TRUE(txn.ok()) << txn.error().to_string();
  TxnMarker abort{.producer_id = 5, .producer_epoch = 0, .coordinator_epoch = 0, .commit = false};
  auto marker = append(build_marker_batch(abort, clock_.now_ms()),
                       {.allow_control = true, .from_client = false});
  ASSERT_TRUE(marker.ok()) << marker.error().to_string();
  for (int i = 0; i < 8; ++i)
    produce({{"x" + std::to_string(i), "x"}});
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  auto got = read_all();
  EXPECT_EQ(got.front(), (ReadRecord{Offset(0), "k", "committed"}));
  EXPECT_TRUE(std::none_of(got.begin(), got.end(),
                           [](const ReadRecord& r) { return r.value == "aborted"; }));
}

// Transactions and their markers, for the tests of marker removal.
class LogCompactionMarkersTest : public LogCompactionTest {
 protected:
  // One transactional batch of producer `pid`: (key, value) records.
  void txn_write(int64_t pid, int32_t seq,
                 const std::vector<std::pair<std::string, std::string>>& records) {
    BatchBuilder b(
        {.producer_id = pid, .producer_epoch = 0, .base_sequence = seq, .transactional = true});
    for (const auto& [k, v] : records)
      b.add({.key = k, .value = v, .timestamp = clock_.now_ms()});
    auto r = append(b.build().value());
    ASSERT_TRUE(r.ok()) << r.error().to_string();
  }
  Offset end_txn(int64_t pid, bool commit) {
    TxnMarker m{.producer_id = pid, .producer_epoch = 0, .coordinator_epoch = 0, .commit = commit};
    auto r = append(build_marker_batch(m, clock_.now_ms()),
                    {.allow_control = true, .from_client = false});
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() ? r->base_offset : Offset(-1);
  }
  // The offsets of the control batches the log serves, read as a consumer does.
  std::vector<Offset> markers() {
    std::vector<Offset> out;
    Offset at = log_->log_start_offset();
    while (at < log_->log_end_offset()) {
      auto r = read(at, 1 << 20);
      if (!r.ok()) break;
      auto batches = split(*r);
      if (batches.empty()) break;
      for (const auto& bytes : batches) {
        auto h = check_batch_integrity(bytes).value();
        if (h.control()) {
          EXPECT_TRUE(read_marker(bytes).ok()) << "a malformed marker at " << h.base_offset;
          out.push_back(h.base_offset);
        }
        at = h.next_offset();
      }
    }
    return out;
  }
  // Closes the segments written so far behind unrelated records and cleans.
  void fill_and_clean() {
    for (int i = 0; i < 8; ++i)
      produce({{"filler" + std::to_string(fills_++), "x"}});
    ASSERT_TRUE(flush().ok());
    ASSERT_TRUE(clean());
  }
  int fills_ = 0;
};

TEST_F(LogCompactionMarkersTest, AnAbortMarkerGoesOneCleaningAfterItsDataWithItsAbortedEntry) {
  txn_write(7, 0, {{"a", "aborted-1"}, {"b", "aborted-2"}});
  Offset abort = end_txn(7, false);
  produce({{"a", "plain"}});
  ASSERT_EQ(log_->producers().aborted_transactions(Offset(0), log_->log_end_offset()).size(), 1u);
  fill_and_clean();
  // The aborted records went; the marker stays for this cleaning, which saw them.
  EXPECT_EQ(markers(), std::vector<Offset>{abort});
  EXPECT_EQ(log_->producers().aborted_transactions(Offset(0), log_->log_end_offset()).size(), 1u);
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{});
  // read_committed fetches no longer list it, and neither does the index.
  EXPECT_TRUE(log_->producers().aborted_transactions(Offset(0), log_->log_end_offset()).empty());
  EXPECT_TRUE(index_->aborted_txns(uid_).value().empty());
  auto got = read_all();
  EXPECT_TRUE(
      std::any_of(got.begin(), got.end(), [](const ReadRecord& r) { return r.value == "plain"; }));
  // A restart (after a crash: recovery) brings nothing of it back.
  crash(false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(markers(), std::vector<Offset>{});
  EXPECT_TRUE(log_->producers().aborted_transactions(Offset(0), log_->log_end_offset()).empty());
}

TEST_F(LogCompactionMarkersTest, ACommitMarkerStaysWhileAnyOfItsRecordsIsLeft) {
  txn_write(8, 0, {{"a", "t1"}, {"b", "t1"}});
  Offset commit = end_txn(8, true);
  produce({{"a", "later"}});  // supersedes a, not b
  fill_and_clean();
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{commit}) << "b's record is still there";
  produce({{"b", "later"}});
  fill_and_clean();
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{}) << "nothing of the transaction is left";
  auto got = read_all();
  EXPECT_TRUE(
      std::none_of(got.begin(), got.end(), [](const ReadRecord& r) { return r.value == "t1"; }));
}

TEST_F(LogCompactionMarkersTest, AMarkerStaysDeleteRetentionAfterTheFirstCleaningThatCoveredIt) {
  config_.delete_retention_ms = 60'000;
  log_->set_config(config_);
  txn_write(9, 0, {{"a", "aborted"}});
  Offset abort = end_txn(9, false);
  fill_and_clean();
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{abort}) << "removed before delete.retention.ms";
  clock_.advance_ms(60'000);
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{});
}

TEST_F(LogCompactionMarkersTest, OpenTransactionsAndOtherProducersKeepTheirMarkers) {
  // Producer 10 commits twice: its first transaction is superseded, its
  // second is not; producer 11 aborts between them.
  txn_write(10, 0, {{"k", "first"}});
  end_txn(10, true);
  txn_write(11, 0, {{"j", "aborted"}});
  Offset abort = end_txn(11, false);
  txn_write(10, 1, {{"k", "second"}});
  Offset second = end_txn(10, true);
  fill_and_clean();
  EXPECT_EQ(markers(), (std::vector<Offset>{abort, second})) << "the first commit's data is gone";
  fill_and_clean();
  EXPECT_EQ(markers(), std::vector<Offset>{second});
  auto got = read_all();
  EXPECT_TRUE(
      std::any_of(got.begin(), got.end(), [](const ReadRecord& r) { return r.value == "second"; }));
}

TEST_F(LogCompactionTest, AFollowerTakesItsLeadersBatchesAcrossHoles) {
  BatchBuilder b({.base_offset = Offset(5), .leader_epoch = LeaderEpoch(1)});
  b.add({.key = "k", .value = "v", .timestamp = clock_.now_ms()});
  auto r = append(b.build().value(),
                  {.leader_epoch = LeaderEpoch(1), .from_client = false, .keep_offsets = true});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->base_offset, Offset(5));
  EXPECT_EQ(log_->log_end_offset(), Offset(6));
  BatchBuilder back({.base_offset = Offset(5), .leader_epoch = LeaderEpoch(1)});
  back.add({.key = "k", .value = "again", .timestamp = clock_.now_ms()});
  EXPECT_FALSE(append(back.build().value(),
                      {.leader_epoch = LeaderEpoch(1), .from_client = false, .keep_offsets = true})
                   .ok());
  ASSERT_TRUE(flush().ok());
  crash(false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), Offset(6));
  EXPECT_FALSE(log_->recovery().defect.has_value());
}

TEST_F(LogCompactionTest, AFollowerCopiesACleanedLogByteForByte) {
  produce_history(30);
  ASSERT_TRUE(flush().ok());
  ASSERT_TRUE(clean());
  // The leader's batches as a follower fetches them: holes, batches with
  // records removed, empty ones.
  std::vector<std::vector<std::byte>> leader;
  for (Offset at = log_->log_start_offset(); at < log_->log_end_offset();) {
    auto batches = split(read(at, 1 << 20).value());
    ASSERT_FALSE(batches.empty());
    for (auto& b : batches) {
      at = read_batch_header(b.data()).next_offset();
      leader.push_back(std::move(b));
    }
  }
  auto expected = read_all();
  Offset end = log_->log_end_offset();
  close_cleanly();
  std::filesystem::remove_all(log_dir());
  std::filesystem::remove_all(index_dir());
  ASSERT_TRUE(open_log().ok());
  for (const auto& b : leader) {
    auto h = read_batch_header(b.data());
    auto r =
        append(b, {.leader_epoch = h.leader_epoch, .from_client = false, .keep_offsets = true});
    ASSERT_TRUE(r.ok()) << "batch at " << h.base_offset << ": " << r.error().to_string();
  }
  EXPECT_EQ(log_->log_end_offset(), end);
  EXPECT_EQ(read_all(), expected);
  std::vector<std::vector<std::byte>> copied;
  for (Offset at = log_->log_start_offset(); at < log_->log_end_offset();) {
    for (auto& b : split(read(at, 1 << 20).value())) {
      at = read_batch_header(b.data()).next_offset();
      copied.push_back(std::move(b));
    }
  }
  EXPECT_EQ(copied, leader);
  // And recovery of the copy scans it whole without a defect.
  crash(false);
  std::filesystem::remove_all(index_dir());
  ASSERT_TRUE(open_log().ok());
  EXPECT_FALSE(log_->recovery().defect.has_value());
  EXPECT_EQ(read_all(), expected);
}

// A failure at each file operation of a cleaning and its install, then a
// crash and recovery: the log must read as before the cleaning or after it.
TEST_F(LogCompactionTest, AFailedCleaningIsReportedLeavesTheLogAsItWasAndIsRetried) {
  produce_history(30);
  ASSERT_TRUE(flush().ok());
  auto before = read_all();
  for (int32_t attempt = 1; attempt <= 2; ++attempt) {
    auto plan = log_->compaction().plan(log_->log_end_offset(), true);
    ASSERT_TRUE(plan.has_value());
    // The cleaner's first write fails (a full disk, an I/O error).
    fs_.fail_nth(1);
    auto result = clean_segments(*plan, fs_, *index_);
    fs_.clear_faults();
    ASSERT_FALSE(result.ok());
    EXPECT_FALSE(log_->compaction().finish(*plan, std::move(result)).ok());
    EXPECT_FALSE(log_->compaction().cleaning());
    EXPECT_EQ(log_->compaction().failures(), attempt);
    EXPECT_TRUE(log_->compaction().last_cleaning().starts_with("failed: "))
        << log_->compaction().last_cleaning();
    EXPECT_EQ(log_->compaction().state().last_cleaned_ms, 0);
    EXPECT_EQ(read_all(), before);
  }
  // No `.cleaned` file is left behind, and the next attempt succeeds.
  for (const auto& e : std::filesystem::directory_iterator(log_dir()))
    EXPECT_FALSE(e.path().string().ends_with(".cleaned")) << e.path();
  auto plan = log_->compaction().plan(log_->log_end_offset(), true);
  ASSERT_TRUE(plan.has_value());
  Offset cleaned = plan->end;
  ASSERT_TRUE(log_->compaction().finish(*plan, clean_segments(*plan, fs_, *index_)).value());
  EXPECT_EQ(log_->compaction().failures(), 0);
  EXPECT_TRUE(log_->compaction().last_cleaning().starts_with("cleaned below offset"))
      << log_->compaction().last_cleaning();
  EXPECT_EQ(log_->compaction().state().last_cleaned_ms, clock_.now_ms());
  expect_compacted(read_all(), cleaned);
}

// The swap's disk waits run off the shard (here, when the test runs them):
// meanwhile the log serves reads of the cleaned range (from the replaced
// files, then from the cleaned ones before the index has them), takes
// appends, moves its start but defers deleting segments, refuses and holds
// a truncation, and its close waits for the swap to end.
TEST_F(LogCompactionTest, AnAsynchronousSwapKeepsServingAndHoldsWhatWouldRemoveItsSegments) {
  // An index entry for every batch, segments of many batches, and reads of
  // one batch each: the replaced files' entries point where the cleaned
  // files have other bytes.
  log_.reset();
  config_.index_interval_bytes = 1;
  config_.segment_bytes = 4096;
  ASSERT_TRUE(open_log().ok());
  // Most keys written once (they stay), one in three rewritten (it goes):
  // the cleaned files keep most batches, at other positions.
  for (int i = 0; i < 120; ++i) {
    produce({{"once" + std::to_string(i) + "a", "v"},
             {"again" + std::to_string(i % 5), "v" + std::to_string(i)},
             {"once" + std::to_string(i) + "b", "v"}});
  }
  ASSERT_TRUE(flush().ok());
  auto before = read_all(1);
  auto plan = log_->compaction().plan(log_->log_end_offset(), true);
  ASSERT_TRUE(plan.has_value());
  Offset cleaned = plan->end;
  std::deque<std::pair<LogCompaction::SwapStep, LogCompaction::SwapThen>> steps;
  std::optional<Result<bool>> outcome;
  log_->compaction().install(
      *plan, clean_segments(*plan, fs_, *index_),
      [&](const LogCompaction::SwapStep& step, const LogCompaction::SwapThen& then) {
        steps.emplace_back(step, then);
      },
      [&](Result<bool> r) { outcome = std::move(r); });
  auto run_step = [&] {
    ASSERT_FALSE(steps.empty());
    auto [step, then] = std::move(steps.front());
    steps.pop_front();
    then(step());
  };
  // 1. Not committed yet: the replaced segments serve.
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(log_->compaction().cleaning());
  EXPECT_EQ(read_all(1), before);
  EXPECT_FALSE(log_->truncate_to(log_->log_end_offset() - 1).ok());
  bool truncation_ran = false;
  log_->compaction().when_swapped([&] { truncation_ran = true; });
  run_step();
  // 2. Committed: the cleaned files serve, found through the swap's entries.
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(outcome.has_value());
  auto during = read_all(1);
  expect_compacted(during, cleaned);
  produce({{"key1", "during the swap"}});
  Offset start = during.at(2).offset;
  ASSERT_TRUE(log_->advance_start_offset(start).ok());
  std::vector<ReadRecord> expected;
  for (const auto& r : during) {
    if (r.offset >= start) expected.push_back(r);
  }
  expected.push_back(produced_.back());
  // What a consumer gets from the log start (a batch across it comes whole).
  auto from_start = [&] {
    auto got = read_all(1);
    std::erase_if(got, [&](const ReadRecord& r) { return r.offset < start; });
    return got;
  };
  EXPECT_EQ(from_start(), expected);
  std::optional<Status> closed;
  log_->close([&](Status st) { closed = std::move(st); });
  loop_.run_ready();
  EXPECT_FALSE(closed.has_value()) << "the log closed with its swap in flight";
  EXPECT_FALSE(truncation_ran);
  // 3. The index written, the files renamed: the swap ends.
  run_step();
  EXPECT_TRUE(steps.empty());
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(outcome->ok()) << outcome->error().to_string();
  EXPECT_TRUE(**outcome);
  EXPECT_TRUE(truncation_ran);
  EXPECT_FALSE(log_->compaction().cleaning());
  EXPECT_TRUE(log_->compaction().last_cleaning().starts_with("cleaned below offset"))
      << log_->compaction().last_cleaning();
  EXPECT_EQ(from_start(), expected);
  loop_.run_until([&] { return closed.has_value(); });
  ASSERT_TRUE(closed->ok()) << closed->error().to_string();
  for (const auto& e : std::filesystem::directory_iterator(log_dir())) {
    EXPECT_FALSE(e.path().string().ends_with(".swap")) << e.path();
    EXPECT_FALSE(e.path().string().ends_with(".cleaned")) << e.path();
  }
  log_.reset();
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_start_offset(), start);
  EXPECT_EQ(from_start(), expected);
}

TEST_F(LogCompactionTest, ACrashAtAnyStepOfACleaningRecoversToTheSameRecords) {
  produce_history(30);
  ASSERT_TRUE(flush().ok());
  close_cleanly();
  auto saved = dir_.path() / "saved";
  std::filesystem::create_directories(saved);
  std::filesystem::copy(dir_.path() / "topic-0", saved / "topic-0",
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy(index_dir(), saved / "index", std::filesystem::copy_options::recursive);
  bool completed = false;
  for (uint64_t n = 1; n < 200 && !completed; ++n) {
    SCOPED_TRACE("failing file call " + std::to_string(n));
    std::filesystem::remove_all(log_dir());
    std::filesystem::remove_all(index_dir());
    std::filesystem::copy(saved / "topic-0", log_dir(), std::filesystem::copy_options::recursive);
    std::filesystem::copy(saved / "index", index_dir(), std::filesystem::copy_options::recursive);
    ASSERT_TRUE(open_log(true).ok());
    auto plan = log_->compaction().plan(log_->log_end_offset(), true);
    ASSERT_TRUE(plan.has_value());
    uint64_t failures = fs_.injected_failures();
    fs_.fail_nth(n);
    auto result = clean_segments(*plan, fs_, *index_);
    auto installed = log_->compaction().finish(*plan, std::move(result));
    completed = fs_.injected_failures() == failures;
    if (completed) {
      EXPECT_TRUE(installed.ok() && *installed);
    }
    fs_.clear_faults();
    crash(false);
    ASSERT_TRUE(fs_.drop_unsynced().ok());
    ASSERT_TRUE(open_log().ok());
    EXPECT_FALSE(log_->recovery().defect.has_value());
    // Before or after: the uncleaned log is "compacted" below its start.
    auto got = read_all();
    expect_compacted(got, got.size() == produced_.size() ? log_->log_start_offset() : plan->end);
    close_cleanly();
  }
  EXPECT_TRUE(completed) << "the failures never ran out";
}

}  // namespace
}  // namespace strata::engine
