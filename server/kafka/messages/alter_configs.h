// AlterConfigs (key 33) and IncrementalAlterConfigs (key 44).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct AlterConfigsRequest {
  static constexpr int16_t kApiKey = 33;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 2, kFlexibleFrom = 2;
  struct Config {
    std::string name;
    std::optional<std::string> value;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(value, kAllVersions, kAllVersions);
    }
    bool operator==(const Config&) const = default;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    template <typename V>
    void visit(V& v) {
      v.field(resource_type, kAllVersions);
      v.field(resource_name, kAllVersions);
      v.field(configs, kAllVersions);
    }
    bool operator==(const Resource&) const = default;
  };
  std::vector<Resource> resources;
  bool validate_only = false;
  template <typename V>
  void visit(V& v) {
    v.field(resources, kAllVersions);
    v.field(validate_only, kAllVersions);
  }
  bool operator==(const AlterConfigsRequest&) const = default;
};

// The response of both AlterConfigs and IncrementalAlterConfigs.
struct AlterConfigsResponse {
  static constexpr int16_t kApiKey = 33;
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
      v.field(resource_type, kAllVersions);
      v.field(resource_name, kAllVersions);
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(responses, kAllVersions);
  }
  bool operator==(const AlterConfigsResponse&) const = default;
};

struct IncrementalAlterConfigsRequest {
  static constexpr int16_t kApiKey = 44;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 1;
  // Config operations.
  static constexpr int8_t kSet = 0, kDelete = 1, kAppend = 2, kSubtract = 3;
  struct Config {
    std::string name;
    int8_t config_operation = 0;
    std::optional<std::string> value;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(config_operation, kAllVersions);
      v.field(value, kAllVersions, kAllVersions);
    }
    bool operator==(const Config&) const = default;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    template <typename V>
    void visit(V& v) {
      v.field(resource_type, kAllVersions);
      v.field(resource_name, kAllVersions);
      v.field(configs, kAllVersions);
    }
    bool operator==(const Resource&) const = default;
  };
  std::vector<Resource> resources;
  bool validate_only = false;
  template <typename V>
  void visit(V& v) {
    v.field(resources, kAllVersions);
    v.field(validate_only, kAllVersions);
  }
  bool operator==(const IncrementalAlterConfigsRequest&) const = default;
};

}  // namespace strata::kafka
