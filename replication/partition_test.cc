#include "replication/partition.h"

#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
#include "engine/control_record.h"
#include "engine/log_manager.h"
#include "engine/record_batch.h"
#include "io/disk_file_system.h"
#include "io/fault_file_system.h"
#include "io/testing/loop.h"
#include "replication/partition_manager.h"

namespace strata::replication {
namespace {

class PartitionTest : public ::testing::Test {
 protected:
  void SetUp() override { open_manager(); }

  void open_manager() {
    logs_ =
        engine::LogManager::open({.data_dir = dir_.path(), .clock = &clock_, .fs = &disk_}).value();
    replicas_ = std::make_unique<PartitionManager>(*logs_, fs_, loop_.io());
  }

  // Drops everything without closing, as a crash would, then loses what
  // was never synced, as a power cut would.
  void power_cut() {
    replicas_.reset();
    loop_.run_ready();
    logs_.reset();
    ASSERT_TRUE(fs_.drop_unsynced().ok());
  }

  ReplicaSpec spec(int32_t p, Role role = Role::kLeader, int32_t epoch = 0) {
    engine::TopicConfig config;
    config.durability = durability_;
    config.min_insync_replicas = min_insync_;
    return ReplicaSpec{PartitionUid(100 + static_cast<uint64_t>(p)),
                       "orders",
                       PartitionId(p),
                       config,
                       role,
                       LeaderEpoch(epoch)};
  }

  void reconcile(const std::vector<ReplicaSpec>& wanted,
                 const PartitionManager::Hooks& hooks = {}) {
    bool done = false;
    replicas_->reconcile(wanted, hooks, [&] { done = true; });
    loop_.run_until([&] { return done; });
  }

  SharedBytes batch(int records, const std::string& tag) {
    engine::BatchBuilder b;
    for (int i = 0; i < records; ++i)
      b.add({.key = "k", .value = tag + "-" + std::to_string(i), .timestamp = clock_.now_ms()});
    return SharedBytes::adopt(b.build().value());
  }

  Result<AppendResult> append(Partition& p, std::vector<SharedBytes> batches,
                              AppendOptions options = {}) {
    std::optional<Result<AppendResult>> out;
    p.append(std::move(batches), options, [&](Result<AppendResult> r) { out = std::move(r); });
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }

  // The batches readable from `offset`, once the high watermark reached
  // the log end (on fsync topics it follows the flush each append starts).
  std::vector<engine::BatchHeader> read_all(Partition& p, Offset from = Offset(0)) {
    loop_.run_until([&] { return p.high_watermark() == p.log().log_end_offset(); });
    std::vector<engine::BatchHeader> out;
    for (;;) {
      std::optional<Result<ReadResult>> r;
      p.read(from, 1 << 20, [&](Result<ReadResult> res) { r = std::move(res); });
      loop_.run_until([&] { return r.has_value(); });
      EXPECT_TRUE(r->ok());
      if (!r->ok() || (*r)->bytes == 0) return out;
      for (const auto& slice : (*r)->slices) {
        for (size_t pos = 0; pos < slice.size();) {
          auto h = engine::read_batch_header(slice.data() + pos);
          out.push_back(h);
          pos += h.total_size();
          from = h.next_offset();
        }
      }
    }
  }

  // What the leader's read_for_follower gives from `from`: its bytes.
  std::vector<std::byte> leader_bytes(Partition& leader, Offset from) {
    std::optional<Result<ReadResult>> r;
    leader.read_for_follower(from, 1 << 20, [&](Result<ReadResult> res) { r = std::move(res); });
    loop_.run_until([&] { return r.has_value(); });
    EXPECT_TRUE(r->ok());
    std::vector<std::byte> out;
    for (const auto& slice : (*r)->slices)
      out.insert(out.end(), slice.data(), slice.data() + slice.size());
    return out;
  }
  Result<Offset> copy(Partition& follower, const std::vector<std::byte>& bytes) {
    std::optional<Result<Offset>> out;
    follower.append_from_leader(bytes, [&](Result<Offset> r) { out = std::move(r); });
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }
  Status truncate(Partition& p, Offset offset) {
    std::optional<Status> out;
    p.truncate_to(offset, [&](Status st) { out = std::move(st); });
    loop_.run_until([&] { return out.has_value(); });
    return *out;
  }
  // Copies everything the leader has beyond the follower's end.
  void catch_up(Partition& leader, Partition& follower) {
    while (follower.log().log_end_offset() < leader.log().log_end_offset()) {
      auto r = copy(follower, leader_bytes(leader, follower.log().log_end_offset()));
      ASSERT_TRUE(r.ok()) << r.error().to_string();
    }
    loop_.run_until([&] { return leader.high_watermark() == leader.log().log_end_offset(); });
    follower.set_leader_high_watermark(leader.high_watermark());
  }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem disk_{&loop_.ring()};
  io::FaultFileSystem fs_{disk_, loop_.io()};
  ManualClock clock_;
  engine::Durability durability_ = engine::Durability::kFsync;
  int64_t min_insync_ = 1;
  std::unique_ptr<engine::LogManager> logs_;
  std::unique_ptr<PartitionManager> replicas_;
};

TEST_F(PartitionTest, ALeaderAppendsAllBatchesOrNone) {
  reconcile({spec(0)});
  auto* p = replicas_->find(spec(0).uid);
  ASSERT_NE(p, nullptr);
  auto r = append(*p, {batch(2, "a"), batch(3, "b")});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->base_offset, Offset(0));
  EXPECT_EQ(r->last_offset, Offset(4));
  // A corrupt batch behind a good one: neither is appended.
  auto bad = batch(1, "bad");
  std::vector<std::byte> corrupt(bad.data(), bad.data() + bad.size());
  corrupt.back() ^= std::byte{0xff};
  auto refused = append(*p, {batch(2, "c"), SharedBytes::adopt(std::move(corrupt))});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), Errc::kCorruptMessage);
  EXPECT_EQ(p->log().log_end_offset(), Offset(5));
  auto empty = append(*p, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code(), Errc::kInvalidRecord);
  auto seen = read_all(*p);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].base_offset, Offset(2));
  EXPECT_EQ(p->high_watermark(), Offset(5));
}

// KIP-890: a transactional write that would open its producer's
// transaction here waits for the coordinator's word; writes of the same
// producer that come meanwhile wait behind it and keep their order, however
// the answers come back; a transaction ended while the check was out
// refuses the write.
TEST_F(PartitionTest, TransactionalWritesWaitForTheirVerificationInArrivalOrder) {
  reconcile({spec(0)});
  auto* p = replicas_->find(spec(0).uid);
  auto txn_batch = [&](int32_t sequence, int16_t epoch = 0) {
    engine::BatchBuilder b({.producer_id = 9,
                            .producer_epoch = epoch,
                            .base_sequence = sequence,
                            .transactional = true});
    b.add({.key = "k", .value = "v" + std::to_string(sequence), .timestamp = clock_.now_ms()});
    return SharedBytes::adopt(b.build().value());
  };
  // Without a way to verify, refused.
  auto refused = append(*p, {txn_batch(0)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), Errc::kInvalidTxnState);

  std::vector<std::function<void(Status)>> asked;
  AppendOptions options;
  options.verify_txn = [&](int64_t producer_id, int16_t, std::function<void(Status)> done) {
    EXPECT_EQ(producer_id, 9);
    asked.push_back(std::move(done));
  };
  std::vector<Result<AppendResult>> results;
  for (int32_t seq : {0, 1, 2}) {
    p->append({txn_batch(seq)}, options,
              [&](Result<AppendResult> r) { results.push_back(std::move(r)); });
  }
  loop_.run_ready();
  ASSERT_EQ(asked.size(), 1u) << "one check at a time per producer";
  EXPECT_TRUE(results.empty());
  asked[0](ok_status());
  loop_.run_until([&] { return results.size() == 3; });
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error().to_string();
    EXPECT_EQ(results[i]->base_offset, Offset(static_cast<int64_t>(i)));
  }
  EXPECT_EQ(asked.size(), 1u) << "the transaction was open for the later two";

  // The coordinator ends the transaction; the next one's first write is
  // checked again, and a marker landing during the check makes it stale.
  ASSERT_TRUE(append(*p, {SharedBytes::adopt(engine::build_marker_batch({9, 0, 0, true}, 1))},
                     {.from_client = false})
                  .ok());
  std::optional<Result<AppendResult>> late;
  p->append({txn_batch(3)}, options, [&](Result<AppendResult> r) { late = std::move(r); });
  loop_.run_ready();
  ASSERT_EQ(asked.size(), 2u);
  ASSERT_TRUE(append(*p, {SharedBytes::adopt(engine::build_marker_batch({9, 1, 0, false}, 1))},
                     {.from_client = false})
                  .ok());
  asked[1](ok_status());
  loop_.run_until([&] { return late.has_value(); });
  ASSERT_FALSE(late->ok());
  EXPECT_EQ(late->error().code(), Errc::kInvalidTxnState);
  // A refusal from the coordinator is the write's answer.
  std::optional<Result<AppendResult>> denied;
  p->append({txn_batch(0, 1)}, options, [&](Result<AppendResult> r) { denied = std::move(r); });
  loop_.run_ready();
  ASSERT_EQ(asked.size(), 3u);
  asked[2](Error(Errc::kInvalidTxnState, "not in the transaction"));
  loop_.run_until([&] { return denied.has_value(); });
  ASSERT_FALSE(denied->ok());
  EXPECT_EQ(denied->error().code(), Errc::kInvalidTxnState);
}

TEST_F(PartitionTest, OnlyTheLeaderTakesAppendsAndItStampsItsEpoch) {
  reconcile({spec(0, Role::kFollower, 4)});
  auto* p = replicas_->find(spec(0).uid);
  ASSERT_NE(p, nullptr);
  auto refused = append(*p, {batch(1, "x")});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), Errc::kNotLeader);
  EXPECT_EQ(p->log().log_end_offset(), Offset(0));

  reconcile({spec(0, Role::kLeader, 5)});
  ASSERT_EQ(replicas_->find(spec(0).uid), p);  // the same replica, not reopened
  EXPECT_EQ(p->role(), Role::kLeader);
  ASSERT_TRUE(append(*p, {batch(1, "y")}).ok());
  // An older epoch from a stale view changes nothing.
  p->become(Role::kFollower, LeaderEpoch(3));
  EXPECT_EQ(p->role(), Role::kLeader);
  EXPECT_EQ(p->leader_epoch(), LeaderEpoch(5));
  ASSERT_TRUE(append(*p, {batch(1, "z")}).ok());
  auto seen = read_all(*p);
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& h : seen)
    EXPECT_EQ(h.leader_epoch, LeaderEpoch(5));
}

TEST_F(PartitionTest, WaitersWakeWhenTheHighWatermarkPassesThemOrTheRoleChanges) {
  reconcile({spec(0)});
  auto* p = replicas_->find(spec(0).uid);
  auto token = std::make_shared<int>(0);
  int woken = 0;
  p->wait(Offset(0), token, [&] { ++woken; });
  EXPECT_EQ(woken, 0);
  ASSERT_TRUE(append(*p, {batch(1, "a")}).ok());
  loop_.run_until([&] { return p->high_watermark() == Offset(1); });
  loop_.run_until([&] { return woken == 1; });
  // Already past: fires at once. Expired tokens are never fired.
  p->wait(Offset(0), token, [&] { ++woken; });
  EXPECT_EQ(woken, 2);
  {
    auto gone = std::make_shared<int>(0);
    p->wait(Offset(1), gone, [&] { ++woken; });
  }
  p->wait(Offset(1), token, [&] { ++woken; });
  p->become(Role::kFollower, LeaderEpoch(1));
  EXPECT_EQ(woken, 3);
}

TEST_F(PartitionTest, AcknowledgedDurableAppendsSurviveAPowerCut) {
  reconcile({spec(0), spec(1)});
  std::vector<std::pair<int32_t, Offset>> acked;
  for (int i = 0; i < 20; ++i) {
    int32_t part = i % 2;
    auto r = append(*replicas_->find(spec(part).uid), {batch(3, "v" + std::to_string(i))},
                    {.acks_all = true});
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    acked.emplace_back(part, r->last_offset);
  }
  // Appends nobody waited for may be lost; acknowledged ones may not.
  std::optional<Result<AppendResult>> unacked;
  replicas_->find(spec(0).uid)->append({batch(3, "late")}, {}, [&](auto r) { unacked = r; });
  power_cut();
  open_manager();
  reconcile({spec(0), spec(1)});
  for (auto [part, last] : acked) {
    auto* p = replicas_->find(spec(part).uid);
    ASSERT_NE(p, nullptr);
    EXPECT_GT(p->high_watermark(), last) << "partition " << part;
  }
  EXPECT_EQ(read_all(*replicas_->find(spec(1).uid)).size(), 10u);
}

TEST_F(PartitionTest, ReconcileOpensMissingReplicasAndDeletesTheOnesNoLongerHere) {
  std::vector<int32_t> opened, closing;
  PartitionManager::Hooks hooks{[&](Partition& p) { opened.push_back(p.id().value()); },
                                [&](Partition& p) { closing.push_back(p.id().value()); }};
  reconcile({spec(0), spec(1, Role::kFollower, 2)}, hooks);
  EXPECT_EQ(replicas_->size(), 2u);
  std::sort(opened.begin(), opened.end());
  EXPECT_EQ(opened, (std::vector<int32_t>{0, 1}));
  ASSERT_TRUE(append(*replicas_->find(spec(0).uid), {batch(1, "kept")}).ok());
  auto dir1 = logs_->partition_dir("orders", PartitionId(1));
  ASSERT_TRUE(std::filesystem::exists(dir1));

  // Partition 1 is no longer hosted here (role none): closed and deleted.
  reconcile({spec(0)}, hooks);
  EXPECT_EQ(closing, (std::vector<int32_t>{1}));
  EXPECT_EQ(replicas_->find(spec(1).uid), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir1));
  EXPECT_EQ(opened.size(), 2u);  // partition 0 was not reopened
  EXPECT_EQ(read_all(*replicas_->find(spec(0).uid)).size(), 1u);

  bool closed = false;
  replicas_->close_all([&](Status st) {
    EXPECT_TRUE(st.ok());
    closed = true;
  });
  loop_.run_until([&] { return closed; });
}

TEST_F(PartitionTest, ReplicatedTopicsFlushWhenFlushMessagesSaysSo) {
  durability_ = engine::Durability::kReplicated;
  auto s = spec(0);
  s.config.flush_messages = 4;
  reconcile({s});
  auto* p = replicas_->find(s.uid);
  ASSERT_TRUE(append(*p, {batch(3, "a")}).ok());
  // The high watermark is the log end; nothing asked for a sync yet.
  EXPECT_EQ(p->high_watermark(), Offset(3));
  EXPECT_EQ(p->log().fsync_count(), 0u);
  ASSERT_TRUE(append(*p, {batch(1, "b")}).ok());
  loop_.run_until([&] { return p->log().fsync_count() == 1; });
  EXPECT_EQ(p->log().durable_offset(), Offset(4));
}

TEST_F(PartitionTest, AFollowerCopiesItsLeaderBatchForBatch) {
  reconcile({spec(0, Role::kLeader, 2), spec(1, Role::kFollower, 2)});
  auto& leader = *replicas_->find(spec(0).uid);
  auto& follower = *replicas_->find(spec(1).uid);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(append(leader, {batch(2 + i, "b" + std::to_string(i))}).ok());
  loop_.run_until([&] { return leader.high_watermark() == leader.log().log_end_offset(); });
  // Until it hears the leader's watermark a follower exposes nothing.
  ASSERT_TRUE(copy(follower, leader_bytes(leader, Offset(0))).ok());
  EXPECT_EQ(follower.log().log_end_offset(), leader.log().log_end_offset());
  EXPECT_EQ(follower.high_watermark(), Offset(0));
  follower.set_leader_high_watermark(leader.high_watermark());
  auto mine = read_all(follower);
  auto theirs = read_all(leader);
  ASSERT_EQ(mine.size(), 3u);
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(mine[i].base_offset, theirs[i].base_offset);
    EXPECT_EQ(mine[i].leader_epoch, LeaderEpoch(2));
    EXPECT_EQ(mine[i].crc, theirs[i].crc);
  }
  EXPECT_EQ(follower.log().leader_epochs(), leader.log().leader_epochs());
  // Each side refuses the other's kind of write.
  EXPECT_EQ(copy(leader, leader_bytes(leader, Offset(0))).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(append(follower, {batch(1, "x")}).error().code(), Errc::kNotLeader);
  // Records that end inside a batch: the whole batches before it are kept.
  ASSERT_TRUE(append(leader, {batch(2, "c0")}).ok());
  ASSERT_TRUE(append(leader, {batch(2, "c1")}).ok());
  auto more = leader_bytes(leader, follower.log().log_end_offset());
  more.resize(more.size() - 10);
  auto cut = copy(follower, more);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code(), Errc::kTruncatedBatch);
  EXPECT_EQ(follower.log().log_end_offset(), leader.log().log_end_offset() - 2);
}

TEST_F(PartitionTest, ADivergedFollowerTruncatesWhereItsEpochEndsOnTheLeaderThenMatchesIt) {
  // Both led partition-like logs at epoch 1; they agree on the first two
  // batches, then each appended its own.
  reconcile({spec(0, Role::kLeader, 1), spec(1, Role::kLeader, 1)});
  auto& a = *replicas_->find(spec(0).uid);
  auto& b = *replicas_->find(spec(1).uid);
  ASSERT_TRUE(append(a, {batch(2, "same0")}).ok());
  ASSERT_TRUE(append(a, {batch(2, "same1")}).ok());
  reconcile({spec(0, Role::kLeader, 1), spec(1, Role::kFollower, 1)});
  catch_up(a, b);
  reconcile({spec(0, Role::kFollower, 1), spec(1, Role::kLeader, 1)});
  ASSERT_TRUE(append(b, {batch(2, "only-b")}).ok());  // acked by b alone, then b is cut off
  // a takes over at epoch 3 and appends on; b returns as its follower.
  reconcile({spec(0, Role::kLeader, 3), spec(1, Role::kFollower, 3)});
  ASSERT_TRUE(append(a, {batch(2, "a-after")}).ok());
  ASSERT_TRUE(append(a, {batch(3, "a-after2")}).ok());

  // b asks a where its last epoch (1) ends, and truncates there.
  int32_t last = b.log().leader_epochs().rbegin()->first;
  ASSERT_EQ(last, 1);
  auto end = a.log().end_offset_for_epoch(LeaderEpoch(last));
  EXPECT_EQ(end.epoch, LeaderEpoch(1));
  EXPECT_EQ(end.end_offset, Offset(4));
  ASSERT_TRUE(truncate(b, std::min(end.end_offset, b.log().log_end_offset())).ok());
  catch_up(a, b);
  auto mine = read_all(b);
  auto theirs = read_all(a);
  ASSERT_EQ(mine.size(), theirs.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(mine[i].base_offset, theirs[i].base_offset) << i;
    EXPECT_EQ(mine[i].crc, theirs[i].crc) << i;
  }
  EXPECT_EQ(b.log().leader_epochs(), a.log().leader_epochs());
  // On the leader only a follower truncates.
  EXPECT_EQ(truncate(a, Offset(0)).code(), Errc::kInvalidArgument);
}

TEST_F(PartitionTest, ALeaderWhoseReplicasGrowKeepsItsWatermark) {
  durability_ = engine::Durability::kReplicated;
  reconcile({spec(0, Role::kLeader, 1)});
  auto& leader = *replicas_->find(spec(0).uid);
  ASSERT_TRUE(append(leader, {batch(3, "x")}).ok());
  ASSERT_EQ(leader.high_watermark(), Offset(3));
  // A follower is added: until it fetches, nothing new is exposed, but
  // what consumers could read stays readable.
  leader.set_assignment({.self = 1, .replicas = {1, 2}, .isr = {1, 2}});
  EXPECT_EQ(leader.high_watermark(), Offset(3));
  ASSERT_TRUE(append(leader, {batch(2, "y")}).ok());
  EXPECT_EQ(leader.high_watermark(), Offset(3));
  leader.on_follower_fetch(2, Offset(5), Offset(5));
  EXPECT_EQ(leader.high_watermark(), Offset(5));
}

// acks=all on a leader of three replicas: the answer waits for the ISR.
class AcksAllTest : public PartitionTest {
 protected:
  Partition& leader(std::vector<int32_t> isr, int64_t lag_ms = 10000) {
    reconcile({spec(0, Role::kLeader, 1)});
    auto& p = *replicas_->find(spec(0).uid);
    p.set_assignment({.self = 1,
                      .replicas = {1, 2, 3},
                      .isr = std::move(isr),
                      .partition_epoch = 5,
                      .lag_time_max_ms = lag_ms});
    return p;
  }
  // Starts an acks=all append; the result lands in `out`.
  void start(Partition& p, std::optional<Result<AppendResult>>& out, int64_t timeout_ms = 30000) {
    p.append({batch(2, "a")}, {.acks_all = true, .timeout_ms = timeout_ms},
             [&out](Result<AppendResult> r) { out = std::move(r); });
    loop_.run_until([&] { return p.log().log_end_offset() == Offset(2); });
    loop_.run_ready();
  }
};

TEST_F(AcksAllTest, TheAnswerWaitsUntilEveryInSyncReplicaHoldsTheBatch) {
  durability_ = engine::Durability::kReplicated;
  min_insync_ = 2;
  auto& p = leader({1, 2, 3});
  std::optional<Result<AppendResult>> out;
  start(p, out);
  EXPECT_FALSE(out.has_value());
  p.on_follower_fetch(2, Offset(2), Offset(0));
  loop_.run_ready();
  EXPECT_FALSE(out.has_value()) << "replica 3 is in sync and does not hold it yet";
  p.on_follower_fetch(3, Offset(2), Offset(0));
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_TRUE(out->ok()) << out->error().to_string();
  EXPECT_EQ((*out)->base_offset, Offset(0));
  EXPECT_EQ((*out)->last_offset, Offset(1));
}

TEST_F(AcksAllTest, OnFsyncTopicsTheFollowersMustHaveSyncedIt) {
  min_insync_ = 2;
  auto& p = leader({1, 2});
  std::optional<Result<AppendResult>> out;
  start(p, out);
  p.on_follower_fetch(2, Offset(2), Offset(0));  // holds it, not synced
  loop_.run_ready();
  EXPECT_FALSE(out.has_value());
  p.on_follower_fetch(2, Offset(2), Offset(2));
  loop_.run_until([&] { return out.has_value(); });
  EXPECT_TRUE(out->ok());
}

TEST_F(AcksAllTest, TooFewInSyncReplicasRefuseBeforeAppending) {
  min_insync_ = 2;
  auto& p = leader({1});
  auto r = append(p, {batch(1, "x")}, {.acks_all = true});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotEnoughReplicas);
  EXPECT_EQ(p.log().log_end_offset(), Offset(0));
  // acks=1 still appends.
  EXPECT_TRUE(append(p, {batch(1, "x")}).ok());
  EXPECT_EQ(p.log().log_end_offset(), Offset(1));
}

TEST_F(AcksAllTest, ASingleReplicaBelowMinInsyncRefusesToo) {
  min_insync_ = 2;
  reconcile({spec(0)});
  auto& p = *replicas_->find(spec(0).uid);
  auto r = append(p, {batch(1, "x")}, {.acks_all = true});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotEnoughReplicas);
}

TEST_F(AcksAllTest, AnIsrShrinkingBelowMinInsyncWhileWaitingFailsTheAnswer) {
  durability_ = engine::Durability::kReplicated;
  min_insync_ = 2;
  auto& p = leader({1, 2});
  std::optional<Result<AppendResult>> out;
  start(p, out);
  EXPECT_FALSE(out.has_value());
  // The controller took replica 2 out (it died).
  p.set_assignment({.self = 1, .replicas = {1, 2, 3}, .isr = {1}, .partition_epoch = 6});
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kNotEnoughReplicasAfterAppend);
  EXPECT_EQ(p.log().log_end_offset(), Offset(2));  // appended all the same
}

TEST_F(AcksAllTest, TheRequestTimeoutEndsTheWait) {
  durability_ = engine::Durability::kReplicated;
  auto& p = leader({1, 2});
  std::optional<Result<AppendResult>> out;
  start(p, out, /*timeout_ms=*/1000);
  clock_.advance_ms(999);
  p.tick();
  loop_.run_ready();
  EXPECT_FALSE(out.has_value());
  clock_.advance_ms(1);
  p.tick();
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kTimedOut);
}

TEST_F(AcksAllTest, TheRequestTimeoutEndsTheWaitAtItsDeadlineWithoutATick) {
  durability_ = engine::Durability::kReplicated;
  auto& p = leader({1, 2});
  std::optional<Result<AppendResult>> out;
  start(p, out, /*timeout_ms=*/20);
  clock_.advance_ms(20);
  // No tick: the partition's own timer answers at the deadline.
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kTimedOut);
}

TEST_F(AcksAllTest, LosingTheLeadershipFailsTheWait) {
  durability_ = engine::Durability::kReplicated;
  auto& p = leader({1, 2});
  std::optional<Result<AppendResult>> out;
  start(p, out);
  p.become(Role::kFollower, LeaderEpoch(2));
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kNotLeader);
}

// Demoted while its write is still in flight: the write completes on a
// follower, which must not answer as if it were a replica alone (the fault
// harness found a woken leader acknowledging at offsets its successor had
// given out).
TEST_F(AcksAllTest, LosingTheLeadershipWhileTheWriteIsInFlightFailsTheAppend) {
  durability_ = engine::Durability::kReplicated;
  min_insync_ = 2;
  auto& p = leader({1, 2, 3});
  std::optional<Result<AppendResult>> out;
  p.append({batch(2, "a")}, {.acks_all = true, .timeout_ms = 30000},
           [&out](Result<AppendResult> r) { out = std::move(r); });
  p.become(Role::kFollower, LeaderEpoch(2));
  loop_.run_until([&] { return out.has_value(); });
  ASSERT_FALSE(out->ok());
  EXPECT_EQ(out->error().code(), Errc::kNotLeader);
}

TEST_F(AcksAllTest, ALaggingFollowerIsProposedForRemovalOnceAndAgainAfterTheRetry) {
  durability_ = engine::Durability::kReplicated;
  auto& p = leader({1, 2, 3}, /*lag_ms=*/1000);
  EXPECT_FALSE(p.isr_proposal().has_value());
  ASSERT_TRUE(append(p, {batch(2, "a")}).ok());
  clock_.advance_ms(600);
  p.on_follower_fetch(3, Offset(2), Offset(2));  // 3 keeps up; 2 never fetches
  clock_.advance_ms(600);
  auto proposal = p.isr_proposal();
  ASSERT_TRUE(proposal.has_value());
  EXPECT_EQ(proposal->isr, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(proposal->leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(proposal->partition_epoch, 5);
  EXPECT_EQ(proposal->topic, "orders");
  // In flight: not proposed again until the retry time passed...
  EXPECT_FALSE(p.isr_proposal().has_value());
  clock_.advance_ms(Partition::kProposalRetryMs);
  p.on_follower_fetch(3, Offset(2), Offset(2));
  EXPECT_TRUE(p.isr_proposal().has_value());
  // ...and once accepted there is nothing left to propose, until 2 catches
  // up: then it is proposed back in, at once.
  p.set_assignment({.self = 1,
                    .replicas = {1, 2, 3},
                    .isr = {1, 3},
                    .partition_epoch = 6,
                    .lag_time_max_ms = 1000});
  EXPECT_FALSE(p.isr_proposal().has_value());
  // The manager hears it at the fetch itself, not at its next look.
  std::vector<IsrProposal> heard;
  replicas_->set_isr_listener([&](std::vector<IsrProposal> proposals) {
    for (auto& x : proposals)
      heard.push_back(std::move(x));
  });
  p.on_follower_fetch(2, Offset(2), Offset(2));
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].isr, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(heard[0].partition_epoch, 6);
}

TEST_F(AcksAllTest, AFollowerThatCatchesUpIsProposedBackAtTheFetchThatShowsIt) {
  durability_ = engine::Durability::kReplicated;
  auto& p = leader({1, 2, 3}, /*lag_ms=*/1000);
  std::vector<IsrProposal> heard;
  p.set_isr_proposer([&](IsrProposal proposal) { heard.push_back(std::move(proposal)); });
  p.set_assignment({.self = 1,
                    .replicas = {1, 2, 3},
                    .isr = {1, 3},
                    .partition_epoch = 6,
                    .lag_time_max_ms = 1000});
  ASSERT_TRUE(append(p, {batch(2, "a")}).ok());
  // A member's fetches, and 2's below the high watermark, say nothing; the
  // one that reaches it proposes 2 back at once.
  p.on_follower_fetch(3, Offset(2), Offset(2));
  p.on_follower_fetch(2, Offset(0), Offset(0));
  EXPECT_TRUE(heard.empty());
  p.on_follower_fetch(2, Offset(2), Offset(2));
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].isr, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(heard[0].partition_epoch, 6);
  // In flight: the next fetches do not ask again, nor does the tick.
  p.on_follower_fetch(2, Offset(2), Offset(2));
  EXPECT_EQ(heard.size(), 1u);
  EXPECT_FALSE(p.isr_proposal().has_value());
}

TEST_F(PartitionTest, AFollowerMovesItsLogStartUpToTheLeadersWithinWhatItHolds) {
  durability_ = engine::Durability::kReplicated;
  reconcile({spec(0, Role::kLeader, 1), spec(1, Role::kFollower, 1)});
  auto& leader = *replicas_->find(spec(0).uid);
  auto& follower = *replicas_->find(spec(1).uid);
  ASSERT_TRUE(append(leader, {batch(3, "a")}).ok());
  ASSERT_TRUE(append(leader, {batch(3, "b")}).ok());
  catch_up(leader, follower);
  // DeleteRecords on the leader: the follower follows at its next fetch.
  ASSERT_TRUE(leader.delete_records(Offset(3)).ok());
  follower.set_leader_log_start(leader.log().log_start_offset());
  EXPECT_EQ(follower.log().log_start_offset(), Offset(3));
  // Never back, never beyond its own end, and never on a leader.
  follower.set_leader_log_start(Offset(1));
  EXPECT_EQ(follower.log().log_start_offset(), Offset(3));
  follower.set_leader_log_start(Offset(100));
  EXPECT_EQ(follower.log().log_start_offset(), Offset(6));
  leader.set_leader_log_start(Offset(5));
  EXPECT_EQ(leader.log().log_start_offset(), Offset(3));
}

// A follower applies a fetch response in one call: the records, then the
// leader's watermark and log start; on an fsync topic the answer waits for
// the copy to be synced, and an emptied log restarts at the batches' base.
TEST_F(PartitionTest, AFollowerAppliesAFetchResponseAndSyncsItOnFsyncTopics) {
  reconcile({spec(0, Role::kLeader, 1), spec(1, Role::kFollower, 1)});
  auto& leader = *replicas_->find(spec(0).uid);
  auto& follower = *replicas_->find(spec(1).uid);
  ASSERT_TRUE(append(leader, {batch(3, "a")}).ok());
  ASSERT_TRUE(append(leader, {batch(3, "b")}).ok());
  loop_.run_until([&] { return leader.high_watermark() == leader.log().log_end_offset(); });
  ASSERT_TRUE(leader.delete_records(Offset(4)).ok());
  auto apply = [&](Offset from) {
    auto bytes = leader_bytes(leader, from);
    std::optional<Status> out;
    follower.apply_from_leader(SharedBytes::copy_of(bytes), leader.high_watermark(),
                               leader.log().log_start_offset(),
                               [&](Status st) { out = std::move(st); });
    loop_.run_until([&] { return out.has_value(); });
    return *out;
  };
  // The leader's log starts at 4, inside the batch based at 3. A follower
  // emptied to start at 4 (as the fetcher does below a leader's log start)
  // restarts at 3 to take that batch whole, then moves its start to 4.
  std::optional<Status> emptied;
  follower.restart_at(Offset(4), [&](Status st) { emptied = std::move(st); });
  loop_.run_until([&] { return emptied.has_value(); });
  ASSERT_TRUE(emptied->ok());
  ASSERT_TRUE(apply(Offset(4)).ok());
  auto at = follower.follower_position();
  EXPECT_EQ(follower.log().log_start_offset(), Offset(4));
  EXPECT_EQ(at.log_end, leader.log().log_end_offset());
  EXPECT_EQ(at.durable, at.log_end);  // synced before the answer
  EXPECT_EQ(at.high_watermark, leader.high_watermark());
  EXPECT_EQ(at.last_epoch, 1);
  // Cutting above the log end changes nothing.
  std::optional<Status> cut;
  follower.truncate_above(Offset(100), [&](Status st) { cut = std::move(st); });
  loop_.run_until([&] { return cut.has_value(); });
  ASSERT_TRUE(cut->ok());
  EXPECT_EQ(follower.follower_position().log_end, leader.log().log_end_offset());
}

}  // namespace
}  // namespace strata::replication
