#include "replication/partition.h"

#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
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

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem disk_{&loop_.ring()};
  io::FaultFileSystem fs_{disk_, loop_.io()};
  ManualClock clock_;
  engine::Durability durability_ = engine::Durability::kFsync;
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
                    {.wait_durable = true});
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

}  // namespace
}  // namespace strata::replication
