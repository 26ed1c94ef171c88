#include "registry/http_server.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "io/tcp_listen.h"

namespace strata::registry {
// Not anonymous: HttpServer::Impl holds a Core.
namespace http_server_internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kIdleTimeout = std::chrono::seconds(60);
constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";

class Session;

// What the sessions share with the server: the io_context (kept alive by
// any reply still on its way), the handler, the limits, the live sessions.
struct Core {
  asio::io_context io;
  HttpServer::Handler handler;
  HttpServer::Options options;
  std::mutex mu;
  std::set<std::shared_ptr<Session>> sessions;  // the io thread's, under mu for stop()
  std::weak_ptr<Core> self;                     // what a reply on its way keeps alive
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  // The core outlives every session: sessions live in its io_context's
  // handlers (a session holding the core would be a cycle).
  Session(Core& core, tcp::socket socket) : core_(core), stream_(std::move(socket)) {}

  void start() { read(); }
  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(core_.options.max_header_bytes));
    // A Content-Length above the limit fails the read at the header,
    // before any of the body is read.
    parser_->body_limit(core_.options.max_body_bytes);
    stream_.expires_after(kIdleTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      return refuse(http::status::payload_too_large,
                    "the request body is over the limit of " +
                        std::to_string(core_.options.max_body_bytes) + " bytes");
    }
    if (ec == http::error::header_limit) {
      return refuse(http::status::request_header_fields_too_large, "the headers are too large");
    }
    if (ec) return finish();  // closed, timed out, or not HTTP
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    HttpRequest r{std::string(req.method_string()), std::string(req.target()),
                  std::move(req.body()), req.find(kForwardedHeader) != req.end()};
    std::weak_ptr<Session> weak = shared_from_this();
    core_.handler(std::move(r), [weak, core = core_.self.lock()](Reply reply) {
      asio::post(core->io, [weak, reply = std::move(reply)]() mutable {
        if (auto self = weak.lock()) self->write(std::move(reply));
      });
    });
  }

  void refuse(http::status status, const std::string& why) {
    keep_alive_ = false;
    nlohmann::json body = {{"error_code", static_cast<int>(status)}, {"message", why}};
    write({static_cast<int>(status), body.dump(), true});
  }

  void write(Reply reply) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(reply.status), 11);
    res->set(http::field::content_type, reply.json ? kContentType : "text/plain");
    res->set(http::field::server, "strata");
    res->keep_alive(keep_alive_);
    res->body() = std::move(reply.body);
    res->prepare_payload();
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec || !self->keep_alive_) return self->finish();
                        self->read();
                      });
  }

  void finish() {
    close();
    std::lock_guard lock(core_.mu);
    core_.sessions.erase(shared_from_this());
  }

  Core& core_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
};

}  // namespace http_server_internal

using http_server_internal::Core;
using http_server_internal::Session;
namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

struct HttpServer::Impl {
  std::shared_ptr<Core> core = std::make_shared<Core>();
  tcp::acceptor acceptor{core->io};
  uint16_t port = 0;
  std::thread thread;
  std::atomic<bool> stopped{false};

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec != asio::error::operation_aborted) {
          spdlog::warn("schema registry: accept failed: {}", ec.message());
          accept();
        }
        return;
      }
      std::shared_ptr<Session> s;
      {
        std::lock_guard lock(core->mu);
        if (core->sessions.size() >= core->options.max_connections) {
          beast::error_code ignored;
          socket.close(ignored);
          return accept();
        }
        s = std::make_shared<Session>(*core, std::move(socket));
        core->sessions.insert(s);
      }
      s->start();
      accept();
    });
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  stop();
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& host, uint16_t port,
                                                      Options options, Handler handler) {
  auto impl = std::make_unique<Impl>();
  impl->core->self = impl->core;
  impl->core->handler = std::move(handler);
  impl->core->options = options;
  STRATA_ASSIGN_OR_RETURN(impl->port, io::listen_on(impl->acceptor, host, port));
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(impl)));
  Impl* i = server->impl_.get();
  i->accept();
  i->thread = std::thread([i] {
    pthread_setname_np(pthread_self(), "registry-http");
    i->core->io.run();
  });
  return server;
}

uint16_t HttpServer::port() const {
  return impl_->port;
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(impl_->core->io, [i = impl_.get()] {
    beast::error_code ec;
    i->acceptor.close(ec);
    std::set<std::shared_ptr<Session>> sessions;
    {
      std::lock_guard lock(i->core->mu);
      sessions.swap(i->core->sessions);
    }
    for (const auto& s : sessions)
      s->close();
    i->core->io.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace strata::registry
