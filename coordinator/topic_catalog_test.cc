#include "coordinator/topic_catalog.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "base/testing/manual_timers.h"
#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "coordinator/testing/cluster_member.h"

namespace strata::coordinator {
namespace {

class TopicCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override { reopen(); }
  void reopen() {
    catalog_ = nullptr;
    member_.reset();
    open_store();
    member_ = std::make_unique<testing::ClusterMember>(*store_, clock_, timers_, 1);
    ASSERT_TRUE(member_->join().ok());
    catalog_ = member_->catalog.get();
  }
  // The store alone, afresh from its file (its leases go with the old one).
  void open_store() {
    store_.reset();
    store_ =
        EmbeddedStore::open(dir_ / "meta.json", {.clock = &clock_, .lease_check_interval_ms = 0})
            .value();
  }
  strata::testing::TempDir dir_;
  ManualClock clock_;
  strata::testing::ManualTimers timers_{clock_};
  std::unique_ptr<EmbeddedStore> store_;
  std::unique_ptr<testing::ClusterMember> member_;
  TopicCatalog* catalog_ = nullptr;
};

TEST_F(TopicCatalogTest, CreatedTopicsSurviveReopenWithTheirIds) {
  auto t = catalog_->create_topic("orders", 6, 1, {{"retention.ms", "1000"}}, false).value();
  auto cluster = catalog_->snapshot()->cluster_id;
  EXPECT_EQ(cluster.size(), 22u);
  reopen();
  auto snap = catalog_->snapshot();
  EXPECT_EQ(snap->cluster_id, cluster);
  const TopicInfo* again = snap->find("orders");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->id, t->id);
  EXPECT_EQ(again->number, t->number);
  EXPECT_EQ(again->partitions, 6);
  EXPECT_EQ(again->configs.at("retention.ms"), "1000");
  EXPECT_EQ(snap->find(t->id), again);
  // A new topic after reopening gets a fresh number.
  auto u = catalog_->create_topic("payments", 1, 1, {}, false).value();
  EXPECT_NE(u->number, t->number);
}

TEST_F(TopicCatalogTest, RefusesBadTopicsWithTheRightError) {
  ASSERT_TRUE(catalog_->create_topic("a.b", 1, 1, {}, false).ok());
  struct Case {
    std::string name;
    int32_t partitions;
    int16_t rf;
    std::map<std::string, std::string> configs;
    Errc code;
  };
  std::vector<Case> cases = {
      {"a.b", 1, 1, {}, Errc::kAlreadyExists},
      {"a_b", 1, 1, {}, Errc::kInvalidTopic},
      {"bad name", 1, 1, {}, Errc::kInvalidTopic},
      {"", 1, 1, {}, Errc::kInvalidTopic},
      {"..", 1, 1, {}, Errc::kInvalidTopic},
      {std::string(250, 'x'), 1, 1, {}, Errc::kInvalidTopic},
      {"__private", 1, 1, {}, Errc::kInvalidTopic},
      {"zero", 0, 1, {}, Errc::kInvalidPartitions},
      {"rf", 1, 3, {}, Errc::kInvalidReplicationFactor},
      {"cfg", 1, 1, {{"retention.ms", "never"}}, Errc::kInvalidConfig},
      {"cfg2", 1, 1, {{"no.such.config", "1"}}, Errc::kInvalidConfig},
  };
  for (const auto& c : cases) {
    auto r = catalog_->create_topic(c.name, c.partitions, c.rf, c.configs, false);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.error().code(), c.code) << c.name << ": " << r.error().to_string();
  }
  EXPECT_EQ(catalog_->snapshot()->topics.size(), 1u);
}

TEST_F(TopicCatalogTest, ValidateOnlyStoresNothing) {
  ASSERT_TRUE(catalog_->create_topic("t", 3, 1, {}, true).ok());
  EXPECT_EQ(catalog_->snapshot()->find("t"), nullptr);
}

TEST_F(TopicCatalogTest, PartitionsOnlyGrowAndConfigsReplace) {
  ASSERT_TRUE(catalog_->create_topic("t", 2, 1, {{"segment.bytes", "100000"}}, false).ok());
  EXPECT_EQ(catalog_->add_partitions("t", 2, false).code(), Errc::kInvalidPartitions);
  ASSERT_TRUE(catalog_->add_partitions("t", 5, false).ok());
  ASSERT_TRUE(catalog_->set_configs("t", {{"retention.bytes", "10"}}, false).ok());
  EXPECT_EQ(catalog_->set_configs("t", {{"retention.bytes", "x"}}, false).code(),
            Errc::kInvalidConfig);
  reopen();
  auto snap = catalog_->snapshot();
  const auto* t = snap->find("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->partitions, 5);
  EXPECT_EQ(t->configs, (std::map<std::string, std::string>{{"retention.bytes", "10"}}));
  EXPECT_EQ(catalog_->add_partitions("nope", 5, false).code(), Errc::kNotFound);
}

TEST_F(TopicCatalogTest, EveryPartitionHasAStateThatSurvivesReopen) {
  catalog_->create_topic("orders", 2, 1, {}, false).value();
  ASSERT_TRUE(catalog_->add_partitions("orders", 3, false).ok());
  reopen();
  auto snap = catalog_->snapshot();
  const TopicInfo* t = snap->find("orders");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->states.size(), 3u);
  for (const auto& s : t->states)
    EXPECT_EQ(s, (PartitionState{{1}, 1, 0, {1}, 0}));
  EXPECT_EQ(t->state(3), nullptr);
  EXPECT_EQ(t->state(-1), nullptr);
}

TEST_F(TopicCatalogTest, TopicRecordsWithoutStatesArePlacedOnThisBroker) {
  // A record as written before partition states were stored.
  std::string old = R"({"name":"legacy","id":"000102030405060708090a0b0c0d0e0f","number":7,)"
                    R"("partitions":2,"replication_factor":1,"configs":{},"internal":false})";
  ASSERT_TRUE(store_->put("/strata/topics/legacy", old, MetadataStore::kAbsent).ok());
  ASSERT_TRUE(catalog_->refresh().ok());
  auto snap = catalog_->snapshot();
  const TopicInfo* t = snap->find("legacy");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->states.size(), 2u);
  EXPECT_EQ(t->states[1], (PartitionState{{1}, 1, 0, {1}, 0}));
  EXPECT_EQ(catalog_->unstored_states().size(), 2u);
  // The controller stores them under their own keys, once.
  EXPECT_EQ(member_->step().value(), 2u);
  EXPECT_TRUE(catalog_->unstored_states().empty());
  EXPECT_TRUE(store_->get("/strata/partitions/legacy/1").value().has_value());
  EXPECT_EQ(member_->step().value(), 0u);
  reopen();
  EXPECT_EQ(catalog_->snapshot()->find("legacy")->states[1], (PartitionState{{1}, 1, 0, {1}, 0}));
}

TEST_F(TopicCatalogTest, InlineStatesOfTheLastFormatAreRead) {
  std::string old = R"({"name":"inline","id":"000102030405060708090a0b0c0d0e0f","number":3,)"
                    R"("partitions":1,"replication_factor":1,"configs":{},"internal":false,)"
                    R"("states":[{"replicas":[1],"leader":1,"leader_epoch":4,"isr":[1],)"
                    R"("partition_epoch":5}]})";
  ASSERT_TRUE(store_->put("/strata/topics/inline", old, MetadataStore::kAbsent).ok());
  ASSERT_TRUE(catalog_->refresh().ok());
  EXPECT_EQ(catalog_->snapshot()->find("inline")->states[0], (PartitionState{{1}, 1, 4, {1}, 5}));
}

TEST_F(TopicCatalogTest, ABrokerThatIsNotTheControllerChangesNothing) {
  testing::ClusterMember b(*store_, clock_, timers_, 2);
  ASSERT_TRUE(b.join().ok());
  EXPECT_EQ(b.catalog->snapshot()->controller_id, 1);
  auto r = b.catalog->create_topic("t", 1, 1, {}, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotController);
  EXPECT_EQ(store_->get("/strata/topics/t").value(), std::nullopt);
  // Both see both brokers once they read again.
  ASSERT_TRUE(catalog_->refresh().ok());
  EXPECT_EQ(catalog_->snapshot()->brokers.size(), 2u);
}

TEST_F(TopicCatalogTest, AWriteOnAStaleViewChangesNothing) {
  ASSERT_TRUE(catalog_->create_topic("t", 1, 1, {}, false).ok());
  // Someone else's change the catalog has not read (a controller of a
  // moment ago): the write that would overwrite it is refused.
  auto rec = store_->get("/strata/topics/t").value().value();
  ASSERT_TRUE(store_->put("/strata/topics/t", rec.value, rec.version).ok());
  auto st = catalog_->set_configs("t", {{"retention.ms", "5"}}, false);
  EXPECT_EQ(st.code(), Errc::kUnavailable);
  // Having read it, the same write goes through.
  EXPECT_TRUE(catalog_->set_configs("t", {{"retention.ms", "5"}}, false).ok());
}

TEST_F(TopicCatalogTest, DeletedTopicsAreGoneAfterReopen) {
  ASSERT_TRUE(catalog_->create_topic("t", 1, 1, {}, false).ok());
  auto before = catalog_->snapshot()->version;
  ASSERT_TRUE(catalog_->delete_topic("t").ok());
  EXPECT_GT(catalog_->snapshot()->version, before);
  EXPECT_EQ(catalog_->delete_topic("t").code(), Errc::kNotFound);
  reopen();
  EXPECT_EQ(catalog_->snapshot()->find("t"), nullptr);
}

// A store that refuses a transaction over `limit` compares or operations of
// a branch, as etcd does over its --max-txn-ops.
class LimitedStore final : public MetadataStore {
 public:
  LimitedStore(MetadataStore& inner, size_t limit) : inner_(inner), limit_(limit) {}
  Result<std::optional<Entry>> get(const std::string& key) override { return inner_.get(key); }
  Result<Listing> range(const std::string& prefix) override { return inner_.range(prefix); }
  Result<TxnResult> txn(const Txn& txn) override {
    if (std::max({txn.compares.size(), txn.success.size(), txn.failure.size()}) > limit_) {
      return Error(Errc::kInvalidArgument, "too many operations in txn request");
    }
    ++txns_;
    return inner_.txn(txn);
  }
  size_t max_txn_ops() const override { return limit_; }
  Result<Lease> grant(int64_t ttl_ms) override { return inner_.grant(ttl_ms); }
  Result<int64_t> keep_alive(LeaseId id) override { return inner_.keep_alive(id); }
  Status revoke(LeaseId id) override { return inner_.revoke(id); }
  Status compact(int64_t revision) override { return inner_.compact(revision); }
  WatchHandle watch(const std::string& prefix, int64_t start_revision, WatchCallback cb) override {
    return inner_.watch(prefix, start_revision, std::move(cb));
  }
  int txns() const { return txns_; }

 private:
  MetadataStore& inner_;
  size_t limit_;
  int txns_ = 0;
};

TEST_F(TopicCatalogTest, ChangesLargerThanOneTransactionOfTheStoreGoInParts) {
  catalog_ = nullptr;
  member_.reset();
  open_store();  // broker 1's lease goes with the old store: it may join again
  LimitedStore limited(*store_, 8);
  auto member = std::make_unique<testing::ClusterMember>(limited, clock_, timers_, 1);
  ASSERT_TRUE(member->join().ok());
  auto& catalog = *member->catalog;
  int before = limited.txns();
  ASSERT_TRUE(catalog.create_topic("wide", 30, 1, {}, false).ok());
  EXPECT_GE(limited.txns() - before, 30 / 7);
  ASSERT_TRUE(catalog.add_partitions("wide", 45, false).ok());
  // Every partition moves to another leader in one change of 45 states, over
  // two topics' compares.
  ASSERT_TRUE(catalog.create_topic("narrow", 3, 1, {}, false).ok());
  std::vector<StateChange> changes;
  for (const auto* name : {"wide", "narrow"}) {
    auto snap = catalog.snapshot();
    const TopicInfo* t = snap->find(name);
    ASSERT_NE(t, nullptr);
    for (int32_t p = 0; p < t->partitions; ++p) {
      PartitionState next = *t->state(p);
      next.leader_epoch += 1;
      next.partition_epoch += 1;
      changes.push_back({name, p, next});
    }
  }
  ASSERT_TRUE(catalog.update_states(changes).ok());
  member.reset();
  reopen();
  for (const auto* name : {"wide", "narrow"}) {
    auto snap = catalog_->snapshot();
    const TopicInfo* t = snap->find(name);
    ASSERT_NE(t, nullptr) << name;
    for (int32_t p = 0; p < t->partitions; ++p)
      EXPECT_EQ(t->state(p)->leader_epoch, 1) << name << "-" << p;
  }
  EXPECT_EQ(catalog_->snapshot()->find("wide")->partitions, 45);
}

TEST(TopicNames, FollowKafkasRules) {
  EXPECT_FALSE(invalid_topic_name("orders-2026_v1.x").has_value());
  EXPECT_TRUE(invalid_topic_name("a/b").has_value());
  EXPECT_TRUE(invalid_topic_name("é").has_value());
}

}  // namespace
}  // namespace strata::coordinator
