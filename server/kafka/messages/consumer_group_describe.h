// ConsumerGroupDescribe (key 69, KIP-848): the state, epochs, assignor and
// members (with their current and target assignments) of consumer groups.
// A classic group is answered with GROUP_ID_NOT_FOUND, which makes Kafka's
// Admin client fall back to DescribeGroups.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ConsumerGroupDescribeRequest {
  static constexpr int16_t kApiKey = 69;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 0;
  std::vector<std::string> group_ids;
  bool include_authorized_operations = false;
  template <typename V>
  void visit(V& v) {
    v.field(group_ids, kAllVersions);
    v.field(include_authorized_operations, kAllVersions);
  }
  bool operator==(const ConsumerGroupDescribeRequest&) const = default;
};

struct ConsumerGroupDescribeResponse {
  static constexpr int16_t kApiKey = 69;
  struct TopicPartitions {
    Uuid topic_id{};
    std::string topic_name;
    std::vector<int32_t> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic_id, kAllVersions);
      v.field(topic_name, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const TopicPartitions&) const = default;
  };
  struct Assignment {
    std::vector<TopicPartitions> topic_partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic_partitions, kAllVersions);
    }
    bool operator==(const Assignment&) const = default;
  };
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    Assignment assignment;
    Assignment target_assignment;
    int8_t member_type = -1;  // v1+: 1 = consumer protocol (0 classic, -1 unknown)
    template <typename V>
    void visit(V& v) {
      v.field(member_id, kAllVersions);
      v.field(instance_id, kAllVersions, kAllVersions);
      v.field(rack_id, kAllVersions, kAllVersions);
      v.field(member_epoch, kAllVersions);
      v.field(client_id, kAllVersions);
      v.field(client_host, kAllVersions);
      v.field(subscribed_topic_names, kAllVersions);
      v.field(subscribed_topic_regex, kAllVersions, kAllVersions);
      v.field(assignment, kAllVersions);
      v.field(target_assignment, kAllVersions);
      v.field(member_type, since(1));
    }
    bool operator==(const Member&) const = default;
  };
  struct Group {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
      v.field(group_id, kAllVersions);
      v.field(group_state, kAllVersions);
      v.field(group_epoch, kAllVersions);
      v.field(assignment_epoch, kAllVersions);
      v.field(assignor_name, kAllVersions);
      v.field(members, kAllVersions);
      v.field(authorized_operations, kAllVersions);
    }
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Group> groups;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(groups, kAllVersions);
  }
  bool operator==(const ConsumerGroupDescribeResponse&) const = default;
};

}  // namespace strata::kafka
