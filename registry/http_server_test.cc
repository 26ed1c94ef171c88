// The registry's HTTP listener with a real socket: requests reach the
// handler with method, target and body; replies come back with the
// registry's content type, on a kept-alive connection; an oversized body
// is refused from its Content-Length before it is read.
#include "registry/http_server.h"

#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include "registry/http_client.h"

namespace strata::registry {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Sends raw bytes on `socket` and reads one response (headers + body by
// Content-Length).
std::string exchange(tcp::socket& socket, const std::string& request) {
  asio::write(socket, asio::buffer(request));
  asio::streambuf buf;
  size_t header_end = asio::read_until(socket, buf, "\r\n\r\n");
  std::string all(asio::buffers_begin(buf.data()), asio::buffers_end(buf.data()));
  std::string headers = all.substr(0, header_end);
  size_t length = 0;
  if (auto at = headers.find("Content-Length: "); at != std::string::npos) {
    length = std::stoul(headers.substr(at + 16));
  }
  std::string body = all.substr(header_end);
  if (body.size() < length) {
    std::string rest(length - body.size(), '\0');
    asio::read(socket, asio::buffer(rest));
    body += rest;
  }
  return headers + body;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServer::Options options;
    options.max_body_bytes = 1024;
    auto s = HttpServer::start("127.0.0.1", 0, options, [this](HttpRequest r, auto reply) {
      ++requests_;
      reply(Reply{r.method == "POST" ? 201 : 200, r.method + " " + r.target + " " + r.body, true});
    });
    ASSERT_TRUE(s) << s.error().to_string();
    server_ = std::move(s).value();
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
  }

  asio::io_context io_;
  tcp::socket socket_{io_};
  std::unique_ptr<HttpServer> server_;
  std::atomic<int> requests_{0};
};

TEST_F(HttpServerTest, AnswersRequestsOnOneConnection) {
  std::string a = exchange(socket_, "GET /subjects?deleted=true HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(a.find("HTTP/1.1 200"), std::string::npos) << a;
  EXPECT_NE(a.find("application/vnd.schemaregistry.v1+json"), std::string::npos) << a;
  EXPECT_NE(a.find("GET /subjects?deleted=true "), std::string::npos) << a;
  std::string b = exchange(socket_,
                           "POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                           "4\r\n\r\n{\"a\"");
  EXPECT_NE(b.find("HTTP/1.1 201"), std::string::npos) << b;
  EXPECT_NE(b.find("POST /subjects/s/versions {\"a\""), std::string::npos) << b;
  EXPECT_EQ(requests_.load(), 2);
}

TEST_F(HttpServerTest, RefusesAnOversizedBodyUnread) {
  // Claims 1 MiB and sends none of it: the answer comes anyway.
  std::string r = exchange(
      socket_, "POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n");
  EXPECT_NE(r.find("HTTP/1.1 413"), std::string::npos) << r;
  EXPECT_NE(r.find("over the limit"), std::string::npos) << r;
  EXPECT_EQ(requests_.load(), 0);
}

TEST_F(HttpServerTest, GarbageClosesTheConnectionAndTheServerGoesOn) {
  asio::write(socket_, asio::buffer(std::string("\x01\x02 not http at all\r\n\r\n")));
  boost::system::error_code ec;
  char c;
  asio::read(socket_, asio::buffer(&c, 1), ec);
  EXPECT_TRUE(ec) << "the connection stayed open";
  tcp::socket again(io_);
  again.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
  EXPECT_NE(exchange(again, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").find("HTTP/1.1 200"),
            std::string::npos);
}

TEST_F(HttpServerTest, TheClientRelaysARequestAndItsReply) {
  std::optional<Result<Reply>> got;
  http_call(io_, "127.0.0.1", server_->port(), {"PUT", "/config/s", "{\"x\":1}"},
            std::chrono::seconds(10), [&](Result<Reply> r) { got = std::move(r); });
  io_.run();
  ASSERT_TRUE(got && *got) << (got ? got->error().to_string() : "no answer");
  EXPECT_EQ((*got)->status, 200);
  EXPECT_EQ((*got)->body, "PUT /config/s {\"x\":1}");
  // Nobody listening: an error, not a hang.
  io_.restart();
  uint16_t port = server_->port();
  server_->stop();
  std::optional<Result<Reply>> none;
  http_call(io_, "127.0.0.1", port, {"GET", "/", ""}, std::chrono::seconds(10),
            [&](Result<Reply> r) { none = std::move(r); });
  io_.run();
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(*none);
}

}  // namespace
}  // namespace strata::registry
