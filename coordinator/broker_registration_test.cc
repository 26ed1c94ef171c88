#include "coordinator/broker_registration.h"

#include <gtest/gtest.h>

#include "base/testing/manual_timers.h"
#include "base/testing/temp_dir.h"
#include "coordinator/controller_election.h"
#include "coordinator/embedded_store.h"

namespace strata::coordinator {
namespace {

class RegistrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ =
        EmbeddedStore::open(dir_ / "meta.json", {.clock = &clock_, .lease_check_interval_ms = 0})
            .value();
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    store_.reset();
  }

  std::unique_ptr<BrokerRegistration> make(int32_t id, int32_t port) {
    return std::make_unique<BrokerRegistration>(*store_, clock_, timers_,
                                                BrokerInfo{id, "127.0.0.11", port, "r1"},
                                                BrokerRegistration::Options{6000});
  }
  std::optional<BrokerInfo> record(int32_t id) {
    auto e = store_->get(std::string(kBrokersPrefix) + std::to_string(id)).value();
    if (!e) return std::nullopt;
    return decode_broker(e->value).value();
  }
  // Time passes for the store (leases expire) but not for the brokers'
  // timers: a paused or cut-off broker.
  void pause_brokers_for(int64_t ms) {
    clock_.advance_ms(ms);
    store_->tick();
  }

  strata::testing::TempDir dir_;
  ManualClock clock_;
  strata::testing::ManualTimers timers_{clock_};
  std::unique_ptr<EmbeddedStore> store_;
  std::unique_ptr<BrokerRegistration> a_, b_;
};

TEST_F(RegistrationTest, ABrokerRegistersItsListenerAndRackAndASecondWithItsIdIsRefused) {
  a_ = make(1, 9092);
  ASSERT_TRUE(a_->register_now().ok());
  EXPECT_TRUE(a_->lease_valid());
  EXPECT_GT(a_->broker_epoch(), 0);
  auto rec = record(1);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->host, "127.0.0.11");
  EXPECT_EQ(rec->port, 9092);
  EXPECT_EQ(rec->rack, "r1");

  b_ = make(1, 9093);
  auto st = b_->register_now();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kAlreadyExists);
  EXPECT_NE(st.error().message().find("127.0.0.11:9092"), std::string::npos)
      << st.error().message();
  EXPECT_FALSE(b_->registered());
  EXPECT_EQ(record(1)->port, 9092);  // the first broker's record is untouched
}

TEST_F(RegistrationTest, AtStartTheRecordOfAKilledEarlierRunIsWaitedOut) {
  a_ = make(1, 9092);
  ASSERT_TRUE(a_->register_now().ok());
  a_.reset();  // killed: no keep-alives, the lease not revoked
  b_ = make(1, 9093);
  int64_t waited = 0;
  ASSERT_TRUE(b_->register_at_start([&](int64_t ms) {
                  waited += ms;
                  pause_brokers_for(ms);
                }).ok());
  EXPECT_TRUE(b_->registered());
  EXPECT_EQ(record(1)->port, 9093);
  // It took the old lease's expiry (6 s TTL), not the whole two TTLs.
  EXPECT_GE(waited, 6000);
  EXPECT_LT(waited, 12000);
}

TEST_F(RegistrationTest, AtStartALiveBrokerWithTheIdIsRefusedAfterTwoTtls) {
  a_ = make(1, 9092);
  ASSERT_TRUE(a_->register_now().ok());
  a_->start();
  b_ = make(1, 9093);
  int64_t waited = 0;
  auto st = b_->register_at_start([&](int64_t ms) {
    waited += ms;
    timers_.advance(ms);  // a keeps renewing its lease
    store_->tick();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kAlreadyExists);
  EXPECT_GE(waited, 12000);
  EXPECT_EQ(record(1)->port, 9092);
}

TEST_F(RegistrationTest, KeepAlivesHoldTheRecordAndTheLeaseAsLongAsTheyRun) {
  a_ = make(1, 9092);
  ASSERT_TRUE(a_->register_now().ok());
  int64_t epoch = a_->broker_epoch();
  a_->start();
  for (int i = 0; i < 30; ++i) {
    timers_.advance(1000);
    store_->tick();
    ASSERT_TRUE(a_->lease_valid()) << "after " << i + 1 << " s";
    ASSERT_TRUE(record(1).has_value());
  }
  EXPECT_EQ(a_->broker_epoch(), epoch);
  a_->stop();
  EXPECT_FALSE(record(1).has_value());  // revoked: gone at once, not after the TTL
}

TEST_F(RegistrationTest,
       APausedBrokerFencesItselfBeforeItsLeaseExpiresAndLeadsAgainOnlyOnAViewAfterItsNewEpoch) {
  a_ = make(1, 9092);
  ASSERT_TRUE(a_->register_now().ok());
  int64_t epoch = a_->broker_epoch();
  a_->start();
  timers_.advance(2000);  // one keep-alive
  // Paused: no keep-alive runs. It stops trusting its lease before the store drops it.
  clock_.advance_ms(a_->trust_ms() - 1);
  EXPECT_TRUE(a_->lease_valid());
  clock_.advance_ms(1);
  EXPECT_FALSE(a_->lease_valid());
  EXPECT_LT(a_->trust_ms(), 6000);
  EXPECT_TRUE(record(1).has_value());
  pause_brokers_for(6000);
  EXPECT_FALSE(record(1).has_value());
  // Resumed: the next keep-alive learns the lease is gone and registers again.
  timers_.advance(2000);
  int64_t again = a_->broker_epoch();
  EXPECT_GT(again, epoch);
  EXPECT_TRUE(record(1).has_value());
  // Renewed, but the controller may have moved its leaderships while it
  // slept: it trusts the lease again only on a view read after the new
  // registration, not on one from before.
  EXPECT_FALSE(a_->lease_valid());
  a_->view_read_at(again - 1);
  EXPECT_FALSE(a_->lease_valid());
  a_->view_read_at(again);
  EXPECT_TRUE(a_->lease_valid());
  // Later renewals keep it.
  timers_.advance(2000);
  EXPECT_TRUE(a_->lease_valid());
}

TEST_F(RegistrationTest, TheOldestCandidateControlsAndADeposedControllerChangesNothing) {
  a_ = make(1, 9092);
  b_ = make(2, 9093);
  ASSERT_TRUE(a_->register_now().ok());
  ASSERT_TRUE(b_->register_now().ok());
  ControllerElection ea(*store_, 1), eb(*store_, 2);
  ASSERT_TRUE(ea.campaign(a_->lease()).ok());
  ASSERT_TRUE(eb.campaign(b_->lease()).ok());
  auto leader = ea.refresh().value();
  ASSERT_TRUE(leader.has_value());
  EXPECT_EQ(leader->node_id, 1);
  EXPECT_TRUE(ea.leads());
  EXPECT_EQ(eb.refresh().value(), leader);
  EXPECT_FALSE(eb.leads());
  EXPECT_FALSE(eb.guarded_txn({.success = {TxnOp::put("/strata/x", "b")}}).ok());

  Txn write{.success = {TxnOp::put("/strata/x", "a1")}};
  ASSERT_TRUE(ea.guarded_txn(write).value().succeeded);

  // Broker 1 is paused past its TTL (only broker 2 keeps its lease alive):
  // its candidate key goes with its lease.
  b_->start();
  for (int i = 0; i < 4; ++i) {
    timers_.advance(2000);
    store_->tick();
  }
  ASSERT_FALSE(record(1).has_value());
  auto next = eb.refresh().value();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->node_id, 2);
  EXPECT_GT(next->epoch, leader->epoch);
  EXPECT_TRUE(eb.leads());
  // Broker 1 still believes it leads; its write is refused and changes nothing.
  EXPECT_TRUE(ea.leads());
  auto stale = ea.guarded_txn({.success = {TxnOp::put("/strata/x", "a2")}});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code(), Errc::kNotController);
  EXPECT_FALSE(ea.leads());
  EXPECT_EQ(store_->get("/strata/x").value()->value, "a1");
  ASSERT_TRUE(eb.guarded_txn({.success = {TxnOp::put("/strata/x", "b1")}}).value().succeeded);
  // A guarded transaction whose own compare fails reports that, not a lost election.
  auto r = eb.guarded_txn({.compares = {Compare::version("/strata/x", Compare::kEqual, 99)},
                           .success = {TxnOp::put("/strata/x", "never")},
                           .failure = {TxnOp::get("/strata/x")}})
               .value();
  EXPECT_FALSE(r.succeeded);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].entry->value, "b1");
  EXPECT_TRUE(eb.leads());
}

TEST_F(RegistrationTest, ANewIncarnationCampaignsAgainBehindTheCandidatesAlreadyThere) {
  a_ = make(1, 9092);
  b_ = make(2, 9093);
  ASSERT_TRUE(a_->register_now().ok());
  ASSERT_TRUE(b_->register_now().ok());
  ControllerElection ea(*store_, 1), eb(*store_, 2);
  ASSERT_TRUE(ea.campaign(a_->lease()).ok());
  ASSERT_TRUE(ea.campaign(a_->lease()).ok());  // the same lease: nothing changes
  ASSERT_TRUE(eb.campaign(b_->lease()).ok());
  ASSERT_EQ(ea.refresh().value()->node_id, 1);
  // Broker 1 comes back under a new lease while its old key is still there.
  a_->stop();
  ASSERT_TRUE(a_->register_now().ok());
  ASSERT_TRUE(store_->put("/strata/controller/1", "1", MetadataStore::kAbsent, kNoLease).ok());
  ASSERT_TRUE(ea.campaign(a_->lease()).ok());
  auto key = store_->get("/strata/controller/1").value();
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->lease, a_->lease());
  EXPECT_EQ(ea.refresh().value()->node_id, 2);  // queued behind broker 2
  EXPECT_FALSE(ea.leads());
}

}  // namespace
}  // namespace strata::coordinator
