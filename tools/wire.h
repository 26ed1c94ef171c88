// WireCall: one Kafka request to one broker on a plain blocking socket,
// encoded and decoded with the broker's own codec (server/kafka), for the
// APIs librdkafka has no call for (ApiVersions' ranges, the transaction
// APIs). Each call connects, sends, reads the answer and closes, bounded
// by --timeout.
//
//   auto resp = wire_call<kafka::ListTransactionsRequest,
//                         kafka::ListTransactionsResponse>(g, "127.0.0.1:9092", req, 0);
#pragma once

#include <string>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/codec.h"
#include "server/kafka/header.h"
#include "tools/kafka.h"

namespace strata::tools {

// Sends a whole request frame to `hostport` and returns the response frame
// without its size prefix (from the correlation id on).
Result<SharedBytes> wire_exchange(const Globals& g, const std::string& hostport,
                                  const std::vector<SharedBytes>& frame);

template <typename Request, typename Response>
Result<Response> wire_call(const Globals& g, const std::string& hostport, const Request& req,
                           int16_t version) {
  kafka::RequestHeader h{Request::kApiKey, version, 1, "strata-cli"};
  STRATA_ASSIGN_OR_RETURN(auto body, wire_exchange(g, hostport, kafka::encode_request(h, req)));
  const auto* api = kafka::find_api(Request::kApiKey);
  // ApiVersions answers with header v0 whatever its version.
  bool flexible = api != nullptr && version >= api->flexible_from;
  kafka::Reader r(body, 0, version, flexible, 64 << 20);
  r.template fixed<int32_t>();                          // correlation id
  if (flexible && Request::kApiKey != 18) r.uvarint();  // response header tags
  Response resp;
  r.read_struct(resp);
  if (!r.ok()) {
    return Error(Errc::kCorruption, "the answer of " + hostport + " does not decode: " + r.error());
  }
  return resp;
}

}  // namespace strata::tools
