// The broker's session: its registration lease is renewed on a thread of
// its own, whatever the control thread is doing.
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "server/broker.h"

namespace strata::server {
namespace {

// A store that passes everything on and counts the keep-alives.
class CountingStore final : public coordinator::MetadataStore {
 public:
  explicit CountingStore(coordinator::MetadataStore& inner) : inner_(inner) {}

  Result<std::optional<Entry>> get(const std::string& key) override { return inner_.get(key); }
  Result<coordinator::Listing> range(const std::string& prefix) override {
    return inner_.range(prefix);
  }
  Result<coordinator::TxnResult> txn(const coordinator::Txn& txn) override {
    return inner_.txn(txn);
  }
  size_t max_txn_ops() const override { return inner_.max_txn_ops(); }
  Result<coordinator::Lease> grant(int64_t ttl_ms) override { return inner_.grant(ttl_ms); }
  Result<int64_t> keep_alive(coordinator::LeaseId id) override {
    auto r = inner_.keep_alive(id);
    {
      std::lock_guard lock(mu_);
      ++keep_alives_;
    }
    changed_.notify_all();
    return r;
  }
  Status revoke(coordinator::LeaseId id) override { return inner_.revoke(id); }
  Status compact(int64_t revision) override { return inner_.compact(revision); }
  coordinator::WatchHandle watch(const std::string& prefix, int64_t start_revision,
                                 coordinator::WatchCallback cb) override {
    return inner_.watch(prefix, start_revision, std::move(cb));
  }

  int64_t keep_alives() {
    std::lock_guard lock(mu_);
    return keep_alives_;
  }
  // Waits until `n` keep-alives were sent in all; false after `limit`.
  bool wait_for_keep_alives(int64_t n, std::chrono::seconds limit) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, limit, [&] { return keep_alives_ >= n; });
  }

 private:
  coordinator::MetadataStore& inner_;
  std::mutex mu_;
  std::condition_variable changed_;
  int64_t keep_alives_ = 0;
};

TEST(BrokerSession, TheLeaseIsRenewedWhileTheControlThreadIsHeldPastTheTtl) {
  strata::testing::TempDir dir;
  auto store = coordinator::EmbeddedStore::open(dir.path() / "metadata.json").value();
  CountingStore counting(*store);
  BrokerConfig c;
  c.data_dir = dir.path() / "b1";
  c.listen_port = 0;
  c.schema_registry_enable = false;
  c.cores = 1;
  c.log_level = "warn";
  c.broker_session_timeout_ms = 2000;  // a keep-alive every 667 ms
  auto broker = Broker::start(c, counting, SystemClock::instance()).value();
  auto record = store->get("/strata/brokers/1").value();
  ASSERT_TRUE(record.has_value());

  // The control thread is held, as a controller applying hundreds of ISR
  // changes one store transaction at a time holds it...
  std::promise<void> holding, release, done;
  auto released = release.get_future().share();
  broker->change_topics(
      0,
      [&] {
        holding.set_value();
        released.wait();
        return ok_status();
      },
      [&](Status) { done.set_value(); });
  holding.get_future().wait();

  // ...for four keep-alive periods, longer than the 2 s TTL: the lease is
  // renewed all along, and the broker still trusts it.
  int64_t before = counting.keep_alives();
  EXPECT_TRUE(counting.wait_for_keep_alives(before + 4, std::chrono::seconds(60)))
      << "no keep-alive while the control thread was held (" << counting.keep_alives() - before
      << " sent)";
  EXPECT_TRUE(broker->may_lead());
  release.set_value();
  done.get_future().wait();

  // Never re-registered: the record is the one written at start.
  auto now = store->get("/strata/brokers/1").value();
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->create_revision, record->create_revision);
  EXPECT_TRUE(broker->stop().ok());
}

}  // namespace
}  // namespace strata::server
