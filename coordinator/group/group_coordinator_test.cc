#include "coordinator/group/group_coordinator.h"

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "base/testing/manual_timers.h"
#include "coordinator/group/testing/fake_offsets_store.h"
#include "coordinator/group/testing/subscription.h"

namespace strata::coordinator {
namespace {

using testing::FakeStore;

Bytes bytes(std::string_view s) {
  auto b = std::as_bytes(std::span<const char>(s.data(), s.size()));
  return Bytes(b.begin(), b.end());
}

// A ConsumerProtocolSubscription v0 naming `topics`, with empty user data.
Bytes subscription(const std::vector<std::string>& topics) {
  return testing::subscription_bytes(0, topics, Bytes(4));
}

class GroupCoordinatorTest : public ::testing::Test {
 protected:
  static constexpr const char* kGroup = "g1";

  void SetUp() override { reset(); }

  void reset(std::vector<std::pair<std::string, std::optional<StoredGroup>>> loaded = {}) {
    gc_ = std::make_unique<GroupCoordinator>(
        clock_, timers_, config_,
        [](const std::string& topic, int32_t p) { return topic != "missing" && p < 10; },
        [] { return std::vector<TopicMeta>{}; });
    for (int32_t p = 0; p < kOffsetsPartitions; ++p)
      gc_->host(p, &store_, loaded);
  }

  JoinArgs join_args(std::string member_id = "", std::optional<std::string> instance = std::nullopt,
                     std::vector<GroupProtocol> protocols = {{"range", bytes("meta")}}) {
    JoinArgs a;
    a.group_id = kGroup;
    a.member_id = std::move(member_id);
    a.instance_id = std::move(instance);
    a.client_id = "client";
    a.client_host = "/127.0.0.1";
    a.session_timeout_ms = 10000;
    a.rebalance_timeout_ms = 30000;
    a.protocol_type = "consumer";
    a.protocols = std::move(protocols);
    a.require_known_member_id = true;
    return a;
  }

  // Starts a join; the result lands in the returned slot when it completes.
  std::shared_ptr<std::optional<JoinResult>> join(JoinArgs a) {
    auto slot = std::make_shared<std::optional<JoinResult>>();
    gc_->join(std::move(a), [slot](JoinResult r) { *slot = std::move(r); });
    return slot;
  }

  std::shared_ptr<std::optional<SyncResult>> sync(
      const std::string& member, int32_t generation,
      std::vector<std::pair<std::string, Bytes>> a = {}) {
    auto slot = std::make_shared<std::optional<SyncResult>>();
    SyncArgs s;
    s.group_id = kGroup;
    s.member_id = member;
    s.generation = generation;
    s.assignments = std::move(a);
    gc_->sync(std::move(s), [slot](SyncResult r) { *slot = std::move(r); });
    return slot;
  }

  Errc heartbeat(const std::string& member, int32_t generation,
                 std::optional<std::string> instance = std::nullopt) {
    return gc_->heartbeat(HeartbeatArgs{kGroup, generation, member, std::move(instance)});
  }

  // Joins a new dynamic member through the MEMBER_ID_REQUIRED handshake;
  // returns the pending join slot and the member id.
  std::pair<std::shared_ptr<std::optional<JoinResult>>, std::string> join_new(
      std::vector<GroupProtocol> protocols = {{"range", bytes("meta")}}) {
    auto first = join(join_args("", std::nullopt, protocols));
    EXPECT_TRUE(first->has_value());
    EXPECT_EQ((*first)->error, Errc::kMemberIdRequired);
    std::string id = (*first)->member_id;
    EXPECT_FALSE(id.empty());
    return {join(join_args(id, std::nullopt, protocols)), id};
  }

  GroupState state() { return gc_->describe(kGroup).state; }

  // Lets the initial delay (extended by each newcomer) run out.
  void settle() {
    for (int i = 0; i < 60 && state() == GroupState::kPreparingRebalance; ++i)
      timers_.advance(500);
  }

  ManualClock clock_;
  strata::testing::ManualTimers timers_{clock_};
  GroupConfig config_;
  FakeStore store_;
  std::unique_ptr<GroupCoordinator> gc_;
};

TEST_F(GroupCoordinatorTest, FirstMemberWaitsTheInitialDelayThenLeadsAndSyncs) {
  auto [joined, id] = join_new();
  EXPECT_FALSE(joined->has_value());
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
  timers_.advance(config_.initial_rebalance_delay_ms - 1);
  EXPECT_FALSE(joined->has_value());
  timers_.advance(1);
  ASSERT_TRUE(joined->has_value());
  const auto& r = **joined;
  EXPECT_EQ(r.error, Errc::kOk);
  EXPECT_EQ(r.generation, 1);
  EXPECT_EQ(r.leader, id);
  EXPECT_EQ(r.member_id, id);
  EXPECT_EQ(r.protocol, "range");
  ASSERT_EQ(r.members.size(), 1u);
  EXPECT_EQ(r.members[0].metadata, bytes("meta"));
  EXPECT_EQ(state(), GroupState::kCompletingRebalance);

  auto synced = sync(id, 1, {{id, bytes("assignment")}});
  ASSERT_TRUE(synced->has_value());
  EXPECT_EQ((*synced)->error, Errc::kOk);
  EXPECT_EQ((*synced)->assignment, bytes("assignment"));
  EXPECT_EQ(state(), GroupState::kStable);
  // The group metadata was persisted with the generation and assignment.
  ASSERT_TRUE(store_.metadata.count(kGroup));
  EXPECT_EQ(store_.metadata[kGroup].generation, 1);
  EXPECT_EQ(store_.metadata[kGroup].members.at(0).assignment, bytes("assignment"));
  EXPECT_EQ(heartbeat(id, 1), Errc::kOk);
}

TEST_F(GroupCoordinatorTest,
       MembersJoiningDuringTheDelayShareOneGenerationAndFollowersWaitForTheLeader) {
  auto [a, ida] = join_new();
  timers_.advance(1000);
  auto [b, idb] = join_new();
  auto [c, idc] = join_new();
  settle();
  ASSERT_TRUE(a->has_value() && b->has_value() && c->has_value());
  EXPECT_EQ((*a)->generation, 1);
  EXPECT_EQ((*b)->generation, 1);
  EXPECT_EQ((*a)->leader, ida);
  EXPECT_EQ((*a)->members.size(), 3u);
  EXPECT_TRUE((*b)->members.empty());  // only the leader sees the members
  auto sb = sync(idb, 1);
  auto sc = sync(idc, 1);
  EXPECT_FALSE(sb->has_value());
  auto sa = sync(ida, 1, {{ida, bytes("A")}, {idb, bytes("B")}, {idc, bytes("C")}});
  ASSERT_TRUE(sa->has_value() && sb->has_value() && sc->has_value());
  EXPECT_EQ((*sa)->assignment, bytes("A"));
  EXPECT_EQ((*sb)->assignment, bytes("B"));
  EXPECT_EQ((*sc)->assignment, bytes("C"));
  EXPECT_EQ(state(), GroupState::kStable);
}

class StableGroup : public GroupCoordinatorTest {
 protected:
  void SetUp() override {
    GroupCoordinatorTest::SetUp();
    for (int i = 0; i < 3; ++i) {
      auto [slot, id] = join_new();
      joins_.push_back(slot);
      ids_.push_back(id);
    }
    settle();
    generation_ = (*joins_[0])->generation;
    for (size_t i = 1; i < ids_.size(); ++i)
      sync(ids_[i], generation_);
    std::vector<std::pair<std::string, Bytes>> a;
    for (const auto& id : ids_)
      a.emplace_back(id, bytes("part-of-" + id));
    sync(ids_[0], generation_, a);
    ASSERT_EQ(state(), GroupState::kStable);
  }
  // Keeps every member but `except` alive for `ms`, heartbeating each second.
  void keep_alive_for(int64_t ms, const std::string& except = "") {
    for (int64_t t = 0; t < ms; t += 1000) {
      for (const auto& id : ids_) {
        if (id != except) heartbeat(id, generation_);
      }
      timers_.advance(1000);
    }
  }
  std::vector<std::shared_ptr<std::optional<JoinResult>>> joins_;
  std::vector<std::string> ids_;
  int32_t generation_ = 0;
};

TEST_F(StableGroup, ASilentMemberIsRemovedAfterItsSessionTimeoutAndTheOthersRebalance) {
  keep_alive_for(9000, ids_[2]);
  EXPECT_EQ(state(), GroupState::kStable);
  keep_alive_for(2000, ids_[2]);
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(heartbeat(ids_[0], generation_), Errc::kRebalanceInProgress);
  EXPECT_EQ(heartbeat(ids_[2], generation_), Errc::kUnknownMemberId);
  auto j0 = join(join_args(ids_[0]));
  auto j1 = join(join_args(ids_[1]));
  // Everyone still in the group rejoined: the rebalance completes at once.
  ASSERT_TRUE(j0->has_value() && j1->has_value());
  EXPECT_EQ((*j0)->generation, generation_ + 1);
  EXPECT_EQ((*j0)->members.size() + (*j1)->members.size(), 2u);
}

TEST_F(StableGroup, LeavingTriggersAnImmediateRebalance) {
  auto r = gc_->leave(kGroup, {{ids_[1], std::nullopt}});
  EXPECT_EQ(r.error, Errc::kOk);
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(heartbeat(ids_[1], generation_), Errc::kUnknownMemberId);
  auto j0 = join(join_args(ids_[0]));
  auto j2 = join(join_args(ids_[2]));
  ASSERT_TRUE(j0->has_value() && j2->has_value());
  EXPECT_EQ((*j0)->generation, generation_ + 1);
}

TEST_F(StableGroup, MembersThatDoNotRejoinAreDroppedAtTheRebalanceTimeout) {
  gc_->leave(kGroup, {{ids_[0], std::nullopt}});  // the leader leaves
  auto j1 = join(join_args(ids_[1]));
  // Member 2 keeps heartbeating (and hears about the rebalance) but never
  // rejoins: the rebalance waits for it until the rebalance timeout.
  for (int s = 0; s < 29; ++s) {
    EXPECT_EQ(heartbeat(ids_[2], generation_), Errc::kRebalanceInProgress);
    timers_.advance(1000);
  }
  timers_.advance(999);
  EXPECT_FALSE(j1->has_value());
  timers_.advance(1);
  ASSERT_TRUE(j1->has_value());
  EXPECT_EQ((*j1)->generation, generation_ + 1);
  EXPECT_EQ((*j1)->leader, ids_[1]);  // a new leader
  ASSERT_EQ((*j1)->members.size(), 1u);
}

TEST_F(StableGroup, ProtocolMisuseGetsKafkasErrors) {
  EXPECT_EQ(heartbeat(ids_[0], generation_ + 5), Errc::kIllegalGeneration);
  EXPECT_EQ(heartbeat("nobody", generation_), Errc::kUnknownMemberId);
  EXPECT_EQ((*sync("nobody", generation_))->error, Errc::kUnknownMemberId);
  EXPECT_EQ((*sync(ids_[1], generation_ - 1))->error, Errc::kIllegalGeneration);
  auto bad_timeout = join_args();
  bad_timeout.session_timeout_ms = 1000;
  EXPECT_EQ((*join(bad_timeout))->error, Errc::kInvalidSessionTimeout);
  auto other_protocol = join_args("", std::nullopt, {{"roundrobin", bytes("x")}});
  EXPECT_EQ((*join(other_protocol))->error, Errc::kInconsistentGroupProtocol);
  auto other_type = join_args();
  other_type.protocol_type = "connect";
  EXPECT_EQ((*join(other_type))->error, Errc::kInconsistentGroupProtocol);
  EXPECT_EQ((*join(join_args("unknown-member")))->error, Errc::kUnknownMemberId);

  CommitArgs stale;
  stale.group_id = kGroup;
  stale.generation = generation_ - 1;
  stale.member_id = ids_[0];
  stale.partitions = {{"t", 0, 5, -1, std::nullopt}};
  std::vector<Errc> errs;
  gc_->commit(stale, [&](std::vector<Errc> e) { errs = e; });
  EXPECT_EQ(errs, std::vector<Errc>{Errc::kIllegalGeneration});
  CommitArgs simple;  // assign()-style commit into a group with members
  simple.group_id = kGroup;
  simple.partitions = stale.partitions;
  gc_->commit(simple, [&](std::vector<Errc> e) { errs = e; });
  EXPECT_EQ(errs, std::vector<Errc>{Errc::kUnknownMemberId});

  // During a rebalance: heartbeats and syncs say so; the group stays whole.
  gc_->leave(kGroup, {{ids_[2], std::nullopt}});
  EXPECT_EQ(heartbeat(ids_[0], generation_), Errc::kRebalanceInProgress);
  EXPECT_EQ((*sync(ids_[0], generation_))->error, Errc::kRebalanceInProgress);
  EXPECT_EQ(gc_->describe(kGroup).members.size(), 2u);
}

TEST_F(StableGroup, CommitsAreStoredAndFetchedAndCheckedPerPartition) {
  CommitArgs c;
  c.group_id = kGroup;
  c.generation = generation_;
  c.member_id = ids_[1];
  c.partitions = {{"t", 0, 42, 3, std::string("meta")},
                  {"missing", 0, 1, -1, std::nullopt},
                  {"t", 1, 7, -1, std::string(5000, 'm')}};
  std::vector<Errc> errs;
  gc_->commit(c, [&](std::vector<Errc> e) { errs = e; });
  EXPECT_EQ(errs, (std::vector<Errc>{Errc::kOk, Errc::kNotFound, Errc::kOffsetMetadataTooLarge}));
  auto fetched =
      gc_->fetch_offsets(kGroup, std::vector<TopicPartitionRef>{{"t", 0}, {"t", 1}}).value();
  ASSERT_EQ(fetched.size(), 2u);
  EXPECT_EQ(fetched[0].offset.offset, 42);
  EXPECT_EQ(fetched[0].offset.leader_epoch, 3);
  EXPECT_EQ(fetched[0].offset.metadata, "meta");
  EXPECT_EQ(fetched[0].offset.commit_timestamp, clock_.now_ms());
  EXPECT_EQ(fetched[1].offset.offset, -1);
  EXPECT_EQ(gc_->fetch_offsets(kGroup, std::nullopt).value().size(), 1u);
}

TEST_F(StableGroup,
       AStaticMemberRestartingWithinItsSessionTimeoutKeepsItsAssignmentWithoutARebalance) {
  // Replace member 1 with a static one first: rebuild the group statically.
  gc_->leave(kGroup, {{ids_[0], std::nullopt}, {ids_[1], std::nullopt}, {ids_[2], std::nullopt}});
  timers_.advance(30000);
  auto a = join(join_args("", "instance-a"));
  auto b = join(join_args("", "instance-b"));
  settle();
  ASSERT_TRUE(a->has_value() && b->has_value());
  std::string ida = (*a)->member_id, idb = (*b)->member_id;
  int32_t gen = (*a)->generation;
  std::string leader = (*a)->leader;
  std::string follower = leader == ida ? idb : ida;
  std::string follower_instance = leader == ida ? "instance-b" : "instance-a";
  sync(follower, gen);
  sync(leader, gen, {{ida, bytes("A")}, {idb, bytes("B")}});
  ASSERT_EQ(state(), GroupState::kStable);
  Bytes follower_assignment = follower == ida ? bytes("A") : bytes("B");

  // The follower's process restarts: a new JoinGroup with no member id.
  auto back = join(join_args("", follower_instance));
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->error, Errc::kOk);
  EXPECT_EQ((*back)->generation, gen);  // no new generation
  EXPECT_NE((*back)->member_id, follower);
  EXPECT_EQ(state(), GroupState::kStable);
  auto s = sync((*back)->member_id, gen);
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->assignment, follower_assignment);
  // The old incarnation is fenced; the leader carries on undisturbed.
  EXPECT_EQ(heartbeat(follower, gen, follower_instance), Errc::kFencedInstanceId);
  EXPECT_EQ(heartbeat(leader, gen), Errc::kOk);
  // Its JoinGroup with the old id is fenced too (not UNKNOWN_MEMBER_ID, which
  // would make it rejoin and take the instance back), and nothing moves.
  auto stale = join(join_args(follower, follower_instance));
  ASSERT_TRUE(stale->has_value());
  EXPECT_EQ((*stale)->error, Errc::kFencedInstanceId);
  EXPECT_EQ(state(), GroupState::kStable);
  EXPECT_EQ(heartbeat((*back)->member_id, gen, follower_instance), Errc::kOk);
}

TEST_F(GroupCoordinatorTest,
       AStaticLeaderRestartingKeepsTheGroupStableUnlessItsSubscriptionChanged) {
  // Owned partitions in a subscription change with every assignment; the
  // topics are what a new assignment would answer.
  auto meta = [](std::vector<std::string> topics, uint8_t owned) {
    Bytes b = subscription(topics);
    b.push_back(std::byte{owned});
    return b;
  };
  auto a = join(join_args("", "instance-a", {{"range", meta({"t1", "t2"}, 1)}}));
  auto b = join(join_args("", "instance-b", {{"range", meta({"t1", "t2"}, 2)}}));
  settle();
  ASSERT_TRUE(a->has_value() && b->has_value());
  std::string ida = (*a)->member_id, idb = (*b)->member_id;
  ASSERT_EQ((*a)->leader, ida);  // the first to join leads
  int32_t gen = (*b)->generation;
  sync(idb, gen);
  sync(ida, gen, {{ida, bytes("A")}, {idb, bytes("B")}});
  ASSERT_EQ(state(), GroupState::kStable);

  // The leader's process restarts: same topics (listed in another order),
  // other owned partitions. No rebalance; it leads the same generation.
  auto back = join(join_args("", "instance-a", {{"range", meta({"t2", "t1"}, 9)}}));
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->error, Errc::kOk);
  EXPECT_EQ((*back)->generation, gen);
  std::string new_a = (*back)->member_id;
  EXPECT_NE(new_a, ida);
  EXPECT_EQ((*back)->leader, new_a);
  EXPECT_EQ((*back)->members.size(), 2u);  // a leader gets the members (KIP-814)
  EXPECT_EQ(state(), GroupState::kStable);
  // Its SyncGroup may carry a fresh assignment; a stable group keeps its own.
  auto s = sync(new_a, gen, {{new_a, bytes("X")}, {idb, bytes("Y")}});
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->error, Errc::kOk);
  EXPECT_EQ((*s)->assignment, bytes("A"));
  auto sb = sync(idb, gen);
  ASSERT_TRUE(sb->has_value());
  EXPECT_EQ((*sb)->assignment, bytes("B"));
  EXPECT_EQ(heartbeat(idb, gen), Errc::kOk);
  EXPECT_EQ(heartbeat(ida, gen, "instance-a"), Errc::kFencedInstanceId);

  // Restarted again subscribing to another topic: that needs a rebalance.
  auto changed = join(join_args("", "instance-a", {{"range", meta({"t1", "t3"}, 0)}}));
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(heartbeat(idb, gen), Errc::kRebalanceInProgress);
  auto rejoin_b = join(join_args(idb, "instance-b", {{"range", meta({"t1", "t2"}, 2)}}));
  settle();
  ASSERT_TRUE(changed->has_value());
  EXPECT_EQ((*changed)->generation, gen + 1);
}

TEST_F(GroupCoordinatorTest, TheProtocolIsChosenByVote) {
  auto [a, ida] = join_new({{"range", bytes("1")}, {"roundrobin", bytes("1")}});
  auto [b, idb] = join_new({{"roundrobin", bytes("2")}, {"range", bytes("2")}});
  auto [c, idc] =
      join_new({{"roundrobin", bytes("3")}, {"range", bytes("3")}, {"sticky", bytes("3")}});
  settle();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->protocol, "roundrobin");
  for (const auto& m : (*a)->members) {
    EXPECT_EQ(m.metadata, m.member_id == ida   ? bytes("1")
                          : m.member_id == idb ? bytes("2")
                                               : bytes("3"));
  }
}

TEST_F(GroupCoordinatorTest, ProtocolTypesOtherThanConsumerWork) {
  auto args = join_args("", std::nullopt, {{"v1", bytes("worker-config")}});
  args.protocol_type = "connect";
  auto first = join(args);
  args.member_id = (*first)->member_id;
  auto j = join(args);
  timers_.advance(config_.initial_rebalance_delay_ms);
  ASSERT_TRUE(j->has_value());
  EXPECT_EQ((*j)->protocol_type, "connect");
  EXPECT_EQ((*j)->members.at(0).metadata, bytes("worker-config"));
  auto s = sync(args.member_id, (*j)->generation, {{args.member_id, bytes("tasks")}});
  EXPECT_EQ((*s)->assignment, bytes("tasks"));
  EXPECT_EQ(gc_->list().at(0).protocol_type, "connect");
}

TEST_F(GroupCoordinatorTest, SimpleCommitsCreateAnEmptyGroupThatCanBeDeleted) {
  CommitArgs c;
  c.group_id = kGroup;
  c.partitions = {{"t", 3, 100, -1, std::nullopt}};
  std::vector<Errc> errs;
  gc_->commit(c, [&](std::vector<Errc> e) { errs = e; });
  EXPECT_EQ(errs, std::vector<Errc>{Errc::kOk});
  EXPECT_EQ(state(), GroupState::kEmpty);
  EXPECT_EQ(gc_->fetch_offsets(kGroup, std::nullopt).value().at(0).offset.offset, 100);
  c.generation = 5;  // a generation for a group with no members
  c.member_id = "someone";
  gc_->commit(c, [&](std::vector<Errc> e) { errs = e; });
  EXPECT_EQ(errs, std::vector<Errc>{Errc::kUnknownMemberId});

  Errc deleted = Errc::kUnknownMemberId;
  gc_->delete_group(kGroup, [&](Errc e) { deleted = e; });
  EXPECT_EQ(deleted, Errc::kOk);
  EXPECT_TRUE(store_.offsets.empty());
  EXPECT_EQ(state(), GroupState::kDead);
  gc_->delete_group(kGroup, [&](Errc e) { deleted = e; });
  EXPECT_EQ(deleted, Errc::kGroupIdNotFound);
}

TEST_F(StableGroup, AGroupWithMembersCannotBeDeletedAndSubscribedOffsetsStay) {
  Errc deleted = Errc::kOk;
  gc_->delete_group(kGroup, [&](Errc e) { deleted = e; });
  EXPECT_EQ(deleted, Errc::kNonEmptyGroup);
}

TEST_F(GroupCoordinatorTest, OffsetDeleteRefusesTopicsTheGroupSubscribesTo) {
  auto [j, id] = join_new({{"range", subscription({"orders"})}});
  timers_.advance(config_.initial_rebalance_delay_ms);
  sync(id, (*j)->generation, {{id, bytes("a")}});
  CommitArgs c;
  c.group_id = kGroup;
  c.generation = (*j)->generation;
  c.member_id = id;
  c.partitions = {{"orders", 0, 1, -1, std::nullopt}, {"old", 0, 2, -1, std::nullopt}};
  gc_->commit(c, [](std::vector<Errc>) {});
  Errc top = Errc::kUnknownMemberId;
  std::vector<Errc> per;
  gc_->delete_offsets(kGroup, {{"orders", 0}, {"old", 0}}, [&](Errc e, std::vector<Errc> p) {
    top = e;
    per = p;
  });
  EXPECT_EQ(top, Errc::kOk);
  EXPECT_EQ(per, (std::vector<Errc>{Errc::kGroupSubscribedToTopic, Errc::kOk}));
  EXPECT_EQ(gc_->fetch_offsets(kGroup, std::nullopt).value().size(), 1u);
}

TEST_F(GroupCoordinatorTest, OffsetsOfEmptyGroupsExpireAfterTheRetention) {
  CommitArgs c;
  c.group_id = kGroup;
  c.partitions = {{"t", 0, 1, -1, std::nullopt}};
  gc_->commit(c, [](std::vector<Errc>) {});
  clock_.advance_ms(config_.offsets_retention_ms - 1);
  gc_->expire_offsets();
  EXPECT_EQ(store_.offsets.size(), 1u);
  clock_.advance_ms(2);
  gc_->expire_offsets();
  EXPECT_TRUE(store_.offsets.empty());
  EXPECT_EQ(state(), GroupState::kDead);
}

TEST_F(StableGroup, AfterARestartOffsetsAndGenerationSurviveAndMembersMustRejoin) {
  CommitArgs c;
  c.group_id = kGroup;
  c.generation = generation_;
  c.member_id = ids_[0];
  c.partitions = {{"t", 2, 77, -1, std::nullopt}};
  gc_->commit(c, [](std::vector<Errc>) {});
  auto loaded = store_.groups().value();
  reset(loaded);  // a new coordinator over the same store, as after a restart
  EXPECT_EQ(state(), GroupState::kEmpty);
  EXPECT_EQ(heartbeat(ids_[0], generation_), Errc::kUnknownMemberId);
  EXPECT_EQ(gc_->fetch_offsets(kGroup, std::nullopt).value().at(0).offset.offset, 77);
  auto [j, id] = join_new();
  timers_.advance(config_.initial_rebalance_delay_ms);
  ASSERT_TRUE(j->has_value());
  EXPECT_EQ((*j)->generation, generation_ + 1);  // generations keep increasing
}

TEST_F(GroupCoordinatorTest, UnhostedPartitionsAnswerLoadInProgress) {
  gc_->unhost(offsets_partition_for(kGroup));
  EXPECT_EQ((*join(join_args()))->error, Errc::kCoordinatorLoadInProgress);
  EXPECT_EQ(heartbeat("x", 1), Errc::kCoordinatorLoadInProgress);
}

TEST(GroupRecords, PartitionsMatchKafkasHashing) {
  // Values printed by Java's String.hashCode and Kafka's abs(hash) % 50.
  EXPECT_EQ(java_string_hash("my-group"), -1906497762);
  EXPECT_EQ(offsets_partition_for("my-group"), 12);
  EXPECT_EQ(java_string_hash("gr\u00fc\u00dfe"), 98768023);
  EXPECT_EQ(offsets_partition_for("gr\u00fc\u00dfe"), 23);
  EXPECT_EQ(java_string_hash("\U0001F600x"), 54959989);  // a surrogate pair in Java
  EXPECT_EQ(offsets_partition_for("\U0001F600x"), 39);
  EXPECT_EQ(java_string_hash(""), 0);
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE: Kafka's abs maps it to 0.
  EXPECT_EQ(java_string_hash("polygenelubricants"), INT32_MIN);
  EXPECT_EQ(offsets_partition_for("polygenelubricants"), 0);
}

TEST(GroupRecords, RecordsRoundTripAndTombstonesHaveNoValue) {
  GroupRecord off;
  off.group = "g";
  off.topic = "t";
  off.partition = 4;
  off.offset = CommittedOffset{10, 2, "m", 1234};
  auto decoded = decode_record(encode_key(off), *encode_value(off)).value();
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, off);
  GroupRecord grp;
  grp.kind = GroupRecord::Kind::kGroup;
  grp.group = "g";
  grp.metadata = StoredGroup{
      "consumer", 3, "range", "m1", 99, {{"m1", "i1", "c", "h", 300, 10, bytes("s"), bytes("a")}}};
  auto g2 = decode_record(encode_key(grp), *encode_value(grp)).value();
  ASSERT_TRUE(g2.has_value());
  EXPECT_EQ(*g2, grp);
  off.offset.reset();
  EXPECT_FALSE(encode_value(off).has_value());
  auto tomb = decode_record(encode_key(off), std::nullopt).value();
  EXPECT_FALSE(tomb->offset.has_value());
}

}  // namespace
}  // namespace strata::coordinator
