#include "coordinator/group/assignors.h"

#include <gtest/gtest.h>

#include "coordinator/group/testing/assignments.h"

namespace strata::coordinator {
namespace {

const TopicId kA = testing::topic_id(1), kB = testing::topic_id(2);

AssignorMember member(std::string id, std::set<TopicId> subscribed, Assignment current = {}) {
  return AssignorMember{std::move(id), std::move(subscribed), std::move(current)};
}

// Every partition of `topics` is assigned to exactly one member, and only
// to a member subscribed to its topic.
void expect_each_partition_once(const TargetAssignment& target,
                                const std::vector<AssignorMember>& members,
                                const std::vector<TopicMeta>& topics) {
  std::map<std::pair<TopicId, int32_t>, int> seen;
  for (const auto& [id, a] : target) {
    auto m = std::find_if(members.begin(), members.end(), [&](auto& x) { return x.id == id; });
    ASSERT_NE(m, members.end());
    for (const auto& [topic, parts] : a) {
      EXPECT_TRUE(m->subscribed.count(topic)) << id;
      for (int32_t p : parts)
        ++seen[{topic, p}];
    }
  }
  size_t total = 0;
  for (const auto& t : topics) {
    for (int32_t p = 0; p < t.partitions; ++p)
      EXPECT_EQ((seen[{t.id, p}]), 1) << t.name << "-" << p;
    total += static_cast<size_t>(t.partitions);
  }
  EXPECT_EQ(seen.size(), total);
}

TEST(UniformAssignor, SpreadsEveryPartitionEvenly) {
  std::vector<TopicMeta> topics{{"a", kA, 4}, {"b", kB, 3}};
  std::vector<AssignorMember> members{member("m1", {kA, kB}), member("m2", {kA, kB}),
                                      member("m3", {kA, kB})};
  auto target = assign_uniform(members, topics);
  expect_each_partition_once(target, members, topics);
  std::vector<size_t> counts;
  for (const auto& [id, a] : target)
    counts.push_back(testing::partition_count(a));
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<size_t>{2, 2, 3}));
}

TEST(UniformAssignor, AMemberJoiningTakesOnlyItsShareFromTheOthers) {
  std::vector<TopicMeta> topics{{"a", kA, 12}};
  std::vector<AssignorMember> two{member("m1", {kA}), member("m2", {kA})};
  auto before = assign_uniform(two, topics);
  ASSERT_EQ(testing::partition_count(before["m1"]), 6u);
  std::vector<AssignorMember> three{member("m1", {kA}, before["m1"]),
                                    member("m2", {kA}, before["m2"]), member("m3", {kA})};
  auto after = assign_uniform(three, topics);
  expect_each_partition_once(after, three, topics);
  for (const char* m : {"m1", "m2"}) {
    EXPECT_EQ(testing::partition_count(after[m]), 4u);
    // Sticky: all it has now it had before.
    for (int32_t p : after[m][kA])
      EXPECT_TRUE(before[m][kA].count(p)) << m << " was given " << p;
  }
  EXPECT_EQ(testing::partition_count(after["m3"]), 4u);
}

TEST(UniformAssignor, AMemberLeavingSpreadsOnlyItsPartitions) {
  std::vector<TopicMeta> topics{{"a", kA, 9}};
  std::vector<AssignorMember> three{member("m1", {kA}), member("m2", {kA}), member("m3", {kA})};
  auto before = assign_uniform(three, topics);
  std::vector<AssignorMember> two{member("m1", {kA}, before["m1"]),
                                  member("m2", {kA}, before["m2"])};
  auto after = assign_uniform(two, topics);
  expect_each_partition_once(after, two, topics);
  for (const char* m : {"m1", "m2"})
    for (int32_t p : before[m][kA])
      EXPECT_TRUE(after[m][kA].count(p)) << m << " lost " << p;
}

TEST(UniformAssignor, DifferentSubscriptionsGetOnlyTheirTopics) {
  std::vector<TopicMeta> topics{{"a", kA, 4}, {"b", kB, 4}};
  std::vector<AssignorMember> members{member("m1", {kA}), member("m2", {kA, kB})};
  auto target = assign_uniform(members, topics);
  expect_each_partition_once(target, members, topics);
  EXPECT_EQ(target["m2"][kB].size(), 4u);
  // m1 can only take topic a: it has all of it but what balance leaves m2.
  EXPECT_EQ(testing::partition_count(target["m1"]), 4u);
}

TEST(UniformAssignor, NoTopicsOrNoMembers) {
  EXPECT_TRUE(assign_uniform({}, {{"a", kA, 3}}).empty());
  auto target = assign_uniform({member("m1", {kA})}, {});
  ASSERT_EQ(target.size(), 1u);
  EXPECT_TRUE(target["m1"].empty());
}

TEST(RangeAssignor, ContiguousRangesInMemberOrderAlignedAcrossTopics) {
  std::vector<TopicMeta> topics{{"a", kA, 5}, {"b", kB, 5}};
  std::vector<AssignorMember> members{member("m2", {kA, kB}), member("m1", {kA, kB})};
  auto target = assign_range(members, topics);
  expect_each_partition_once(target, members, topics);
  EXPECT_EQ(target["m1"][kA], (std::set<int32_t>{0, 1, 2}));
  EXPECT_EQ(target["m2"][kA], (std::set<int32_t>{3, 4}));
  EXPECT_EQ(target["m1"][kB], target["m1"][kA]);
  EXPECT_EQ(target["m2"][kB], target["m2"][kA]);
}

TEST(Assignors, ByName) {
  EXPECT_TRUE(is_assignor("uniform"));
  EXPECT_TRUE(is_assignor("range"));
  EXPECT_FALSE(is_assignor("sticky"));
  EXPECT_FALSE(assign("sticky", {}, {}).has_value());
  EXPECT_TRUE(assign("range", {}, {}).has_value());
}

}  // namespace
}  // namespace strata::coordinator
