#include "io/tcp_listen.h"

#include <fmt/format.h>

namespace strata::io {

namespace asio = boost::asio;

Result<uint16_t> listen_on(asio::ip::tcp::acceptor& acceptor, const std::string& host,
                           uint16_t port) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) {
    asio::ip::tcp::resolver resolver(acceptor.get_executor());
    auto results = resolver.resolve(host, std::to_string(port), ec);
    if (ec || results.empty()) {
      return Error(Errc::kInvalidConfig,
                   fmt::format("cannot resolve listen host '{}': {}", host, ec.message()));
    }
    address = results.begin()->endpoint().address();
  }
  asio::ip::tcp::endpoint ep(address, port);
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error(Errc::kIoError,
                 fmt::format("cannot listen on {}:{}: {}", host, port, ec.message()));
  }
  return acceptor.local_endpoint().port();
}

}  // namespace strata::io
