// EtcdStore: the MetadataStore of a cluster, over etcd v3's gRPC API (KV,
// Lease and Watch services; Strata's own messages in proto/etcd/).
//
//   auto store = EtcdStore::open({.endpoints = {"127.0.0.1:2379", "127.0.0.1:22379"}});
//   auto v = (*store)->put("/strata/brokers/1", info, MetadataStore::kAbsent, lease.id);
//
// Every call blocks until etcd answers, for at most call_timeout_ms per
// endpoint tried; it tries the endpoint that answered last first and, while
// endpoints are unreachable, the others (EtcdClient says which failures move
// on). Errors name etcd and the endpoint: kUnavailable when etcd could not be
// reached or did not answer in time, kNotFound for a missing lease,
// kInvalidArgument for a request etcd refused (a transaction writing a key
// twice, a compaction past the current revision).
//
// Leases: etcd counts TTLs in whole seconds and has a minimum (2 s with its
// default timings), so grant() may give more than asked; Lease::ttl_ms says
// what was granted. compact() of a revision already compacted succeeds.
//
// Watches: one thread and one Watch stream each (etcd_watch.h); callbacks run
// on that thread. watch() from revision 0 reads the prefix before it returns
// (to know where "the next change" starts); if etcd cannot be read then, the
// watch starts after its thread's first successful read instead.
//
// Thread-safety: every method may be called from any thread but a shard's:
// they block on the network. Brokers call the store from control threads.
// Watch handles and the store may go away in any order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "coordinator/etcd_watch.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

class EtcdClient;

struct EtcdStoreOptions {
  std::vector<std::string> endpoints;  // host:port, see etcd_endpoints.h
  int64_t call_timeout_ms = 5000;
  EtcdWatchOptions watch;
};

class EtcdStore final : public MetadataStore {
 public:
  // Checks the options; does not connect (the first call does).
  static Result<std::unique_ptr<EtcdStore>> open(EtcdStoreOptions options);
  ~EtcdStore() override;

  Result<std::optional<Entry>> get(const std::string& key) override;
  Result<Listing> range(const std::string& prefix) override;
  Result<TxnResult> txn(const Txn& txn) override;
  // etcd refuses more ("too many operations in txn request": its
  // --max-txn-ops default).
  size_t max_txn_ops() const override { return 128; }
  Result<Lease> grant(int64_t ttl_ms) override;
  Result<int64_t> keep_alive(LeaseId id) override;
  Status revoke(LeaseId id) override;
  Status compact(int64_t revision) override;
  WatchHandle watch(const std::string& prefix, int64_t start_revision, WatchCallback cb) override;

 private:
  EtcdStore(std::shared_ptr<EtcdClient> client, EtcdWatchOptions watch)
      : client_(std::move(client)), watch_options_(watch) {}

  std::shared_ptr<EtcdClient> client_;
  const EtcdWatchOptions watch_options_;
};

}  // namespace strata::coordinator
