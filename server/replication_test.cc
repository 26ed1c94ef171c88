// Two brokers in one process over one embedded store: a follower broker
// copies its leader over the RPC.
#include <future>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"
#include "engine/batch_builder.h"
#include "server/broker.h"
#include "server/kafka/messages/all.h"
#include "server/testing/wire_client.h"

namespace strata::server {
namespace {

// What a broker's replica of a partition holds: its log end, high
// watermark and the bytes of every batch (nullopt: not hosted).
struct Held {
  Offset log_end;
  Offset high_watermark;
  replication::Role role;
  std::vector<std::vector<std::byte>> batches;
};

std::optional<Held> held(Broker& b, const std::string& topic, int32_t p) {
  auto snap = b.snapshot();  // keeps what find() points into
  const auto* t = snap->find(topic);
  if (t == nullptr) return std::nullopt;
  auto uid = t->uid(PartitionId(p));
  unsigned shard = b.shard_for(uid);
  std::promise<std::optional<Held>> done;
  // The read chain lives here: held() waits for its end.
  auto next = std::make_shared<std::function<void(Offset)>>();
  b.shard(shard).post([&] {
    auto* part = b.state(shard).find(uid);
    if (part == nullptr) return done.set_value(std::nullopt);
    auto h = std::make_shared<Held>(
        Held{part->log().log_end_offset(), part->high_watermark(), part->role(), {}});
    *next = [&done, h, part, weak = std::weak_ptr(next)](Offset from) {
      if (from >= part->log().log_end_offset()) return done.set_value(*h);
      part->log().read(from, 1, [&done, h, weak](Result<engine::ReadResult> r) {
        auto again = weak.lock();
        if (!r || r->slices.empty() || !again) return done.set_value(*h);
        const auto& s = r->slices.front();
        auto header = engine::read_batch_header(s.data());
        h->batches.emplace_back(s.data(), s.data() + header.total_size());
        (*again)(header.next_offset());
      });
    };
    (*next)(Offset(0));
  });
  return done.get_future().get();
}

// Broker 1's config in `dir`; broker 2's is the same with its own id and
// directory.
BrokerConfig broker_config(const std::filesystem::path& dir, int32_t node_id) {
  BrokerConfig c;
  c.node_id = node_id;
  c.data_dir = dir / fmt::format("b{}", node_id);
  c.listen_port = 0;
  c.schema_registry_enable = false;
  c.cores = 1;
  c.log_level = "warn";
  return c;
}

// `n` batches of three records into `topic`-`partition` through broker
// `w`'s wire.
void produce_to(testing::WireClient& w, const std::string& topic, int32_t partition, int n,
                int16_t acks = -1, int32_t timeout_ms = 30000) {
  for (int i = 0; i < n; ++i) {
    engine::BatchBuilder b;
    for (int r = 0; r < 3; ++r)
      b.add({.key = "k", .value = "v" + std::to_string(i), .timestamp = 1});
    kafka::ProduceRequest req;
    req.acks = acks;
    req.timeout_ms = timeout_ms;
    kafka::ProduceRequest::Partition p;
    p.index = partition;
    p.records.slices = {SharedBytes::adopt(b.build().value())};
    req.topics.push_back({topic, {p}});
    auto resp = w.call<kafka::ProduceRequest, kafka::ProduceResponse>(req, 7);
    ASSERT_EQ(resp.responses.at(0).partitions.at(0).error_code, 0);
  }
}

// Bounded waits on what the brokers hold (they run on their own threads).
template <typename Cond>
bool wait_until(Cond cond) {
  for (int i = 0; i < 3000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Makes broker 2 a replica of `topic`'s partitions (led by broker 1), as
// the controller does once replication is on.
Status add_follower(Broker& b1, const std::string& topic, int32_t partitions) {
  std::promise<Status> changed;
  b1.change_topics(
      0,
      [&] {
        std::vector<coordinator::StateChange> updates;
        for (int32_t p = 0; p < partitions; ++p) {
          auto s = *b1.snapshot()->find(topic)->state(p);
          s.replicas = {1, 2};
          s.isr = {1, 2};
          ++s.partition_epoch;
          updates.push_back({topic, p, s});
        }
        return b1.catalog().update_states(updates);
      },
      [&](Status st) { changed.set_value(st); });
  return changed.get_future().get();
}

TEST(Replication, AFollowerBrokerCopiesItsLeaderOverTheRpc) {
  strata::testing::TempDir dir;
  auto store = coordinator::EmbeddedStore::open(dir.path() / "metadata.json").value();
  auto b1 = Broker::start(broker_config(dir.path(), 1), *store, SystemClock::instance()).value();
  auto b2 = Broker::start(broker_config(dir.path(), 2), *store, SystemClock::instance()).value();
  testing::WireClient w1("127.0.0.1", b1->port());

  kafka::CreateTopicsRequest create;
  create.topics.push_back({"copied", -1, -1, {{0, {1}}}, {}});
  auto created = w1.call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(create, 5);
  ASSERT_EQ(created.topics.at(0).error_code, 0) << created.topics[0].error_message.value_or("");
  auto produce = [&](int n, int16_t acks = -1) { produce_to(w1, "copied", 0, n, acks); };
  produce(3);

  // Broker 2 becomes a replica, as the controller will make it once
  // replication is on: it opens the partition as a follower and copies.
  ASSERT_TRUE(add_follower(*b1, "copied", 1).ok());
  // Caught up: the follower holds everything, the leader's watermark says
  // so, and the follower has heard it.
  auto caught_up = [&] {
    auto leader = held(*b1, "copied", 0);
    auto follower = held(*b2, "copied", 0);
    return leader && follower && follower->role == replication::Role::kFollower &&
           follower->log_end == leader->log_end && leader->high_watermark == leader->log_end &&
           follower->high_watermark == leader->high_watermark;
  };
  ASSERT_TRUE(wait_until(caught_up));
  produce(2);  // and what comes later, through the long poll
  ASSERT_TRUE(wait_until(caught_up));
  auto leader = held(*b1, "copied", 0).value();
  auto follower = held(*b2, "copied", 0).value();
  EXPECT_EQ(leader.log_end, Offset(15));
  EXPECT_EQ(follower.batches, leader.batches);  // byte for byte
  // The leader's watermark is over its ISR: it is what the follower holds.
  EXPECT_EQ(leader.high_watermark, Offset(15));

  // The follower goes away: its lease with it, so the controller takes it
  // out of the ISR and the leader's watermark moves on without it.
  ASSERT_TRUE(b2->stop().ok());
  produce(1, /*acks=*/1);
  ASSERT_TRUE(wait_until([&] {
    auto h = held(*b1, "copied", 0);
    return h && h->high_watermark == Offset(18);
  }));
  EXPECT_EQ(b1->snapshot()->find("copied")->state(0)->isr, std::vector<int32_t>{1});

  ASSERT_TRUE(b1->stop().ok());
}

TEST(Replication, OnFsyncTopicsAnAcksAllWriteDoesNotWaitForTheFollowersLongPoll) {
  // The follower's fetches long-poll for 9 s; an acks=all produce gives
  // the leader 3 s. The follower's sync of what it copied must reach the
  // leader without waiting for a fetch that parks for lack of new data
  // (it fetches again once its sync is done, carrying the durable offset).
  strata::testing::TempDir dir;
  auto store = coordinator::EmbeddedStore::open(dir.path() / "metadata.json").value();
  auto b1 = Broker::start(broker_config(dir.path(), 1), *store, SystemClock::instance()).value();
  auto c2 = broker_config(dir.path(), 2);
  c2.replica_fetch_wait_max_ms = 9000;
  auto b2 = Broker::start(c2, *store, SystemClock::instance()).value();
  testing::WireClient w1("127.0.0.1", b1->port());
  kafka::CreateTopicsRequest create;
  create.topics.push_back({"synced", -1, -1, {{0, {1}}}, {}});
  auto created = w1.call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(create, 5);
  ASSERT_EQ(created.topics.at(0).error_code, 0) << created.topics[0].error_message.value_or("");
  ASSERT_TRUE(add_follower(*b1, "synced", 1).ok());
  ASSERT_TRUE(wait_until([&] {
    auto isr = b1->snapshot()->find("synced")->state(0)->isr;
    auto follower = held(*b2, "synced", 0);
    return isr == std::vector<int32_t>{1, 2} && follower &&
           follower->role == replication::Role::kFollower;
  }));
  for (int i = 0; i < 5; ++i)
    produce_to(w1, "synced", 0, 1, /*acks=*/-1, /*timeout_ms=*/3000);
  auto leader = held(*b1, "synced", 0).value();
  auto follower = held(*b2, "synced", 0).value();
  EXPECT_EQ(leader.high_watermark, Offset(15));
  EXPECT_EQ(follower.batches, leader.batches);
  ASSERT_TRUE(b2->stop().ok());
  ASSERT_TRUE(b1->stop().ok());
}

TEST(Replication, AFollowerCopiesEveryPartitionWhenEachResponseHoldsOneBatch) {
  // One byte per partition and per response: each answer carries the
  // first batch of one partition, the others wait for the next fetch.
  strata::testing::TempDir dir;
  auto store = coordinator::EmbeddedStore::open(dir.path() / "metadata.json").value();
  auto b1 = Broker::start(broker_config(dir.path(), 1), *store, SystemClock::instance()).value();
  auto c2 = broker_config(dir.path(), 2);
  c2.replica_fetch_max_bytes = 1;
  c2.replica_fetch_response_max_bytes = 1;
  auto b2 = Broker::start(c2, *store, SystemClock::instance()).value();
  testing::WireClient w1("127.0.0.1", b1->port());
  kafka::CreateTopicsRequest create;
  create.topics.push_back({"capped", -1, -1, {{0, {1}}, {1, {1}}, {2, {1}}}, {}});
  auto created = w1.call<kafka::CreateTopicsRequest, kafka::CreateTopicsResponse>(create, 5);
  ASSERT_EQ(created.topics.at(0).error_code, 0) << created.topics[0].error_message.value_or("");
  for (int32_t p = 0; p < 3; ++p)
    produce_to(w1, "capped", p, 4 + p);
  ASSERT_TRUE(add_follower(*b1, "capped", 3).ok());
  for (int32_t p = 0; p < 3; ++p)
    produce_to(w1, "capped", p, 2);  // while the follower copies
  ASSERT_TRUE(wait_until([&] {
    for (int32_t p = 0; p < 3; ++p) {
      auto leader = held(*b1, "capped", p);
      auto follower = held(*b2, "capped", p);
      if (!leader || !follower || follower->log_end != leader->log_end ||
          leader->high_watermark != leader->log_end) {
        return false;
      }
    }
    return true;
  }));
  for (int32_t p = 0; p < 3; ++p) {
    auto leader = held(*b1, "capped", p).value();
    auto follower = held(*b2, "capped", p).value();
    EXPECT_EQ(leader.log_end, Offset(3 * (6 + p))) << p;
    EXPECT_EQ(follower.batches, leader.batches) << p;  // byte for byte, none twice
  }
  ASSERT_TRUE(b2->stop().ok());
  ASSERT_TRUE(b1->stop().ok());
}

}  // namespace
}  // namespace strata::server
