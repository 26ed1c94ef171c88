// Request and response headers, and the table of APIs Strata serves.
//
// A request frame is: size i32 | api_key i16 | api_version i16 |
// correlation_id i32 | client_id (i16-length nullable string) | [tagged
// fields, flexible versions] | body. A response frame is: size i32 |
// correlation_id i32 | [tagged fields, flexible versions except
// ApiVersions] | body.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/codec.h"

namespace strata::kafka {

struct ApiInfo {
  int16_t key;
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
  int16_t flexible_from;  // INT16_MAX if never flexible
};

// Every API Strata implements, in key order. ApiVersions advertises exactly these.
std::span<const ApiInfo> supported_apis();
const ApiInfo* find_api(int16_t key);

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;
};

// Reads the header of `frame` (the bytes after the size prefix). The fixed
// part is read first; if the API or version is unknown the result carries
// them with `known = false` so the caller can answer UNSUPPORTED_VERSION.
struct DecodedHeader {
  RequestHeader header;
  bool known = false;      // API and version supported
  size_t body_offset = 0;  // where the body starts in the frame
};
Result<DecodedHeader> decode_request_header(const SharedBytes& frame);

// Decodes a request body. `alloc_budget` caps what arrays may allocate.
template <typename Request>
Result<Request> decode_body(const SharedBytes& frame, const DecodedHeader& h, size_t alloc_budget) {
  bool flexible = h.header.api_version >= Request::kFlexibleFrom;
  Reader r(frame, h.body_offset, h.header.api_version, flexible, alloc_budget);
  Request req;
  r.read_struct(req);
  if (!r.ok()) return Error(Errc::kInvalidArgument, r.error());
  // Bytes after a complete body are ignored, as Kafka ignores them:
  // librdkafka 2.0 sends three stray zero bytes after an OffsetFetch v7
  // body that asks for every topic, and Kafka answers it.
  return req;
}

// Encodes a response frame (size prefix, header, body) as buffers to send.
template <typename Response>
std::vector<SharedBytes> encode_response(int32_t correlation_id, int16_t api_key, int16_t version,
                                         const Response& body) {
  const ApiInfo* api = find_api(api_key);
  bool flexible = api != nullptr && version >= api->flexible_from;
  Writer w(version, flexible);
  w.fixed<int32_t>(0);  // size, patched by finish()
  w.fixed<int32_t>(correlation_id);
  // ApiVersions keeps response header v0 in every version, so a client that
  // guessed a too-new version can still read the error.
  if (flexible && api_key != 18) w.uvarint(0);
  w.write_struct(body);
  return w.finish(true);
}

// Encodes a request frame (for tests and tools).
template <typename Request>
std::vector<SharedBytes> encode_request(const RequestHeader& h, const Request& body) {
  bool flexible = h.api_version >= Request::kFlexibleFrom;
  Writer w(h.api_version, flexible);
  w.fixed<int32_t>(0);
  w.fixed<int16_t>(h.api_key);
  w.fixed<int16_t>(h.api_version);
  w.fixed<int32_t>(h.correlation_id);
  if (h.client_id) {
    w.fixed<int16_t>(static_cast<int16_t>(h.client_id->size()));
    w.raw(h.client_id->data(), h.client_id->size());
  } else {
    w.fixed<int16_t>(-1);
  }
  if (flexible) w.uvarint(0);
  w.write_struct(body);
  return w.finish(true);
}

// Joins buffers into one (tests).
SharedBytes concat(const std::vector<SharedBytes>& parts);

}  // namespace strata::kafka
