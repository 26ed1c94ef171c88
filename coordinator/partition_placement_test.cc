#include "coordinator/partition_placement.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

namespace strata::coordinator {
namespace {

std::vector<BrokerInfo> brokers(std::vector<int32_t> ids,
                                std::vector<std::optional<std::string>> racks = {}) {
  std::vector<BrokerInfo> out;
  for (size_t i = 0; i < ids.size(); ++i)
    out.push_back({ids[i], "127.0.0.1", 9092, i < racks.size() ? racks[i] : std::nullopt});
  return out;
}

TEST(PartitionPlacement, ReplicasAreDistinctAndLeadersAndReplicasBalance) {
  auto live = brokers({1, 2, 3});
  auto placed = place_partitions(live, {}, 6, 2).value();
  ASSERT_EQ(placed.size(), 6u);
  std::map<int32_t, int> leaders, replicas;
  for (const auto& s : placed) {
    ASSERT_EQ(s.replicas.size(), 2u);
    EXPECT_NE(s.replicas[0], s.replicas[1]);
    EXPECT_EQ(s.leader, s.replicas[0]);
    EXPECT_EQ(s.isr, s.replicas);
    EXPECT_EQ(s.leader_epoch, 0);
    EXPECT_EQ(s.partition_epoch, 0);
    ++leaders[s.leader];
    for (int32_t r : s.replicas)
      ++replicas[r];
  }
  EXPECT_EQ(leaders, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
  EXPECT_EQ(replicas, (std::map<int32_t, int>{{1, 4}, {2, 4}, {3, 4}}));
}

TEST(PartitionPlacement, NewPartitionsGoWhereThereAreFewestLeaders) {
  // Broker 1 already leads three partitions, broker 2 one.
  std::vector<PartitionState> existing = {
      {{1}, 1, 0, {1}, 0}, {{1}, 1, 0, {1}, 0}, {{1}, 1, 0, {1}, 0}, {{2}, 2, 0, {2}, 0}};
  auto placed = place_partitions(brokers({1, 2, 3}), existing, 3, 1).value();
  std::vector<int32_t> leaders;
  for (const auto& s : placed)
    leaders.push_back(s.leader);
  EXPECT_EQ(leaders, (std::vector<int32_t>{3, 2, 3}));
}

TEST(PartitionPlacement, ReplicasSpanRacks) {
  auto live = brokers({1, 2, 3, 4}, {"a", "a", "b", "b"});
  auto placed = place_partitions(live, {}, 8, 2).value();
  std::map<int32_t, std::string> rack = {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}};
  std::map<int32_t, int> leaders;
  for (const auto& s : placed) {
    EXPECT_NE(rack[s.replicas[0]], rack[s.replicas[1]]) << s.replicas[0] << "," << s.replicas[1];
    ++leaders[s.leader];
  }
  EXPECT_EQ(leaders, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}, {4, 2}}));
  // Three replicas over two racks: both racks hold some.
  auto three = place_partitions(live, {}, 4, 3).value();
  for (const auto& s : three) {
    std::set<std::string> racks;
    for (int32_t r : s.replicas)
      racks.insert(rack[r]);
    EXPECT_EQ(racks.size(), 2u);
  }
}

TEST(PartitionPlacement, RefusesWhatCannotBePlaced) {
  auto too_many = place_partitions(brokers({1, 2}), {}, 1, 3);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().code(), Errc::kInvalidReplicationFactor);
  EXPECT_FALSE(place_partitions(brokers({1, 2}), {}, 1, 0).ok());
  EXPECT_FALSE(place_partitions({}, {}, 1, 1).ok());
  auto mixed = place_partitions(brokers({1, 2}, {"a", std::nullopt}), {}, 1, 1);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message().find("broker.rack"), std::string::npos);
  EXPECT_TRUE(place_partitions(brokers({1}), {}, 0, 1).value().empty());
}

TEST(PartitionPlacement, IsAFunctionOfItsInputs) {
  auto live = brokers({3, 1, 2});
  EXPECT_EQ(place_partitions(live, {}, 5, 2).value(), place_partitions(live, {}, 5, 2).value());
}

}  // namespace
}  // namespace strata::coordinator
