// The consumer-group protocol of KIP-848 in the group coordinator: joining,
// reconciliation without a partition ever owned twice, fencing, leaving,
// session and revocation timeouts, static members, subscriptions by regex,
// offset commits by member epoch, and the errors for bad input.
#include <gtest/gtest.h>

#include "base/testing/manual_timers.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/testing/assignments.h"
#include "coordinator/group/testing/fake_offsets_store.h"

namespace strata::coordinator {
namespace {

using testing::FakeStore;

const TopicId kOrders = testing::topic_id(1), kOrdersEu = testing::topic_id(2),
              kOther = testing::topic_id(3);

class ConsumerGroupTest : public ::testing::Test {
 protected:
  static constexpr const char* kGroup = "cg";

  void SetUp() override {
    config_.consumer_session_timeout_ms = 45000;
    config_.consumer_heartbeat_interval_ms = 5000;
    topics_ = {{"orders", kOrders, 6}, {"orders-eu", kOrdersEu, 2}, {"other", kOther, 3}};
    gc_ = std::make_unique<GroupCoordinator>(
        clock_, timers_, config_,
        [this](const std::string& topic, int32_t p) {
          for (const auto& t : topics_)
            if (t.name == topic) return p < t.partitions;
          return false;
        },
        [this] { return topics_; });
    for (int32_t p = 0; p < kOffsetsPartitions; ++p)
      gc_->host(p, &store_, {});
  }

  ConsumerHeartbeatArgs join_args(const std::string& member,
                                  std::vector<std::string> topics = {"orders"}) {
    ConsumerHeartbeatArgs a;
    a.group_id = kGroup;
    a.member_id = member;
    a.member_epoch = 0;
    a.rebalance_timeout_ms = 30000;
    a.subscribed_topic_names = std::move(topics);
    a.owned = Assignment{};
    a.client_id = "client-" + member;
    a.client_host = "/127.0.0.1";
    return a;
  }

  ConsumerHeartbeatResult heartbeat(ConsumerHeartbeatArgs a) {
    std::optional<ConsumerHeartbeatResult> out;
    gc_->consumer_heartbeat(std::move(a), [&](ConsumerHeartbeatResult r) { out = std::move(r); });
    EXPECT_TRUE(out.has_value());
    return *out;
  }

  // A member as a client keeps it: its epoch and what it owns.
  struct Client {
    std::string id;
    int32_t epoch = 0;
    Assignment owned;
  };

  // One heartbeat of `c`, applied as a client would: a new assignment
  // replaces what it owns (revoking first what is gone, at once here).
  ConsumerHeartbeatResult beat(Client& c, std::optional<std::string> instance = std::nullopt) {
    ConsumerHeartbeatArgs a;
    a.group_id = kGroup;
    a.member_id = c.id;
    a.member_epoch = c.epoch;
    a.instance_id = std::move(instance);
    a.owned = c.owned;
    auto r = heartbeat(a);
    if (r.error == Errc::kOk) {
      c.epoch = r.member_epoch;
      if (r.assignment) c.owned = *r.assignment;
    }
    return r;
  }

  Client join(const std::string& id, std::vector<std::string> topics = {"orders"}) {
    auto r = heartbeat(join_args(id, std::move(topics)));
    EXPECT_EQ(r.error, Errc::kOk) << r.message;
    EXPECT_TRUE(r.assignment.has_value());
    return Client{id, r.member_epoch, r.assignment.value_or(Assignment{})};
  }

  // No partition is owned by two clients.
  static void expect_disjoint(const std::vector<const Client*>& clients) {
    std::map<std::pair<TopicId, int32_t>, std::string> owner;
    for (const auto* c : clients)
      for (const auto& [t, parts] : c->owned)
        for (int32_t p : parts) {
          auto [it, fresh] = owner.emplace(std::make_pair(t, p), c->id);
          EXPECT_TRUE(fresh) << "partition " << p << " owned by " << it->second << " and " << c->id;
        }
  }

  // Heartbeats every client in turn until the group is stable; checks at
  // every step that no partition is owned twice.
  void settle(std::vector<Client*> clients) {
    std::vector<const Client*> view(clients.begin(), clients.end());
    for (int round = 0; round < 10; ++round) {
      for (auto* c : clients) {
        EXPECT_EQ(beat(*c).error, Errc::kOk);
        expect_disjoint(view);
      }
      if (gc_->describe_consumer(kGroup).state == GroupState::kStable) return;
    }
    ADD_FAILURE() << "group did not settle";
  }

  ManualClock clock_;
  strata::testing::ManualTimers timers_{clock_};
  GroupConfig config_;
  std::vector<TopicMeta> topics_;
  FakeStore store_;
  std::unique_ptr<GroupCoordinator> gc_;
};

TEST_F(ConsumerGroupTest, FirstMemberGetsEveryPartitionAtOnce) {
  auto r = heartbeat(join_args("m1"));
  ASSERT_EQ(r.error, Errc::kOk) << r.message;
  EXPECT_EQ(r.member_id, "m1");
  EXPECT_EQ(r.member_epoch, 1);
  EXPECT_EQ(r.heartbeat_interval_ms, 5000);
  ASSERT_TRUE(r.assignment.has_value());
  EXPECT_EQ((*r.assignment)[kOrders], (std::set<int32_t>{0, 1, 2, 3, 4, 5}));
  auto d = gc_->describe_consumer(kGroup);
  EXPECT_EQ(d.state, GroupState::kStable);
  EXPECT_EQ(d.group_epoch, 1);
  EXPECT_EQ(d.assignment_epoch, 1);
  EXPECT_EQ(d.assignor, "uniform");
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].client_id, "client-m1");
  // An unchanged heartbeat carries no assignment.
  Client c{"m1", 1, *r.assignment};
  auto again = beat(c);
  EXPECT_EQ(again.error, Errc::kOk);
  EXPECT_EQ(again.member_epoch, 1);
  EXPECT_FALSE(again.assignment.has_value());
}

TEST_F(ConsumerGroupTest, AJoiningMemberGetsPartitionsOnlyAfterTheOwnerRevokedThem) {
  Client a = join("a");
  ASSERT_EQ(testing::partition_count(a.owned), 6u);
  Client b = join("b");
  // b is at the new epoch, but everything is still a's.
  EXPECT_EQ(b.epoch, 2);
  EXPECT_EQ(testing::partition_count(b.owned), 0u);
  EXPECT_EQ(gc_->describe_consumer(kGroup).state, GroupState::kReconciling);
  // a learns it keeps half; its epoch waits until it has revoked the rest.
  auto r = beat(a);
  ASSERT_TRUE(r.assignment.has_value());
  EXPECT_EQ(testing::partition_count(a.owned), 3u);
  EXPECT_EQ(a.epoch, 1);
  expect_disjoint({&a, &b});
  // Its next heartbeat shows the revocation done: it moves to epoch 2.
  beat(a);
  EXPECT_EQ(a.epoch, 2);
  beat(b);
  EXPECT_EQ(testing::partition_count(b.owned), 3u);
  expect_disjoint({&a, &b});
  EXPECT_EQ(gc_->describe_consumer(kGroup).state, GroupState::kStable);
}

TEST_F(ConsumerGroupTest, APartitionIsNeverOwnedTwiceAsTenMembersComeAndGo) {
  std::vector<std::unique_ptr<Client>> clients;
  auto all = [&] {
    std::vector<Client*> out;
    for (auto& c : clients)
      out.push_back(c.get());
    return out;
  };
  for (int i = 0; i < 10; ++i) {
    clients.push_back(std::make_unique<Client>(join("m" + std::to_string(i), {"orders", "other"})));
    settle(all());
  }
  // 9 partitions over 10 members: one each but one.
  size_t total = 0;
  for (auto& c : clients)
    total += testing::partition_count(c->owned);
  EXPECT_EQ(total, 9u);
  // Three leave; the rest take their partitions over.
  for (int i = 0; i < 3; ++i) {
    ConsumerHeartbeatArgs leave;
    leave.group_id = kGroup;
    leave.member_id = clients.front()->id;
    leave.member_epoch = -1;
    auto r = heartbeat(leave);
    EXPECT_EQ(r.error, Errc::kOk);
    EXPECT_EQ(r.member_epoch, -1);
    clients.erase(clients.begin());
    settle(all());
  }
  total = 0;
  for (auto& c : clients) {
    total += testing::partition_count(c->owned);
    EXPECT_GE(testing::partition_count(c->owned), 1u);
  }
  EXPECT_EQ(total, 9u);
}

TEST_F(ConsumerGroupTest, StaleAndFutureEpochsAndUnknownMembersAreRefused) {
  Client a = join("a");
  Client b = join("b");
  settle({&a, &b});
  ASSERT_EQ(a.epoch, 2);
  Client future = a;
  future.epoch = 7;
  EXPECT_EQ(beat(future).error, Errc::kFencedMemberEpoch);
  // One epoch behind with what it owns: a member that missed an answer.
  Client behind = a;
  behind.epoch = 1;
  auto r = beat(behind);
  EXPECT_EQ(r.error, Errc::kOk);
  EXPECT_EQ(r.member_epoch, 2);
  EXPECT_TRUE(r.assignment.has_value());
  // Behind and owning what it was not given: fenced.
  Client greedy = behind;
  greedy.epoch = 1;
  greedy.owned = b.owned;
  EXPECT_EQ(beat(greedy).error, Errc::kFencedMemberEpoch);
  Client ghost{"ghost", 3, {}};
  EXPECT_EQ(beat(ghost).error, Errc::kUnknownMemberId);
}

TEST_F(ConsumerGroupTest, AMemberSilentForItsSessionIsRemovedAndItsPartitionsMove) {
  Client a = join("a");
  Client b = join("b");
  settle({&a, &b});
  for (int i = 0; i < 10; ++i) {
    timers_.advance(5000);
    beat(a);
  }
  EXPECT_EQ(beat(b).error, Errc::kUnknownMemberId);
  EXPECT_EQ(testing::partition_count(a.owned), 6u);
  EXPECT_EQ(gc_->describe_consumer(kGroup).members.size(), 1u);
}

TEST_F(ConsumerGroupTest, AMemberThatNeverRevokesIsFencedAfterItsRebalanceTimeout) {
  Client a = join("a");
  Client b = join("b");
  // a hears it must give up half, but keeps reporting all six.
  auto r = beat(a);
  ASSERT_TRUE(r.assignment.has_value());
  const Assignment everything{{kOrders, {0, 1, 2, 3, 4, 5}}};
  Client stubborn{"a", a.epoch, everything};
  for (int i = 0; i < 5; ++i) {
    timers_.advance(5000);
    stubborn.owned = everything;
    EXPECT_EQ(beat(stubborn).error, Errc::kOk);
    EXPECT_EQ(stubborn.epoch, 1);
    beat(b);
    stubborn.owned = everything;
    expect_disjoint({&stubborn, &b});
  }
  timers_.advance(10000);  // past a's 30 s rebalance timeout
  EXPECT_EQ(beat(stubborn).error, Errc::kUnknownMemberId);
  beat(b);
  EXPECT_EQ(testing::partition_count(b.owned), 6u);
}

TEST_F(ConsumerGroupTest, AStaticMemberComesBackUnderANewIdToItsOwnPartitions) {
  auto args = join_args("s1");
  args.instance_id = "instance-1";
  auto joined = heartbeat(args);
  ASSERT_EQ(joined.error, Errc::kOk);
  Client s{"s1", joined.member_epoch, *joined.assignment};
  Client b = join("b");
  settle({&s, &b});
  Assignment mine = s.owned;
  int32_t group_epoch = gc_->describe_consumer(kGroup).group_epoch;
  // Another process with the same instance id while s1 is live: refused.
  auto dup = join_args("s2");
  dup.instance_id = "instance-1";
  EXPECT_EQ(heartbeat(dup).error, Errc::kUnreleasedInstanceId);
  // s1 restarts: leaves with -2, its partitions wait for it.
  ConsumerHeartbeatArgs leave;
  leave.group_id = kGroup;
  leave.member_id = "s1";
  leave.member_epoch = -2;
  leave.instance_id = "instance-1";
  auto left = heartbeat(leave);
  EXPECT_EQ(left.error, Errc::kOk);
  EXPECT_EQ(left.member_epoch, -2);
  beat(b);
  EXPECT_EQ(b.owned.size(), 1u);
  EXPECT_EQ(testing::partition_count(b.owned), 3u);
  auto back = heartbeat(dup);
  ASSERT_EQ(back.error, Errc::kOk) << back.message;
  EXPECT_EQ(back.member_id, "s2");
  EXPECT_EQ(*back.assignment, mine);
  EXPECT_EQ(gc_->describe_consumer(kGroup).group_epoch, group_epoch);
  // The old id is gone.
  Client old{"s1", s.epoch, s.owned};
  EXPECT_EQ(beat(old).error, Errc::kUnknownMemberId);
}

TEST_F(ConsumerGroupTest, AStaticMemberGoneLongerThanItsSessionLosesItsPartitions) {
  auto args = join_args("s1");
  args.instance_id = "instance-1";
  ASSERT_EQ(heartbeat(args).error, Errc::kOk);
  Client b = join("b");
  ConsumerHeartbeatArgs leave;
  leave.group_id = kGroup;
  leave.member_id = "s1";
  leave.member_epoch = -2;
  leave.instance_id = "instance-1";
  ASSERT_EQ(heartbeat(leave).error, Errc::kOk);
  for (int i = 0; i < 10; ++i) {
    timers_.advance(5000);
    beat(b);
  }
  EXPECT_EQ(testing::partition_count(b.owned), 6u);
  ASSERT_EQ(gc_->describe_consumer(kGroup).members.size(), 1u);
}

TEST_F(ConsumerGroupTest, RegexSubscriptionsFollowTopicsAsTheyAppear) {
  auto args = join_args("r");
  args.subscribed_topic_names = std::vector<std::string>{};
  args.subscribed_topic_regex = "orders.*";
  auto r = heartbeat(args);
  ASSERT_EQ(r.error, Errc::kOk) << r.message;
  EXPECT_EQ(testing::partition_count(*r.assignment), 8u);
  EXPECT_FALSE(r.assignment->count(kOther));
  Client c{"r", r.member_epoch, *r.assignment};
  topics_.push_back({"orders-us", testing::topic_id(4), 4});
  beat(c);
  EXPECT_EQ(testing::partition_count(c.owned), 12u);
  EXPECT_EQ(c.epoch, 2);
  // Partitions added to a subscribed topic are assigned as well.
  topics_[0].partitions = 8;
  beat(c);
  EXPECT_EQ(testing::partition_count(c.owned), 14u);
}

TEST_F(ConsumerGroupTest, BadInputGetsKafkasErrors) {
  auto bad_assignor = join_args("m");
  bad_assignor.server_assignor = "sticky";
  EXPECT_EQ(heartbeat(bad_assignor).error, Errc::kUnsupportedAssignor);
  auto bad_regex = join_args("m");
  bad_regex.subscribed_topic_regex = "orders(";
  EXPECT_EQ(heartbeat(bad_regex).error, Errc::kInvalidRegularExpression);
  auto no_timeout = join_args("m");
  no_timeout.rebalance_timeout_ms = -1;
  EXPECT_EQ(heartbeat(no_timeout).error, Errc::kInvalidArgument);
  auto no_subscription = join_args("m");
  no_subscription.subscribed_topic_names.reset();
  EXPECT_EQ(heartbeat(no_subscription).error, Errc::kInvalidArgument);
  auto owns_on_join = join_args("m");
  owns_on_join.owned = Assignment{{kOrders, {1}}};
  EXPECT_EQ(heartbeat(owns_on_join).error, Errc::kInvalidArgument);
  auto static_leave_without_instance = join_args("m");
  static_leave_without_instance.member_epoch = -2;
  EXPECT_EQ(heartbeat(static_leave_without_instance).error, Errc::kInvalidArgument);
  // None of them created the group.
  EXPECT_EQ(gc_->describe_consumer(kGroup).error, Errc::kGroupIdNotFound);
  auto range = join_args("m");
  range.server_assignor = "range";
  EXPECT_EQ(heartbeat(range).error, Errc::kOk);
  EXPECT_EQ(gc_->describe_consumer(kGroup).assignor, "range");
}

TEST_F(ConsumerGroupTest, OffsetCommitsAreCheckedAgainstTheMemberEpoch) {
  Client a = join("a");
  auto commit = [&](const std::string& member, int32_t epoch) {
    CommitArgs c;
    c.group_id = kGroup;
    c.member_id = member;
    c.generation = epoch;
    c.partitions.push_back({"orders", 0, 42, -1, std::nullopt});
    std::vector<Errc> out;
    gc_->commit(c, [&](std::vector<Errc> e) { out = std::move(e); });
    return out.at(0);
  };
  EXPECT_EQ(commit("a", a.epoch), Errc::kOk);
  EXPECT_EQ(commit("a", a.epoch + 1), Errc::kStaleMemberEpoch);
  EXPECT_EQ(commit("nobody", a.epoch), Errc::kUnknownMemberId);
  EXPECT_EQ(commit("", -1), Errc::kUnknownMemberId);  // a simple commit to a live group
  auto fetched = gc_->fetch_offsets(kGroup, std::vector<TopicPartitionRef>{{"orders", 0}});
  ASSERT_TRUE(fetched.ok());
  EXPECT_EQ(fetched->at(0).offset.offset, 42);
}

TEST_F(ConsumerGroupTest, ClassicAndConsumerGroupsDoNotMix) {
  join("a");
  JoinArgs classic;
  classic.group_id = kGroup;
  classic.session_timeout_ms = 10000;
  classic.rebalance_timeout_ms = 10000;
  classic.protocol_type = "consumer";
  classic.protocols = {{"range", {}}};
  std::optional<JoinResult> joined;
  gc_->join(classic, [&](JoinResult r) { joined = r; });
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->error, Errc::kInconsistentGroupProtocol);
  // DescribeGroups shows a consumer group as it shows no group.
  EXPECT_EQ(gc_->describe(kGroup).state, GroupState::kDead);
  auto listed = gc_->list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].type, GroupType::kConsumer);
  EXPECT_EQ(listed[0].protocol_type, "consumer");
  EXPECT_EQ(listed[0].state, GroupState::kStable);
  // Once empty, it may be deleted.
  ConsumerHeartbeatArgs leave;
  leave.group_id = kGroup;
  leave.member_id = "a";
  leave.member_epoch = -1;
  EXPECT_EQ(heartbeat(leave).error, Errc::kOk);
  std::optional<Errc> deleted;
  gc_->delete_group(kGroup, [&](Errc e) { deleted = e; });
  EXPECT_EQ(deleted, Errc::kOk);
}

}  // namespace
}  // namespace strata::coordinator
