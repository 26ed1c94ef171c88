// strata-broker: runs one broker until SIGTERM or SIGINT, then stops cleanly.
#include <csignal>
#include <iostream>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include "base/logging.h"
#include "coordinator/embedded_store.h"
#include "server/broker.h"

int main(int argc, char** argv) {
  auto parsed = strata::server::BrokerConfig::from_args(argc, argv);
  if (!parsed) {
    std::cerr << "strata-broker: " << parsed.error().message() << "\n";
    return 2;
  }
  if (!parsed->has_value()) return 0;  // --help
  const auto& config = **parsed;
  if (auto st = strata::init_logging(config.log_level); !st) {
    std::cerr << "strata-broker: " << st.error().message() << "\n";
    return 2;
  }
  // Signals are taken by the main thread only.
  boost::asio::io_context signals_io;
  boost::asio::signal_set signals(signals_io, SIGTERM, SIGINT);
  std::signal(SIGPIPE, SIG_IGN);

  if (config.metadata_store != strata::server::BrokerConfig::MetadataStoreKind::kEmbedded) {
    // The etcd store exists, but brokers do not register, elect a
    // controller or follow its partition states yet: two brokers on one
    // etcd would each think they are alone. Refuse rather than pretend.
    spdlog::critical(
        "cannot start: metadata.store=etcd is not supported yet (clusters are being built); "
        "use metadata.store=embedded, the default, for a single broker");
    return 2;
  }
  // One broker keeps its metadata in its data directory.
  auto store = strata::coordinator::EmbeddedStore::open(config.data_dir / "metadata.json");
  if (!store) {
    spdlog::critical("cannot open the metadata store: {}", store.error().to_string());
    return 1;
  }
  auto broker = strata::server::Broker::start(config, **store, strata::SystemClock::instance());
  if (!broker) {
    spdlog::critical("cannot start: {}", broker.error().to_string());
    return 1;
  }
  int code = 0;
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::info("received {}", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    auto st = (*broker)->stop();
    if (!st) {
      spdlog::error("shutdown: {}", st.error().to_string());
      code = 1;
    }
  });
  signals_io.run();
  return code;
}
