#include "server/broker_config.h"

#include <fstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace strata::server {
namespace {

Result<std::optional<BrokerConfig>> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "strata-broker");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  return BrokerConfig::from_args(static_cast<int>(argv.size()), argv.data());
}

TEST(BrokerConfig, DefaultsAreASingleLocalBroker) {
  auto c = parse({}).value().value();
  EXPECT_EQ(c.listen_host, "127.0.0.1");
  EXPECT_EQ(c.listen_port, 9092);
  EXPECT_EQ(c.data_dir, "data");
  EXPECT_EQ(c.node_id, 1);
  EXPECT_TRUE(c.auto_create_topics);
  EXPECT_EQ(c.num_partitions, 1);
  EXPECT_EQ(c.topic_defaults, engine::TopicConfig{});
  EXPECT_EQ(c.advertised_host_or_listen(), "127.0.0.1");
}

TEST(BrokerConfig, PropertiesFileThenSetThenFlags) {
  strata::testing::TempDir dir;
  {
    std::ofstream f(dir / "server.properties");
    f << "# a comment\n! another\n\n"
      << "node.id = 7\nnum.partitions=3\nlog.retention.hours=24\n"
      << "listeners=PLAINTEXT://0.0.0.0:19092\nadvertised.listeners=PLAINTEXT://"
         "broker.example:9093\n"
      << "log.segment.bytes=1048576\ndurability=replicated\n";
  }
  auto c = parse({"--config", (dir / "server.properties").string(), "--set", "num.partitions=5",
                  "--node-id", "9", "--data-dir", "/var/lib/strata"})
               .value()
               .value();
  EXPECT_EQ(c.node_id, 9);
  EXPECT_EQ(c.num_partitions, 5);
  EXPECT_EQ(c.topic_defaults.retention_ms, 24 * 3600 * 1000);
  EXPECT_EQ(c.topic_defaults.segment_bytes, 1048576);
  EXPECT_EQ(c.topic_defaults.durability, engine::Durability::kReplicated);
  EXPECT_EQ(c.listen_host, "0.0.0.0");
  EXPECT_EQ(c.listen_port, 19092);
  EXPECT_EQ(c.advertised_host_or_listen(), "broker.example");
  EXPECT_EQ(c.advertised_port_or_listen(), 9093);
  EXPECT_EQ(c.data_dir, "/var/lib/strata");
  EXPECT_EQ(c.describe().at("log.retention.ms"), std::to_string(24 * 3600 * 1000));
}

TEST(BrokerConfig, BadInputNamesTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string message_part;
  };
  std::vector<Case> cases = {
      {{"--set", "no.such.key=1"}, "unknown broker config 'no.such.key'"},
      {{"--set", "num.partitions=0"}, "num.partitions"},
      {{"--set", "auto.create.topics.enable=yes"}, "true or false"},
      {{"--set", "novalue"}, "key=value"},
      {{"--listen", "localhost"}, "host:port"},
      {{"--listen", "SSL://h:1"}, "PLAINTEXT"},
      {{"--set", "log.cleanup.policy=shred"}, "log.cleanup.policy"},
      {{"--unknown-flag"}, "unknown-flag"},
      {{"--config", "/nonexistent/file"}, "/nonexistent/file"},
  };
  for (const auto& c : cases) {
    auto r = parse(c.args);
    ASSERT_FALSE(r.ok()) << c.args[0];
    EXPECT_NE(r.error().message().find(c.message_part), std::string::npos) << r.error().message();
  }
}

TEST(BrokerConfig, BadPropertiesLineNamesFileAndLine) {
  strata::testing::TempDir dir;
  {
    std::ofstream f(dir / "p");
    f << "num.partitions=2\nthis line has no equals sign\n";
  }
  auto r = parse({"--config", (dir / "p").string()});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find(":2:"), std::string::npos) << r.error().message();
}

}  // namespace
}  // namespace strata::server
