#include "replication/rpc_client.h"

#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <gtest/gtest.h>

namespace strata::replication {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// The address a connection from a client with `source` arrives from.
std::string peer_address_of(const std::string& source) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket accepted(io);
  std::optional<std::string> peer;
  acceptor.async_accept(accepted, [&](const boost::system::error_code& ec) {
    EXPECT_FALSE(ec) << ec.message();
    peer = accepted.remote_endpoint().address().to_string();
    accepted.close();
  });
  auto client = RpcClient::create(io, "127.0.0.1", acceptor.local_endpoint().port(), 2, 1, source);
  bool answered = false;
  rpc::Request request;
  client->call(request, 5000, [&](Result<rpc::Response> r) {
    EXPECT_FALSE(r.ok());  // the acceptor closes without answering
    answered = true;
  });
  while (!(peer && answered) && io.run_one() > 0) {
  }
  EXPECT_TRUE(answered);
  return peer.value_or("");
}

TEST(RpcClientTest, ConnectionsLeaveFromTheSourceAddressWhenOneIsGiven) {
  EXPECT_EQ(peer_address_of("127.0.0.2"), "127.0.0.2");
  EXPECT_EQ(peer_address_of(""), "127.0.0.1");
}

TEST(RpcClientTest, ASourceAddressThatCannotBeBoundFailsTheCall) {
  asio::io_context io;
  auto client = RpcClient::create(io, "127.0.0.1", 9, 2, 1, "not-an-address");
  std::optional<Error> error;
  client->call(rpc::Request(), 5000, [&](Result<rpc::Response> r) {
    ASSERT_FALSE(r.ok());
    error = r.error();
  });
  while (!error && io.run_one() > 0) {
  }
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->to_string().find("binding not-an-address"), std::string::npos)
      << error->to_string();
}

}  // namespace
}  // namespace strata::replication
