#include "server/listener.h"

#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "server/broker.h"
#include "server/connection.h"

namespace strata::server {

namespace asio = boost::asio;

Listener::Listener(Broker& broker)
    : broker_(broker), acceptor_(broker.shard(0).io()), connections_(broker.shard_count()) {}

Result<std::unique_ptr<Listener>> Listener::open(Broker& broker) {
  std::unique_ptr<Listener> l(new Listener(broker));
  const auto& cfg = broker.config();
  STRATA_ASSIGN_OR_RETURN(l->port_, io::listen_on(l->acceptor_, cfg.listen_host, cfg.listen_port));
  return l;
}

void Listener::close() {
  boost::system::error_code ec;
  acceptor_.close(ec);
}

void Listener::accept() {
  unsigned target = next_shard_;
  next_shard_ = (next_shard_ + 1) % broker_.shard_count();
  acceptor_.async_accept(
      broker_.shard(target).io(),
      [this, target](const boost::system::error_code& ec, asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
        if (!ec) {
          broker_.shard(target).post([this, target, socket = std::move(socket)]() mutable {
            auto conn = std::make_shared<Connection>(broker_.services(), broker_.state(target),
                                                     std::move(socket));
            auto& list = connections_[target];
            std::erase_if(list, [](const auto& w) { return w.expired(); });
            list.push_back(conn);
            if (broker_.stopping()) return conn->close();
            conn->start();
          });
        } else {
          spdlog::warn("accept failed: {}", ec.message());
        }
        accept();
      });
}

void Listener::drain_shard(unsigned i, std::chrono::steady_clock::time_point deadline,
                           std::function<void()> done) {
  std::vector<std::shared_ptr<Connection>> live;
  for (auto& w : connections_[i]) {
    if (auto c = w.lock(); c && !c->closed()) live.push_back(std::move(c));
  }
  if (live.empty()) return done();
  struct State {
    size_t remaining;
    std::function<void()> done;
    asio::steady_timer timer;
  };
  auto state = std::make_shared<State>(
      State{live.size(), std::move(done), asio::steady_timer(broker_.shard(i).io())});
  state->timer.expires_at(deadline);
  state->timer.async_wait([live](const boost::system::error_code& ec) {
    if (ec) return;
    for (auto& c : live) {
      if (!c->closed()) {
        spdlog::warn("shutdown timeout: closing a connection with requests still in progress");
        c->close();
      }
    }
  });
  for (auto& c : live) {
    c->drain([state] {
      if (--state->remaining == 0) {
        state->timer.cancel();
        auto d = std::move(state->done);
        d();
      }
    });
  }
}

}  // namespace strata::server
