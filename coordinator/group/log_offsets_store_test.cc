#include "coordinator/group/log_offsets_store.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "io/disk_file_system.h"
#include "io/testing/loop.h"

namespace strata::coordinator {
namespace {

class LogOffsetsStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { open(); }

  void open() {
    index_ = index::IndexStore::open(dir_ / "index").value();
    engine::LogOptions o;
    o.uid = PartitionUid(99);
    o.dir = dir_ / "__consumer_offsets-7";
    o.fs = &fs_;
    o.index = index_.get();
    o.clock = &clock_;
    o.io = &loop_.io();
    partition_ = std::make_unique<replication::Partition>(
        "__consumer_offsets", PartitionId(7), engine::Log::open(o).value(),
        replication::Role::kLeader, LeaderEpoch(0));
    log_ = &partition_->log();
    store_ = std::make_unique<LogOffsetsStore>(*partition_, *index_);
    std::optional<Status> loaded;
    store_->load([&](Status st) { loaded = st; });
    loop_.run_until([&] { return loaded.has_value(); });
    ASSERT_TRUE(loaded->ok()) << loaded->error().to_string();
  }

  void close() {
    std::optional<Status> st;
    log_->close([&](Status s) { st = s; });
    loop_.run_until([&] { return st.has_value(); });
    store_.reset();
    partition_.reset();
    log_ = nullptr;
    ASSERT_TRUE(index_->flush().ok());
    index_.reset();
  }

  void append(std::vector<GroupRecord> records) {
    std::optional<Status> st;
    store_->append(std::move(records), [&](Status s) { st = s; });
    loop_.run_until([&] { return st.has_value(); });
    ASSERT_TRUE(st->ok()) << st->error().to_string();
  }

  void append_txn(int64_t pid, std::vector<GroupRecord> records) {
    std::optional<Status> st;
    store_->append_transactional(pid, 0, std::move(records), [&](Status s) { st = s; });
    loop_.run_until([&] { return st.has_value(); });
    ASSERT_TRUE(st->ok()) << st->error().to_string();
  }

  void marker(int64_t pid, bool commit) {
    std::optional<Status> st;
    store_->append_marker({pid, 0, 0, commit}, [&](Status s) { st = s; });
    loop_.run_until([&] { return st.has_value(); });
    ASSERT_TRUE(st->ok()) << st->error().to_string();
  }

  static GroupRecord commit(std::string group, std::string topic, int32_t p, int64_t offset) {
    GroupRecord r;
    r.group = std::move(group);
    r.topic = std::move(topic);
    r.partition = p;
    r.offset = CommittedOffset{offset, 1, "m" + std::to_string(offset), 1000 + offset};
    return r;
  }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem fs_{&loop_.ring()};
  ManualClock clock_;
  std::unique_ptr<index::IndexStore> index_;
  std::unique_ptr<replication::Partition> partition_;
  engine::Log* log_ = nullptr;
  std::unique_ptr<LogOffsetsStore> store_;
};

TEST_F(LogOffsetsStoreTest, CommitsAreReadableRightAfterAppend) {
  append({commit("g", "t", 0, 5), commit("g", "t", 1, 9), commit("h", "t", 0, 1)});
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 5);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->metadata, "m9");
  EXPECT_FALSE(store_->committed("g", "u", 0).value().has_value());
  auto all = store_->committed_all("g").value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].partition, 1);
  append({commit("g", "t", 0, 6)});  // a later commit replaces the earlier
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 6);
  GroupRecord tomb = commit("g", "t", 1, 0);
  tomb.offset.reset();
  append({tomb});
  EXPECT_FALSE(store_->committed("g", "t", 1).value().has_value());
  EXPECT_EQ(log_->log_end_offset(), Offset(5));  // one record per commit and tombstone
}

TEST_F(LogOffsetsStoreTest, ARestartReplaysOnlyTheTail) {
  append({commit("g", "t", 0, 1), commit("g", "t", 1, 2)});
  close();
  open();
  EXPECT_EQ(store_->records_replayed(), 0u);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 2);
}

TEST_F(LogOffsetsStoreTest, ADeletedIndexIsRebuiltFromTheLog) {
  GroupRecord meta;
  meta.kind = GroupRecord::Kind::kGroup;
  meta.group = "g";
  meta.metadata = StoredGroup{"consumer", 4, "range", "m", 5, {}};
  append({commit("g", "t", 0, 1), meta, commit("g", "t", 0, 3), commit("k", "t", 0, 8)});
  close();
  std::filesystem::remove_all(dir_ / "index");
  open();
  EXPECT_EQ(store_->records_replayed(), 4u);
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 3);
  auto groups = store_->groups().value();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].first, "g");
  ASSERT_TRUE(groups[0].second.has_value());
  EXPECT_EQ(groups[0].second->generation, 4);
  EXPECT_EQ(groups[1].first, "k");
  EXPECT_FALSE(groups[1].second.has_value());
}

TEST_F(LogOffsetsStoreTest, AFollowersViewTakesWhatTheWatermarkPassesSoLeadingReplaysNothing) {
  engine::LogOptions o;
  o.uid = PartitionUid(98);
  o.dir = dir_ / "follower" / "__consumer_offsets-7";
  o.fs = &fs_;
  o.index = index_.get();
  o.clock = &clock_;
  o.io = &loop_.io();
  replication::Partition follower("__consumer_offsets", PartitionId(7),
                                  engine::Log::open(o).value(), replication::Role::kFollower,
                                  LeaderEpoch(0));
  auto view = std::make_unique<LogOffsetsStore>(follower, *index_);
  view->follow();
  append({commit("g", "t", 0, 4), commit("g", "t", 1, 6)});
  // The follower copies the leader's batches; its watermark stays 0 until
  // the leader's reaches it.
  std::optional<Result<replication::ReadResult>> read;
  partition_->read_for_follower(Offset(0), 1 << 20,
                                [&](Result<replication::ReadResult> r) { read = std::move(r); });
  loop_.run_until([&] { return read.has_value(); });
  ASSERT_TRUE(read->ok());
  std::vector<std::byte> bytes;
  for (const auto& slice : (*read)->slices)
    bytes.insert(bytes.end(), slice.data(), slice.data() + slice.size());
  std::optional<Result<Offset>> copied;
  follower.append_from_leader(bytes, [&](Result<Offset> r) { copied = std::move(r); });
  loop_.run_until([&] { return copied.has_value(); });
  ASSERT_TRUE(copied->ok());
  loop_.run_until([&] { return follower.log().durable_offset() == Offset(2); });
  loop_.run_ready();
  EXPECT_FALSE(view->committed("g", "t", 0).value().has_value()) << "applied above the watermark";
  follower.set_leader_high_watermark(partition_->high_watermark());
  loop_.run_until([&] { return view->committed("g", "t", 1).value().has_value(); });
  EXPECT_EQ(view->committed("g", "t", 0).value()->offset, 4);
  // Leading now: the view is current, nothing to replay.
  view.reset();
  follower.become(replication::Role::kLeader, LeaderEpoch(1));
  LogOffsetsStore leader_store(follower, *index_);
  std::optional<Status> loaded;
  leader_store.load([&](Status st) { loaded = st; });
  loop_.run_until([&] { return loaded.has_value(); });
  ASSERT_TRUE(loaded->ok());
  EXPECT_EQ(leader_store.records_replayed(), 0u);
  EXPECT_EQ(leader_store.committed("g", "t", 1).value()->offset, 6);
  std::optional<Status> closed;
  follower.close([&](Status st) { closed = st; });
  loop_.run_until([&] { return closed.has_value(); });
}

TEST_F(LogOffsetsStoreTest, TransactionalCommitsTakeEffectAtTheirCommitMarkerAndSurviveARestart) {
  append({commit("g", "t", 0, 1)});
  append_txn(7, {commit("g", "t", 0, 10), commit("g", "t", 1, 11)});
  append_txn(8, {commit("g", "t", 2, 20)});
  // Written, not in effect: readers still see the offsets before them.
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 1);
  EXPECT_FALSE(store_->committed("g", "t", 1).value().has_value());
  EXPECT_TRUE(store_->pending_transactional("g", "t", 0));
  EXPECT_FALSE(store_->pending_transactional("g", "u", 0));
  marker(8, /*commit=*/false);
  EXPECT_FALSE(store_->pending_transactional("g", "t", 2));
  EXPECT_FALSE(store_->committed("g", "t", 2).value().has_value());
  // Producer 7's transaction is still open across a restart: the view
  // kept its records, and its commit marker then applies them.
  close();
  open();
  EXPECT_TRUE(store_->pending_transactional("g", "t", 1));
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 1);
  marker(7, /*commit=*/true);
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 10);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 11);
  EXPECT_FALSE(store_->committed("g", "t", 2).value().has_value());
  EXPECT_FALSE(store_->pending_transactional("g", "t", 0));
  // And a rebuild from the log reaches the same view.
  close();
  std::filesystem::remove_all(dir_ / "index");
  open();
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 10);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 11);
  EXPECT_FALSE(store_->committed("g", "t", 2).value().has_value());
}

TEST_F(LogOffsetsStoreTest, ARestartNeverReplaysWhatCameAfterAnOpenTransactionsFirstRecord) {
  append_txn(7, {commit("g", "t", 0, 100)});
  append_txn(8, {commit("g", "t", 1, 5)});  // open across everything below
  append({commit("g", "t", 2, 7)});
  marker(7, /*commit=*/true);
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 100);
  close();
  open();
  // Nothing is replayed, and producer 8's offsets are still held.
  EXPECT_EQ(store_->records_replayed(), 0u);
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 100);
  EXPECT_EQ(store_->committed("g", "t", 2).value()->offset, 7);
  EXPECT_TRUE(store_->pending_transactional("g", "t", 1));
  marker(8, /*commit=*/true);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 5);
}

// Kafka's rule for a partition's offset written both ways: the write
// appended later wins, whichever transaction commits when.
TEST_F(LogOffsetsStoreTest, OfATransactionalAndAPlainCommitTheOneAppendedLaterWins) {
  append({commit("g", "t", 0, 5)});  // before the transaction's: it wins at the commit
  append_txn(7, {commit("g", "t", 0, 10), commit("g", "t", 1, 11)});
  append({commit("g", "t", 1, 3)});  // after the transaction's: it wins
  EXPECT_TRUE(store_->pending_transactional("g", "t", 0));
  EXPECT_FALSE(store_->pending_transactional("g", "t", 1));
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 3);
  // Across a restart too: the view keeps which held writes were superseded.
  close();
  open();
  marker(7, /*commit=*/true);
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 10);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 3);
  // And a rebuild from the log reaches the same view.
  close();
  std::filesystem::remove_all(dir_ / "index");
  open();
  EXPECT_EQ(store_->committed("g", "t", 0).value()->offset, 10);
  EXPECT_EQ(store_->committed("g", "t", 1).value()->offset, 3);
}

}  // namespace
}  // namespace strata::coordinator
