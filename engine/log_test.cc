#include "engine/log.h"

#include <algorithm>
#include <random>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/testing/log_fixture.h"

namespace strata::engine {
namespace {

using testing::LogFixture;

class LogTest : public LogFixture {
 protected:
  void SetUp() override {
    config_.segment_bytes = 64 * 1024;
    config_.index_interval_bytes = 4096;
  }

  void expect_appends_at_and_a_crash_keeps_them(Offset at);

  // Appends `n` batches of random sizes, several per loop turn, with
  // timestamps from `ts`. Returns the offset after the last one.
  Offset append_random(int n, std::mt19937& rng, const std::function<TimestampMs(int)>& ts) {
    std::uniform_int_distribution<int> records(1, 12), value_bytes(1, 1500), group(1, 6);
    std::uniform_int_distribution<int> codec(0, 9);
    int done = 0;
    while (done < n) {
      int g = std::min(group(rng), n - done);
      std::vector<std::optional<Result<AppendResult>>> results(static_cast<size_t>(g));
      for (int i = 0; i < g; ++i) {
        int c = codec(rng);
        Compression comp = c < 6 ? Compression::kNone : static_cast<Compression>(c - 5);
        int batch_no = done + i;
        auto bytes = make_batch(
            records(rng), static_cast<size_t>(value_bytes(rng)),
            [&](int r) { return ts(batch_no * 100 + r); }, comp);
        EXPECT_TRUE(append_async(std::move(bytes), &results[static_cast<size_t>(i)]).ok());
      }
      loop_.run_until([&] {
        return std::all_of(results.begin(), results.end(), [](auto& r) { return r.has_value(); });
      });
      for (auto& r : results)
        EXPECT_TRUE(r->ok()) << r->error().to_string();
      done += g;
    }
    return log_->log_end_offset();
  }

  std::vector<Offset> segment_bases_on_disk() {
    std::vector<Offset> out;
    for (const auto& e : std::filesystem::directory_iterator(log_dir())) {
      if (auto b = parse_segment_file_name(e.path().filename().string())) out.push_back(*b);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::filesystem::path last_segment_path() {
    return log_dir() / segment_file_name(segment_bases_on_disk().back());
  }
};

TEST_F(LogTest, ANewLogIsEmpty) {
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_start_offset(), Offset(0));
  EXPECT_EQ(log_->log_end_offset(), Offset(0));
  auto r = read(Offset(0), 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->slices.empty());
  auto beyond = read(Offset(1), 1000);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().code(), Errc::kOffsetOutOfRange);
  EXPECT_FALSE(lookup(0).value().has_value());
}

TEST_F(LogTest, AppendsAssignConsecutiveOffsets) {
  ASSERT_TRUE(open_log().ok());
  auto a = append(make_batch(3, 10, [](int i) { return 100 + i; })).value();
  auto b = append(make_batch(5, 10, [](int i) { return 200 + i; })).value();
  EXPECT_EQ(a.base_offset, Offset(0));
  EXPECT_EQ(a.last_offset, Offset(2));
  EXPECT_EQ(b.base_offset, Offset(3));
  EXPECT_EQ(b.last_offset, Offset(7));
  EXPECT_EQ(a.log_append_time, -1);
  EXPECT_EQ(log_->log_end_offset(), Offset(8));
}

TEST_F(LogTest, RoundTripAcrossSegmentRollsReadsTheBatchHoldingAnyOffset) {
  std::mt19937 rng(1234);
  ASSERT_TRUE(open_log().ok());
  append_random(600, rng, [](int i) { return 1'000'000 + i; });
  EXPECT_GT(log_->segments().size(), 5u);
  EXPECT_EQ(segment_bases_on_disk(), log_->segments().bases());
  for (size_t max_bytes : {size_t{1}, size_t{5000}, size_t{40000}, size_t{1} << 20}) {
    expect_reads_match_model(max_bytes);
  }
  expect_index_agrees();
}

TEST_F(LogTest, ReadsNeverSeeBatchesWhoseWriteHasNotCompleted) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(2, 10, [](int) { return 1; })).ok());
  std::optional<Result<AppendResult>> pending;
  ASSERT_TRUE(append_async(make_batch(2, 10, [](int) { return 2; }), &pending).ok());
  // The append is queued but its write has not run: the end has not moved.
  EXPECT_EQ(log_->log_end_offset(), Offset(2));
  auto beyond = read(Offset(2), 1000);
  // read() ran the loop: by now the write may have completed, which moves
  // the end; a read at the old end is either empty or the new batch.
  ASSERT_TRUE(beyond.ok());
  loop_.run_until([&] { return pending.has_value(); });
  EXPECT_EQ(log_->log_end_offset(), Offset(4));
}

TEST_F(LogTest, TimestampLookupsMatchABruteForceScanWithNonMonotonicTimestamps) {
  std::mt19937 rng(99);
  ASSERT_TRUE(open_log().ok());
  std::uniform_int_distribution<int> jitter(-5000, 5000);
  // A rising trend with large jitter: records are often older than earlier ones.
  append_random(400, rng, [&](int i) { return 1'000'000 + i * 10 + jitter(rng); });
  TimestampMs lo = 1'000'000 - 6000, hi = 1'000'000 + 400 * 1000 + 6000;
  std::uniform_int_distribution<TimestampMs> pick(lo, hi);
  for (int q = 0; q < 400; ++q) {
    TimestampMs ts = q < 3 ? (q == 0 ? lo : q == 1 ? hi : INT64_MIN + 1) : pick(rng);
    expect_lookup_matches_model(ts);
  }
}

TEST_F(LogTest, LogAppendTimeTopicsStampTheBrokerClock) {
  config_.timestamp_type = TimestampType::kLogAppendTime;
  ASSERT_TRUE(open_log().ok());
  clock_.set_now_ms(5'000'000);
  auto a = append(make_batch(3, 10, [](int) { return 1; })).value();
  EXPECT_EQ(a.log_append_time, 5'000'000);
  clock_.set_now_ms(6'000'000);
  ASSERT_TRUE(append(make_batch(3, 10, [](int) { return 1; })).ok());
  auto r = read(Offset(0), 1 << 20).value();
  auto batches = split(r);
  ASSERT_EQ(batches.size(), 2u);
  auto h = check_batch_integrity(batches[0]).value();
  EXPECT_TRUE(h.log_append_time());
  EXPECT_EQ(h.max_timestamp, 5'000'000);
  EXPECT_EQ(lookup(5'500'000).value()->offset, Offset(3));
  EXPECT_EQ(lookup(5'000'000).value()->offset, Offset(0));
}

TEST_F(LogTest, ConcurrentFlushesShareFsyncs) {
  ASSERT_TRUE(open_log().ok());
  constexpr int kAppenders = 8, kRounds = 20;
  int flushed = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (int a = 0; a < kAppenders; ++a) {
      ASSERT_TRUE(append_async(make_batch(1, 100, [](int) { return 1; }), nullptr).ok());
      log_->flush([&](Status st) {
        EXPECT_TRUE(st.ok());
        ++flushed;
      });
    }
    loop_.run_until([&] { return flushed == (round + 1) * kAppenders; });
  }
  EXPECT_EQ(log_->durable_offset(), log_->log_end_offset());
  // Eight flushes waiting together share a sync: far fewer syncs than flushes.
  EXPECT_LE(log_->fsync_count(), static_cast<uint64_t>(kRounds * 2));
  EXPECT_GE(log_->fsync_count(), static_cast<uint64_t>(kRounds));
}

TEST_F(LogTest, MalformedBatchesNeverReachTheDisk) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(2, 10, [](int) { return 1; })).ok());
  auto good = make_batch(2, 10, [](int) { return 1; });
  std::vector<std::pair<std::vector<std::byte>, Errc>> cases;
  auto bad_crc = good;
  bad_crc.back() ^= std::byte{0x40};
  cases.emplace_back(bad_crc, Errc::kCorruptMessage);
  auto bad_magic = good;
  bad_magic[batch_field::kMagic] = std::byte{0};
  cases.emplace_back(bad_magic, Errc::kUnsupportedMagic);
  auto truncated = good;
  truncated.resize(truncated.size() - 1);
  cases.emplace_back(truncated, Errc::kTruncatedBatch);
  cases.emplace_back(make_batch(1, 2'000'000, [](int) { return 1; }), Errc::kMessageTooLarge);
  auto negative = good;
  be::store<int32_t>(negative.data() + batch_field::kLength, -1);
  cases.emplace_back(negative, Errc::kCorruptMessage);

  uint64_t calls = fs_.calls();
  uint64_t size = std::filesystem::file_size(last_segment_path());
  for (auto& [bytes, code] : cases) {
    auto st = log_->append(SharedBytes::copy_of(bytes), {}, [](Result<AppendResult>) {
      ADD_FAILURE() << "callback of a refused append";
    });
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), code) << st.error().to_string();
  }
  loop_.run_ready();
  EXPECT_EQ(fs_.calls(), calls);
  EXPECT_EQ(std::filesystem::file_size(last_segment_path()), size);
  EXPECT_EQ(log_->log_end_offset(), Offset(2));
}

TEST_F(LogTest, CrashLosesOnlyTheUnsyncedTail) {
  std::mt19937 rng(5);
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  append_random(150, rng, [](int i) { return 10'000 + i; });
  ASSERT_TRUE(flush().ok());
  Offset durable = log_->log_end_offset();
  // Acknowledged (acks=1) but never flushed, including a few segment rolls.
  append_random(150, rng, [](int i) { return 90'000 + i; });
  ASSERT_GT(log_->log_end_offset(), durable);

  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  // Rolls flush closed segments in the background, so more than `durable`
  // may have survived; never less, and never a partial batch.
  EXPECT_GE(log_->log_end_offset(), durable);
  EXPECT_TRUE(log_->recovery().scanned);
  model_truncate(log_->log_end_offset());
  EXPECT_EQ(model_.rbegin()->second.header.next_offset(), log_->log_end_offset());
  expect_reads_match_model(20000);
  expect_index_agrees();
  // The log takes appends again after the cut.
  ASSERT_TRUE(append(make_batch(2, 10, [](int) { return 1; })).ok());
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, IndexAheadOfTheLogIsCutBack) {
  std::mt19937 rng(6);
  ASSERT_TRUE(open_log().ok());
  append_random(40, rng, [](int i) { return i; });
  ASSERT_TRUE(flush().ok());
  Offset durable = log_->log_end_offset();
  // Same segment: keep the unsynced batches in the active segment.
  config_.segment_bytes = 1 << 30;
  log_->set_config(config_);
  append_random(40, rng, [](int i) { return 5000 + i; });
  crash(/*lose_index_memtable=*/false);  // the index keeps entries for lost bytes
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), durable);
  model_truncate(durable);
  expect_index_agrees();
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, TornLastBatchIsCutAndTheRestServed) {
  std::mt19937 rng(7);
  ASSERT_TRUE(open_log().ok());
  append_random(60, rng, [](int i) { return i; });
  ASSERT_TRUE(flush().ok());
  // The last batch is written but not synced when the process dies, and
  // only part of it reaches the disk.
  auto last = append(make_batch(10, 500, [](int) { return 42; })).value();
  crash(false);
  auto path = last_segment_path();
  auto size = std::filesystem::file_size(path);
  size_t batch_size = model_.rbegin()->second.bytes.size();
  std::filesystem::resize_file(path, size - batch_size / 2);

  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), last.base_offset);
  EXPECT_EQ(log_->recovery().bytes_truncated, batch_size - batch_size / 2);
  ASSERT_TRUE(log_->recovery().defect.has_value());
  EXPECT_EQ(log_->recovery().defect->code(), Errc::kTruncatedBatch);
  model_truncate(last.base_offset);
  expect_reads_match_model(30000);
  expect_index_agrees();
}

// Segments lose their tail in a crash: shared by the tests below.
class LostTailTest : public LogTest {
 protected:
  // `n` batches over 4 KiB segments; the segment bases on disk.
  std::vector<Offset> fill_segments(int n) {
    config_.segment_bytes = 4096;
    EXPECT_TRUE(open_log().ok());
    for (int i = 0; i < n; ++i)
      EXPECT_TRUE(append(make_batch(2, 900, [](int) { return 1; })).ok());
    return segment_bases_on_disk();
  }
  // Cuts the last batch off segment `bases[i]` (the log crashed before);
  // returns that batch's offset.
  Offset lose_last_batch(const std::vector<Offset>& bases, size_t i) {
    auto victim = log_dir() / segment_file_name(bases[i]);
    auto last_batch = std::prev(model_.lower_bound(bases[i + 1]));
    std::filesystem::resize_file(
        victim, std::filesystem::file_size(victim) - last_batch->second.bytes.size());
    return last_batch->first;
  }
  // After recovery the log ends at `cut` in segments `kept`, reads and
  // index agree with the model, and appends continue at the cut.
  void expect_cut_at(Offset cut, const std::vector<Offset>& kept) {
    ASSERT_TRUE(open_log().ok());
    EXPECT_EQ(log_->log_end_offset(), cut);
    EXPECT_EQ(log_->segments().bases(), kept);
    EXPECT_EQ(segment_bases_on_disk(), kept);
    model_truncate(cut);
    expect_reads_match_model(1 << 20);
    expect_index_agrees();
    EXPECT_EQ(append(make_batch(1, 10, [](int) { return 1; })).value().base_offset, cut);
  }
};

TEST_F(LostTailTest, AHoleBeforeALaterSegmentCutsTheLogAtTheHole) {
  // A roll's background sync of a later segment finished while the tail of
  // an earlier one was still unsynced, and the power went: the later
  // segment's batches follow a hole. They must go with it.
  auto bases = fill_segments(8);
  ASSERT_GE(bases.size(), 4u);
  crash(false);
  std::filesystem::remove_all(index_dir());  // rebuilt by a scan from the start
  Offset cut = lose_last_batch(bases, 1);
  expect_cut_at(cut, {bases.begin(), bases.begin() + 2});
}

TEST_F(LostTailTest, AnEmptySegmentAfterALostTailIsRemoved) {
  auto bases = fill_segments(6);
  ASSERT_GE(bases.size(), 3u);
  crash(false);
  // The second-to-last segment loses its last batch; the last one, created
  // by the roll, kept its directory entry but none of its data.
  Offset cut = lose_last_batch(bases, bases.size() - 2);
  std::filesystem::resize_file(log_dir() / segment_file_name(bases.back()), 0);
  expect_cut_at(cut, {bases.begin(), bases.end() - 1});
}

TEST_F(LogTest, FlippedBitInTheLastBatchIsCut) {
  std::mt19937 rng(8);
  ASSERT_TRUE(open_log().ok());
  append_random(60, rng, [](int i) { return i; });
  ASSERT_TRUE(flush().ok());
  auto last = append(make_batch(10, 500, [](int) { return 42; })).value();
  crash(false);
  auto path = last_segment_path();
  auto size = std::filesystem::file_size(path);
  {
    int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    off_t at = static_cast<off_t>(size - 100);
    char c;
    ASSERT_EQ(::pread(fd, &c, 1, at), 1);
    c ^= 0x10;
    ASSERT_EQ(::pwrite(fd, &c, 1, at), 1);
    ::close(fd);
  }
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), last.base_offset);
  ASSERT_TRUE(log_->recovery().defect.has_value());
  EXPECT_EQ(log_->recovery().defect->code(), Errc::kCorruptMessage);
  EXPECT_EQ(std::filesystem::file_size(path), size - model_.rbegin()->second.bytes.size());
  model_truncate(last.base_offset);
  expect_reads_match_model(30000);
  expect_index_agrees();
  // Nothing invalid is served at the cut.
  auto r = read(last.base_offset, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->slices.empty());
}

TEST_F(LogTest, IndexThatLostItsUnflushedWritesIsRebuiltFromTheLog) {
  std::mt19937 rng(9);
  open_index(/*flush_on_close=*/false);
  ASSERT_TRUE(open_log().ok());
  append_random(100, rng, [](int i) { return i * 3; });
  ASSERT_TRUE(index_->flush().ok());  // part of the index reaches its files
  append_random(100, rng, [](int i) { return 100000 + i; });
  ASSERT_TRUE(flush().ok());  // the log is durable, the rest of the index is not
  Offset end = log_->log_end_offset();
  crash(/*lose_index_memtable=*/true);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), end);
  expect_index_agrees();
  expect_reads_match_model(8192);
  for (TimestampMs ts : {0, 150, 299, 100050, 100099, 100100}) {
    auto got = lookup(ts).value();
    auto want = brute_force_lookup(ts, Offset(0));
    ASSERT_EQ(got.has_value(), want.has_value()) << ts;
    if (want) {
      EXPECT_EQ(got->offset, want->offset) << ts;
    }
  }
}

TEST_F(LogTest, DeletingTheIndexRebuildsTheSameAnswers) {
  std::mt19937 rng(10);
  ASSERT_TRUE(open_log().ok());
  std::uniform_int_distribution<int> jitter(-300, 300);
  append_random(300, rng, [&](int i) { return 50'000 + i + jitter(rng); });
  auto entries_before = index_->offset_entries(uid_).value();
  std::vector<std::optional<TimestampLookup>> answers;
  for (TimestampMs ts = 49'000; ts < 85'000; ts += 97)
    answers.push_back(lookup(ts).value());
  close_cleanly();

  std::filesystem::remove_all(index_dir());
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_TRUE(log_->recovery().scanned);  // no markers: the clean marker cannot be trusted
  EXPECT_EQ(index_->offset_entries(uid_).value(), entries_before);
  size_t i = 0;
  for (TimestampMs ts = 49'000; ts < 85'000; ts += 97, ++i) {
    auto got = lookup(ts).value();
    ASSERT_EQ(got.has_value(), answers[i].has_value()) << ts;
    if (got) {
      EXPECT_EQ(got->offset, answers[i]->offset) << ts;
      EXPECT_EQ(got->timestamp, answers[i]->timestamp) << ts;
    }
  }
  expect_reads_match_model(10000);
  expect_index_agrees();
}

TEST_F(LogTest, CleanCloseSkipsTheRecoveryScan) {
  std::mt19937 rng(11);
  ASSERT_TRUE(open_log().ok());
  append_random(100, rng, [](int i) { return i; });
  close_cleanly();
  ASSERT_TRUE(open_log(/*clean_start=*/true).ok());
  EXPECT_FALSE(log_->recovery().scanned);
  EXPECT_EQ(log_->recovery().bytes_scanned, 0u);
  expect_reads_match_model(20000);
  expect_index_agrees();
  // Appends continue where the log ended, and retention still knows the
  // closed segments' timestamps.
  ASSERT_TRUE(append(make_batch(1, 10, [](int) { return 5; })).ok());
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, UncleanReopenScansOnlyFromTheRecoveryPoint) {
  std::mt19937 rng(12);
  ASSERT_TRUE(open_log().ok());
  append_random(200, rng, [](int i) { return i; });
  ASSERT_TRUE(flush().ok());
  uint64_t total = log_->segments().size_bytes();
  append(make_batch(3, 100, [](int) { return 7; })).value();
  crash(false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_TRUE(log_->recovery().scanned);
  EXPECT_EQ(log_->recovery().batches_scanned, 1u);
  EXPECT_LT(log_->recovery().bytes_scanned, total);
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, TheActiveSegmentsBlocksAreReservedAheadOnceItHoldsAMegabyte) {
  config_.segment_bytes = 40 << 20;
  ASSERT_TRUE(open_log().ok());
  auto path = log_dir() / segment_file_name(Offset(0));
  auto allocated = [&] {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(static_cast<uint64_t>(st.st_size),
              log_->segments().size_bytes());  // size: what was written
    return static_cast<uint64_t>(st.st_blocks) * 512;
  };
  // A small partition reserves nothing ...
  ASSERT_TRUE(append(make_batch(4, 1000, [](int r) { return 1000 + r; })).ok());
  loop_.run_ready();
  EXPECT_LT(allocated(), uint64_t{1} << 20);
  // ... one past a megabyte reserves 32 MiB ahead.
  for (int i = 0; i < 12; ++i)
    ASSERT_TRUE(append(make_batch(100, 1000, [](int r) { return 1000 + r; })).ok());
  loop_.run_ready();
  EXPECT_GE(allocated(), log_->segments().size_bytes() + (uint64_t{30} << 20));
  EXPECT_LE(allocated(), uint64_t{40} << 20);  // never past segment.bytes
  // Reopened after a crash, the log sees only what was written.
  Offset end = log_->log_end_offset();
  crash(/*lose_index_memtable=*/false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_end_offset(), end);
  expect_reads_match_model(1 << 20);
  ASSERT_TRUE(append(make_batch(2, 10, [](int r) { return 2000 + r; })).ok());
  EXPECT_EQ(log_->log_end_offset(), end + 2);
}

// The page-cache tests run at an eighth of the production sizes (a 6 MiB
// window, 4 MiB drop chunks, 1000-byte values), to keep the bytes through
// the sanitizer builds few.
constexpr uint64_t kCacheWindow = 768 << 10;
constexpr uint64_t kCacheChunk = 512 << 10;  // the log drops at least this much at a time
constexpr uint64_t kCacheDroppedAtLeast = (uint64_t{10} << 20) / 8;
constexpr size_t kCacheValueBytes = 125;

TEST_F(LogTest, DurableBytesBehindTheCacheWindowLeaveThePageCacheAndStayReadable) {
  config_.segment_bytes = 1 << 20;
  cache_window_bytes_ = kCacheWindow;
  cache_drop_chunk_bytes_ = kCacheChunk;
  ASSERT_TRUE(open_log().ok());
  // What each segment file has had dropped, checked against what was
  // durable when the drop was asked for.
  auto dropped = [&] {
    uint64_t total = 0;
    for (Offset base : segment_bases_on_disk()) {
      uint64_t end = 0;
      for (const auto& d : fs_.cache_drops(log_dir() / segment_file_name(base))) {
        EXPECT_EQ(d.pos, end) << "drops of a file run on from one another";
        EXPECT_EQ(d.pos % 4096, 0u);
        EXPECT_LE(d.pos + d.len, d.synced_size) << "only durable bytes leave the cache";
        end = d.pos + d.len;
      }
      total += end;
    }
    return total;
  };
  for (int i = 0; i < 220; ++i) {
    ASSERT_TRUE(append(make_batch(100, kCacheValueBytes, [](int r) { return 1000 + r; })).ok());
    ASSERT_TRUE(flush().ok());
    uint64_t size = log_->segments().size_bytes();
    uint64_t cold = size > kCacheWindow ? size - kCacheWindow : 0;
    uint64_t total = dropped();
    EXPECT_LE(total, cold) << "nothing within the window of the end is dropped";
    EXPECT_GE(total + kCacheChunk + 4096, cold) << "everything older is, a chunk at a time";
  }
  EXPECT_GT(log_->segments().size(), 2u);
  EXPECT_GT(dropped(), kCacheDroppedAtLeast);
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, UnsyncedTopicsWriteBackTheBytesBehindTheCacheWindowAndDropThem) {
  config_.segment_bytes = 2 << 20;               // the active segment leaves the window too
  config_.durability = Durability::kReplicated;  // nothing synced but at rolls
  cache_window_bytes_ = kCacheWindow;
  cache_drop_chunk_bytes_ = kCacheChunk;
  ASSERT_TRUE(open_log().ok());
  bool beyond_synced = false;
  auto dropped = [&] {
    uint64_t total = 0;
    for (Offset base : segment_bases_on_disk()) {
      uint64_t end = 0;
      for (const auto& d : fs_.cache_drops(log_dir() / segment_file_name(base))) {
        EXPECT_EQ(d.pos, end);
        EXPECT_LE(d.pos + d.len, std::max(d.synced_size, d.written_back))
            << "only clean bytes (synced or written back) leave the cache";
        beyond_synced = beyond_synced || d.pos + d.len > d.synced_size;
        end = d.pos + d.len;
      }
      total += end;
    }
    return total;
  };
  for (int i = 0; i < 220; ++i) {
    ASSERT_TRUE(append(make_batch(100, kCacheValueBytes, [](int r) { return 1000 + r; })).ok());
    uint64_t size = log_->segments().size_bytes();
    uint64_t cold = size > kCacheWindow ? size - kCacheWindow : 0;
    // The write-backs run in the background; the loop runs out of work
    // (and the test fails) if none was started.
    loop_.run_until([&] { return dropped() + kCacheChunk + 4096 >= cold; });
    EXPECT_LE(dropped(), cold) << "nothing within the window of the end is dropped";
  }
  EXPECT_GT(dropped(), kCacheDroppedAtLeast);
  EXPECT_TRUE(beyond_synced) << "some bytes left the cache written back, unsynced";
  // Written back is not durable: a power cut loses what was not synced.
  EXPECT_LT(fs_.synced_size(log_dir() / segment_file_name(segment_bases_on_disk().back())),
            log_->segments().containing(log_->log_end_offset())->size);
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, BytesWrittenDuringASyncStayInThePageCacheUntilSynced) {
  config_.segment_bytes = 8 << 20;
  cache_window_bytes_ = 4096;  // everything durable but the last page goes
  cache_drop_chunk_bytes_ = kCacheChunk;
  ASSERT_TRUE(open_log().ok());
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(append(make_batch(100, kCacheValueBytes, [](int r) { return 1000 + r; })).ok());
    // The sync covers what was committed when it started; the batches
    // appended behind it are written while it runs, and are usually
    // committed before it completes, unsynced and far outside the window.
    std::optional<Status> flushed;
    log_->flush([&](Status st) { flushed = std::move(st); });
    std::vector<std::optional<Result<AppendResult>>> later(50);
    for (auto& r : later)
      ASSERT_TRUE(
          append_async(make_batch(100, kCacheValueBytes, [](int r) { return 1000 + r; }), &r).ok());
    loop_.run_until([&] {
      return flushed && std::all_of(later.begin(), later.end(), [](auto& r) { return r; });
    });
    ASSERT_TRUE(flushed->ok());
  }
  auto drops = fs_.cache_drops(log_dir() / segment_file_name(Offset(0)));
  ASSERT_FALSE(drops.empty());
  for (const auto& d : drops)
    EXPECT_LE(d.pos + d.len, d.synced_size) << "only durable bytes leave the cache";
  expect_reads_match_model(1 << 20);
}

TEST_F(LogTest, WithoutACacheWindowNothingIsDroppedFromThePageCache) {
  config_.segment_bytes = 1 << 20;
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(append(make_batch(100, 1000, [](int r) { return 1000 + r; })).ok());
    ASSERT_TRUE(flush().ok());
  }
  ASSERT_GT(log_->segments().size(), 4u);
  for (Offset base : segment_bases_on_disk())
    EXPECT_TRUE(fs_.cache_drops(log_dir() / segment_file_name(base)).empty());
}

TEST_F(LogTest, RetentionByTimeDeletesExactlyTheExpiredSegments) {
  config_.segment_bytes = 16 * 1024;
  config_.retention_ms = 60'000;
  ASSERT_TRUE(open_log().ok());
  clock_.set_now_ms(10'000'000);
  // Segment k holds batches stamped around 1'000'000 + k * 10'000.
  for (int i = 0; i < 80; ++i) {
    TimestampMs t = 1'000'000 + i * 1'000;
    ASSERT_TRUE(append(make_batch(4, 1000, [t](int r) { return t + r; })).ok());
  }
  ASSERT_GT(log_->segments().size(), 4u);
  // Expected: closed segments whose newest record (and every older one's)
  // is before now - retention.
  auto bases = log_->segments().bases();
  clock_.set_now_ms(1'000'000 + 40'000 + 60'000);
  TimestampMs cutoff = clock_.now_ms() - 60'000;
  std::vector<Offset> expect_left;
  bool deleting = true;
  for (size_t i = 0; i < bases.size(); ++i) {
    Offset end = i + 1 < bases.size() ? bases[i + 1] : Offset::max();
    TimestampMs max_ts = INT64_MIN;
    for (const auto& [b, m] : model_) {
      if (b >= end) break;
      max_ts = std::max(max_ts, m.header.max_timestamp);
    }
    deleting = deleting && i + 1 < bases.size() && max_ts < cutoff;
    if (!deleting) expect_left.push_back(bases[i]);
  }
  ASSERT_LT(expect_left.size(), bases.size());
  ASSERT_GT(expect_left.size(), 1u);

  auto deleted = log_->enforce_retention();
  ASSERT_TRUE(deleted.ok()) << deleted.error().to_string();
  EXPECT_EQ(*deleted, bases.size() - expect_left.size());
  EXPECT_EQ(log_->segments().bases(), expect_left);
  EXPECT_EQ(segment_bases_on_disk(), expect_left);
  EXPECT_EQ(log_->log_start_offset(), expect_left.front());
  auto below = read(expect_left.front() - 1, 1000);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().code(), Errc::kOffsetOutOfRange);
  model_drop_below(expect_left.front());
  expect_reads_match_model(30000);
  expect_index_agrees();
  // A second pass at the same time deletes nothing more.
  EXPECT_EQ(log_->enforce_retention().value(), 0u);
  // Time lookups below the start answer with the start.
  EXPECT_EQ(lookup(0).value()->offset, expect_left.front());
}

TEST_F(LogTest, RetentionByBytesKeepsTheNewestSegmentsWithinTheLimit) {
  config_.segment_bytes = 16 * 1024;
  config_.retention_ms = -1;
  config_.retention_bytes = 50 * 1024;
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(append(make_batch(3, 1000, [](int) { return 1; })).ok());
  }
  std::vector<std::pair<Offset, uint64_t>> segs;
  for (Offset b : log_->segments().bases())
    segs.emplace_back(b, log_->segments().containing(b)->size);
  uint64_t total = log_->segments().size_bytes();
  size_t drop = 0;
  while (drop + 1 < segs.size() &&
         total - segs[drop].second >= static_cast<uint64_t>(config_.retention_bytes)) {
    total -= segs[drop].second;
    ++drop;
  }
  ASSERT_GT(drop, 0u);
  EXPECT_EQ(log_->enforce_retention().value(), drop);
  EXPECT_EQ(log_->segments().bases().front(), segs[drop].first);
  EXPECT_GE(log_->segments().size_bytes(), static_cast<uint64_t>(config_.retention_bytes));
  EXPECT_EQ(log_->log_start_offset(), segs[drop].first);
  EXPECT_EQ(read(Offset(0), 100).error().code(), Errc::kOffsetOutOfRange);
  model_drop_below(segs[drop].first);
  expect_reads_match_model(1 << 20);
  expect_index_agrees();
}

TEST_F(LogTest, ReadsStopAtTheLimit) {
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(append(make_batch(2, 10, [](int) { return 1; })).ok());
  // A limit of 6 admits the batches at 0, 2 and 4, not the one at 6.
  auto r = read(Offset(0), 1 << 20, Offset(6)).value();
  auto batches = split(r);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(read_batch_header(batches.back().data()).base_offset, Offset(4));
  EXPECT_TRUE(read(Offset(6), 1 << 20, Offset(6)).value().slices.empty());
  EXPECT_TRUE(read(Offset(8), 1 << 20, Offset(6)).value().slices.empty());
  EXPECT_EQ(read(Offset(11), 1 << 20, Offset(6)).error().code(), Errc::kOffsetOutOfRange);
}

TEST_F(LogTest, AdvancingTheStartOffsetIsDurableAndDropsWholeSegments) {
  config_.segment_bytes = 4096;
  ASSERT_TRUE(open_log().ok());
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(append(make_batch(2, 900, [](int) { return 1; })).ok());
  auto bases = log_->segments().bases();
  ASSERT_GE(bases.size(), 4u);
  Offset target = bases[2] + 1;  // inside the third segment
  ASSERT_TRUE(log_->advance_start_offset(target).ok());
  EXPECT_EQ(log_->log_start_offset(), target);
  EXPECT_EQ(log_->segments().bases().front(), bases[2]);
  EXPECT_EQ(read(target - 1, 100).error().code(), Errc::kOffsetOutOfRange);
  // The batch holding the new start is still served whole.
  auto r = read(target, 100).value();
  EXPECT_EQ(read_batch_header(split(r)[0].data()).base_offset, bases[2]);
  EXPECT_EQ(log_->advance_start_offset(Offset(0)).code(), Errc::kOffsetOutOfRange);
  EXPECT_EQ(log_->advance_start_offset(log_->log_end_offset() + 1).code(), Errc::kOffsetOutOfRange);
  crash(false);
  ASSERT_TRUE(open_log().ok());
  EXPECT_EQ(log_->log_start_offset(), target);
  EXPECT_EQ(log_->segments().bases().front(), bases[2]);
}

TEST_F(LogTest, RollsBySegmentAge) {
  config_.segment_ms = 1000;
  config_.segment_bytes = 1 << 30;
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(1, 10, [](int) { return 1; })).ok());
  ASSERT_TRUE(append(make_batch(1, 10, [](int) { return 1; })).ok());
  EXPECT_EQ(log_->segments().size(), 1u);
  clock_.advance_ms(1000);
  ASSERT_TRUE(append(make_batch(1, 10, [](int) { return 1; })).ok());
  EXPECT_EQ(log_->segments().bases(), (std::vector<Offset>{Offset(0), Offset(2)}));
}

// One read over many small batches the cursor holds in memory: each is
// answered inside the cursor's next(), and the walk must not recurse once
// per batch (3,390 batches overflowed the stack of an ASan broker).
TEST_F(LogTest, AReadOverManySmallBatchesWalksThemWithoutRecursion) {
  ASSERT_TRUE(open_log().ok());
  constexpr int kBatches = 40000;
  std::vector<std::optional<Result<AppendResult>>> results(kBatches);
  for (int i = 0; i < kBatches; ++i) {
    ASSERT_TRUE(append_async(make_batch(1, 1, [](int) { return 1; }), &results[i], false).ok());
    if (i % 1000 == 999) loop_.run_until([&] { return results[i].has_value(); });
  }
  loop_.run_until([&] { return results.back().has_value(); });
  // On a 128 KiB stack, so that a recursion per batch overflows it.
  std::optional<Result<ReadResult>> r;
  std::function<void()> body = [&] { r = read(Offset(0), 64 << 20); };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 128 << 10);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* f) -> void* {
                  (*static_cast<std::function<void()>*>(f))();
                  return nullptr;
                },
                &body),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->ok()) << r->error().to_string();
  EXPECT_EQ((*r)->log_end_offset, Offset(kBatches));
  EXPECT_GT((*r)->bytes, 60000u);  // hundreds of batches in one read
}

// After a failed write: the next append lands at `at`, and the log as
// read, and after a crash, is exactly what was acknowledged.
void LogTest::expect_appends_at_and_a_crash_keeps_them(Offset at) {
  auto next = append(make_batch(2, 100, [](int) { return 9; }));
  ASSERT_TRUE(next.ok()) << next.error().to_string();
  EXPECT_EQ(next->base_offset, at);
  ASSERT_TRUE(flush().ok());
  expect_reads_match_model(1 << 20);
  crash(false);
  ASSERT_TRUE(open_log().ok());
  expect_reads_match_model(1 << 20);
  expect_index_agrees();
}

TEST_F(LogTest, AFailedWriteFailsItsAppendsAndTheLogCarriesOn) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(2, 100, [](int) { return 1; })).ok());
  fs_.fail_nth(1);  // the next file operation: the coming write
  std::optional<Result<AppendResult>> a, b;
  ASSERT_TRUE(append_async(make_batch(2, 100, [](int) { return 2; }), &a).ok());
  ASSERT_TRUE(append_async(make_batch(2, 100, [](int) { return 3; }), &b).ok());
  loop_.run_until([&] { return a.has_value() && b.has_value(); });
  ASSERT_FALSE(a->ok());
  EXPECT_EQ(a->error().code(), Errc::kLogFailed);
  ASSERT_FALSE(b->ok());
  EXPECT_EQ(log_->log_end_offset(), Offset(2));
  // The owner heard of the failed write (once: b was only abandoned).
  ASSERT_EQ(storage_errors_.size(), 1u);
  EXPECT_NE(storage_errors_[0].find("injected fault on write"), std::string::npos);
  // The failed offsets are given out again.
  expect_appends_at_and_a_crash_keeps_them(Offset(2));
}

// A write fails while an earlier one is still in flight, and more is
// appended meanwhile: the rollback waits for the earlier write, which
// commits whole; only what came after the failure is given back.
TEST_F(LogTest, AFailedWriteRollsBackOnlyOnceTheWritesBeforeItCompleted) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(2, 100, [](int) { return 1; })).ok());
  std::optional<Result<AppendResult>> a, b, c;
  fs_.hold_writes(true);
  ASSERT_TRUE(append_async(make_batch(2, 100, [](int) { return 2; }), &a).ok());
  loop_.run_until([&] { return fs_.held_writes() == 1; });  // written, not completed
  fs_.hold_writes(false);
  fs_.fail_nth(1);  // b's write
  ASSERT_TRUE(append_async(make_batch(2, 100, [](int) { return 3; }), &b).ok());
  loop_.run_until([&] { return fs_.injected_failures() == 1; });
  ASSERT_TRUE(append_async(make_batch(2, 100, [](int) { return 4; }), &c).ok());
  loop_.run_ready();  // c is dispatched while a is still in flight
  fs_.release_writes();
  loop_.run_until([&] { return a.has_value() && b.has_value() && c.has_value(); });
  ASSERT_TRUE(a->ok()) << a->error().to_string();
  EXPECT_EQ(a->value().base_offset, Offset(2));
  ASSERT_FALSE(b->ok());
  EXPECT_EQ(b->error().code(), Errc::kLogFailed);
  ASSERT_FALSE(c->ok());
  EXPECT_EQ(c->error().code(), Errc::kLogFailed);
  EXPECT_EQ(log_->log_end_offset(), Offset(4));
  // The log takes appends again, after a.
  expect_appends_at_and_a_crash_keeps_them(Offset(4));
}

TEST_F(LogTest, AFailedSyncFailsTheFlushAndStopsWrites) {
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(2, 100, [](int) { return 1; })).ok());
  fs_.fail_nth(1);  // the sync
  auto st = flush();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kIoError);
  ASSERT_EQ(storage_errors_.size(), 1u);
  EXPECT_NE(storage_errors_[0].find("injected fault on sync"), std::string::npos);
  auto refused = log_->append(SharedBytes::copy_of(make_batch(1, 1, [](int) { return 1; })), {},
                              [](Result<AppendResult>) {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), Errc::kLogFailed);
  EXPECT_FALSE(flush().ok());
  // Reopening recovers: the batch whose sync failed may or may not be on
  // disk, but the log is whole either way.
  crash(false);
  ASSERT_TRUE(open_log().ok());
  ASSERT_TRUE(append(make_batch(1, 10, [](int) { return 1; })).ok());
}

TEST_F(LogTest, CloseWaitsForWritesInFlight) {
  ASSERT_TRUE(open_log().ok());
  std::vector<std::optional<Result<AppendResult>>> results(20);
  for (auto& r : results) {
    ASSERT_TRUE(append_async(make_batch(3, 300, [](int) { return 1; }), &r).ok());
  }
  std::optional<Status> closed;
  log_->close([&](Status st) { closed = std::move(st); });
  auto refused = log_->append(SharedBytes::copy_of(make_batch(1, 1, [](int) { return 1; })), {},
                              [](Result<AppendResult>) {});
  EXPECT_EQ(refused.error().code(), Errc::kShutdown);
  loop_.run_until([&] { return closed.has_value(); });
  ASSERT_TRUE(closed->ok());
  for (auto& r : results) {
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->ok());
  }
  EXPECT_EQ(log_->durable_offset(), Offset(60));
}

}  // namespace
}  // namespace strata::engine
