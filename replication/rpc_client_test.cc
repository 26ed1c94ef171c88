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

TEST(RpcClientTest, ASourceThatIsNotAnAddressLeavesTheChoiceToTheKernel) {
  EXPECT_EQ(peer_address_of("broker-1.example"), "127.0.0.1");
  EXPECT_EQ(peer_address_of("::1"), "127.0.0.1");  // the other family
}

}  // namespace
}  // namespace strata::replication
