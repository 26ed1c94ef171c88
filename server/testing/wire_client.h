// WireClient: a blocking Kafka-protocol client for broker tests, built on the
// broker's own codec. One request at a time.
//
//   WireClient c("127.0.0.1", port);
//   auto resp = c.call<kafka::MetadataRequest, kafka::MetadataResponse>(req, /*version=*/9);
#pragma once

#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "base/big_endian.h"
#include "server/kafka/header.h"

namespace strata::server::testing {

class WireClient {
 public:
  WireClient(const std::string& host, uint16_t port) : socket_(io_) {
    boost::asio::ip::tcp::resolver resolver(io_);
    boost::asio::connect(socket_, resolver.resolve(host, std::to_string(port)));
  }

  template <typename Request, typename Response>
  Response call(const Request& req, int16_t version) {
    kafka::RequestHeader h{Request::kApiKey, version, ++correlation_, "wire-client"};
    auto frame = kafka::concat(kafka::encode_request(h, req));
    boost::asio::write(socket_, boost::asio::buffer(frame.data(), frame.size()));
    std::byte size[4];
    boost::asio::read(socket_, boost::asio::buffer(size, 4));
    auto body = SharedBytes::allocate(static_cast<size_t>(be::load<int32_t>(size)));
    last_response_bytes_ = 4 + body.size();
    boost::asio::read(socket_, boost::asio::buffer(body.data(), body.size()));
    const auto* api = kafka::find_api(Request::kApiKey);
    bool flexible = version >= api->flexible_from;
    kafka::Reader r(body, 0, version, flexible, 64 << 20);
    int32_t corr = r.fixed<int32_t>();
    STRATA_CHECK(corr == correlation_, "response {} for request {}", corr, correlation_);
    if (flexible && Request::kApiKey != 18) r.uvarint();  // response header tags (none)
    Response resp;
    r.read_struct(resp);
    STRATA_CHECK(r.ok(), "bad response: {}", r.error());
    return resp;
  }

  // Size of the last response frame, its size prefix included.
  size_t last_response_bytes() const { return last_response_bytes_; }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  int32_t correlation_ = 0;
  size_t last_response_bytes_ = 0;
};

}  // namespace strata::server::testing
