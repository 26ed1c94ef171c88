#include "bench/strata_bench/workload.h"

#include <gtest/gtest.h>

namespace strata::bench {
namespace {

TEST(WorkloadTest, YamlOverridesDefaultsAndValidates) {
  auto w = parse_workload_yaml(R"(
name: mission
partitions: 16
message_size: 1024
producers: 2
rate: 100000
acks: all
keys: uniform
key_count: 500
groups: 3
warmup_s: 10
duration_s: 60
)");
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(w->name, "mission");
  EXPECT_EQ(w->partitions, 16);
  EXPECT_EQ(w->producers, 2);
  EXPECT_EQ(w->rate, 100000);
  EXPECT_EQ(w->acks, "all");
  EXPECT_EQ(w->keys, KeyDistribution::kUniform);
  EXPECT_EQ(w->key_count, 500);
  EXPECT_EQ(w->groups, 3);
  EXPECT_EQ(w->duration_s, 60);
  EXPECT_EQ(w->linger_ms, Workload{}.linger_ms);  // untouched default
  EXPECT_EQ(w->group_names(), (std::vector<std::string>{"bench-g0", "bench-g1", "bench-g2"}));
  EXPECT_EQ(w->topic_names(), (std::vector<std::string>{"bench-0"}));
}

TEST(WorkloadTest, SequentialKeysAndKeptTopics) {
  auto w = parse_workload_yaml("keys: sequential\nkey_count: 10000000\nkeep_topics: true\n");
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(w->keys, KeyDistribution::kSequential);
  EXPECT_EQ(w->key_count, 10000000);
  EXPECT_TRUE(w->keep_topics);
  EXPECT_FALSE(Workload{}.keep_topics);
  auto none = parse_workload_yaml("keys: sequential\nkey_count: 0\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("key_count"), std::string::npos);
}

TEST(WorkloadTest, EmptyYamlIsTheDefaults) {
  auto w = parse_workload_yaml("");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->partitions, Workload{}.partitions);
}

TEST(WorkloadTest, BadFilesNameTheProblem) {
  struct Case {
    const char* yaml;
    const char* says;
  } cases[] = {
      {"partitons: 3", "unknown key 'partitons'"},
      {"partitions: lots", "bad value for 'partitions'"},
      {"partitions: 0", "partitions must be"},
      {"acks: 2", "acks must be 0, 1 or all"},
      {"message_size: 8", "message_size must be"},
      {"keys: zipf", "keys must be none, uniform or sequential"},
      {"duration_s: 0", "duration_s must be"},
      {"rate: -1", "rate must be"},
      {"topic_prefix: 'a b'", "topic_prefix must be"},
      {"- a\n- b", "expected a mapping"},
      {"a: [", "not YAML"},
  };
  for (const auto& c : cases) {
    auto w = parse_workload_yaml(c.yaml);
    ASSERT_FALSE(w.ok()) << c.yaml;
    EXPECT_NE(w.error().message().find(c.says), std::string::npos)
        << c.yaml << " -> " << w.error().message();
  }
}

TEST(WorkloadTest, MissingFileIsAnError) {
  auto w = load_workload_yaml("/nonexistent/workload.yaml");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message().find("/nonexistent/workload.yaml"), std::string::npos);
}

}  // namespace
}  // namespace strata::bench
