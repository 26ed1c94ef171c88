// ConsumerGroupHeartbeat (key 68, KIP-848): a member of a consumer group
// joins (epoch 0), heartbeats, reports the partitions it owns, and leaves
// (epoch -1, or -2 for a static member coming back). v1 adds the topic regex
// and has the client choose its member id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ConsumerGroupTopicPartitions {
  Uuid topic_id{};
  std::vector<int32_t> partitions;
  template <typename V>
  void visit(V& v) {
    v.field(topic_id, kAllVersions);
    v.field(partitions, kAllVersions);
  }
  bool operator==(const ConsumerGroupTopicPartitions&) const = default;
};

struct ConsumerGroupHeartbeatRequest {
  static constexpr int16_t kApiKey = 68;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 0;
  std::string group_id;
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;  // -1: unchanged since the last heartbeat
  // Each nullable field below: null when unchanged since the last heartbeat.
  std::optional<std::vector<std::string>> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;  // v1+
  std::optional<std::string> server_assignor;
  std::optional<std::vector<ConsumerGroupTopicPartitions>> topic_partitions;  // owned
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(member_id, kAllVersions);
    v.field(member_epoch, kAllVersions);
    v.field(instance_id, kAllVersions, kAllVersions);
    v.field(rack_id, kAllVersions, kAllVersions);
    v.field(rebalance_timeout_ms, kAllVersions);
    v.field(subscribed_topic_names, kAllVersions, kAllVersions);
    v.field(subscribed_topic_regex, since(1), since(1));
    v.field(server_assignor, kAllVersions, kAllVersions);
    v.field(topic_partitions, kAllVersions, kAllVersions);
  }
  bool operator==(const ConsumerGroupHeartbeatRequest&) const = default;
};

struct ConsumerGroupHeartbeatResponse {
  static constexpr int16_t kApiKey = 68;
  struct Assignment {
    std::vector<ConsumerGroupTopicPartitions> topic_partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic_partitions, kAllVersions);
    }
    bool operator==(const Assignment&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::optional<std::string> member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<Assignment> assignment;  // null: unchanged
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
    v.field(error_message, kAllVersions, kAllVersions);
    v.field(member_id, kAllVersions, kAllVersions);
    v.field(member_epoch, kAllVersions);
    v.field(heartbeat_interval_ms, kAllVersions);
    v.field(assignment, kAllVersions, kAllVersions);
  }
  bool operator==(const ConsumerGroupHeartbeatResponse&) const = default;
};

}  // namespace strata::kafka
