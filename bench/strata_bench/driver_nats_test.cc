// Tests of the nats-jetstream driver against a real nats-server with
// JetStream, started per test on a free loopback port.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/message.h"
#include "bench/strata_bench/testing/server_process.h"

namespace strata::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

std::string nats_server_binary() {
  const char* installed = "/usr/sbin/nats-server";
  return std::filesystem::exists(installed) ? installed : "nats-server";
}

// The value of message `sequence` of `producer`: a stamp, then filler that
// depends on both, so a mixed-up or corrupted value is noticed.
std::string make_value(uint32_t producer, uint64_t sequence, int size) {
  std::string v(static_cast<size_t>(size), '\0');
  for (size_t i = kMinMessageSize; i < v.size(); ++i)
    v[i] = static_cast<char>('a' + (sequence * 7 + producer * 3 + i) % 26);
  write_stamp(v.data(), Stamp{steady_now_ns(), producer, sequence});
  return v;
}

// Same bytes as make_value, ignoring the send time.
bool value_matches(std::string_view got, int size) {
  std::optional<Stamp> s = read_stamp(got);
  if (!s || got.size() != static_cast<size_t>(size)) return false;
  std::string want = make_value(s->producer, s->sequence, size);
  return got.substr(8) == std::string_view(want).substr(8);
}

class CountingAckSink final : public AckSink {
 public:
  void acked(int64_t send_ns) override {
    ++acks;
    if (send_ns <= 0) ++unstamped;
  }
  void failed(std::string_view error) override { errors.emplace_back(error); }

  size_t acks = 0;
  size_t unstamped = 0;
  std::vector<std::string> errors;
};

class CollectingSink final : public MessageSink {
 public:
  explicit CollectingSink(int value_size) : size(value_size) {}
  void received(std::string_view value) override {
    ++count;
    std::optional<Stamp> s = read_stamp(value);
    if (!s || !value_matches(value, size)) {
      ++corrupt;
      return;
    }
    ++seen[{s->producer, s->sequence}];
  }

  int size;
  size_t count = 0;
  size_t corrupt = 0;
  std::map<std::pair<uint32_t, uint64_t>, int> seen;
};

class NatsDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = testing::free_port();
    server_ = std::make_unique<testing::ServerProcess>(
        std::vector<std::string>{nats_server_binary(), "-js", "-a", "127.0.0.1", "-p",
                                 std::to_string(port_), "-sd", (dir_ / "jetstream").string()},
        port_, (dir_ / "nats-server.log").string());
    DriverOptions o;
    o.url = "nats://127.0.0.1:" + std::to_string(port_);
    // Pull requests smaller than what the tests produce, so reading a topic
    // takes several requests and a member can stop partway through it.
    o.settings.emplace("fetch_batch", "100");
    auto d = make_nats_driver(o);
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    driver_ = std::move(*d);
  }
  void TearDown() override { driver_.reset(); }

  static Workload workload(const std::string& prefix, int partitions, int groups, int members) {
    Workload w;
    w.topic_prefix = prefix;
    w.partitions = partitions;
    w.message_size = 100;
    w.groups = groups;
    w.consumers_per_group = members;
    w.acks = "1";
    return w;
  }

  // Sends `count` messages of producer `index`: even sequences with
  // partition -1, odd ones on an explicit partition. Flushes; expects every
  // message acked.
  void produce(const Workload& w, int index, uint64_t count) {
    CountingAckSink sink;
    auto p = driver_->producer(w, w.topic_names()[0], index, sink);
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    for (uint64_t i = 0; i < count; ++i) {
      int partition = i % 2 == 0 ? -1 : static_cast<int>((i / 2) % w.partitions);
      std::string v = make_value(static_cast<uint32_t>(index), i, w.message_size);
      Status s = (*p)->send(partition, "", v);
      ASSERT_TRUE(s.ok()) << s.error().to_string();
    }
    Status f = (*p)->flush(seconds(30));
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    EXPECT_EQ(sink.acks, count);
    EXPECT_EQ(sink.unstamped, 0u);
    EXPECT_TRUE(sink.errors.empty()) << sink.errors.front();
  }

  // Adds `n` members of `group`, reading the workload's topic, to `out`.
  void join(const Workload& w, const std::string& group, int n,
            std::vector<std::unique_ptr<Consumer>>& out) {
    for (int m = 0; m < n; ++m) {
      auto c = driver_->consumer(w, w.topic_names()[0], group, m, n);
      ASSERT_TRUE(c.ok()) << c.error().to_string();
      out.push_back(std::move(*c));
    }
  }

  // Polls `members` (round robin) until `sink` has `want` messages or 30 s
  // pass; returns how many each member handed over.
  static std::vector<size_t> consume(std::vector<std::unique_ptr<Consumer>>& members,
                                     CollectingSink& sink, size_t want) {
    std::vector<size_t> per_member(members.size(), 0);
    auto deadline = steady_clock::now() + seconds(30);
    while (sink.count < want && steady_clock::now() < deadline) {
      for (size_t m = 0; m < members.size(); ++m) {
        auto n = members[m]->poll(milliseconds(100), sink);
        EXPECT_TRUE(n.ok()) << n.error().to_string();
        if (n.ok()) per_member[m] += *n;
      }
    }
    return per_member;
  }

  // Nothing more arrives for any member.
  static void expect_drained(std::vector<std::unique_ptr<Consumer>>& members,
                             CollectingSink& sink) {
    for (auto& c : members) {
      auto n = c->poll(milliseconds(200), sink);
      ASSERT_TRUE(n.ok()) << n.error().to_string();
      EXPECT_EQ(*n, 0u);
    }
  }

  strata::testing::TempDir dir_;
  int port_ = 0;
  std::unique_ptr<testing::ServerProcess> server_;
  std::unique_ptr<Driver> driver_;
};

TEST_F(NatsDriverTest, EveryMessageAckedAndReadOncePerGroup) {
  Workload w = workload("acct", 4, 2, 2);
  ASSERT_TRUE(driver_->prepare(w).ok());
  constexpr uint64_t kCount = 3000;
  ASSERT_NO_FATAL_FAILURE(produce(w, 0, kCount));

  for (const std::string& group : w.group_names()) {
    SCOPED_TRACE(group);
    std::vector<std::unique_ptr<Consumer>> members;
    ASSERT_NO_FATAL_FAILURE(join(w, group, 2, members));
    CollectingSink sink(w.message_size);
    std::vector<size_t> per_member = consume(members, sink, kCount);
    ASSERT_EQ(sink.count, kCount);
    expect_drained(members, sink);
    EXPECT_EQ(sink.corrupt, 0u);
    ASSERT_EQ(sink.seen.size(), kCount);
    for (uint64_t i = 0; i < kCount; ++i)
      EXPECT_EQ((sink.seen[{0, i}]), 1) << "sequence " << i;
    EXPECT_GT(per_member[0], 0u);
    EXPECT_GT(per_member[1], 0u);
    for (auto& c : members)
      EXPECT_TRUE(c->close().ok());
  }
  EXPECT_TRUE(driver_->cleanup(w).ok());
}

TEST_F(NatsDriverTest, AcksZeroPublishesWithoutPubAcks) {
  Workload w = workload("fire", 3, 1, 1);
  w.acks = "0";
  ASSERT_TRUE(driver_->prepare(w).ok());
  constexpr uint64_t kCount = 2000;
  ASSERT_NO_FATAL_FAILURE(produce(w, 0, kCount));

  std::vector<std::unique_ptr<Consumer>> members;
  ASSERT_NO_FATAL_FAILURE(join(w, w.group_names()[0], 1, members));
  CollectingSink sink(w.message_size);
  consume(members, sink, kCount);
  ASSERT_EQ(sink.count, kCount);
  EXPECT_EQ(sink.seen.size(), kCount);
  EXPECT_EQ(sink.corrupt, 0u);
  EXPECT_TRUE(members[0]->close().ok());
}

TEST_F(NatsDriverTest, PrepareAgainEmptiesTheStream) {
  Workload w = workload("again", 2, 1, 1);
  ASSERT_TRUE(driver_->prepare(w).ok());
  const std::string group = w.group_names()[0];
  ASSERT_NO_FATAL_FAILURE(produce(w, 0, 500));
  {
    // Leave group state behind too: read (and ack) part of the first run.
    std::vector<std::unique_ptr<Consumer>> members;
    ASSERT_NO_FATAL_FAILURE(join(w, group, 1, members));
    CollectingSink sink(w.message_size);
    consume(members, sink, 1);
    ASSERT_GT(sink.count, 0u);
    EXPECT_TRUE(members[0]->close().ok());
  }

  ASSERT_TRUE(driver_->prepare(w).ok());
  constexpr uint64_t kCount = 300;
  ASSERT_NO_FATAL_FAILURE(produce(w, 1, kCount));
  std::vector<std::unique_ptr<Consumer>> members;
  ASSERT_NO_FATAL_FAILURE(join(w, group, 1, members));
  CollectingSink sink(w.message_size);
  consume(members, sink, kCount);
  ASSERT_EQ(sink.count, kCount);
  expect_drained(members, sink);
  ASSERT_EQ(sink.seen.size(), kCount);
  for (const auto& [key, times] : sink.seen) {
    EXPECT_EQ(key.first, 1u) << "a message from before prepare() survived";
    EXPECT_EQ(times, 1);
  }
  EXPECT_TRUE(members[0]->close().ok());
}

TEST_F(NatsDriverTest, ClosedMemberLeavesTheGroupPositionBehind) {
  Workload w = workload("resume", 2, 1, 1);
  ASSERT_TRUE(driver_->prepare(w).ok());
  const std::string group = w.group_names()[0];
  constexpr uint64_t kCount = 1000;
  ASSERT_NO_FATAL_FAILURE(produce(w, 0, kCount));

  CollectingSink sink(w.message_size);
  {
    std::vector<std::unique_ptr<Consumer>> first;
    ASSERT_NO_FATAL_FAILURE(join(w, group, 1, first));
    consume(first, sink, 1);
    ASSERT_GT(sink.count, 0u);
    ASSERT_LT(sink.count, kCount);
    EXPECT_TRUE(first[0]->close().ok());
  }
  std::vector<std::unique_ptr<Consumer>> second;
  ASSERT_NO_FATAL_FAILURE(join(w, group, 1, second));
  consume(second, sink, kCount);
  ASSERT_EQ(sink.count, kCount);
  expect_drained(second, sink);
  EXPECT_EQ(sink.seen.size(), kCount);
  EXPECT_TRUE(second[0]->close().ok());
}

TEST_F(NatsDriverTest, ProducerRefusesBadArgumentsAndCanBeDroppedUnflushed) {
  Workload w = workload("args", 2, 1, 1);
  ASSERT_TRUE(driver_->prepare(w).ok());
  CountingAckSink sink;

  Workload bad_acks = w;
  bad_acks.acks = "2";
  auto refused = driver_->producer(bad_acks, w.topic_names()[0], 0, sink);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("acks"), std::string::npos);

  auto p = driver_->producer(w, w.topic_names()[0], 0, sink);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  std::string v = make_value(0, 0, w.message_size);
  EXPECT_FALSE((*p)->send(2, "", v).ok());
  EXPECT_FALSE((*p)->send(-2, "", v).ok());
  // Destroying a producer with acknowledgements in flight must be safe.
  for (uint64_t i = 0; i < 200; ++i)
    ASSERT_TRUE((*p)->send(-1, "", make_value(0, i, w.message_size)).ok());
  (*p).reset();

  auto bad_group = driver_->consumer(w, w.topic_names()[0], "no.dots", 0, 1);
  ASSERT_FALSE(bad_group.ok());
  EXPECT_NE(bad_group.error().message().find("no.dots"), std::string::npos);
}

TEST(NatsDriverOptionsTest, BadUrlsAndSettingsAreClearErrors) {
  struct Case {
    std::string url;
    std::map<std::string, std::string> settings;
    std::string mentions;
  };
  int closed_port = testing::free_port();
  std::vector<Case> cases = {
      {"redis://127.0.0.1:6379", {}, "nats://"},
      {"nats://127.0.0.1:notaport", {}, "notaport"},
      {"nats://127.0.0.1:70000", {}, "70000"},
      {"nats://:4222", {}, "no host"},
      {"nats://127.0.0.1:" + std::to_string(closed_port), {}, std::to_string(closed_port)},
      {"", {{"bogus", "1"}}, "bogus"},
      {"", {{"max_pending", "0"}}, "max_pending"},
      {"", {{"fetch_batch", "lots"}}, "fetch_batch"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    DriverOptions o;
    o.url = c.url;
    o.settings = c.settings;
    o.settings.emplace("connect_timeout_ms", "2000");
    auto d = make_nats_driver(o);
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().message().find(c.mentions), std::string::npos) << d.error().to_string();
  }
}

}  // namespace
}  // namespace strata::bench
