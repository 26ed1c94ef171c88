#include "io/tcp_connect.h"

namespace strata::io {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

boost::system::error_code bind_source(tcp::socket& socket, const std::string& source,
                                      const asio::ip::address& to) {
  boost::system::error_code ec;
  if (source.empty()) return ec;
  auto local = asio::ip::make_address(source, ec);
  if (ec || local.is_v4() != to.is_v4()) return {};
  socket.open(to.is_v4() ? tcp::v4() : tcp::v6(), ec);
  if (!ec) socket.bind(tcp::endpoint(local, 0), ec);
  if (ec) {
    boost::system::error_code ignored;
    socket.close(ignored);
  }
  return ec;
}

}  // namespace strata::io
