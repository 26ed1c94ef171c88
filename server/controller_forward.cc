#include "server/controller_forward.h"

#include <cstring>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/big_endian.h"
#include "server/kafka/error_code.h"
#include "server/kafka/messages/create_topics.h"
#include "server/kafka/response.h"
#include "server/shard_state.h"

namespace strata::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// How long a relayed request may take: the admin APIs' own timeouts are
// short (CreateTopics' is the client's), so this only bounds a dead peer.
constexpr int64_t kForwardTimeoutMs = 30000;

// One relayed request on its own connection (admin requests are rare, and
// one may take long: it would hold up the calls behind it on a BrokerLink).
struct Relay : std::enable_shared_from_this<Relay> {
  Relay(asio::io_context& io, std::string peer, std::function<void(Result<SharedBytes>)> done)
      : socket(io), timer(io), resolver(io), peer(std::move(peer)), done(std::move(done)) {}

  void start(const std::string& host, int32_t port, std::vector<SharedBytes> request) {
    out = std::move(request);
    timer.expires_after(std::chrono::milliseconds(kForwardTimeoutMs));
    timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->fail(Errc::kUnavailable, "no answer in time");
    });
    std::string where = fmt::format("{}:{}", host, port);
    resolver.async_resolve(
        host, std::to_string(port),
        [self = shared_from_this(), where](const boost::system::error_code& ec,
                                           tcp::resolver::results_type results) {
          if (ec) return self->fail(Errc::kUnavailable, "resolving " + where + ": " + ec.message());
          asio::async_connect(
              self->socket, results,
              [self, where](const boost::system::error_code& ec, const tcp::endpoint&) {
                if (ec) {
                  // Nothing was sent: the caller may try the controller
                  // again (a new one once this one's registration lapses).
                  return self->fail(Errc::kNotController,
                                    "connecting to " + where + ": " + ec.message());
                }
                self->send();
              });
        });
  }

  void send() {
    std::vector<asio::const_buffer> buffers;
    for (const auto& b : out)
      buffers.emplace_back(b.data(), b.size());
    asio::async_write(socket, buffers,
                      [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                        if (ec) return self->fail(Errc::kUnavailable, "sending: " + ec.message());
                        self->read_size();
                      });
  }

  void read_size() {
    asio::async_read(socket, asio::buffer(size, 4),
                     [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                       if (ec) return self->fail(Errc::kUnavailable, "receiving: " + ec.message());
                       int32_t n = be::load<int32_t>(self->size);
                       if (n < 4 || n > (64 << 20)) {
                         return self->fail(Errc::kCorruption,
                                           fmt::format("response frame of {} bytes", n));
                       }
                       self->body = SharedBytes::allocate(static_cast<size_t>(n));
                       self->read_body();
                     });
  }

  void read_body() {
    asio::async_read(socket, asio::buffer(body.data(), body.size()),
                     [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                       if (ec) return self->fail(Errc::kUnavailable, "receiving: " + ec.message());
                       self->finish(self->body);
                     });
  }

  void fail(Errc code, std::string why) { finish(Error(code, "calling " + peer + ": " + why)); }

  void finish(Result<SharedBytes> r) {
    if (!done) return;
    auto d = std::move(done);
    done = nullptr;
    timer.cancel();
    boost::system::error_code ignored;
    socket.close(ignored);
    d(std::move(r));
  }

  tcp::socket socket;
  asio::steady_timer timer;
  tcp::resolver resolver;
  std::string peer;  // "the controller", "broker 3"
  std::function<void(Result<SharedBytes>)> done;
  std::vector<SharedBytes> out;
  std::byte size[4];
  SharedBytes body;
};

// Relays one request to the controller. While no controller can be
// reached (none is known, or the one named refuses connections: it just
// died and its registration has not lapsed yet) the relay is tried again
// every kRetryMs, as a KRaft broker holds forwarded requests until a
// controller answers, for at most kForwardTimeoutMs; then, or if this
// broker became the controller, `fallback` answers here.
struct Forward : std::enable_shared_from_this<Forward> {
  static constexpr int64_t kRetryMs = 200;

  Forward(const ClusterView& cluster, ShardState& shard, std::vector<SharedBytes> request,
          ReplyFn reply, std::function<void()> fallback, int16_t api)
      : cluster(cluster),
        shard(shard),
        request(std::move(request)),
        reply(std::move(reply)),
        fallback(std::move(fallback)),
        api(api),
        deadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(kForwardTimeoutMs)),
        timer(shard.shard().io()) {}

  void attempt() {
    if (cluster.is_controller()) return fallback();
    call_controller(cluster, shard, request, [self = shared_from_this()](Result<SharedBytes> r) {
      if (r) {
        auto size = SharedBytes::allocate(4);
        be::store<int32_t>(size.data(), static_cast<int32_t>(r->size()));
        return self->reply(Reply{{std::move(size), std::move(r).value()}, false});
      }
      if (r.error().code() == Errc::kNotController &&
          std::chrono::steady_clock::now() < self->deadline) {
        self->timer.expires_after(std::chrono::milliseconds(kRetryMs));
        return self->timer.async_wait([self](const boost::system::error_code& ec) {
          if (!ec) self->attempt();
        });
      }
      spdlog::warn("API {}: {}; answering here", self->api, r.error().to_string());
      self->fallback();
    });
  }

  const ClusterView& cluster;
  ShardState& shard;
  std::vector<SharedBytes> request;
  ReplyFn reply;
  std::function<void()> fallback;
  int16_t api;
  std::chrono::steady_clock::time_point deadline;
  asio::steady_timer timer;
};

}  // namespace

void call_controller(const ClusterView& cluster, ShardState& shard,
                     std::vector<SharedBytes> request,
                     std::function<void(Result<SharedBytes>)> done) {
  auto snap = cluster.snapshot();
  const coordinator::BrokerInfo* controller = nullptr;
  for (const auto& b : snap->brokers)
    if (b.node_id == snap->controller_id) controller = &b;
  if (controller == nullptr) {
    return done(Error(Errc::kNotController, "no live controller is known"));
  }
  auto relay = std::make_shared<Relay>(shard.shard().io(), "the controller", std::move(done));
  relay->start(controller->host, controller->port, std::move(request));
}

void call_broker(const ClusterView& cluster, ShardState& shard, int32_t node_id,
                 std::vector<SharedBytes> request, std::function<void(Result<SharedBytes>)> done) {
  auto snap = cluster.snapshot();
  for (const auto& b : snap->brokers) {
    if (b.node_id != node_id) continue;
    return shard.link_to(node_id, b.host, b.port)
        .call(std::move(request), kForwardTimeoutMs, std::move(done));
  }
  done(Error(Errc::kUnavailable, fmt::format("broker {} is not live", node_id)));
}

bool forward_to_controller(const RequestContext& ctx, const SharedBytes& frame, ReplyFn reply,
                           std::function<void()> fallback) {
  if (ctx.cluster.is_controller() || ctx.header.client_id == kForwardedClientId) return false;
  // The same request under the relay's client id: the header is rewritten,
  // the body kept as the client encoded it.
  auto decoded = kafka::decode_request_header(frame);
  if (!decoded) return false;
  std::string_view body(reinterpret_cast<const char*>(frame.data()) + decoded->body_offset,
                        frame.size() - decoded->body_offset);
  // Header v1 (key, version, correlation id, client id) or v2 (and tags):
  // the body offset says which, past the client id.
  size_t client_end = 10 + (ctx.header.client_id ? ctx.header.client_id->size() : 0);
  bool tagged = decoded->body_offset > client_end;
  size_t header_size = 8 + 2 + kForwardedClientId.size() + (tagged ? 1 : 0);
  auto out = SharedBytes::allocate(4 + header_size + body.size());
  std::byte* p = out.data();
  be::store<int32_t>(p, static_cast<int32_t>(header_size + body.size()));
  be::store<int16_t>(p + 4, ctx.header.api_key);
  be::store<int16_t>(p + 6, ctx.header.api_version);
  be::store<int32_t>(p + 8, ctx.header.correlation_id);
  be::store<int16_t>(p + 12, static_cast<int16_t>(kForwardedClientId.size()));
  std::memcpy(p + 14, kForwardedClientId.data(), kForwardedClientId.size());
  if (tagged) p[14 + kForwardedClientId.size()] = std::byte{0};
  std::memcpy(p + 4 + header_size, body.data(), body.size());
  std::make_shared<Forward>(ctx.cluster, ctx.shard, std::vector<SharedBytes>{std::move(out)},
                            std::move(reply), std::move(fallback), ctx.header.api_key)
      ->attempt();
  return true;
}

void create_topics_at_controller(const ClusterView& cluster, ShardState& shard,
                                 std::vector<NewTopic> topics, std::function<void(Status)> done) {
  using kafka::CreateTopicsRequest;
  constexpr int16_t kVersion = 7;
  CreateTopicsRequest req;
  req.timeout_ms = 30000;
  for (auto& t : topics) {
    CreateTopicsRequest::Topic rt;
    rt.name = t.name;
    rt.num_partitions = t.partitions;
    rt.replication_factor = t.replication_factor;
    for (const auto& [k, v] : t.configs)
      rt.configs.push_back({k, v});
    req.topics.push_back(std::move(rt));
  }
  kafka::RequestHeader h{CreateTopicsRequest::kApiKey, kVersion, 1,
                         std::string(kForwardedClientId)};
  call_controller(
      cluster, shard, kafka::encode_request(h, req),
      [done = std::move(done)](Result<SharedBytes> r) {
        if (!r) return done(std::move(r).error());
        auto decoded = kafka::decode_response<kafka::CreateTopicsResponse>(*r, kVersion);
        if (!decoded) return done(decoded.error());
        const auto& resp = *decoded;
        for (const auto& t : resp.topics) {
          auto code = static_cast<kafka::ErrorCode>(t.error_code);
          if (code == kafka::ErrorCode::kNone || code == kafka::ErrorCode::kTopicAlreadyExists)
            continue;
          return done(Error(Errc::kUnavailable,
                            fmt::format("the controller did not create {}: {} {}", t.name,
                                        kafka::error_name(code), t.error_message.value_or(""))));
        }
        done(ok_status());
      });
}

}  // namespace strata::server
