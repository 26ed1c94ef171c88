// strata-broker: runs one broker until SIGTERM or SIGINT, then stops cleanly.
#include <csignal>
#include <iostream>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include "base/logging.h"
#include "base/malloc_tuning.h"
#include "coordinator/embedded_store.h"
#include "coordinator/etcd_store.h"
#include "server/broker.h"

int main(int argc, char** argv) {
  // Before any thread: the arenas they create take these thresholds.
  std::string malloc_tuning = strata::tune_malloc_for_large_buffers();
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
  spdlog::info("{}", malloc_tuning);
  // Signals are taken by the main thread only.
  boost::asio::io_context signals_io;
  boost::asio::signal_set signals(signals_io, SIGTERM, SIGINT);
  std::signal(SIGPIPE, SIG_IGN);

  // A cluster keeps its metadata in etcd; one broker in its data directory.
  std::unique_ptr<strata::coordinator::MetadataStore> store;
  if (config.metadata_store == strata::server::BrokerConfig::MetadataStoreKind::kEtcd) {
    // A call may hold the control thread (and so the keep-alives) this long.
    int64_t call_timeout = std::min<int64_t>(2000, config.broker_session_timeout_ms / 3);
    auto etcd = strata::coordinator::EtcdStore::open(
        {.endpoints = config.etcd_endpoints, .call_timeout_ms = call_timeout, .watch = {}});
    if (!etcd) {
      spdlog::critical("cannot use etcd: {}", etcd.error().to_string());
      return 2;
    }
    store = std::move(etcd).value();
  } else {
    auto embedded = strata::coordinator::EmbeddedStore::open(config.data_dir / "metadata.json");
    if (!embedded) {
      spdlog::critical("cannot open the metadata store: {}", embedded.error().to_string());
      return 1;
    }
    store = std::move(embedded).value();
  }
  auto broker = strata::server::Broker::start(config, *store, strata::SystemClock::instance());
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
