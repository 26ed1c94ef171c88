#include "registry/http_client.h"

#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

namespace strata::registry {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Call : std::enable_shared_from_this<Call> {
  Call(asio::io_context& io, std::function<void(Result<Reply>)> d)
      : stream(io), done(std::move(d)) {}

  void fail(const std::string& what, beast::error_code ec) {
    done(Error(Errc::kUnavailable, fmt::format("{}: {}", what, ec.message())));
  }

  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::request<http::string_body> req;
  http::response<http::string_body> res;
  std::function<void(Result<Reply>)> done;
};

}  // namespace

namespace {

void send(const std::shared_ptr<Call>& call, const tcp::endpoint& to) {
  call->stream.async_connect(to, [call](beast::error_code ec) {
    if (ec) return call->fail("connect", ec);
    http::async_write(call->stream, call->req, [call](beast::error_code ec, size_t) {
      if (ec) return call->fail("send", ec);
      http::async_read(call->stream, call->buffer, call->res, [call](beast::error_code ec, size_t) {
        if (ec) return call->fail("receive", ec);
        beast::error_code ignored;
        call->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        auto type = call->res[http::field::content_type];
        bool json = type.find("json") != beast::string_view::npos;
        call->done(
            Reply{static_cast<int>(call->res.result_int()), std::move(call->res.body()), json});
      });
    });
  });
}

}  // namespace

void http_call(asio::io_context& io, const std::string& host, uint16_t port,
               const HttpRequest& request, std::chrono::milliseconds timeout,
               std::function<void(Result<Reply>)> done) {
  auto call = std::make_shared<Call>(io, std::move(done));
  call->req.method_string(request.method);
  call->req.target(request.target);
  call->req.version(11);
  call->req.set(http::field::host, fmt::format("{}:{}", host, port));
  call->req.set(http::field::content_type, "application/vnd.schemaregistry.v1+json");
  call->req.keep_alive(false);
  if (request.forwarded) call->req.set(kForwardedHeader, "1");
  call->req.body() = request.body;
  call->req.prepare_payload();
  call->stream.expires_after(timeout);
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (!ec) return send(call, tcp::endpoint(address, port));
  // A name (a broker advertising a DNS name): resolved first, within the
  // same timeout.
  auto resolver = std::make_shared<tcp::resolver>(io);
  auto timer = std::make_shared<asio::steady_timer>(io, timeout);
  timer->async_wait([resolver](boost::system::error_code e) {
    if (!e) resolver->cancel();
  });
  resolver->async_resolve(
      host, std::to_string(port),
      [call, resolver, timer](beast::error_code ec, tcp::resolver::results_type found) {
        timer->cancel();
        if (ec || found.empty()) return call->fail("resolve", ec);
        send(call, found.begin()->endpoint());
      });
}

}  // namespace strata::registry
