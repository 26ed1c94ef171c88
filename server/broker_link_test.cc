#include "server/broker_link.h"

#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include "base/big_endian.h"

namespace strata::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// A stand-in broker on loopback: it reads Kafka frames and, unless told to
// keep quiet, answers each with its body (so an answer names its request).
class EchoPeer {
 public:
  explicit EchoPeer(asio::io_context& io)
      : io_(io), acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    accept();
  }
  int32_t port() const { return acceptor_.local_endpoint().port(); }
  int connections = 0;
  bool answer = true;        // answer the requests read
  bool close_after = false;  // close the connection after reading one request

 private:
  struct Conn {
    explicit Conn(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    std::byte size[4];
    std::vector<std::byte> body;
  };

  void accept() {
    auto c = std::make_shared<Conn>(io_);
    acceptor_.async_accept(c->socket, [this, c](const boost::system::error_code& ec) {
      if (ec) return;
      ++connections;
      read(c);
      accept();
    });
  }

  void read(std::shared_ptr<Conn> c) {
    asio::async_read(c->socket, asio::buffer(c->size), [this, c](auto ec, size_t) {
      if (ec) return;
      c->body.resize(static_cast<size_t>(be::load<int32_t>(c->size)));
      asio::async_read(c->socket, asio::buffer(c->body), [this, c](auto ec, size_t) {
        if (ec) return;
        if (close_after) return c->socket.close();
        if (answer) {
          auto frame = std::make_shared<std::vector<std::byte>>(4 + c->body.size());
          std::copy(c->size, c->size + 4, frame->begin());
          std::copy(c->body.begin(), c->body.end(), frame->begin() + 4);
          asio::async_write(c->socket, asio::buffer(*frame), [frame](auto, size_t) {});
        }
        read(c);
      });
    });
  }

  asio::io_context& io_;
  tcp::acceptor acceptor_;
};

// A request frame whose body (after the size prefix) is `text`.
std::vector<SharedBytes> request(const std::string& text) {
  auto b = SharedBytes::allocate(4 + text.size());
  be::store<int32_t>(b.data(), static_cast<int32_t>(text.size()));
  std::memcpy(b.data() + 4, text.data(), text.size());
  return {b};
}

std::string text_of(const SharedBytes& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

class BrokerLinkTest : public ::testing::Test {
 protected:
  // Runs the io_context until `done` holds (or nothing is left to run).
  template <typename Cond>
  void run_until(Cond done) {
    while (!done() && io_.run_one() > 0) {
    }
  }
  asio::io_context io_;
  EchoPeer peer_{io_};
  std::shared_ptr<BrokerLink> link_ =
      BrokerLink::create(io_, "broker 2", "127.0.0.1", peer_.port(), "127.0.0.1");
};

TEST_F(BrokerLinkTest, CallsShareOneConnectionAndAreAnsweredInOrder) {
  std::vector<std::string> answers;
  for (int i = 0; i < 5; ++i) {
    link_->call(request("call " + std::to_string(i)), 10000, [&](Result<SharedBytes> r) {
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      answers.push_back(text_of(*r));
    });
  }
  run_until([&] { return answers.size() == 5; });
  EXPECT_EQ(answers, (std::vector<std::string>{"call 0", "call 1", "call 2", "call 3", "call 4"}));
  // A later call goes on the same connection.
  std::optional<std::string> later;
  link_->call(request("later"), 10000, [&](Result<SharedBytes> r) { later = text_of(r.value()); });
  run_until([&] { return later.has_value(); });
  EXPECT_EQ(later, "later");
  EXPECT_EQ(peer_.connections, 1);
}

TEST_F(BrokerLinkTest, ALostConnectionFailsTheCallsInFlightAndTheNextCallConnectsAgain) {
  peer_.close_after = true;
  std::vector<Status> failed;
  for (int i = 0; i < 2; ++i) {
    link_->call(request("lost"), 10000, [&](Result<SharedBytes> r) {
      failed.push_back(r.ok() ? ok_status() : Status(r.error()));
    });
  }
  run_until([&] { return failed.size() == 2; });
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error().code(), Errc::kUnavailable);
  EXPECT_EQ(failed[1].error().code(), Errc::kUnavailable);
  peer_.close_after = false;
  std::optional<std::string> again;
  link_->call(request("again"), 10000, [&](Result<SharedBytes> r) { again = text_of(r.value()); });
  run_until([&] { return again.has_value(); });
  EXPECT_EQ(again, "again");
  EXPECT_EQ(peer_.connections, 2);
}

TEST_F(BrokerLinkTest, ACallNotAnsweredInTimeFailsWithTheCallsBehindItAndTheLinkRecovers) {
  peer_.answer = false;
  std::vector<Errc> codes;
  link_->call(request("first"), 50, [&](Result<SharedBytes> r) {
    codes.push_back(r.ok() ? Errc::kOk : r.error().code());
  });
  link_->call(request("second"), 60000, [&](Result<SharedBytes> r) {
    codes.push_back(r.ok() ? Errc::kOk : r.error().code());
  });
  run_until([&] { return codes.size() == 2; });
  EXPECT_EQ(codes, (std::vector<Errc>{Errc::kUnavailable, Errc::kUnavailable}));
  peer_.answer = true;
  std::optional<std::string> next;
  link_->call(request("next"), 10000, [&](Result<SharedBytes> r) { next = text_of(r.value()); });
  run_until([&] { return next.has_value(); });
  EXPECT_EQ(next, "next");  // on a new connection: no late answer is taken for it
  EXPECT_EQ(peer_.connections, 2);
}

}  // namespace
}  // namespace strata::server
