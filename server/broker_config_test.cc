#include "server/broker_config.h"

#include <fstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "server/kafka_broker_configs.h"

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
  EXPECT_EQ(c.log_cache_window_bytes, 64 << 20);
  auto off = parse({"--set", "strata.log.cache.window.bytes=0"}).value().value();
  EXPECT_EQ(off.log_cache_window_bytes, 0);
  EXPECT_EQ(off.describe().at("strata.log.cache.window.bytes"), "0");
  EXPECT_TRUE(BrokerConfig::is_static_key("strata.log.cache.window.bytes"));
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
  EXPECT_EQ(c.topic_default_props.at("log.retention.hours"), "24");
  EXPECT_EQ(c.describe().at("node.id"), "9");
  EXPECT_EQ(c.describe().count("log.retention.hours"), 0u);  // topic defaults are apart
}

TEST(BrokerConfig, TopicDefaultsTakeKafkasSynonymsInKafkasOrder) {
  // log.retention.ms wins over log.retention.hours whatever their order.
  auto c = parse({"--set", "log.retention.ms=5000", "--set", "log.retention.hours=2", "--set",
                  "log.roll.hours=1", "--set", "compression.type=zstd", "--set",
                  "log.flush.interval.messages=10", "--set", "log.cleaner.min.cleanable.ratio=0.1",
                  "--set", "log.message.format.version=2.8", "--set", "log.retention.minutes=-1"})
               .value()
               .value();
  EXPECT_EQ(c.topic_defaults.retention_ms, 5000);
  EXPECT_EQ(c.topic_defaults.segment_ms, 3600000);
  EXPECT_EQ(c.topic_defaults.compression_type, engine::Compression::kZstd);
  EXPECT_EQ(c.topic_defaults.flush_messages, 10);
  EXPECT_EQ(c.topic_defaults.min_cleanable_dirty_ratio, 0.1);
  EXPECT_EQ(c.topic_defaults.message_format_version, "2.8");
  // Without the milliseconds, minutes come before hours; -1 is forever.
  auto m = parse({"--set", "log.retention.hours=2", "--set", "log.retention.minutes=-1"})
               .value()
               .value();
  EXPECT_EQ(m.topic_defaults.retention_ms, -1);
  EXPECT_TRUE(BrokerConfig::is_static_key("num.partitions"));
  EXPECT_TRUE(BrokerConfig::is_static_key("log.retention.hours"));
  EXPECT_FALSE(BrokerConfig::is_static_key("log.retention.ms"));
  EXPECT_FALSE(BrokerConfig::is_static_key("no.such.key"));
}

// Every property of Strata's own is static, is described with the value it
// was set to, and takes its aliases: one table decides all three.
TEST(BrokerConfig, OwnPropertiesAreStaticAndDescribedAsSet) {
  auto c = parse({"--set", "transaction.max.timeout.ms=60000", "--set", "broker.id=4", "--set",
                  "offsets.retention.minutes=90", "--set",
                  "leader.imbalance.check.interval.seconds=30", "--set", "log.dir=/srv/strata"})
               .value()
               .value();
  auto shown = c.describe();
  for (const auto& [key, value] : shown)
    EXPECT_TRUE(BrokerConfig::is_static_key(key)) << key;
  EXPECT_TRUE(
      BrokerConfig::is_static_key("transaction.abort.timed.out.transaction.cleanup.interval.ms"));
  EXPECT_TRUE(BrokerConfig::is_static_key("max.inflight.requests.per.connection"));
  EXPECT_EQ(c.transaction_max_timeout_ms, 60000);
  EXPECT_EQ(shown.at("transaction.max.timeout.ms"), "60000");
  EXPECT_EQ(c.node_id, 4);
  EXPECT_EQ(shown.at("node.id"), "4");
  EXPECT_EQ(shown.count("broker.id"), 0u);
  EXPECT_EQ(c.offsets_retention_ms, 90 * 60000);
  EXPECT_EQ(shown.at("offsets.retention.minutes"), "90");
  EXPECT_EQ(c.leader_imbalance_check_interval_ms, 30000);
  EXPECT_EQ(shown.at("leader.imbalance.check.interval.seconds"), "30");
  EXPECT_EQ(shown.at("log.dirs"), "/srv/strata");
  // Those without a Kafka counterpart worth showing stay out of the list.
  EXPECT_EQ(shown.count("log.level"), 0u);
  EXPECT_EQ(shown.count("num.cores"), 0u);
}

TEST(BrokerConfig, BadInputNamesTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string message_part;
  };
  std::vector<Case> cases = {
      {{"--set", "no.such.key=1"}, "unknown broker config 'no.such.key'"},
      {{"--set", "num.io.threads=many"}, "'num.io.threads': must be an int"},
      {{"--set", "sasl.kerberos.min.time.before.relogin=1m"}, "must be a long"},
      {{"--set", "delete.topic.enable=yes"}, "true or false"},
      {{"--set", "log.cleaner.io.buffer.load.factor=high"}, "must be a number"},
      {{"--set", "num.partitions=0"}, "num.partitions"},
      {{"--set", "auto.create.topics.enable=yes"}, "true or false"},
      {{"--set", "novalue"}, "key=value"},
      {{"--listen", "localhost"}, "host:port"},
      {{"--listen", "SSL://h:1"}, "PLAINTEXT"},
      {{"--set", "log.cleanup.policy=shred"}, "log.cleanup.policy"},
      {{"--set", "log.retention.hours=soon"}, "log.retention.hours"},
      {{"--set", "log.roll.hours=0"}, "log.roll.hours"},
      {{"--set", "compression.type=brotli"}, "compression.type"},
      {{"--set", "message.max.bytes=-1"}, "message.max.bytes"},
      {{"--set", "strata.log.cache.window.bytes=-1"}, "strata.log.cache.window.bytes"},
      {{"--set", "strata.log.cache.window.bytes=64MiB"}, "not an integer"},
      {{"--set", "schema.registry.listeners=https://h:8081"}, "only http listeners"},
      {{"--set", "schema.registry.listeners=h:1,h:2"}, "one listener"},
      {{"--set", "schema.registry.listeners=h"}, "host:port"},
      {{"--set", "schema.registry.listeners=h:70000"}, "between 0 and 65535"},
      {{"--set", "schema.registry.enable=maybe"}, "true or false"},
      {{"--set", "schema.registry.max.request.bytes=0"}, "schema.registry.max.request.bytes"},
      {{"--set", "replica.fetch.max.bytes=0"}, "replica.fetch.max.bytes"},
      {{"--set", "replica.fetch.response.max.bytes=1GiB"}, "not an integer"},
      {{"--set", "replica.fetch.wait.max.ms=-1"}, "replica.fetch.wait.max.ms"},
      {{"--set", "replica.lag.time.max.ms=400", "--set", "replica.fetch.wait.max.ms=500"},
       "replica.fetch.wait.max.ms (500) must be below replica.lag.time.max.ms (400)"},
      {{"--unknown-flag"}, "unknown-flag"},
      {{"--config", "/nonexistent/file"}, "/nonexistent/file"},
  };
  for (const auto& c : cases) {
    auto r = parse(c.args);
    ASSERT_FALSE(r.ok()) << c.args[0];
    EXPECT_NE(r.error().message().find(c.message_part), std::string::npos) << r.error().message();
  }
}

TEST(BrokerConfig, EveryBrokerConfigKafkaDocumentsIsTakenAndKept) {
  // The generated table is sorted (find_kafka_broker_config searches it)
  // and holds Kafka 4's configs.
  auto all = kafka_broker_configs();
  EXPECT_GE(all.size(), 379u);
  for (size_t i = 1; i < all.size(); ++i)
    EXPECT_LT(all[i - 1].name, all[i].name);
  for (const auto& k : all)
    EXPECT_EQ(find_kafka_broker_config(k.name), &k);
  EXPECT_EQ(find_kafka_broker_config("no.such.key"), nullptr);
  // A properties file written for Kafka: what Strata uses is applied, the
  // rest is kept as given.
  auto c = parse({"--set", "num.partitions=3", "--set", "num.network.threads=5", "--set",
                  "process.roles=broker,controller", "--set", "ssl.keystore.password=secret",
                  "--set", "log.cleaner.io.buffer.load.factor=0.8", "--set",
                  "sasl.kerberos.min.time.before.relogin=58000"});
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ((*c)->num_partitions, 3);
  EXPECT_EQ((*c)->kafka_only_props,
            (coordinator::ConfigMap{{"log.cleaner.io.buffer.load.factor", "0.8"},
                                    {"num.network.threads", "5"},
                                    {"process.roles", "broker,controller"},
                                    {"sasl.kerberos.min.time.before.relogin", "58000"},
                                    {"ssl.keystore.password", "secret"}}));
}

TEST(BrokerConfig, TheDefaultReplicationFactorIsAnyPositiveCountAsInKafka) {
  EXPECT_EQ(parse({}).value()->default_replication_factor, 1);
  auto three = parse({"--set", "default.replication.factor=3"}).value().value();
  EXPECT_EQ(three.default_replication_factor, 3);
  EXPECT_EQ(three.describe().at("default.replication.factor"), "3");
  for (const char* bad : {"0", "-1", "40000", "three"}) {
    auto r = parse({"--set", std::string("default.replication.factor=") + bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message().find("default.replication.factor"), std::string::npos)
        << r.error().message();
  }
}

TEST(BrokerConfig, FollowersFetchWithKafkasDefaultsUnlessTold) {
  auto defaults = parse({});
  ASSERT_TRUE(defaults.ok()) << defaults.error().message();
  EXPECT_EQ((*defaults)->replica_fetch_max_bytes, 1 << 20);
  EXPECT_EQ((*defaults)->replica_fetch_response_max_bytes, 10 << 20);
  EXPECT_EQ((*defaults)->replica_fetch_wait_max_ms, 500);
  auto set = parse({"--set", "replica.fetch.max.bytes=4194304", "--set",
                    "replica.fetch.response.max.bytes=16777216", "--set",
                    "replica.fetch.wait.max.ms=100"});
  ASSERT_TRUE(set.ok()) << set.error().message();
  EXPECT_EQ((*set)->replica_fetch_max_bytes, 4 << 20);
  EXPECT_EQ((*set)->replica_fetch_response_max_bytes, 16 << 20);
  EXPECT_EQ((*set)->replica_fetch_wait_max_ms, 100);
  EXPECT_TRUE(BrokerConfig::is_static_key("replica.fetch.max.bytes"));
}

TEST(BrokerConfig, TheSchemaRegistryListensOnTheListenHostUnlessTold) {
  auto d = parse({"--listen", "127.0.0.12:9092"}).value().value();
  EXPECT_TRUE(d.schema_registry_enable);
  EXPECT_EQ(d.schema_registry_port, 8081);
  EXPECT_FALSE(d.schema_registry_explicit);  // a taken port is then a warning
  EXPECT_EQ(d.describe().at("schema.registry.listeners"), "http://127.0.0.12:8081");
  auto e = parse({"--set", "schema.registry.listeners=http://127.0.0.5:0"}).value().value();
  EXPECT_EQ(e.schema_registry_host, "127.0.0.5");
  EXPECT_EQ(e.schema_registry_port, 0);
  EXPECT_TRUE(e.schema_registry_explicit);
}

TEST(BrokerConfig, TheMetadataStoreIsEmbeddedUnlessEtcdIsNamedWithItsEndpoints) {
  auto c = parse({}).value().value();
  EXPECT_EQ(c.metadata_store, BrokerConfig::MetadataStoreKind::kEmbedded);
  EXPECT_TRUE(c.etcd_endpoints.empty());
  EXPECT_EQ(c.describe().at("metadata.store"), "embedded");
  EXPECT_EQ(c.describe().at("etcd.endpoints"), "");

  auto e = parse({"--set", "metadata.store=etcd", "--set",
                  "etcd.endpoints=127.0.0.1:2379, etcd-2:2379,[::1]:22379"})
               .value()
               .value();
  EXPECT_EQ(e.metadata_store, BrokerConfig::MetadataStoreKind::kEtcd);
  EXPECT_EQ(e.etcd_endpoints,
            (std::vector<std::string>{"127.0.0.1:2379", "etcd-2:2379", "[::1]:22379"}));
  EXPECT_EQ(e.describe().at("metadata.store"), "etcd");
  EXPECT_EQ(e.describe().at("etcd.endpoints"), "127.0.0.1:2379,etcd-2:2379,[::1]:22379");
  EXPECT_TRUE(BrokerConfig::is_static_key("metadata.store"));
  EXPECT_TRUE(BrokerConfig::is_static_key("etcd.endpoints"));

  // In a properties file too, in either order.
  strata::testing::TempDir dir;
  std::ofstream(dir / "p") << "etcd.endpoints=h1:1,h2:2\nmetadata.store=etcd\n";
  auto f = parse({"--config", (dir / "p").string()}).value().value();
  EXPECT_EQ(f.etcd_endpoints, (std::vector<std::string>{"h1:1", "h2:2"}));

  struct Case {
    std::vector<std::string> args;
    std::string message_part;
  };
  std::vector<Case> cases = {
      {{"--set", "metadata.store=zookeeper"}, "must be embedded or etcd"},
      {{"--set", "metadata.store=etcd"}, "needs etcd.endpoints"},
      {{"--set", "etcd.endpoints="}, "etcd.endpoints"},
      {{"--set", "etcd.endpoints=127.0.0.1"}, "'127.0.0.1' is not host:port"},
      {{"--set", "etcd.endpoints=h:1,h:70000"}, "h:70000"},
      {{"--set", "etcd.endpoints=http://h:2379"}, "scheme"},
      {{"--set", "etcd.endpoints=h:1,,g:2"}, "empty etcd endpoint"},
  };
  for (const auto& c : cases) {
    auto r = parse(c.args);
    ASSERT_FALSE(r.ok()) << c.args[1];
    EXPECT_EQ(r.error().code(), Errc::kInvalidConfig) << c.args[1];
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
