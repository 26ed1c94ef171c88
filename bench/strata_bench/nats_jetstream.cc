#include "bench/strata_bench/nats_jetstream.h"

#include <charconv>
#include <mutex>

#include <fmt/format.h>

namespace strata::bench::nats {
namespace {

constexpr std::string_view kDefaultUrl = "nats://127.0.0.1:4222";
constexpr int kDefaultPort = 4222;
constexpr int64_t kConsumerAckWaitS = 30;  // redelivery after this long without an ack
constexpr int64_t kMaxAckPending = 1 << 16;

// ---------------------------------------------------------------------------
// Settings and URL.

struct IntSetting {
  std::string_view name;
  int Config::*field;
  int min;
  int max;
};

constexpr IntSetting kSettings[] = {
    {"max_pending", &Config::max_pending, 1, 1'000'000},
    {"fetch_batch", &Config::fetch_batch, 1, 10'000},
    {"ack_timeout_ms", &Config::ack_timeout_ms, 1, 3'600'000},
    {"connect_timeout_ms", &Config::connect_timeout_ms, 1, 600'000},
    {"replicas", &Config::replicas, 1, 5},
};

Result<int> parse_int(std::string_view text, int min, int max, std::string_view what) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
    return config_error(fmt::format("nats-jetstream {} '{}': expected an integer in [{}, {}]", what,
                                    text, min, max));
  }
  return v;
}

// "nats://host:port", "host:port" (port optional, 4222) or "" → "nats://host:port".
Result<std::string> normalize_url(std::string_view url) {
  if (url.empty()) return std::string(kDefaultUrl);
  auto bad = [&](std::string_view why) {
    return config_error(fmt::format(
        "nats-jetstream url '{}': {} (expected nats://host:port or host:port)", url, why));
  };
  std::string_view rest = url;
  constexpr std::string_view kScheme = "nats://";
  if (rest.substr(0, kScheme.size()) == kScheme) {
    rest.remove_prefix(kScheme.size());
  } else if (rest.find("://") != std::string_view::npos) {
    return bad("the scheme must be nats://");
  }
  if (rest.find_first_of("/@,? \t") != std::string_view::npos) {
    return bad("only a host and a port are allowed");
  }
  std::string_view host;
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("unterminated '['");
    host = rest.substr(0, close + 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("expected ':' after ']'");
      port_text = after.substr(1);
      if (port_text.empty()) return bad("empty port");
    }
  } else {
    size_t colon = rest.rfind(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = rest.substr(colon + 1);
      if (port_text.empty()) return bad("empty port");
    }
    if (host.find(':') != std::string_view::npos) return bad("put an IPv6 host in brackets");
  }
  if (host.empty()) return bad("no host");
  int port = kDefaultPort;
  if (!port_text.empty()) {
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return bad(fmt::format("port '{}' is not a number in [1, 65535]", port_text));
    }
  }
  return fmt::format("nats://{}:{}", host, port);
}

Status open_library() {
  static std::once_flag once;
  static natsStatus status = NATS_OK;
  std::call_once(once, [] { status = nats_Open(-1); });
  if (status != NATS_OK) return nats_error("nats-jetstream: opening libnats", status);
  return ok_status();
}

}  // namespace

Error config_error(std::string message) {
  return Error(Errc::kInvalidConfig, std::move(message));
}

Result<Config> parse_config(const DriverOptions& options) {
  Config c;
  for (const auto& [key, value] : options.settings) {
    const IntSetting* found = nullptr;
    for (const IntSetting& s : kSettings) {
      if (s.name == key) found = &s;
    }
    if (found == nullptr) {
      std::string known;
      for (const IntSetting& s : kSettings) {
        if (!known.empty()) known += ", ";
        known += s.name;
      }
      return config_error(
          fmt::format("unknown nats-jetstream setting '{}' (known: {})", key, known));
    }
    STRATA_ASSIGN_OR_RETURN(c.*(found->field), parse_int(value, found->min, found->max,
                                                         fmt::format("setting '{}'", found->name)));
  }
  STRATA_ASSIGN_OR_RETURN(c.url, normalize_url(options.url));
  return c;
}

Status check_name(std::string_view name, std::string_view what) {
  if (name.empty()) return config_error(fmt::format("nats-jetstream: empty {} name", what));
  if (name.find_first_of(".*> \t\r\n/\\") != std::string_view::npos) {
    return config_error(fmt::format(
        "nats-jetstream: {} name '{}' cannot be used as a JetStream name (no '.', '*', '>', "
        "spaces or slashes)",
        what, name));
  }
  return ok_status();
}

// ---------------------------------------------------------------------------
// libnats errors and handles.

Error nats_error(std::string_view what, natsStatus s, jsErrCode jerr) {
  std::string text = fmt::format("{}: {}", what, natsStatus_GetText(s));
  natsStatus last = NATS_OK;
  const char* raw_detail = nats_GetLastError(&last);
  std::string_view detail = raw_detail != nullptr ? raw_detail : "";
  if (!detail.empty() && detail.front() == '(') {  // "(conn.c:2088): text"
    size_t end = detail.find("): ");
    if (end != std::string_view::npos) detail.remove_prefix(end + 3);
  }
  if (last == s && !detail.empty() && detail != natsStatus_GetText(s)) {
    text += fmt::format(" ({})", detail);
  }
  if (jerr != 0) text += fmt::format(" [JetStream error {}]", static_cast<int>(jerr));
  return Error(Errc::kIoError, std::move(text));
}

Result<ConnPtr> connect(const Config& c, const std::string& name) {
  STRATA_TRY(open_library());
  natsOptions* raw_opts = nullptr;
  natsStatus s = natsOptions_Create(&raw_opts);
  if (s != NATS_OK) return nats_error("nats-jetstream: creating options", s);
  OptionsPtr opts(raw_opts);
  s = natsOptions_SetURL(opts.get(), c.url.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(opts.get(), c.connect_timeout_ms);
  if (s == NATS_OK) s = natsOptions_SetName(opts.get(), name.c_str());
  if (s != NATS_OK) return nats_error(fmt::format("nats-jetstream: options for {}", c.url), s);
  natsConnection* raw_nc = nullptr;
  s = natsConnection_Connect(&raw_nc, opts.get());
  if (s != NATS_OK) return nats_error(fmt::format("nats-jetstream: connecting to {}", c.url), s);
  return ConnPtr(raw_nc);
}

Result<JsPtr> jetstream(natsConnection* nc, jsOptions* jo) {
  jsCtx* raw = nullptr;
  natsStatus s = natsConnection_JetStream(&raw, nc, jo);
  if (s != NATS_OK) return nats_error("nats-jetstream: JetStream context", s);
  return JsPtr(raw);
}

Result<JsPtr> admin_jetstream(natsConnection* nc) {
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = kApiWaitMs;
  return jetstream(nc, &jo);
}

Status ensure_durable(jsCtx* js, const std::string& stream, const std::string& group) {
  jsConsumerInfo* raw = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetConsumerInfo(&raw, js, stream.c_str(), group.c_str(), nullptr, &jerr);
  ConsumerInfoPtr info(raw);
  if (s == NATS_OK) return ok_status();
  if (jerr == JSStreamNotFoundErr) {
    return Error(
        Errc::kNotFound,
        fmt::format("nats-jetstream: stream '{}' does not exist (prepare() creates it)", stream));
  }
  if (s != NATS_NOT_FOUND) {
    return nats_error(
        fmt::format("nats-jetstream: looking up consumer '{}' of stream '{}'", group, stream), s,
        jerr);
  }
  jsConsumerConfig cc;
  jsConsumerConfig_Init(&cc);
  cc.Durable = group.c_str();
  cc.DeliverPolicy = js_DeliverAll;
  cc.AckPolicy = js_AckExplicit;
  cc.AckWait = kConsumerAckWaitS * 1'000'000'000LL;
  cc.MaxAckPending = kMaxAckPending;
  s = js_AddConsumer(nullptr, js, stream.c_str(), &cc, nullptr, &jerr);
  if (s == NATS_OK) return ok_status();
  Error add_error = nats_error(
      fmt::format("nats-jetstream: creating consumer '{}' of stream '{}'", group, stream), s, jerr);
  raw = nullptr;
  if (js_GetConsumerInfo(&raw, js, stream.c_str(), group.c_str(), nullptr, nullptr) == NATS_OK) {
    jsConsumerInfo_Destroy(raw);
    return ok_status();
  }
  return add_error;
}

Status delete_stream(jsCtx* js, const std::string& stream) {
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_DeleteStream(js, stream.c_str(), nullptr, &jerr);
  if (s == NATS_OK || s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) return ok_status();
  return nats_error(fmt::format("nats-jetstream: deleting stream '{}'", stream), s, jerr);
}

}  // namespace strata::bench::nats
