// http_call: one HTTP/1.1 request to another broker's registry (a write
// forwarded to the leader of _schemas), asynchronous on `io`, on its own
// connection, bounded by `timeout`; `done` on `io`'s thread with the reply
// as it came (status, body) or the error that kept it from coming.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "base/result.h"
#include "registry/reply.h"

namespace strata::registry {

void http_call(boost::asio::io_context& io, const std::string& host, uint16_t port,
               const HttpRequest& request, std::chrono::milliseconds timeout,
               std::function<void(Result<Reply>)> done);

}  // namespace strata::registry
