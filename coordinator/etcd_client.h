// EtcdClient: the connection side of the etcd store (internal to
// coordinator/etcd_*). One gRPC channel per endpoint; a call runs against the
// endpoint that answered last and, while endpoints are unreachable, against
// the next ones; every attempt has the call deadline; a failed call is an
// Error that names etcd, the call and the endpoint(s).
//
//   etcdserverpb::RangeResponse resp;
//   STRATA_TRY(client.call("Range", EtcdClient::kIdempotent,
//       [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
//         return s.kv->Range(&ctx, req, &resp); }));
//
// An attempt moves on to the next endpoint when it failed with UNAVAILABLE
// (etcd was not reached, or has no leader). An attempt that times out used
// the rest of the deadline: a read then fails as unreachable, a write fails
// saying that it may have been applied (it is not repeated); either way the
// next call starts at the next endpoint.
//
// Thread-safety: thread-safe; a call blocks for up to call_timeout_ms, so
// never call it from a shard thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "base/result.h"
#include "coordinator/metadata_store.h"
#include "etcd/rpc.grpc.pb.h"

namespace strata::coordinator {

class EtcdClient {
 public:
  struct Stubs {
    std::string endpoint;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  };
  using Attempt = std::function<grpc::Status(const Stubs&, grpc::ClientContext&)>;
  enum Idempotence { kIdempotent, kNotIdempotent };

  // REQUIRES: endpoints are valid host:port (etcd_endpoints.h), not empty.
  EtcdClient(std::vector<std::string> endpoints, int64_t call_timeout_ms);

  Status call(std::string_view what, Idempotence idempotence, const Attempt& attempt);

  // For streams, which run outside call(): the endpoint to try now, and
  // moving on from one whose stream failed.
  size_t current() const { return current_.load(); }
  const Stubs& stubs(size_t index) const { return *stubs_[index]; }
  void failed(size_t index);
  // Drives the endpoint's channel to connect; true once it is connected,
  // false when the attempt failed or `deadline` passed first. gRPC's
  // synchronous calls only poll connections while a call waits, and a call
  // that fails fast returns before a connection that is coming up completes:
  // this waits for it, polling.
  bool wait_connected(size_t index, std::chrono::system_clock::time_point deadline) const;

  int64_t call_timeout_ms() const { return call_timeout_ms_; }
  // "etcd at <endpoint>: <what>: <message> (<CODE>)" with the Errc of `status`.
  static Error to_error(const grpc::Status& status, std::string_view endpoint,
                        std::string_view what);

 private:
  std::vector<std::unique_ptr<Stubs>> stubs_;
  const int64_t call_timeout_ms_;
  std::atomic<size_t> current_{0};
};

// Every entry under `prefix` at the current revision (one idempotent Range
// call); `what` names the read in errors.
Result<Listing> read_prefix(EtcdClient& client, const std::string& prefix, std::string_view what);

}  // namespace strata::coordinator
