// bind_source: where a broker's own connections to other brokers leave
// from — its listener's address, so that packet filters (the fault tests'
// partitions) tell brokers apart on one host.
#pragma once

#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

namespace strata::io {

// Opens `socket` and binds it to `source` (port 0) for a connection to
// `to`, when `source` is an address of `to`'s family. A source that is
// empty, a host name or of the other family leaves `socket` as it was (the
// kernel chooses); a bind that fails closes it again and returns the error.
boost::system::error_code bind_source(boost::asio::ip::tcp::socket& socket,
                                      const std::string& source,
                                      const boost::asio::ip::address& to);

}  // namespace strata::io
