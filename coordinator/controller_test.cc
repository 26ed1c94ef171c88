#include "coordinator/controller.h"

#include <gtest/gtest.h>

#include "base/testing/manual_timers.h"
#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "coordinator/testing/cluster_member.h"

namespace strata::coordinator {
namespace {

using testing::ClusterMember;

// Brokers over one embedded store on one manual clock. Each broker has its
// own timers, so one can be paused (its keep-alives stop) while time passes
// for the others and for the store.
class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ =
        EmbeddedStore::open(dir_ / "meta.json", {.clock = &clock_, .lease_check_interval_ms = 0})
            .value();
  }
  void TearDown() override {
    members_.clear();
    timers_.clear();
    store_.reset();
  }

  ClusterMember& add(int32_t id) {
    timers_[id] = std::make_unique<strata::testing::ManualTimers>(clock_);
    auto m = std::make_unique<ClusterMember>(*store_, clock_, *timers_[id], id);
    EXPECT_TRUE(m->join().ok());
    m->registration.start();
    auto& ref = *m;
    members_[id] = std::move(m);
    return ref;
  }
  // A SIGKILL: the broker's keys stay until its lease runs out.
  void kill(int32_t id) {
    members_.erase(id);
    timers_.erase(id);
  }
  // `ms` pass; the brokers in `running` keep their leases alive, the store
  // expires the others'.
  void pass(int64_t ms, const std::vector<int32_t>& running) {
    for (int64_t t = 0; t < ms; t += 500) {
      clock_.advance_ms(500);
      for (int32_t id : running)
        timers_.at(id)->advance(0);
      store_->tick();
    }
  }
  const PartitionState& state(ClusterMember& m, const std::string& topic, int32_t p) {
    return *m.catalog->snapshot()->find(topic)->state(p);
  }

  strata::testing::TempDir dir_;
  ManualClock clock_;
  std::unique_ptr<EmbeddedStore> store_;
  std::map<int32_t, std::unique_ptr<strata::testing::ManualTimers>> timers_;
  std::map<int32_t, std::unique_ptr<ClusterMember>> members_;
};

TEST_F(ControllerTest, TheFirstBrokerControlsAndPlacementSpreadsLeadersOverLiveBrokers) {
  auto& a = add(1);
  add(2);
  add(3);
  ASSERT_TRUE(a.catalog->refresh().ok());
  auto snap = a.catalog->snapshot();
  EXPECT_EQ(snap->controller_id, 1);
  EXPECT_EQ(snap->brokers.size(), 3u);
  ASSERT_TRUE(a.catalog->create_topic("orders", 6, 1, {}, false).ok());
  std::map<int32_t, int> led;
  for (int32_t p = 0; p < 6; ++p) {
    const auto& s = state(a, "orders", p);
    EXPECT_EQ(s.replicas, std::vector<int32_t>{s.leader});
    ++led[s.leader];
  }
  EXPECT_EQ(led, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
  // Every broker reads the same states.
  ASSERT_TRUE(members_[3]->catalog->refresh().ok());
  for (int32_t p = 0; p < 6; ++p)
    EXPECT_EQ(state(*members_[3], "orders", p), state(a, "orders", p));
}

TEST_F(ControllerTest, ABrokerWhoseLeaseExpiresLosesLeadershipAndGetsItBackWhenItReturns) {
  auto& a = add(1);
  add(2);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(a.catalog->create_topic("t", 2, 1, {}, false).ok());
  int32_t on_two = state(a, "t", 0).leader == 2 ? 0 : 1;
  ASSERT_EQ(state(a, "t", on_two).leader, 2);
  auto before = state(a, "t", on_two);

  kill(2);
  pass(5000, {1});  // within the TTL: nothing changes yet
  EXPECT_EQ(a.step().value(), 0u);
  pass(2000, {1});
  EXPECT_EQ(a.step().value(), 1u);
  const auto& offline = state(a, "t", on_two);
  EXPECT_EQ(offline.leader, -1);  // RF 1: no one else holds it
  EXPECT_EQ(offline.leader_epoch, before.leader_epoch + 1);
  EXPECT_GT(offline.partition_epoch, before.partition_epoch);
  EXPECT_EQ(offline.isr, std::vector<int32_t>{2});  // the last in-sync replica stays
  EXPECT_EQ(state(a, "t", 1 - on_two).leader, 1);   // the other partition is untouched

  add(2);
  EXPECT_EQ(a.step().value(), 1u);
  EXPECT_EQ(state(a, "t", on_two).leader, 2);
  EXPECT_EQ(state(a, "t", on_two).leader_epoch, before.leader_epoch + 2);
}

TEST_F(ControllerTest, ADeadLeaderIsReplacedFromTheIsr) {
  auto& a = add(1);
  add(2);
  add(3);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(a.catalog->create_topic("t", 1, 1, {}, false).ok());
  // A three-replica state, as replication will create them.
  auto s = state(a, "t", 0);
  s.replicas = {3, 1, 2};
  s.leader = 3;
  s.isr = {3, 1, 2};
  ++s.leader_epoch;
  ++s.partition_epoch;
  ASSERT_TRUE(a.catalog->update_states({{"t", 0, s}}).ok());
  kill(3);
  pass(7000, {1, 2});
  EXPECT_EQ(a.step().value(), 1u);
  EXPECT_EQ(state(a, "t", 0).leader, 1);
  EXPECT_EQ(state(a, "t", 0).isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(state(a, "t", 0).leader_epoch, s.leader_epoch + 1);
}

TEST_F(ControllerTest, ADeposedControllerCanChangeNothing) {
  auto& a = add(1);
  auto& b = add(2);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(a.catalog->create_topic("t", 2, 1, {}, false).ok());
  // Broker 1 pauses past its session: its lease expires, broker 2 takes over.
  pass(7000, {2});
  ASSERT_TRUE(b.step().ok());
  EXPECT_EQ(b.catalog->snapshot()->controller_id, 2);
  EXPECT_TRUE(b.election.leads());
  for (int32_t p = 0; p < 2; ++p)
    EXPECT_NE(state(b, "t", p).leader, 1);
  auto revision = store_->range("/strata/").value().revision;
  // Broker 1 wakes up still believing it leads; every write it tries fails.
  EXPECT_TRUE(a.election.leads());
  auto r = a.catalog->create_topic("late", 1, 1, {}, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotController);
  EXPECT_EQ(a.catalog->delete_topic("t").code(), Errc::kNotController);
  EXPECT_EQ(store_->range("/strata/").value().revision, revision);
  // And the new controller's view is intact.
  ASSERT_TRUE(b.catalog->create_topic("next", 1, 1, {}, false).ok());
}

TEST_F(ControllerTest, PreferredElectionMovesLeadershipBack) {
  auto& a = add(1);
  add(2);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(a.catalog->create_topic("t", 1, 1, {}, false).ok());
  auto s = state(a, "t", 0);
  s.replicas = {1, 2};
  s.leader = 2;
  s.isr = {1, 2};
  ++s.leader_epoch;
  ++s.partition_epoch;
  ASSERT_TRUE(a.catalog->update_states({{"t", 0, s}}).ok());
  auto out = a.controller->elect({{"t", 0}}, Election::kPreferred).value();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].result.ok()) << out[0].result.error().to_string();
  EXPECT_EQ(state(a, "t", 0).leader, 1);
  EXPECT_EQ(state(a, "t", 0).leader_epoch, s.leader_epoch + 1);
  // Again: nothing to do, and the answer says so.
  out = a.controller->elect({{"t", 0}}, Election::kPreferred).value();
  EXPECT_EQ(out[0].result.code(), Errc::kInvalidArgument);
  out = a.controller->elect({{"t", 7}}, Election::kPreferred).value();
  EXPECT_EQ(out[0].result.code(), Errc::kNotFound);
  // Every partition, when none is named: none needs it now.
  EXPECT_TRUE(a.controller->elect({}, Election::kPreferred).value().empty());
  // Only the controller elects.
  EXPECT_EQ(members_[2]->controller->elect({}, Election::kPreferred).error().code(),
            Errc::kNotController);
}

TEST_F(ControllerTest, UncleanElectionsOnlyWhereTheTopicAllowsThemOrAnAdminAsks) {
  auto& a = add(1);
  auto& b = add(2);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(
      a.catalog->create_topic("unclean", 1, 1, {{"unclean.leader.election.enable", "true"}}, false)
          .ok());
  ASSERT_TRUE(a.catalog->create_topic("clean", 1, 1, {}, false).ok());
  // Both led by 1, the only in-sync replica; 2 lags behind.
  std::vector<StateChange> lagging;
  for (std::string t : {"unclean", "clean"}) {
    auto s = state(a, t, 0);
    s.replicas = {1, 2};
    s.leader = 1;
    s.isr = {1};
    ++s.leader_epoch;
    ++s.partition_epoch;
    lagging.push_back({t, 0, s});
  }
  ASSERT_TRUE(a.catalog->update_states(lagging).ok());
  kill(1);
  pass(7000, {2});
  ASSERT_TRUE(b.step().ok());
  ASSERT_TRUE(b.election.leads());
  EXPECT_EQ(state(b, "unclean", 0).leader, 2);
  EXPECT_EQ(state(b, "unclean", 0).isr, std::vector<int32_t>{2});
  EXPECT_EQ(state(b, "unclean", 0).leader_epoch, lagging[0].next.leader_epoch + 1);
  EXPECT_EQ(state(b, "clean", 0).leader, -1);
  EXPECT_EQ(state(b, "clean", 0).isr, std::vector<int32_t>{1});
  // An admin's unclean election (ElectLeaders type 1) overrides the config.
  auto out = b.controller->elect({{"clean", 0}}, Election::kUnclean).value();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].result.ok()) << out[0].result.error().to_string();
  ASSERT_TRUE(b.catalog->refresh().ok());
  EXPECT_EQ(state(b, "clean", 0).leader, 2);
  EXPECT_EQ(state(b, "clean", 0).isr, std::vector<int32_t>{2});
  // Led by a live replica: none needed.
  out = b.controller->elect({{"clean", 0}}, Election::kUnclean).value();
  EXPECT_EQ(out[0].result.code(), Errc::kInvalidArgument);
  EXPECT_TRUE(b.controller->elect({}, Election::kUnclean).value().empty());
}

TEST_F(ControllerTest, LeadersChangeTheIsrOnlyAtTheStateTheyRead) {
  auto& a = add(1);
  add(2);
  add(3);
  ASSERT_TRUE(a.catalog->refresh().ok());
  ASSERT_TRUE(a.catalog->create_topic("t", 1, 3, {}, false, false, {{2, 1, 3}}).ok());
  auto s = state(a, "t", 0);
  ASSERT_EQ(s.leader, 2);
  // The leader drops 3, then asks again from the same (now old) state.
  IsrChange shrink{{"t", 0}, {2, s.leader_epoch, s.partition_epoch, {2, 1}}};
  auto out = a.controller->alter_isr({shrink}).value();
  ASSERT_TRUE(out[0].ok()) << out[0].error().to_string();
  EXPECT_EQ(state(a, "t", 0).isr, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(state(a, "t", 0).partition_epoch, s.partition_epoch + 1);
  out = a.controller->alter_isr({shrink}).value();
  EXPECT_EQ(out[0].code(), Errc::kUnavailable);
  out = a.controller->alter_isr({{{"nope", 0}, shrink.request}}).value();
  EXPECT_EQ(out[0].code(), Errc::kNotFound);
  EXPECT_EQ(members_[2]->controller->alter_isr({shrink}).error().code(), Errc::kNotController);

  // A controlled shutdown of the leader: 1 takes over, 2 leaves the ISR.
  EXPECT_EQ(a.controller->controlled_shutdown(2).value(), 0u);
  EXPECT_EQ(state(a, "t", 0).leader, 1);
  EXPECT_EQ(state(a, "t", 0).isr, (std::vector<int32_t>{1}));
  EXPECT_EQ(state(a, "t", 0).leader_epoch, s.leader_epoch + 1);
  // Now 1 is the last in-sync replica: it keeps leading through its own.
  EXPECT_EQ(a.controller->controlled_shutdown(1).value(), 1u);
  EXPECT_EQ(state(a, "t", 0).leader, 1);
}

}  // namespace
}  // namespace strata::coordinator
