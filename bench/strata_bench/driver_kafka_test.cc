// The kafka driver against a real strata-broker.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/message.h"
#include "bench/strata_bench/testing/server_process.h"

namespace strata::bench {
namespace {

using namespace std::chrono_literals;

struct CountingSink final : AckSink {
  std::vector<int64_t> acks;
  std::vector<std::string> failures;
  void acked(int64_t send_ns) override { acks.push_back(send_ns); }
  void failed(std::string_view e) override { failures.emplace_back(e); }
};

struct CollectingSink final : MessageSink {
  std::vector<std::string> values;
  void received(std::string_view v) override { values.emplace_back(v); }
};

std::string make_value(uint64_t seq, size_t size) {
  std::string v(size, static_cast<char>('a' + seq % 26));
  write_stamp(v.data(), Stamp{static_cast<int64_t>(1000 + seq), 0, seq});
  return v;
}

class KafkaDriverTest : public ::testing::Test {
 protected:
  KafkaDriverTest()
      : port_(testing::free_port()),
        broker_({STRATA_BROKER_PATH, "--data-dir", (dir_ / "data").string(), "--listen",
                 "127.0.0.1:" + std::to_string(port_), "--cores", "2", "--set",
                 "group.initial.rebalance.delay.ms=0"},
                port_, (dir_ / "broker.log").string()) {}

  Result<std::unique_ptr<Driver>> driver(std::map<std::string, std::string> settings = {}) {
    return make_kafka_driver({"127.0.0.1:" + std::to_string(port_), std::move(settings)});
  }

  strata::testing::TempDir dir_;
  int port_;
  testing::ServerProcess broker_;
};

TEST_F(KafkaDriverTest, EveryAcknowledgedMessageReachesEveryGroupOfTwoMembers) {
  auto d = driver({{"topic.segment.bytes", "1048576"}});
  ASSERT_TRUE(d.ok()) << d.error().message();
  Workload w;
  w.partitions = 4;
  w.groups = 2;
  w.consumers_per_group = 2;
  w.linger_ms = 1;
  ASSERT_TRUE((*d)->prepare(w).ok());
  const std::string topic = w.topic_names()[0];

  // Members first: each group's two members share the four partitions.
  std::map<std::string, std::vector<std::unique_ptr<Consumer>>> members;
  for (const auto& g : w.group_names()) {
    for (int m = 0; m < 2; ++m) {
      auto c = (*d)->consumer(w, topic, g, m, 2);
      ASSERT_TRUE(c.ok()) << c.error().message();
      members[g].push_back(std::move(*c));
    }
  }

  CountingSink acks;
  auto p = (*d)->producer(w, topic, 0, acks);
  ASSERT_TRUE(p.ok()) << p.error().message();
  constexpr uint64_t kCount = 3000;
  std::vector<std::string> sent;
  for (uint64_t i = 0; i < kCount; ++i) {
    sent.push_back(make_value(i, 100));
    int partition = i % 2 == 0 ? -1 : static_cast<int>(i % 4);
    ASSERT_TRUE((*p)->send(partition, i % 3 == 0 ? "" : "key", sent.back()).ok());
  }
  ASSERT_TRUE((*p)->flush(30s).ok());
  EXPECT_EQ(acks.acks.size(), kCount);
  EXPECT_TRUE(acks.failures.empty());

  for (auto& [group, cs] : members) {
    std::set<uint64_t> seen;
    auto deadline = std::chrono::steady_clock::now() + 60s;
    while (seen.size() < kCount && std::chrono::steady_clock::now() < deadline) {
      for (auto& c : cs) {
        CollectingSink got;
        ASSERT_TRUE(c->poll(50ms, got).ok());
        for (const auto& v : got.values) {
          auto s = read_stamp(v);
          ASSERT_TRUE(s.has_value());
          ASSERT_LT(s->sequence, kCount);
          ASSERT_EQ(v, sent[s->sequence]) << "message " << s->sequence << " changed in transit";
          seen.insert(s->sequence);
        }
      }
    }
    // At least once per group (a rebalance may redeliver, never lose). How
    // the partitions are split depends on when each member joined; the
    // broker's group tests check the split.
    EXPECT_EQ(seen.size(), kCount) << group;
  }
  for (auto& [group, cs] : members)
    for (auto& c : cs)
      EXPECT_TRUE(c->close().ok());
  EXPECT_TRUE((*d)->cleanup(w).ok());
}

TEST_F(KafkaDriverTest, PrepareEmptiesTheTopics) {
  auto d = driver();
  ASSERT_TRUE(d.ok()) << d.error().message();
  Workload w;
  w.partitions = 2;
  w.groups = 1;
  ASSERT_TRUE((*d)->prepare(w).ok());
  const std::string topic = w.topic_names()[0];
  CountingSink acks;
  {
    auto p = (*d)->producer(w, topic, 0, acks);
    ASSERT_TRUE(p.ok());
    for (uint64_t i = 0; i < 50; ++i)
      ASSERT_TRUE((*p)->send(-1, "", make_value(i, 64)).ok());
    ASSERT_TRUE((*p)->flush(30s).ok());
  }
  ASSERT_TRUE((*d)->prepare(w).ok());
  auto p = (*d)->producer(w, topic, 0, acks);
  ASSERT_TRUE(p.ok());
  for (uint64_t i = 1000; i < 1010; ++i)
    ASSERT_TRUE((*p)->send(-1, "", make_value(i, 64)).ok());
  ASSERT_TRUE((*p)->flush(30s).ok());
  auto c = (*d)->consumer(w, topic, w.group_names()[0], 0, 1);
  ASSERT_TRUE(c.ok());
  std::set<uint64_t> seen;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (seen.size() < 10 && std::chrono::steady_clock::now() < deadline) {
    CollectingSink got;
    ASSERT_TRUE((*c)->poll(100ms, got).ok());
    for (const auto& v : got.values)
      seen.insert(read_stamp(v)->sequence);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_GE(*seen.begin(), 1000u) << "a message from before the second prepare survived";
  EXPECT_TRUE((*c)->close().ok());
}

TEST_F(KafkaDriverTest, BadSettingsAndAddressesAreClearErrors) {
  auto bad_setting = driver({{"no.such.property", "1"}});
  ASSERT_FALSE(bad_setting.ok());
  EXPECT_NE(bad_setting.error().message().find("no.such.property"), std::string::npos);

  int closed_port = testing::free_port();
  auto unreachable = make_kafka_driver({"127.0.0.1:" + std::to_string(closed_port), {}});
  ASSERT_FALSE(unreachable.ok());
  EXPECT_NE(unreachable.error().message().find("cannot reach a broker"), std::string::npos);

  auto d = driver({{"topic.no.such.config", "1"}});
  ASSERT_TRUE(d.ok());
  Workload w;
  auto prepared = (*d)->prepare(w);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.error().message().find("no.such.config"), std::string::npos)
      << prepared.error().message();
}

}  // namespace
}  // namespace strata::bench
