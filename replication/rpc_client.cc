#include "replication/rpc_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "io/tcp_connect.h"
#include "replication/rpc_frame.h"

namespace strata::replication {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::shared_ptr<RpcClient> RpcClient::create(asio::io_context& io, std::string host, uint16_t port,
                                             int32_t self, int64_t broker_epoch,
                                             std::string source) {
  return std::shared_ptr<RpcClient>(
      new RpcClient(io, std::move(host), port, self, broker_epoch, std::move(source)));
}

RpcClient::RpcClient(asio::io_context& io, std::string host, uint16_t port, int32_t self,
                     int64_t broker_epoch, std::string source)
    : io_(io),
      host_(std::move(host)),
      port_(port),
      source_(std::move(source)),
      self_(self),
      broker_epoch_(broker_epoch),
      socket_(io) {}

RpcClient::~RpcClient() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

void RpcClient::call(rpc::Request request, int64_t timeout_ms, Callback done) {
  call(std::move(request), timeout_ms,
       [done = std::move(done)](Result<rpc::Response> r, SharedBytes) { done(std::move(r)); });
}

void RpcClient::call(rpc::Request request, int64_t timeout_ms, AttachedCallback done) {
  uint64_t id = next_id_++;
  request.set_correlation_id(id);
  request.set_broker_id(self_);
  request.set_broker_epoch(broker_epoch_);
  Pending p{std::move(done), std::make_unique<asio::steady_timer>(io_)};
  p.timer->expires_after(std::chrono::milliseconds(timeout_ms));
  p.timer->async_wait(
      [weak = weak_from_this(), id, timeout_ms](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (ec || !self) return;
        auto it = self->pending_.find(id);
        if (it == self->pending_.end()) return;
        auto cb = std::move(it->second.done);
        self->pending_.erase(it);
        cb(Error(Errc::kUnavailable, fmt::format("broker {}:{} did not answer within {} ms",
                                                 self->host_, self->port_, timeout_ms)),
           SharedBytes());
      });
  pending_.emplace(id, std::move(p));
  to_send_.push_back(encode_frame(request));
  if (state_ == State::kIdle) return connect();
  if (state_ == State::kConnected) write_next();
}

void RpcClient::connect() {
  state_ = State::kConnecting;
  uint64_t gen = ++generation_;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host_, ec);
  if (ec) return fail_all(Error(Errc::kInvalidArgument, "bad broker address " + host_));
  socket_ = tcp::socket(io_);
  // Best effort: a source that is a host name, of the other address family,
  // or not bindable leaves the choice to the kernel.
  if (auto bind_ec = io::bind_source(socket_, source_, address)) {
    spdlog::warn("connecting to broker {}:{} from the kernel's choice of address: binding {}: {}",
                 host_, port_, source_, bind_ec.message());
  }
  socket_.async_connect(tcp::endpoint(address, port_), [self = shared_from_this(),
                                                        gen](const boost::system::error_code& ec) {
    if (gen != self->generation_) return;
    if (ec) {
      return self->fail_all(Error(
          Errc::kUnavailable,
          fmt::format("connecting to broker {}:{}: {}", self->host_, self->port_, ec.message())));
    }
    self->state_ = State::kConnected;
    self->read_header();
    self->write_next();
  });
}

void RpcClient::write_next() {
  if (writing_ || to_send_.empty()) return;
  writing_ = true;
  auto frame = std::move(to_send_.front());
  to_send_.erase(to_send_.begin());
  uint64_t gen = generation_;
  asio::async_write(
      socket_, asio::buffer(frame.data(), frame.size()),
      [self = shared_from_this(), frame, gen](const boost::system::error_code& ec, size_t) {
        if (gen != self->generation_) return;
        self->writing_ = false;
        if (ec) {
          return self->fail_all(Error(Errc::kUnavailable, "sending to broker: " + ec.message()));
        }
        self->write_next();
      });
}

void RpcClient::read_header() {
  uint64_t gen = generation_;
  asio::async_read(socket_, asio::buffer(header_, sizeof(header_)),
                   [self = shared_from_this(), gen](const boost::system::error_code& ec, size_t) {
                     if (gen != self->generation_) return;
                     if (ec) {
                       return self->fail_all(
                           Error(Errc::kUnavailable, "receiving from broker: " + ec.message()));
                     }
                     auto h =
                         frame_header(std::span<const std::byte, kFrameHeaderBytes>(self->header_),
                                      kMaxResponseFrame);
                     if (!h) return self->fail_all(h.error());
                     self->attached_ = h->attached;
                     self->read_body(h->body_bytes);
                   });
}

void RpcClient::read_body(uint32_t size) {
  body_ = SharedBytes::allocate(size);
  uint64_t gen = generation_;
  asio::async_read(socket_, asio::buffer(body_.data(), body_.size()),
                   [self = shared_from_this(), gen](const boost::system::error_code& ec, size_t) {
                     if (gen != self->generation_) return;
                     if (ec) {
                       return self->fail_all(
                           Error(Errc::kUnavailable, "receiving from broker: " + ec.message()));
                     }
                     rpc::Response resp;
                     SharedBytes attachment;
                     if (self->attached_) {
                       auto split = decode_attached<rpc::Response>(self->body_);
                       if (!split) return self->fail_all(split.error());
                       resp = std::move(split->first);
                       attachment = std::move(split->second);
                     } else {
                       auto whole = decode_message<rpc::Response>(self->body_.span());
                       if (!whole) return self->fail_all(whole.error());
                       resp = std::move(whole).value();
                     }
                     self->body_ = SharedBytes();  // the attachment keeps what it needs
                     auto it = self->pending_.find(resp.correlation_id());
                     if (it != self->pending_.end()) {  // else: it timed out already
                       auto cb = std::move(it->second.done);
                       self->pending_.erase(it);
                       cb(std::move(resp), std::move(attachment));
                     }
                     self->read_header();
                   });
}

void RpcClient::fail_all(const Error& e) {
  ++generation_;
  boost::system::error_code ignored;
  socket_.close(ignored);
  state_ = State::kIdle;
  writing_ = false;
  to_send_.clear();
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, p] : pending)
    p.done(e, SharedBytes());
}

void RpcClient::close() {
  fail_all(Error(Errc::kShutdown, "the connection was closed"));
}

}  // namespace strata::replication
