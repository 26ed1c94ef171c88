// DescribeCluster (key 60).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DescribeClusterRequest {
  static constexpr int16_t kApiKey = 60;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 0;
  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = 1;  // 1 = brokers
  template <typename V>
  void visit(V& v) {
    v.field(include_cluster_authorized_operations, kAllVersions);
    v.field(endpoint_type, since(1));
  }
  bool operator==(const DescribeClusterRequest&) const = default;
};

struct DescribeClusterResponse {
  static constexpr int16_t kApiKey = 60;
  struct Broker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <typename V>
    void visit(V& v) {
      v.field(broker_id, kAllVersions);
      v.field(host, kAllVersions);
      v.field(port, kAllVersions);
      v.field(rack, kAllVersions, kAllVersions);
    }
    bool operator==(const Broker&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int8_t endpoint_type = 1;
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<Broker> brokers;
  int32_t cluster_authorized_operations = INT32_MIN;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
    v.field(error_message, kAllVersions, kAllVersions);
    v.field(endpoint_type, since(1));
    v.field(cluster_id, kAllVersions);
    v.field(controller_id, kAllVersions);
    v.field(brokers, kAllVersions);
    v.field(cluster_authorized_operations, kAllVersions);
  }
  bool operator==(const DescribeClusterResponse&) const = default;
};

}  // namespace strata::kafka
