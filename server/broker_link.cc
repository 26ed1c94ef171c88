#include "server/broker_link.h"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/big_endian.h"
#include "io/tcp_connect.h"

namespace strata::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
constexpr int32_t kMaxResponseBytes = 64 << 20;
}  // namespace

std::shared_ptr<BrokerLink> BrokerLink::create(asio::io_context& io, std::string peer,
                                               std::string host, int32_t port, std::string source) {
  return std::shared_ptr<BrokerLink>(
      new BrokerLink(io, std::move(peer), std::move(host), port, std::move(source)));
}

BrokerLink::BrokerLink(asio::io_context& io, std::string peer, std::string host, int32_t port,
                       std::string source)
    : io_(io),
      peer_(std::move(peer)),
      host_(std::move(host)),
      port_(port),
      source_(std::move(source)),
      resolver_(io),
      socket_(io) {}

BrokerLink::~BrokerLink() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

void BrokerLink::call(std::vector<SharedBytes> request, int64_t timeout_ms, Callback done) {
  Call c{next_id_++, std::move(request), std::move(done),
         std::make_unique<asio::steady_timer>(io_)};
  c.timer->expires_after(std::chrono::milliseconds(timeout_ms));
  c.timer->async_wait(
      [weak = weak_from_this(), id = c.id, timeout_ms](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (ec || !self) return;
        for (const auto& waiting : self->calls_) {
          if (waiting.id != id) continue;
          // The answers behind it could not be matched any more.
          return self->fail_all(
              Error(Errc::kUnavailable,
                    fmt::format("calling {}: no answer within {} ms", self->peer_, timeout_ms)));
        }
      });
  calls_.push_back(std::move(c));
  if (state_ == State::kIdle) return connect();
  if (state_ == State::kConnected) write_next();
}

void BrokerLink::close() {
  fail_all(Error(Errc::kShutdown, "the connection was closed"));
}

void BrokerLink::connect() {
  state_ = State::kConnecting;
  uint64_t gen = ++generation_;
  resolver_.async_resolve(
      host_, std::to_string(port_),
      [self = shared_from_this(), gen](const boost::system::error_code& ec,
                                       tcp::resolver::results_type results) {
        if (gen != self->generation_) return;
        std::string where = fmt::format("{}:{}", self->host_, self->port_);
        if (ec || results.empty()) {
          return self->fail_all(
              Error(Errc::kUnavailable, fmt::format("calling {}: resolving {}: {}", self->peer_,
                                                    where, ec ? ec.message() : "no address")));
        }
        tcp::endpoint to = *results.begin();
        self->socket_ = tcp::socket(self->io_);
        if (auto bind_ec = io::bind_source(self->socket_, self->source_, to.address())) {
          spdlog::warn("calling {} from the kernel's choice of address: binding {}: {}",
                       self->peer_, self->source_, bind_ec.message());
        }
        self->socket_.async_connect(to, [self, gen, where](const boost::system::error_code& ec) {
          if (gen != self->generation_) return;
          if (ec) {
            return self->fail_all(Error(
                Errc::kUnavailable,
                fmt::format("calling {}: connecting to {}: {}", self->peer_, where, ec.message())));
          }
          boost::system::error_code ignored;
          self->socket_.set_option(tcp::no_delay(true), ignored);
          self->state_ = State::kConnected;
          self->read_size();
          self->write_next();
        });
      });
}

void BrokerLink::write_next() {
  if (writing_ || state_ != State::kConnected || sent_ >= calls_.size()) return;
  writing_ = true;
  auto request = calls_[sent_].request;  // shares the bytes; kept alive by the handler
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(request.size());
  for (const auto& b : request)
    buffers.emplace_back(b.data(), b.size());
  uint64_t gen = generation_;
  asio::async_write(socket_, buffers,
                    [self = shared_from_this(), request = std::move(request), gen](
                        const boost::system::error_code& ec, size_t) {
                      if (gen != self->generation_) return;
                      self->writing_ = false;
                      if (ec) {
                        return self->fail_all(Error(
                            Errc::kUnavailable,
                            fmt::format("calling {}: sending: {}", self->peer_, ec.message())));
                      }
                      ++self->sent_;
                      self->write_next();
                    });
}

void BrokerLink::read_size() {
  uint64_t gen = generation_;
  asio::async_read(
      socket_, asio::buffer(size_, sizeof(size_)),
      [self = shared_from_this(), gen](const boost::system::error_code& ec, size_t) {
        if (gen != self->generation_) return;
        if (ec) {
          return self->fail_all(Error(Errc::kUnavailable, fmt::format("calling {}: receiving: {}",
                                                                      self->peer_, ec.message())));
        }
        int32_t n = be::load<int32_t>(self->size_);
        if (n < 4 || n > kMaxResponseBytes) {
          return self->fail_all(
              Error(Errc::kCorruption,
                    fmt::format("calling {}: a response frame of {} bytes", self->peer_, n)));
        }
        self->read_body(static_cast<size_t>(n));
      });
}

void BrokerLink::read_body(size_t size) {
  body_ = SharedBytes::allocate(size);
  uint64_t gen = generation_;
  asio::async_read(
      socket_, asio::buffer(body_.data(), body_.size()),
      [self = shared_from_this(), gen](const boost::system::error_code& ec, size_t) {
        if (gen != self->generation_) return;
        if (ec) {
          return self->fail_all(Error(Errc::kUnavailable, fmt::format("calling {}: receiving: {}",
                                                                      self->peer_, ec.message())));
        }
        if (self->sent_ == 0) {
          return self->fail_all(Error(
              Errc::kCorruption, fmt::format("calling {}: an answer to no request", self->peer_)));
        }
        Call c = std::move(self->calls_.front());
        self->calls_.pop_front();
        --self->sent_;
        c.timer->cancel();
        c.done(std::move(self->body_));
        if (gen != self->generation_) return;  // the callback closed the link
        self->read_size();
      });
}

void BrokerLink::fail_all(const Error& e) {
  ++generation_;
  resolver_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
  state_ = State::kIdle;
  writing_ = false;
  sent_ = 0;
  auto calls = std::move(calls_);
  calls_.clear();
  for (auto& c : calls) {
    c.timer->cancel();
    c.done(e);
  }
}

}  // namespace strata::server
