// Tests of the redis-streams driver against a real redis-server per test.
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
using Clock = std::chrono::steady_clock;

// A redis-server on a free loopback port that keeps nothing on disk.
class RedisServer {
 public:
  explicit RedisServer(const std::vector<std::string>& extra_args = {})
      : port_(testing::free_port()) {
    std::vector<std::string> argv{"redis-server",
                                  "--port",
                                  std::to_string(port_),
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  "no",
                                  "--dir",
                                  dir_.path().string()};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    process_ = std::make_unique<testing::ServerProcess>(argv, port_, (dir_ / "redis.log").string());
  }

  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  void stop() { process_.reset(); }

 private:
  ::strata::testing::TempDir dir_;
  int port_;
  std::unique_ptr<testing::ServerProcess> process_;
};

class RecordingAcks final : public AckSink {
 public:
  void acked(int64_t send_ns) override { acked_ns.push_back(send_ns); }
  void failed(std::string_view error) override { failures.emplace_back(error); }

  std::vector<int64_t> acked_ns;
  std::vector<std::string> failures;
};

class Collector final : public MessageSink {
 public:
  void received(std::string_view value) override { values.emplace_back(value); }

  std::vector<std::string> values;
};

// Stamped with send_ns 1000 + sequence, so acks can be matched to messages;
// the filler includes NUL, CR and LF bytes to exercise binary safety.
std::string make_value(uint64_t sequence, int size) {
  std::string v(static_cast<size_t>(size), '\0');
  for (size_t j = kMinMessageSize; j < v.size(); ++j)
    v[j] = static_cast<char>((sequence * 131 + j * 7) & 0xff);
  write_stamp(
      v.data(),
      Stamp{.send_ns = static_cast<int64_t>(1000 + sequence), .producer = 0, .sequence = sequence});
  return v;
}

uint64_t sequence_of(std::string_view value) {
  auto stamp = read_stamp(value);
  EXPECT_TRUE(stamp.has_value());
  return stamp ? stamp->sequence : UINT64_MAX;
}

Workload small_workload(int partitions, int groups, int members, const std::string& acks = "1") {
  Workload w;
  w.topic_prefix = "rt";
  w.partitions = partitions;
  w.groups = groups;
  w.consumers_per_group = members;
  w.message_size = 100;
  w.acks = acks;
  return w;
}

std::unique_ptr<Driver> connect(const std::string& url,
                                std::map<std::string, std::string> settings = {}) {
  auto d = make_redis_driver(DriverOptions{url, std::move(settings)});
  EXPECT_TRUE(d.ok()) << d.error().to_string();
  return d.ok() ? std::move(d).value() : nullptr;
}

// Sends make_value(first .. first + n - 1) to `partition` and flushes.
void produce(Producer& p, uint64_t first, uint64_t n, int partition = -1) {
  for (uint64_t i = first; i < first + n; ++i) {
    auto s = p.send(partition, "", make_value(i, 100));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  auto s = p.flush(milliseconds(30'000));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
}

// Polls every member of `group` in turn until they received `want` messages
// together (or 30 s pass), then closes them. Returns what each received.
std::vector<std::vector<std::string>> consume(Driver& d, const Workload& w,
                                              const std::string& group, size_t want) {
  int members = w.consumers_per_group;
  std::vector<std::unique_ptr<Consumer>> consumers;
  for (int m = 0; m < members; ++m) {
    auto c = d.consumer(w, w.topic_names()[0], group, m, members);
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    if (!c.ok()) return {};
    consumers.push_back(std::move(c).value());
  }
  std::vector<Collector> sinks(static_cast<size_t>(members));
  size_t total = 0;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (total < want && Clock::now() < deadline) {
    for (int m = 0; m < members; ++m) {
      auto n = consumers[m]->poll(milliseconds(100), sinks[m]);
      EXPECT_TRUE(n.ok()) << n.error().to_string();
      if (!n.ok()) return {};
      total += *n;
    }
  }
  EXPECT_EQ(total, want) << "group " << group;
  std::vector<std::vector<std::string>> out;
  for (int m = 0; m < members; ++m) {
    auto s = consumers[m]->close();
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    out.push_back(std::move(sinks[m].values));
  }
  return out;
}

class RedisAccountingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RedisAccountingTest, EveryMessageAckedOnceAndReadOncePerGroup) {
  RedisServer server;
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(4, 2, 2, GetParam());
  ASSERT_TRUE(driver->prepare(w).ok());

  constexpr uint64_t kCount = 3000;
  RecordingAcks acks;
  auto producer = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(producer.ok()) << producer.error().to_string();
  std::vector<std::string> sent;
  for (uint64_t i = 0; i < kCount; ++i) {
    sent.push_back(make_value(i, w.message_size));
    // The first half goes round robin, the second to partition i % 4; odd
    // messages carry a key.
    int partition = i < kCount / 2 ? -1 : static_cast<int>(i % 4);
    std::string key = i % 2 == 1 ? "key-" + std::to_string(i) : "";
    auto s = (*producer)->send(partition, key, sent.back());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }
  auto flushed = (*producer)->flush(milliseconds(30'000));
  ASSERT_TRUE(flushed.ok()) << flushed.error().to_string();

  EXPECT_TRUE(acks.failures.empty()) << acks.failures.front();
  ASSERT_EQ(acks.acked_ns.size(), kCount);
  for (uint64_t i = 0; i < kCount; ++i)  // replies come in order
    ASSERT_EQ(acks.acked_ns[i], static_cast<int64_t>(1000 + i));

  for (const auto& group : w.group_names()) {
    auto received = consume(*driver, w, group, kCount);
    ASSERT_EQ(received.size(), 2u);
    std::vector<int> times(kCount, 0);
    for (size_t member = 0; member < received.size(); ++member) {
      EXPECT_FALSE(received[member].empty()) << group << " member " << member;
      for (const auto& value : received[member]) {
        uint64_t seq = sequence_of(value);
        ASSERT_LT(seq, kCount);
        ++times[seq];
        EXPECT_EQ(value, sent[seq]) << "sequence " << seq;
        // Member m reads the partitions p with p % 2 == m.
        if (seq >= kCount / 2) {
          EXPECT_EQ(seq % 4 % 2, member) << "sequence " << seq;
        }
      }
    }
    for (uint64_t i = 0; i < kCount; ++i)
      EXPECT_EQ(times[i], 1) << group << " sequence " << i;
  }
  EXPECT_TRUE(driver->cleanup(w).ok());
}

INSTANTIATE_TEST_SUITE_P(Acks, RedisAccountingTest, ::testing::Values("0", "1", "all"));

TEST(RedisDriverTest, PrepareAgainEmptiesTheStreams) {
  RedisServer server;
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(3, 1, 1);
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto before = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(before.ok());
  produce(**before, 0, 100);

  ASSERT_TRUE(driver->prepare(w).ok());
  auto after = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(after.ok());
  produce(**after, 100, 50);
  EXPECT_EQ(acks.acked_ns.size(), 150u);

  auto received = consume(*driver, w, w.group_names()[0], 50);
  ASSERT_EQ(received.size(), 1u);
  for (const auto& value : received[0])
    EXPECT_GE(sequence_of(value), 100u);

  // Nothing older is left to read either.
  auto late = driver->consumer(w, w.topic_names()[0], w.group_names()[0], 0, 1);
  ASSERT_TRUE(late.ok());
  Collector sink;
  auto n = (*late)->poll(milliseconds(200), sink);
  ASSERT_TRUE(n.ok()) << n.error().to_string();
  EXPECT_EQ(*n, 0u);
}

TEST(RedisDriverTest, MemberBeyondThePartitionCountReadsNothing) {
  RedisServer server;
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(1, 1, 2);
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto p = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(p.ok());
  produce(**p, 0, 20);

  auto received = consume(*driver, w, w.group_names()[0], 20);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].size(), 20u);
  EXPECT_TRUE(received[1].empty());
}

TEST(RedisDriverTest, MaxlenAndASmallWindowWork) {
  RedisServer server;
  auto driver = connect(server.url(), {{"maxlen", "10"}, {"pipeline", "7"}});
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(1, 1, 1);
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto p = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(p.ok());
  produce(**p, 0, 300, 0);
  EXPECT_EQ(acks.acked_ns.size(), 300u);
  EXPECT_TRUE(acks.failures.empty());
}

TEST(RedisDriverTest, ErrorRepliesAreReportedAsFailures) {
  // Past maxmemory (noeviction), Redis refuses XADD with an OOM error.
  RedisServer server({"--maxmemory", "2mb"});
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(2, 1, 1);
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto p = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(p.ok());
  constexpr uint64_t kCount = 5000;
  for (uint64_t i = 0; i < kCount; ++i)
    ASSERT_TRUE((*p)->send(-1, "", make_value(i, 1000)).ok());
  ASSERT_TRUE((*p)->flush(milliseconds(30'000)).ok());
  EXPECT_EQ(acks.acked_ns.size() + acks.failures.size(), kCount);
  ASSERT_FALSE(acks.failures.empty());
  EXPECT_NE(acks.failures.front().find("OOM"), std::string::npos) << acks.failures.front();
}

TEST(RedisDriverTest, LostServerFailsOutstandingMessagesWithoutCrashing) {
  RedisServer server;
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(2, 1, 1);
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto p = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(p.ok());
  auto c = driver->consumer(w, w.topic_names()[0], w.group_names()[0], 0, 1);
  ASSERT_TRUE(c.ok());
  produce(**p, 0, 100);

  server.stop();
  size_t accepted = 0;
  for (uint64_t i = 100; i < 200; ++i) {
    if ((*p)->send(-1, "", make_value(i, 100)).ok()) ++accepted;
  }
  // Every accepted message has its fate, so flush has nothing left to wait for.
  auto flushed = (*p)->flush(milliseconds(10'000));
  EXPECT_TRUE(flushed.ok()) << flushed.error().to_string();
  EXPECT_EQ(acks.acked_ns.size(), 100u);
  EXPECT_EQ(acks.failures.size(), accepted);
  EXPECT_FALSE((*p)->send(-1, "", make_value(200, 100)).ok());

  Collector sink;
  auto n = (*c)->poll(milliseconds(100), sink);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code(), Errc::kIoError);
}

TEST(RedisDriverTest, FireAndForgetProducerSurvivesALostServer) {
  RedisServer server;
  auto driver = connect(server.url());
  ASSERT_NE(driver, nullptr);
  Workload w = small_workload(2, 1, 1, "0");
  w.linger_ms = 0;  // every send writes, and with acks=0 nothing is ever read
  ASSERT_TRUE(driver->prepare(w).ok());
  RecordingAcks acks;
  auto p = driver->producer(w, w.topic_names()[0], 0, acks);
  ASSERT_TRUE(p.ok());
  produce(**p, 0, 10);

  // Writing to the closed connection fails with EPIPE (and a SIGPIPE that
  // must not end the process) once the server's reset has arrived.
  server.stop();
  size_t accepted = 10;
  bool refused = false;
  for (uint64_t i = 10; i < 10'000 && !refused; ++i) {
    if ((*p)->send(-1, "", make_value(i, 100)).ok()) {
      ++accepted;
    } else {
      refused = true;
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_FALSE(acks.failures.empty());
  EXPECT_EQ(acks.acked_ns.size() + acks.failures.size(), accepted);
}

TEST(RedisDriverTest, BadUrlsAreRejected) {
  for (std::string url : {"http://127.0.0.1:6379", "redis://127.0.0.1:notaport", "redis://:6379",
                          "127.0.0.1:70000", "redis://user@127.0.0.1:6379", "127.0.0.1:"}) {
    auto d = make_redis_driver(DriverOptions{url, {}});
    ASSERT_FALSE(d.ok()) << url;
    EXPECT_EQ(d.error().code(), Errc::kInvalidArgument) << url;
    EXPECT_NE(d.error().message().find(url), std::string::npos) << d.error().message();
  }
}

TEST(RedisDriverTest, UnknownOrBadSettingsAreRejected) {
  auto unknown = make_redis_driver(DriverOptions{"", {{"pipelin", "10"}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("unknown setting 'pipelin'"), std::string::npos)
      << unknown.error().message();

  auto bad = make_redis_driver(DriverOptions{"", {{"pipeline", "0"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("'pipeline'"), std::string::npos) << bad.error().message();
}

TEST(RedisDriverTest, UnreachableServerIsAnError) {
  std::string url = "127.0.0.1:" + std::to_string(testing::free_port());
  auto d = make_redis_driver(DriverOptions{url, {{"timeout_ms", "2000"}}});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kIoError);
  EXPECT_NE(d.error().message().find("cannot connect to " + url), std::string::npos)
      << d.error().message();
}

}  // namespace
}  // namespace strata::bench
