// The behaviour every MetadataStore shares, run against the embedded store
// (with a manual clock) and against a real etcd started by each test.
#include "coordinator/metadata_store.h"

#include <gtest/gtest.h>

#include "base/clock.h"
#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "coordinator/etcd_store.h"
#include "coordinator/testing/etcd_process.h"
#include "coordinator/testing/event_log.h"

namespace strata::coordinator {
namespace {

using testing::EventLog;
using Type = WatchEvent::Type;

class EmbeddedHarness {
 public:
  Status init() {
    STRATA_ASSIGN_OR_RETURN(
        store_, EmbeddedStore::open(
                    dir_ / "meta.json",
                    {.clock = &clock_, .lease_check_interval_ms = 0, .history_revisions = 10000}));
    return ok_status();
  }
  MetadataStore& store() { return *store_; }
  // The manual clock passes the TTL; tick() expires the lease.
  void let_leases_expire(int64_t ttl_ms) {
    clock_.advance_ms(ttl_ms + 1);
    store_->tick();
  }

 private:
  strata::testing::TempDir dir_;
  ManualClock clock_;
  std::unique_ptr<EmbeddedStore> store_;
};

class EtcdHarness {
 public:
  Status init() {
    STRATA_ASSIGN_OR_RETURN(etcd_, testing::EtcdProcess::start(dir_ / "etcd"));
    STRATA_ASSIGN_OR_RETURN(store_, EtcdStore::open({.endpoints = {etcd_->endpoint()}}));
    return ok_status();
  }
  MetadataStore& store() { return *store_; }
  // etcd expires leases by its own clock: the test waits for the deletion.
  void let_leases_expire(int64_t) {}

 private:
  strata::testing::TempDir dir_;
  std::unique_ptr<testing::EtcdProcess> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

template <typename Harness>
class MetadataStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto st = harness_.init();
    ASSERT_TRUE(st.ok()) << st.error().to_string();
  }
  MetadataStore& store() { return harness_.store(); }
  int64_t revision() { return store().range("").value().revision; }
  int64_t put(const std::string& key, const std::string& value, LeaseId lease = kNoLease) {
    auto r = store().txn(Txn{.success = {TxnOp::put(key, value, lease)}});
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() ? r->revision : 0;
  }
  Entry must_get(const std::string& key) {
    auto e = store().get(key).value();
    EXPECT_TRUE(e.has_value()) << key;
    return e.value_or(Entry{});
  }

  Harness harness_;
};

class StoreNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, EmbeddedHarness> ? "Embedded" : "Etcd";
  }
};
using Stores = ::testing::Types<EmbeddedHarness, EtcdHarness>;
TYPED_TEST_SUITE(MetadataStoreTest, Stores, StoreNames);

TYPED_TEST(MetadataStoreTest, VersionsAndRevisionsFollowEtcd) {
  auto& s = this->store();
  const int64_t r0 = this->revision();
  EXPECT_EQ(this->put("/k", "a"), r0 + 1);
  Entry e = this->must_get("/k");
  EXPECT_EQ(e.value, "a");
  EXPECT_EQ(e.version, 1);
  EXPECT_EQ(e.create_revision, r0 + 1);
  EXPECT_EQ(e.mod_revision, r0 + 1);
  EXPECT_EQ(e.lease, kNoLease);

  EXPECT_EQ(this->put("/k", "b"), r0 + 2);
  e = this->must_get("/k");
  EXPECT_EQ(e.version, 2);
  EXPECT_EQ(e.create_revision, r0 + 1);
  EXPECT_EQ(e.mod_revision, r0 + 2);

  // A deletion is a revision; deleting nothing is not; reading is not.
  auto del = s.txn(Txn{.success = {TxnOp::erase("/k")}}).value();
  EXPECT_EQ(del.revision, r0 + 3);
  EXPECT_EQ(del.results.at(0).erased, 1);
  auto none = s.txn(Txn{.success = {TxnOp::erase("/k")}}).value();
  EXPECT_EQ(none.revision, r0 + 3);
  EXPECT_EQ(none.results.at(0).erased, 0);
  auto read = s.txn(Txn{.success = {TxnOp::get("/k")}}).value();
  EXPECT_EQ(read.revision, r0 + 3);
  EXPECT_FALSE(read.results.at(0).entry.has_value());
  EXPECT_FALSE(s.get("/k").value().has_value());

  // Recreated: version and create_revision start again.
  EXPECT_EQ(this->put("/k", "c"), r0 + 4);
  e = this->must_get("/k");
  EXPECT_EQ(e.version, 1);
  EXPECT_EQ(e.create_revision, r0 + 4);

  // The helpers keep their versions and error codes.
  EXPECT_EQ(s.put("/h", "1", MetadataStore::kAbsent).value(), 1);
  EXPECT_EQ(s.put("/h", "2", 1).value(), 2);
  EXPECT_EQ(s.put("/h", "3", MetadataStore::kAny).value(), 3);
  EXPECT_EQ(s.put("/h", "x", MetadataStore::kAbsent).error().code(), Errc::kAlreadyExists);
  EXPECT_EQ(s.put("/h", "x", 1).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(s.put("/missing", "x", 2).error().code(), Errc::kNotFound);
  EXPECT_EQ(s.erase("/h", 2).code(), Errc::kInvalidArgument);
  EXPECT_TRUE(s.erase("/h", 3).ok());
  EXPECT_EQ(s.erase("/h", MetadataStore::kAny).code(), Errc::kNotFound);
  auto listed = s.list("").value();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].key, "/k");
}

TYPED_TEST(MetadataStoreTest, CompareAndSetThroughATransaction) {
  auto& s = this->store();
  Txn create{.compares = {Compare::version("/cas", Compare::kEqual, 0)},
             .success = {TxnOp::put("/cas", "v1")},
             .failure = {TxnOp::get("/cas")}};
  auto first = s.txn(create).value();
  EXPECT_TRUE(first.succeeded);
  auto second = s.txn(create).value();
  EXPECT_FALSE(second.succeeded);
  ASSERT_EQ(second.results.size(), 1u);
  ASSERT_TRUE(second.results[0].entry.has_value());
  EXPECT_EQ(second.results[0].entry->value, "v1");
  EXPECT_EQ(second.revision, first.revision);  // the failure branch only read

  const Entry e = this->must_get("/cas");
  Txn update{.compares = {Compare::mod_revision("/cas", Compare::kEqual, e.mod_revision)},
             .success = {TxnOp::put("/cas", "v2")}};
  EXPECT_TRUE(s.txn(update).value().succeeded);
  // The same compare is stale now.
  Txn stale = update;
  stale.success = {TxnOp::put("/cas", "lost")};
  EXPECT_FALSE(s.txn(stale).value().succeeded);
  EXPECT_EQ(this->must_get("/cas").value, "v2");

  // Every target and operator.
  const Entry now = this->must_get("/cas");
  auto holds = [&](Compare c) { return s.txn(Txn{.compares = {c}}).value().succeeded; };
  EXPECT_TRUE(holds(Compare::create_revision("/cas", Compare::kEqual, e.create_revision)));
  EXPECT_TRUE(holds(Compare::version("/cas", Compare::kGreater, 1)));
  EXPECT_FALSE(holds(Compare::version("/cas", Compare::kGreater, 2)));
  EXPECT_TRUE(holds(Compare::version("/cas", Compare::kLess, 3)));
  EXPECT_FALSE(holds(Compare::version("/cas", Compare::kLess, 2)));
  EXPECT_TRUE(holds(Compare::mod_revision("/cas", Compare::kNotEqual, e.mod_revision)));
  EXPECT_FALSE(holds(Compare::mod_revision("/cas", Compare::kNotEqual, now.mod_revision)));
  EXPECT_TRUE(holds(Compare::mod_revision("/cas", Compare::kLess, now.mod_revision + 1)));
  // A missing key compares as zeros.
  EXPECT_TRUE(holds(Compare::create_revision("/nope", Compare::kEqual, 0)));
  EXPECT_FALSE(holds(Compare::version("/nope", Compare::kGreater, 0)));
}

TYPED_TEST(MetadataStoreTest, AMultiKeyTransactionIsAllOrNothingAtOneRevision) {
  auto& s = this->store();
  this->put("/m/a", "1");
  this->put("/m/b", "1");
  this->put("/m/c", "1");
  Txn both{.compares = {Compare::version("/m/a", Compare::kEqual, 1),
                        Compare::version("/m/b", Compare::kEqual, 1)},
           .success = {TxnOp::put("/m/a", "2"), TxnOp::put("/m/b", "2"), TxnOp::erase("/m/c"),
                       TxnOp::get("/m/a")},
           .failure = {TxnOp::put("/m/failed", "yes"), TxnOp::get("/m/b")}};
  auto r = s.txn(both).value();
  ASSERT_TRUE(r.succeeded);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[2].erased, 1);
  ASSERT_TRUE(r.results[3].entry.has_value());
  EXPECT_EQ(r.results[3].entry->value, "2");  // a get sees the branch's earlier writes
  EXPECT_EQ(this->must_get("/m/a").mod_revision, r.revision);
  EXPECT_EQ(this->must_get("/m/b").mod_revision, r.revision);
  EXPECT_FALSE(s.get("/m/c").value().has_value());

  // The compares fail now: nothing of the success branch happens.
  auto again = s.txn(both).value();
  EXPECT_FALSE(again.succeeded);
  EXPECT_EQ(again.revision, r.revision + 1);
  ASSERT_EQ(again.results.size(), 2u);
  EXPECT_EQ(again.results[1].entry->value, "2");
  EXPECT_EQ(this->must_get("/m/a").version, 2);
  EXPECT_EQ(this->must_get("/m/failed").value, "yes");

  // A prefix deletion takes what is under it and nothing else.
  this->put("/p/1", "x");
  this->put("/p/2", "x");
  this->put("/pq", "x");
  auto erased = s.txn(Txn{.success = {TxnOp::erase_prefix("/p/")}}).value();
  EXPECT_EQ(erased.results.at(0).erased, 2);
  EXPECT_TRUE(s.list("/p/").value().empty());
  EXPECT_TRUE(s.get("/pq").value().has_value());

  // Refused branches change nothing.
  const int64_t before = this->revision();
  auto twice = s.txn(Txn{.success = {TxnOp::put("/t", "1"), TxnOp::put("/t", "2")}});
  EXPECT_EQ(twice.error().code(), Errc::kInvalidArgument);
  auto put_and_erase = s.txn(Txn{.success = {TxnOp::put("/m/x", "1"), TxnOp::erase_prefix("/m/")}});
  EXPECT_EQ(put_and_erase.error().code(), Errc::kInvalidArgument);
  auto no_lease = s.txn(Txn{.success = {TxnOp::put("/t", "1"), TxnOp::put("/u", "1", 777777)}});
  EXPECT_EQ(no_lease.error().code(), Errc::kNotFound);
  EXPECT_EQ(this->revision(), before);
  EXPECT_FALSE(s.get("/t").value().has_value());
}

TYPED_TEST(MetadataStoreTest, AnExpiredLeaseTakesItsKeysAndWatchersSeeIt) {
  auto& s = this->store();
  auto lease = s.grant(1000).value();
  EXPECT_GE(lease.ttl_ms, 1000);
  ASSERT_EQ(s.put("/l/a", "mine", MetadataStore::kAbsent, lease.id).value(), 1);
  this->put("/l/b", "no lease");
  EXPECT_EQ(this->must_get("/l/a").lease, lease.id);
  EventLog log;
  WatchHandle w = s.watch("/l/", 0, log.callback());
  this->harness_.let_leases_expire(lease.ttl_ms);
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) {
    return !evs.empty() && evs.back().type == Type::kErase && evs.back().entry.key == "/l/a";
  }));
  EXPECT_EQ(log.events().size(), 1u);
  EXPECT_FALSE(s.get("/l/a").value().has_value());
  EXPECT_TRUE(s.get("/l/b").value().has_value());
  EXPECT_EQ(s.keep_alive(lease.id).error().code(), Errc::kNotFound);
  EXPECT_EQ(s.put("/l/c", "late", MetadataStore::kAny, lease.id).error().code(), Errc::kNotFound);
  EXPECT_EQ(s.revoke(lease.id).code(), Errc::kNotFound);
}

TYPED_TEST(MetadataStoreTest, RevokeTakesTheKeysStillUnderTheLease) {
  auto& s = this->store();
  auto lease = s.grant(60000).value();
  EXPECT_GE(lease.ttl_ms, 60000);
  ASSERT_TRUE(s.put("/r/a", "1", MetadataStore::kAny, lease.id).ok());
  ASSERT_TRUE(s.put("/r/b", "1", MetadataStore::kAny, lease.id).ok());
  // A put without a lease takes the key off its lease.
  ASSERT_TRUE(s.put("/r/b", "2", MetadataStore::kAny).ok());
  EXPECT_GE(s.keep_alive(lease.id).value(), 60000);
  EventLog log;
  WatchHandle w = s.watch("/r/", 0, log.callback());
  const int64_t before = this->revision();
  ASSERT_TRUE(s.revoke(lease.id).ok());
  EXPECT_FALSE(s.get("/r/a").value().has_value());
  EXPECT_EQ(this->must_get("/r/b").value, "2");
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  auto evs = log.events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, Type::kErase);
  EXPECT_EQ(evs[0].entry.key, "/r/a");
  EXPECT_EQ(evs[0].revision, before + 1);
  EXPECT_EQ(s.revoke(lease.id).code(), Errc::kNotFound);
  EXPECT_EQ(s.keep_alive(lease.id).error().code(), Errc::kNotFound);
  EXPECT_EQ(s.grant(0).error().code(), Errc::kInvalidArgument);
}

TYPED_TEST(MetadataStoreTest, AWatchFromARevisionReplaysThenFollows) {
  auto& s = this->store();
  this->put("/w/a", "1");
  const int64_t r2 = this->put("/w/b", "1");
  const int64_t r3 = s.txn(Txn{.success = {TxnOp::erase("/w/a")}}).value().revision;
  this->put("/x/other", "1");
  EventLog log;
  WatchHandle w = s.watch("/w/", r2, log.callback());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 2; }));
  const int64_t r5 = this->put("/w/c", "1");
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 3; }));
  auto evs = log.events();
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, Type::kPut);
  EXPECT_EQ(evs[0].entry.key, "/w/b");
  EXPECT_EQ(evs[0].revision, r2);
  EXPECT_EQ(evs[0].entry.mod_revision, r2);
  EXPECT_EQ(evs[0].entry.version, 1);
  EXPECT_EQ(evs[1].type, Type::kErase);
  EXPECT_EQ(evs[1].entry.key, "/w/a");
  EXPECT_EQ(evs[1].revision, r3);
  EXPECT_EQ(evs[2].entry.key, "/w/c");
  EXPECT_EQ(evs[2].revision, r5);

  // A cancelled watch hears nothing more.
  w.cancel();
  this->put("/w/d", "1");
  EventLog after;
  WatchHandle w2 = s.watch("/w/d", 0, after.callback());
  this->put("/w/d", "2");
  ASSERT_TRUE(after.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  EXPECT_EQ(log.events().size(), 3u);
}

TYPED_TEST(MetadataStoreTest, AWatchCutOffDuringACompactionCatchesUp) {
  auto& s = this->store();
  this->put("/c/old", "1");
  this->put("/c/a", "1");
  // What the watch starts from, so that the deletion of /c/old, which it
  // never saw written, must come as an event.
  const Listing start = s.range("/c/").value();
  std::map<std::string, std::string> initial;
  for (const auto& e : start.entries)
    initial[e.key] = e.value;
  EventLog log;
  WatchHandle w = s.watch("/c/", start.revision + 1, log.callback());
  this->put("/c/a", "2");
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  // The watch's next callback blocks: it is cut off while the store moves
  // on and forgets the revisions it has not seen. (With the embedded store
  // this forces the resync; etcd may already have streamed the events
  // before the compaction, so its resync is shown by EtcdStoreTest's
  // compaction test, which cuts the stream itself.)
  log.hold();
  this->put("/c/b", "1");
  ASSERT_TRUE(log.wait_held());
  this->put("/c/a", "3");
  this->put("/c/a", "4");
  ASSERT_TRUE(s.erase("/c/old", MetadataStore::kAny).ok());
  const int64_t last = this->put("/c/n", "1");
  ASSERT_TRUE(s.compact(last).ok());
  log.release();
  const std::map<std::string, std::string> want = {{"/c/a", "4"}, {"/c/b", "1"}, {"/c/n", "1"}};
  ASSERT_TRUE(log.wait_until(
      [&](const EventLog::Events& evs) { return EventLog::replay(evs, initial) == want; }));
  auto evs = log.events();
  for (size_t i = 1; i < evs.size(); ++i)
    EXPECT_LE(evs[i - 1].revision, evs[i].revision);
  EXPECT_EQ(evs.back().revision, last);
  // Compacting again, or to an earlier revision, is no error; the future is.
  EXPECT_TRUE(s.compact(last).ok());
  EXPECT_TRUE(s.compact(1).ok());
  EXPECT_EQ(s.compact(last + 100).code(), Errc::kInvalidArgument);
}

}  // namespace
}  // namespace strata::coordinator
