// Request dispatch: decodes a request body for its API and version, runs the
// API's handler, and encodes its response.
//
// Handlers live in server/handlers/, one file per API family. They run on the
// connection's shard, may fan work out to the shards that own the
// partitions, and reply on the connection's shard.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/shared_bytes.h"
#include "server/kafka/header.h"

namespace strata::server {

class Broker;
class ShardState;

struct Reply {
  std::vector<SharedBytes> frame;  // nothing is sent when empty (acks=0)
  bool close_connection = false;   // close after sending what precedes
};
using ReplyFn = std::function<void(Reply)>;

struct RequestContext {
  Broker& broker;
  ShardState& shard;  // the connection's shard
  kafka::RequestHeader header;
  std::string peer;
};

// Handles one request frame; `reply` runs exactly once, on ctx.shard.
void dispatch(const RequestContext& ctx, const SharedBytes& frame, const kafka::DecodedHeader& h,
              ReplyFn reply);
// Whether dispatch has a handler for the API (every one ApiVersions lists).
bool has_route(int16_t api_key);

// A handler's way to answer: send(response) encodes it for the request's
// version.
template <typename Response>
struct Responder {
  RequestContext ctx;
  ReplyFn reply;

  void send(const Response& r) const {
    reply(Reply{kafka::encode_response(ctx.header.correlation_id, ctx.header.api_key,
                                       ctx.header.api_version, r),
                false});
  }
  int16_t version() const { return ctx.header.api_version; }
};

}  // namespace strata::server
