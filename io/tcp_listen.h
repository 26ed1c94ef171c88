// listen_on: binds an acceptor to host:port and listens — the one way every
// listener of the broker (Kafka, the replication RPC, the schema registry)
// opens its socket.
#pragma once

#include <cstdint>
#include <string>

#include <boost/asio/ip/tcp.hpp>

#include "base/result.h"

namespace strata::io {

// Binds `acceptor` to host:port (a name is resolved) and listens; returns
// the port bound (port 0: the kernel's pick).
Result<uint16_t> listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host,
                           uint16_t port);

}  // namespace strata::io
