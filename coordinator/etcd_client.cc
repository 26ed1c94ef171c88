#include "coordinator/etcd_client.h"

#include <chrono>

#include <fmt/format.h>

#include "coordinator/etcd_codec.h"

namespace strata::coordinator {
namespace {

std::string_view code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN_CODE";
  }
}

Errc errc_of(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return Errc::kOk;
    case grpc::StatusCode::NOT_FOUND: return Errc::kNotFound;
    case grpc::StatusCode::ALREADY_EXISTS: return Errc::kAlreadyExists;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE: return Errc::kInvalidArgument;
    // etcd not reached or not able to serve (no leader, out of space).
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return Errc::kUnavailable;
    case grpc::StatusCode::CANCELLED: return Errc::kShutdown;
    default: return Errc::kInternal;
  }
}

std::string describe(const grpc::Status& status) {
  return fmt::format("{} ({})", status.error_message(), code_name(status.error_code()));
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  // Reconnect soon after etcd comes back rather than after gRPC's default
  // backoff of up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC's name for the time one connection attempt may take.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 2000);
  // Notice an etcd that stopped answering on an open watch stream (a
  // stopped process, a partition) within about 15 s. etcd refuses pings
  // more often than every 5 s by default.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetMaxReceiveMessageSize(64 << 20);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

}  // namespace

EtcdClient::EtcdClient(std::vector<std::string> endpoints, int64_t call_timeout_ms)
    : call_timeout_ms_(call_timeout_ms) {
  STRATA_CHECK(!endpoints.empty(), "an etcd client without endpoints");
  for (auto& ep : endpoints) {
    auto channel = make_channel(ep);
    auto s = std::make_unique<Stubs>();
    s->endpoint = std::move(ep);
    s->channel = channel;
    s->kv = etcdserverpb::KV::NewStub(channel);
    s->watch = etcdserverpb::Watch::NewStub(channel);
    s->lease = etcdserverpb::Lease::NewStub(channel);
    stubs_.push_back(std::move(s));
  }
}

Error EtcdClient::to_error(const grpc::Status& status, std::string_view endpoint,
                           std::string_view what) {
  return Error(errc_of(status.error_code()),
               fmt::format("etcd at {}: {}: {}", endpoint, what, describe(status)));
}

bool EtcdClient::wait_connected(size_t index,
                                std::chrono::system_clock::time_point deadline) const {
  const auto& channel = stubs_[index]->channel;
  auto state = channel->GetState(/*try_to_connect=*/true);
  while (state == GRPC_CHANNEL_IDLE || state == GRPC_CHANNEL_CONNECTING) {
    if (!channel->WaitForStateChange(state, deadline)) return false;
    state = channel->GetState(true);
  }
  return state == GRPC_CHANNEL_READY;
}

void EtcdClient::failed(size_t index) {
  size_t expected = index;
  current_.compare_exchange_strong(expected, (index + 1) % stubs_.size());
}

Status EtcdClient::call(std::string_view what, Idempotence idempotence, const Attempt& attempt) {
  using Clock = std::chrono::system_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(call_timeout_ms_);
  const size_t n = stubs_.size();
  const size_t start = current_.load();
  std::string failures;
  auto pause = std::chrono::milliseconds(20);
  // Passes over the endpoints until one answers or the deadline passes: a
  // channel whose etcd just came back may still be waiting out its
  // reconnect backoff and fail fast once more.
  while (true) {
    failures.clear();
    for (size_t i = 0; i < n && Clock::now() < deadline; ++i) {
      const size_t index = (start + i) % n;
      const Stubs& s = *stubs_[index];
      // The attempt fails fast when the channel did not connect, unless the
      // deadline passed while connecting: then nothing was sent.
      if (!wait_connected(index, deadline) && Clock::now() >= deadline) {
        if (!failures.empty()) failures += "; ";
        failures += s.endpoint + ": not connected before the deadline";
        break;
      }
      grpc::ClientContext ctx;
      ctx.set_deadline(deadline);
      grpc::Status status = attempt(s, ctx);
      if (status.ok()) {
        current_.store(index);
        return ok_status();
      }
      const auto code = status.error_code();
      if (code == grpc::StatusCode::DEADLINE_EXCEEDED && idempotence == kNotIdempotent) {
        failed(index);
        return Error(Errc::kUnavailable,
                     fmt::format("etcd at {}: {} did not complete within {} ms and may or may "
                                 "not have been applied: {}",
                                 s.endpoint, what, call_timeout_ms_, describe(status)));
      }
      if (code != grpc::StatusCode::UNAVAILABLE && code != grpc::StatusCode::DEADLINE_EXCEEDED) {
        return to_error(status, s.endpoint, what);
      }
      if (!failures.empty()) failures += "; ";
      failures += fmt::format("{}: {}", s.endpoint, describe(status));
    }
    if (Clock::now() + pause >= deadline) break;
    // Polls (so reconnect backoffs run out) while waiting for the first
    // endpoint's channel to change from its failed state.
    const auto& first = stubs_[start]->channel;
    first->WaitForStateChange(first->GetState(true), Clock::now() + pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
  failed(start);
  return Error(Errc::kUnavailable,
               fmt::format("etcd unreachable: no endpoint answered {} within {} ms ({})", what,
                           call_timeout_ms_, failures.empty() ? "no attempt" : failures));
}

Result<Listing> read_prefix(EtcdClient& client, const std::string& prefix, std::string_view what) {
  auto req = prefix_range_request(prefix);
  etcdserverpb::RangeResponse resp;
  STRATA_TRY(client.call(fmt::format("{} {}", what, prefix), EtcdClient::kIdempotent,
                         [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                           return s.kv->Range(&ctx, req, &resp);
                         }));
  return to_listing(resp);
}

}  // namespace strata::coordinator
