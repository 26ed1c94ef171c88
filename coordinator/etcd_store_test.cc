// The etcd store against a real etcd this test starts, killed and restarted:
// watches resume after a restart and after a compaction, calls fail over
// between endpoints and fail clearly when none answers.
#include "coordinator/etcd_store.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/testing/etcd_process.h"
#include "coordinator/testing/event_log.h"

namespace strata::coordinator {
namespace {

using testing::EtcdProcess;
using testing::EventLog;
using Type = WatchEvent::Type;

std::unique_ptr<EtcdStore> open_store(std::vector<std::string> endpoints,
                                      int64_t call_timeout_ms = 5000) {
  auto s = EtcdStore::open({.endpoints = std::move(endpoints),
                            .call_timeout_ms = call_timeout_ms,
                            .watch = {.retry_min_ms = 50, .retry_max_ms = 500}});
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

class EtcdStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = EtcdProcess::start(dir_ / "etcd");
    ASSERT_TRUE(e.ok()) << e.error().to_string();
    etcd_ = std::move(e).value();
    store_ = open_store({etcd_->endpoint()});
    ASSERT_NE(store_, nullptr);
  }

  // Runs `writes` against etcd while the store's watches are cut off from
  // it: etcd is killed, restarted on another client port for `writes` (the
  // store only knows the first), then killed and restarted where it was.
  void while_cut_off(const std::function<void(MetadataStore&)>& writes) {
    const uint16_t port = etcd_->client_port();
    etcd_->kill();
    ASSERT_TRUE(etcd_->restart(EtcdProcess::free_port()).ok());
    {
      auto other = open_store({etcd_->endpoint()});
      ASSERT_NE(other, nullptr);
      writes(*other);
    }
    etcd_->kill();
    ASSERT_TRUE(etcd_->restart(port).ok());
  }

  strata::testing::TempDir dir_;
  std::unique_ptr<EtcdProcess> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

TEST_F(EtcdStoreTest, AWatchResumesFromItsRevisionAfterEtcdIsKilledAndRestarted) {
  ASSERT_TRUE(store_->put("/w/a", "1", MetadataStore::kAny).ok());
  EventLog log;
  WatchHandle w = store_->watch("/w/", 0, log.callback());
  ASSERT_TRUE(store_->put("/w/b", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() == 1; }));
  // Written while the watch cannot reach etcd: it must come from the
  // history, from the revision after the last one delivered.
  int64_t written = 0;
  while_cut_off([&](MetadataStore& other) {
    ASSERT_TRUE(other.put("/w/c", "1", MetadataStore::kAny).ok());
    ASSERT_TRUE(other.put("/w/c", "2", MetadataStore::kAny).ok());
    written = other.get("/w/c").value()->mod_revision;
  });
  // The store's own calls work again once etcd is back.
  ASSERT_TRUE(store_->put("/w/d", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 4; }));
  auto evs = log.events();
  ASSERT_EQ(evs.size(), 4u);
  EXPECT_EQ(evs[0].entry.key, "/w/b");
  EXPECT_EQ(evs[1].entry.key, "/w/c");
  EXPECT_EQ(evs[1].entry.value, "1");
  EXPECT_EQ(evs[2].entry.value, "2");
  EXPECT_EQ(evs[2].revision, written);
  EXPECT_EQ(evs[3].entry.key, "/w/d");
  for (size_t i = 1; i < evs.size(); ++i)
    EXPECT_LT(evs[i - 1].revision, evs[i].revision);
}

TEST_F(EtcdStoreTest, AWatchResyncsAfterACompactionPastItsRevisionWhileCutOff) {
  ASSERT_TRUE(store_->put("/c/old", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(store_->put("/c/same", "1", MetadataStore::kAny).ok());
  EventLog log;
  WatchHandle w = store_->watch("/c/", 0, log.callback());
  ASSERT_TRUE(store_->put("/c/a", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() == 1; }));
  int64_t a_rev = 0, n_rev = 0, last = 0;
  while_cut_off([&](MetadataStore& other) {
    ASSERT_TRUE(other.put("/c/a", "2", MetadataStore::kAny).ok());
    ASSERT_TRUE(other.put("/c/a", "3", MetadataStore::kAny).ok());
    a_rev = other.get("/c/a").value()->mod_revision;
    ASSERT_TRUE(other.put("/c/n", "1", MetadataStore::kAny).ok());
    n_rev = other.get("/c/n").value()->mod_revision;
    ASSERT_TRUE(other.erase("/c/old", MetadataStore::kAny).ok());
    last = other.range("").value().revision;
    ASSERT_TRUE(other.compact(last).ok());
  });
  // History would replay /c/a twice; a resync tells the differences once.
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 4; }));
  auto evs = log.events();
  ASSERT_EQ(evs.size(), 4u);
  EXPECT_EQ(evs[1].type, Type::kPut);
  EXPECT_EQ(evs[1].entry.key, "/c/a");
  EXPECT_EQ(evs[1].entry.value, "3");
  EXPECT_EQ(evs[1].revision, a_rev);
  EXPECT_EQ(evs[2].entry.key, "/c/n");
  EXPECT_EQ(evs[2].revision, n_rev);
  EXPECT_EQ(evs[3].type, Type::kErase);
  EXPECT_EQ(evs[3].entry.key, "/c/old");
  EXPECT_EQ(evs[3].revision, last);
  // And it follows from there.
  ASSERT_TRUE(store_->put("/c/z", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 5; }));
  EXPECT_EQ(log.events()[4].entry.key, "/c/z");
  EXPECT_EQ(log.events()[4].revision, last + 1);
}

TEST_F(EtcdStoreTest, CallsAndWatchesFailOverToTheSecondEndpoint) {
  testing::DeadPort dead;
  auto store = open_store({dead.endpoint(), etcd_->endpoint()});
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(store->put("/f/a", "1", MetadataStore::kAbsent).value(), 1);
  EXPECT_EQ(store->get("/f/a").value()->value, "1");
  EventLog log;
  WatchHandle w = store->watch("/f/", 0, log.callback());
  ASSERT_TRUE(store->put("/f/b", "1", MetadataStore::kAbsent).ok());
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  EXPECT_EQ(log.events()[0].entry.key, "/f/b");
}

TEST_F(EtcdStoreTest, NoEndpointAnsweringIsAnErrorNamingEtcdAndTheEndpoints) {
  testing::DeadPort dead_a, dead_b;
  const std::string a = dead_a.endpoint(), b = dead_b.endpoint();
  auto store = open_store({a, b}, 1000);
  ASSERT_NE(store, nullptr);
  auto r = store->get("/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kUnavailable);
  const std::string& msg = r.error().message();
  EXPECT_NE(msg.find("etcd unreachable"), std::string::npos) << msg;
  EXPECT_NE(msg.find(a), std::string::npos) << msg;
  EXPECT_NE(msg.find(b), std::string::npos) << msg;
  auto put = store->put("/x", "1", MetadataStore::kAny);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.error().code(), Errc::kUnavailable);
  // A watch of an unreachable cluster can be cancelled while it is still
  // trying to connect: cancel() returns (the test hangs if it does not).
  EventLog log;
  WatchHandle w = store->watch("/x", 0, log.callback());
  w.cancel();
}

TEST(EtcdStoreOpen, RefusesBadOptions) {
  EXPECT_EQ(EtcdStore::open({}).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(EtcdStore::open({.endpoints = {"http://127.0.0.1:2379"}}).error().code(),
            Errc::kInvalidArgument);
  EXPECT_EQ(EtcdStore::open({.endpoints = {"127.0.0.1:2379"}, .call_timeout_ms = 0}).error().code(),
            Errc::kInvalidArgument);
  EXPECT_TRUE(EtcdStore::open({.endpoints = {"127.0.0.1:2379", "[::1]:2379"}}).ok());
}

}  // namespace
}  // namespace strata::coordinator
