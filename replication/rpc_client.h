// RpcClient: one connection from this broker to another's rpc.port, with
// requests in flight matched to responses by correlation id. A follower's
// fetcher keeps one per leader broker.
//
//   auto client = RpcClient::create(io, "127.0.0.12", 41877, /*self=*/1, epoch);
//   rpc::Request req;  *req.mutable_epoch_end() = ...;
//   client->call(std::move(req), timeout_ms, [](Result<rpc::Response> r) {...});
//
// It connects on the first call; when the connection fails every call in
// flight fails (kUnavailable) and the next call reconnects. A call that gets
// no answer within its timeout fails alone.
//
// Thread-safety: the io_context's thread only (a shard's).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "replication/replication.pb.h"

namespace strata::replication {

namespace rpc = strata::replication::rpc;

class RpcClient : public std::enable_shared_from_this<RpcClient> {
 public:
  using Callback = std::function<void(Result<rpc::Response>)>;
  // A response and the frame's attachment (empty when it has none): a
  // fetch response's records (rpc_frame.h).
  using AttachedCallback = std::function<void(Result<rpc::Response>, SharedBytes attachment)>;

  // `source`: the local address connections leave from (the broker's own
  // listener address, so a packet filter can tell brokers apart on one
  // host); empty, or not an address of this host and family: the kernel's
  // choice.
  static std::shared_ptr<RpcClient> create(boost::asio::io_context& io, std::string host,
                                           uint16_t port, int32_t self, int64_t broker_epoch,
                                           std::string source = {});
  ~RpcClient();

  // Sends `request` (its correlation id and broker fields are filled in).
  void call(rpc::Request request, int64_t timeout_ms, Callback done);
  void call(rpc::Request request, int64_t timeout_ms, AttachedCallback done);
  // Fails every call in flight and closes the connection.
  void close();

 private:
  RpcClient(boost::asio::io_context& io, std::string host, uint16_t port, int32_t self,
            int64_t broker_epoch, std::string source);
  void connect();
  void write_next();
  void read_header();
  void read_body(uint32_t size);
  void fail_all(const Error& e);

  struct Pending {
    AttachedCallback done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };

  boost::asio::io_context& io_;
  std::string host_;
  uint16_t port_;
  std::string source_;
  int32_t self_;
  int64_t broker_epoch_;
  boost::asio::ip::tcp::socket socket_;
  enum class State { kIdle, kConnecting, kConnected } state_ = State::kIdle;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Pending> pending_;
  std::vector<SharedBytes> to_send_;
  bool writing_ = false;
  std::byte header_[4];
  bool attached_ = false;  // the frame being read has an attachment
  SharedBytes body_;
  uint64_t generation_ = 0;  // bumps with every connection: stale callbacks see it moved
};

}  // namespace strata::replication
