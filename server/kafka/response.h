// decode_response: a response frame (without its size prefix, from the
// correlation id on) back into its message, for the broker's own calls to
// other brokers and for tools: the response header (with its tags on
// flexible versions; ApiVersions always answers with header v0), then the
// body.
//
//   STRATA_ASSIGN_OR_RETURN(auto resp, kafka::decode_response<EndTxnResponse>(frame, 3));
#pragma once

#include <string>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/codec.h"
#include "server/kafka/header.h"

namespace strata::kafka {

template <typename Response>
Result<Response> decode_response(const SharedBytes& frame, int16_t version) {
  const auto* api = find_api(Response::kApiKey);
  bool flexible = api != nullptr && version >= api->flexible_from;
  Reader r(frame, 0, version, flexible, 64 << 20);
  r.template fixed<int32_t>();                                    // correlation id
  if (flexible && Response::kApiKey != 18) r.skip_tag_section();  // response header tags
  Response resp;
  r.read_struct(resp);
  if (!r.ok()) {
    return Error(Errc::kCorruption,
                 "a response of API " + std::to_string(Response::kApiKey) + ": " + r.error());
  }
  return resp;
}

}  // namespace strata::kafka
