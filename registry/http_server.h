// HttpServer: the schema registry's HTTP/1.1 listener (Boost.Beast) on a
// thread of its own. It reads one request at a time per connection
// (keep-alive), refuses a body over the limit from its Content-Length
// before reading it (413), hands the request to the handler and writes the
// reply the handler gives back — from any thread — on the connection.
//
//   auto server = HttpServer::start("127.0.0.1", 8081, {}, [](HttpRequest r, auto reply) {
//     reply(Reply{200, "{}"});
//   });
//   server.value()->port();
//   server.value()->stop();
//
// Thread-safety: start/stop from any one thread; the handler runs on the
// server's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "registry/reply.h"

namespace strata::registry {

class HttpServer {
 public:
  using Handler = std::function<void(HttpRequest, std::function<void(Reply)>)>;
  struct Options {
    size_t max_body_bytes = 16 << 20;
    size_t max_header_bytes = 64 << 10;
    size_t max_connections = 1024;
  };

  static Result<std::unique_ptr<HttpServer>> start(const std::string& host, uint16_t port,
                                                   Options options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  // Stops accepting, closes every connection, joins the thread.
  void stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::registry
