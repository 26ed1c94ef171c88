// DescribeConfigs (key 32).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

// Resource types of the config APIs.
inline constexpr int8_t kResourceTopic = 2;
inline constexpr int8_t kResourceBroker = 4;

// Config sources (DescribeConfigs v1+).
inline constexpr int8_t kSourceTopicConfig = 1;
inline constexpr int8_t kSourceDynamicBrokerConfig = 2;
inline constexpr int8_t kSourceDynamicDefaultBrokerConfig = 3;
inline constexpr int8_t kSourceStaticBrokerConfig = 4;
inline constexpr int8_t kSourceDefaultConfig = 5;

struct DescribeConfigsRequest {
  static constexpr int16_t kApiKey = 32;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 4;
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;
    template <typename V>
    void visit(V& v) {
      v.field(resource_type, kAllVersions);
      v.field(resource_name, kAllVersions);
      v.field(configuration_keys, kAllVersions, kAllVersions);
    }
    bool operator==(const Resource&) const = default;
  };
  std::vector<Resource> resources;
  bool include_synonyms = false;
  bool include_documentation = false;
  template <typename V>
  void visit(V& v) {
    v.field(resources, kAllVersions);
    v.field(include_synonyms, since(1));
    v.field(include_documentation, since(3));
  }
  bool operator==(const DescribeConfigsRequest&) const = default;
};

struct DescribeConfigsResponse {
  static constexpr int16_t kApiKey = 32;
  struct Synonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;
    template <typename V>
    void visit(V& v) {
      v.field(name, since(1));
      v.field(value, since(1), kAllVersions);
      v.field(source, since(1));
    }
    bool operator==(const Synonym&) const = default;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;
    int8_t config_type = 0;
    std::optional<std::string> documentation;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(value, kAllVersions, kAllVersions);
      v.field(read_only, kAllVersions);
      v.field(is_default, between(0, 0));
      v.field(config_source, since(1));
      v.field(is_sensitive, kAllVersions);
      v.field(synonyms, since(1));
      v.field(config_type, since(3));
      v.field(documentation, since(3), kAllVersions);
    }
    bool operator==(const Config&) const = default;
  };
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
      v.field(resource_type, kAllVersions);
      v.field(resource_name, kAllVersions);
      v.field(configs, kAllVersions);
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(results, kAllVersions);
  }
  bool operator==(const DescribeConfigsResponse&) const = default;
};

}  // namespace strata::kafka
