// WireCall: one Kafka request to one broker on a plain blocking socket,
// encoded and decoded with the broker's own codec (server/kafka), for the
// APIs librdkafka has no call for (ApiVersions' ranges, the transaction
// APIs). Each call connects, sends, reads the answer and closes, bounded
// by --timeout.
//
//   auto resp = wire_call<kafka::ListTransactionsRequest,
//                         kafka::ListTransactionsResponse>(g, "127.0.0.1:9092", req, 0);
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/header.h"
#include "server/kafka/response.h"
#include "tools/kafka.h"

namespace strata::tools {

// "host:port" of a broker from the metadata.
std::string broker_address(const Kafka::Broker& b);

// The first broker of --bootstrap, which the wire calls go to.
std::string first_bootstrap(const Globals& g);

// A broker's error code as an error: "<what>: <KAFKA_NAME>".
Error broker_error(int16_t code, const std::string& what);

// Kafka's retry.backoff.ms default: the wait before asking a moving
// coordinator again.
inline constexpr std::chrono::milliseconds kCoordinatorRetryBackoff{100};

// A coordinator moving or still loading: found and asked again, as Kafka's
// Admin client does.
bool coordinator_moving(int16_t code);

// "host:port" of the broker coordinating `key` (FindCoordinator at the
// bootstrap broker; key type 0 a group, 1 a transactional id);
// kUnavailable while there is none yet.
Result<std::string> coordinator_of(const Globals& g, const std::string& key, int8_t key_type);

// `ask(coordinator)` at the coordinator of `key`, asked again (the
// coordinator found again) while it is moving or loading — after a broker's
// restart — until --timeout. `ask` returns kUnavailable for "moving"
// (coordinator_moving's codes); any other answer is final.
template <typename T, typename Ask>
Result<T> at_coordinator(const Globals& g, const std::string& key, int8_t key_type, Ask ask) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(g.timeout_ms());
  while (true) {
    auto where = coordinator_of(g, key, key_type);
    Result<T> r = where ? ask(*where) : Result<T>(where.error());
    if (r.ok() || r.error().code() != Errc::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return r;
    }
    std::this_thread::sleep_for(kCoordinatorRetryBackoff);
  }
}

// Sends a whole request frame to `hostport` and returns the response frame
// without its size prefix (from the correlation id on).
Result<SharedBytes> wire_exchange(const Globals& g, const std::string& hostport,
                                  const std::vector<SharedBytes>& frame);

template <typename Request, typename Response>
Result<Response> wire_call(const Globals& g, const std::string& hostport, const Request& req,
                           int16_t version) {
  kafka::RequestHeader h{Request::kApiKey, version, 1, "strata-cli"};
  STRATA_ASSIGN_OR_RETURN(auto body, wire_exchange(g, hostport, kafka::encode_request(h, req)));
  auto resp = kafka::decode_response<Response>(body, version);
  if (!resp) return Error(resp.error().code(), hostport + ": " + resp.error().message());
  return resp;
}

}  // namespace strata::tools
