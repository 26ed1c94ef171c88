// Request dispatch: decodes a request body for its API and version, runs the
// API's handler, and encodes its response.
//
// Handlers live in server/handlers/, one file per API family. They run on the
// connection's shard, may fan work out to the shards that own the
// partitions, and reply on the connection's shard.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/shared_bytes.h"
#include "server/kafka/header.h"
#include "server/services.h"

namespace strata::server {

class ShardState;

struct Reply {
  std::vector<SharedBytes> frame;  // nothing is sent when empty (acks=0)
  bool close_connection = false;   // close after sending what precedes
};
using ReplyFn = std::function<void(Reply)>;

// Who is asking (Kafka's KafkaPrincipal): ANONYMOUS until security exists.
struct Principal {
  std::string type = "User";
  std::string name = "ANONYMOUS";
};

// One per connection, shared by its requests.
struct ConnectionInfo {
  std::string listener = "PLAINTEXT";  // the listener's name
  Principal principal;                 // who authenticated on it
  std::string peer;                    // "host:port"
};

// What a handler knows and may reach. References into the Broker, which
// outlives every request.
struct RequestContext {
  std::shared_ptr<const ConnectionInfo> connection;
  kafka::RequestHeader header;  // api key, version, correlation id, client id
  ShardState& shard;            // the connection's shard: replies run here
  ShardAccess& shards;
  const ClusterView& cluster;
  const ConfigView& configs;
  ControllerAccess& controller;
  const Clock& clock;

  unsigned origin() const;
  Services services() const { return {shards, cluster, configs, controller, clock}; }
  const std::string& peer() const { return connection->peer; }
  const std::string& listener() const { return connection->listener; }
  const Principal& principal() const { return connection->principal; }
  std::string_view client_id() const {
    return header.client_id ? std::string_view(*header.client_id) : std::string_view();
  }
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
