// Conversions between the MetadataStore's types and Strata's etcd messages
// (proto/etcd/*.proto), internal to coordinator/etcd_*.
#pragma once

#include <string>
#include <string_view>

#include "coordinator/metadata_store.h"
#include "etcd/kv.pb.h"
#include "etcd/rpc.pb.h"

namespace strata::coordinator {

// Sets [key, range_end) to every key starting with `prefix`. etcd names the
// keys after a prefix by its last byte below 0xff plus one; "" (or a prefix
// of 0xff bytes only) is every key from `prefix` on: range_end "\0".
void set_prefix_range(std::string_view prefix, std::string* key, std::string* range_end);

// A read of every key under `prefix` as of `revision` (0: the latest).
etcdserverpb::RangeRequest prefix_range_request(std::string_view prefix);

Entry to_entry(const mvccpb::KeyValue& kv);
WatchEvent to_event(const mvccpb::Event& event);
Listing to_listing(const etcdserverpb::RangeResponse& response);

etcdserverpb::TxnRequest to_request(const Txn& txn);
// The result of `txn` from etcd's answer to to_request(txn).
TxnResult to_result(const Txn& txn, const etcdserverpb::TxnResponse& response);

}  // namespace strata::coordinator
