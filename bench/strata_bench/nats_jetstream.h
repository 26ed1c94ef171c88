// NATS JetStream for strata-bench's nats-jetstream driver (driver_nats.cc):
// the driver's settings and URL, libnats errors and handles, and the
// JetStream administration the driver needs (contexts, durable pull
// consumers, streams).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nats/nats.h>

#include "base/result.h"
#include "bench/strata_bench/driver.h"

namespace strata::bench::nats {

constexpr int64_t kApiWaitMs = 10'000;    // JetStream API requests (streams, consumers)
constexpr int64_t kCloseFlushMs = 5'000;  // pushing out a consumer's last acks

// The driver's settings (-D key=value) and server URL.
struct Config {
  std::string url;
  int max_pending = 4096;
  int fetch_batch = 1000;
  int ack_timeout_ms = 30'000;
  int connect_timeout_ms = 2'000;
  int replicas = 1;
};

Error config_error(std::string message);
Result<Config> parse_config(const DriverOptions& options);
// JetStream names: no '.', '*', '>', whitespace or path separators.
Status check_name(std::string_view name, std::string_view what);

// "<what>: <status text> (<library detail>)". The detail is the calling
// thread's last libnats error, which carries the server's description of a
// JetStream API failure.
Error nats_error(std::string_view what, natsStatus s, jsErrCode jerr = static_cast<jsErrCode>(0));

template <typename T, void (*Destroy)(T*)>
struct Deleter {
  void operator()(T* p) const { Destroy(p); }
};
template <typename T, void (*Destroy)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Destroy>>;

using OptionsPtr = Handle<natsOptions, natsOptions_Destroy>;
using ConnPtr = Handle<natsConnection, natsConnection_Destroy>;
using JsPtr = Handle<jsCtx, jsCtx_Destroy>;
using SubPtr = Handle<natsSubscription, natsSubscription_Destroy>;
using InboxPtr = Handle<natsInbox, natsInbox_Destroy>;
using ConsumerInfoPtr = Handle<jsConsumerInfo, jsConsumerInfo_Destroy>;
using MsgPtr = Handle<natsMsg, natsMsg_Destroy>;

// A connection to `c.url`, named `name` (libnats is opened on first use and
// never closed: nats_Close() is process-global).
Result<ConnPtr> connect(const Config& c, const std::string& name);
Result<JsPtr> jetstream(natsConnection* nc, jsOptions* jo);
// A context whose API requests wait kApiWaitMs.
Result<JsPtr> admin_jetstream(natsConnection* nc);
// Creates the durable pull consumer `group` on `stream` unless it exists.
// Safe to race with other members doing the same: the server accepts a
// create with an identical configuration, and whoever fails finds it.
Status ensure_durable(jsCtx* js, const std::string& stream, const std::string& group);
// Deletes `stream`; one that does not exist is not an error.
Status delete_stream(jsCtx* js, const std::string& stream);

}  // namespace strata::bench::nats
