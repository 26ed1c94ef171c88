// ApiVersions (key 18).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ApiVersionsRequest {
  static constexpr int16_t kApiKey = 18;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 3, kFlexibleFrom = 3;
  std::string client_software_name;
  std::string client_software_version;
  template <typename V>
  void visit(V& v) {
    v.field(client_software_name, since(3));
    v.field(client_software_version, since(3));
  }
  bool operator==(const ApiVersionsRequest&) const = default;
};

struct ApiVersionsResponse {
  static constexpr int16_t kApiKey = 18;
  struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
    template <typename V>
    void visit(V& v) {
      v.field(api_key, kAllVersions);
      v.field(min_version, kAllVersions);
      v.field(max_version, kAllVersions);
    }
    bool operator==(const ApiVersion&) const = default;
  };
  int16_t error_code = 0;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;
  template <typename V>
  void visit(V& v) {
    v.field(error_code, kAllVersions);
    v.field(api_keys, kAllVersions);
    v.field(throttle_time_ms, since(1));
  }
  bool operator==(const ApiVersionsResponse&) const = default;
};

}  // namespace strata::kafka
