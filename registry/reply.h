// HttpRequest and Reply: one REST request to the registry (method, target,
// body) and what it is answered with — an HTTP status and a body (JSON, or
// a schema's raw text). Errors carry Confluent's error codes in
// {"error_code": 40401, "message": "…"}.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace strata::registry {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, DELETE
  std::string target;  // path and query, as sent
  std::string body;
  // Relayed by another broker to this one as the leader of _schemas
  // (header X-Strata-Forwarded): never relayed again.
  bool forwarded = false;
  // When this broker received it (retries are bounded from there).
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
};

// The header a relayed request carries.
inline constexpr const char* kForwardedHeader = "X-Strata-Forwarded";

struct Reply {
  int status = 200;
  std::string body;
  bool json = true;  // false: body is a raw schema (text/plain)
};

// Invalid UTF-8 (a client's bytes quoted in a message) is replaced, never
// thrown on.
inline std::string dump_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline Reply json_reply(const nlohmann::json& j, int status = 200) {
  return {status, dump_json(j), true};
}

// Confluent's error codes: the HTTP status times 100 plus a detail (40401
// is 404's "subject not found").
namespace error {
inline constexpr int kSubjectNotFound = 40401;
inline constexpr int kVersionNotFound = 40402;
inline constexpr int kSchemaNotFound = 40403;
inline constexpr int kSubjectSoftDeleted = 40404;
inline constexpr int kSubjectNotSoftDeleted = 40405;
inline constexpr int kVersionSoftDeleted = 40406;
inline constexpr int kVersionNotSoftDeleted = 40407;
inline constexpr int kSubjectLevelConfigNotSet = 40408;
inline constexpr int kSubjectLevelModeNotSet = 40409;
// What Confluent's registry sends for an incompatible schema (its docs and
// the issue name 40901; its server and clients use 409).
inline constexpr int kIncompatibleSchema = 409;
inline constexpr int kInvalidSchema = 42201;
inline constexpr int kInvalidVersion = 42202;
inline constexpr int kInvalidCompatibilityLevel = 42203;
inline constexpr int kInvalidMode = 42204;
inline constexpr int kOperationNotPermitted = 42205;
inline constexpr int kReferenceExists = 42206;
inline constexpr int kStoreError = 50001;
inline constexpr int kTimeout = 50002;
inline constexpr int kNotReady = 50003;
}  // namespace error

inline Reply error_reply(int code, std::string message) {
  return json_reply({{"error_code", code}, {"message", std::move(message)}},
                    code < 1000 ? code : code / 100);
}

}  // namespace strata::registry
