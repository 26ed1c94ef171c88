#include "coordinator/etcd_store.h"

#include <fmt/format.h>

#include "coordinator/etcd_client.h"
#include "coordinator/etcd_codec.h"
#include "coordinator/etcd_endpoints.h"

namespace strata::coordinator {

Result<std::unique_ptr<EtcdStore>> EtcdStore::open(EtcdStoreOptions options) {
  if (options.endpoints.empty()) return Error(Errc::kInvalidArgument, "no etcd endpoint given");
  std::string joined;
  for (const auto& ep : options.endpoints)
    joined += (joined.empty() ? "" : ",") + ep;
  STRATA_ASSIGN_OR_RETURN(auto endpoints, parse_etcd_endpoints(joined));
  if (options.call_timeout_ms <= 0 || options.watch.retry_min_ms <= 0 ||
      options.watch.retry_max_ms < options.watch.retry_min_ms) {
    return Error(Errc::kInvalidArgument,
                 fmt::format("etcd store timings: call timeout {} ms, watch retry {}..{} ms",
                             options.call_timeout_ms, options.watch.retry_min_ms,
                             options.watch.retry_max_ms));
  }
  auto client = std::make_shared<EtcdClient>(std::move(endpoints), options.call_timeout_ms);
  return std::unique_ptr<EtcdStore>(new EtcdStore(std::move(client), options.watch));
}

EtcdStore::~EtcdStore() = default;

Result<std::optional<Entry>> EtcdStore::get(const std::string& key) {
  etcdserverpb::RangeRequest req;
  req.set_key(key);
  etcdserverpb::RangeResponse resp;
  STRATA_TRY(client_->call("Range of " + key, EtcdClient::kIdempotent,
                           [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                             return s.kv->Range(&ctx, req, &resp);
                           }));
  if (resp.kvs_size() == 0) return std::optional<Entry>();
  return std::optional<Entry>(to_entry(resp.kvs(0)));
}

Result<Listing> EtcdStore::range(const std::string& prefix) {
  return read_prefix(*client_, prefix, "Range of prefix");
}

Result<TxnResult> EtcdStore::txn(const Txn& txn) {
  auto req = to_request(txn);
  bool writes = false;
  for (const auto* ops : {&txn.success, &txn.failure}) {
    for (const auto& op : *ops)
      writes = writes || op.kind != TxnOp::Kind::kGet;
  }
  etcdserverpb::TxnResponse resp;
  STRATA_TRY(client_->call("Txn", writes ? EtcdClient::kNotIdempotent : EtcdClient::kIdempotent,
                           [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                             return s.kv->Txn(&ctx, req, &resp);
                           }));
  return to_result(txn, resp);
}

Result<Lease> EtcdStore::grant(int64_t ttl_ms) {
  STRATA_TRY(check_lease_ttl(ttl_ms));
  etcdserverpb::LeaseGrantRequest req;
  req.set_ttl((ttl_ms + 999) / 1000);
  etcdserverpb::LeaseGrantResponse resp;
  STRATA_TRY(client_->call("LeaseGrant", EtcdClient::kNotIdempotent,
                           [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                             return s.lease->LeaseGrant(&ctx, req, &resp);
                           }));
  if (!resp.error().empty()) {
    return Error(Errc::kInternal, "etcd refused a lease: " + resp.error());
  }
  return Lease{resp.id(), resp.ttl() * 1000};
}

Result<int64_t> EtcdStore::keep_alive(LeaseId id) {
  etcdserverpb::LeaseKeepAliveRequest req;
  req.set_id(id);
  etcdserverpb::LeaseKeepAliveResponse resp;
  // One refresh: a stream that carries one request and one answer.
  STRATA_TRY(client_->call("LeaseKeepAlive", EtcdClient::kIdempotent,
                           [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                             auto stream = s.lease->LeaseKeepAlive(&ctx);
                             if (stream->Write(req) && stream->Read(&resp)) {
                               stream->WritesDone();
                               etcdserverpb::LeaseKeepAliveResponse more;
                               while (stream->Read(&more)) {
                               }
                             }
                             return stream->Finish();
                           }));
  if (resp.ttl() <= 0) {
    return lease_not_found(id);
  }
  return resp.ttl() * 1000;
}

Status EtcdStore::revoke(LeaseId id) {
  etcdserverpb::LeaseRevokeRequest req;
  req.set_id(id);
  etcdserverpb::LeaseRevokeResponse resp;
  return client_->call(fmt::format("LeaseRevoke of lease {}", id), EtcdClient::kNotIdempotent,
                       [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                         return s.lease->LeaseRevoke(&ctx, req, &resp);
                       });
}

Status EtcdStore::compact(int64_t revision) {
  etcdserverpb::CompactionRequest req;
  req.set_revision(revision);
  req.set_physical(true);
  etcdserverpb::CompactionResponse resp;
  // Compacting to a revision already compacted leaves what was asked for.
  return client_->call(fmt::format("Compact to revision {}", revision), EtcdClient::kIdempotent,
                       [&](const EtcdClient::Stubs& s, grpc::ClientContext& ctx) {
                         auto status = s.kv->Compact(&ctx, req, &resp);
                         bool already =
                             status.error_code() == grpc::StatusCode::OUT_OF_RANGE &&
                             status.error_message().find("compacted") != std::string::npos;
                         return already ? grpc::Status::OK : status;
                       });
}

WatchHandle EtcdStore::watch(const std::string& prefix, int64_t start_revision, WatchCallback cb) {
  // "From the next change" means after this call: read the prefix now.
  // If etcd cannot be read now, the watch's thread reads it when it can and
  // starts after that read.
  std::optional<Listing> seed;
  if (start_revision == 0) {
    auto listing = range(prefix);
    if (listing) seed = std::move(listing).value();
  }
  return start_etcd_watch(client_, prefix, start_revision, seed, std::move(cb), watch_options_);
}

}  // namespace strata::coordinator
