#include "coordinator/etcd_codec.h"

namespace strata::coordinator {
namespace {

etcdserverpb::Compare to_compare(const Compare& c) {
  etcdserverpb::Compare out;
  out.set_key(c.key);
  switch (c.op) {
    case Compare::Op::kEqual: out.set_result(etcdserverpb::Compare::EQUAL); break;
    case Compare::Op::kNotEqual: out.set_result(etcdserverpb::Compare::NOT_EQUAL); break;
    case Compare::Op::kLess: out.set_result(etcdserverpb::Compare::LESS); break;
    case Compare::Op::kGreater: out.set_result(etcdserverpb::Compare::GREATER); break;
  }
  switch (c.target) {
    case Compare::Target::kVersion:
      out.set_target(etcdserverpb::Compare::VERSION);
      out.set_version(c.value);
      break;
    case Compare::Target::kCreateRevision:
      out.set_target(etcdserverpb::Compare::CREATE);
      out.set_create_revision(c.value);
      break;
    case Compare::Target::kModRevision:
      out.set_target(etcdserverpb::Compare::MOD);
      out.set_mod_revision(c.value);
      break;
  }
  return out;
}

etcdserverpb::RequestOp to_op(const TxnOp& op) {
  etcdserverpb::RequestOp out;
  switch (op.kind) {
    case TxnOp::Kind::kPut: {
      auto* put = out.mutable_request_put();
      put->set_key(op.key);
      put->set_value(op.value);
      put->set_lease(op.lease);
      break;
    }
    case TxnOp::Kind::kErase: out.mutable_request_delete_range()->set_key(op.key); break;
    case TxnOp::Kind::kErasePrefix: {
      auto* del = out.mutable_request_delete_range();
      set_prefix_range(op.key, del->mutable_key(), del->mutable_range_end());
      break;
    }
    case TxnOp::Kind::kGet: out.mutable_request_range()->set_key(op.key); break;
  }
  return out;
}

}  // namespace

void set_prefix_range(std::string_view prefix, std::string* key, std::string* range_end) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff)
    end.pop_back();
  if (end.empty()) {
    *key = prefix.empty() ? std::string(1, '\0') : std::string(prefix);
    *range_end = std::string(1, '\0');
    return;
  }
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  *key = std::string(prefix);
  *range_end = std::move(end);
}

etcdserverpb::RangeRequest prefix_range_request(std::string_view prefix) {
  etcdserverpb::RangeRequest req;
  set_prefix_range(prefix, req.mutable_key(), req.mutable_range_end());
  return req;
}

Entry to_entry(const mvccpb::KeyValue& kv) {
  Entry e;
  e.key = kv.key();
  e.value = kv.value();
  e.version = kv.version();
  e.create_revision = kv.create_revision();
  e.mod_revision = kv.mod_revision();
  e.lease = kv.lease();
  return e;
}

WatchEvent to_event(const mvccpb::Event& event) {
  WatchEvent out;
  if (event.type() == mvccpb::Event::DELETE) {
    out.type = WatchEvent::Type::kErase;
    out.entry.key = event.kv().key();
    out.entry.mod_revision = event.kv().mod_revision();
  } else {
    out.type = WatchEvent::Type::kPut;
    out.entry = to_entry(event.kv());
  }
  out.revision = event.kv().mod_revision();
  return out;
}

Listing to_listing(const etcdserverpb::RangeResponse& response) {
  Listing out;
  out.revision = response.header().revision();
  out.entries.reserve(response.kvs_size());
  for (const auto& kv : response.kvs())
    out.entries.push_back(to_entry(kv));
  return out;
}

etcdserverpb::TxnRequest to_request(const Txn& txn) {
  etcdserverpb::TxnRequest req;
  for (const auto& c : txn.compares)
    *req.add_compare() = to_compare(c);
  for (const auto& op : txn.success)
    *req.add_success() = to_op(op);
  for (const auto& op : txn.failure)
    *req.add_failure() = to_op(op);
  return req;
}

TxnResult to_result(const Txn& txn, const etcdserverpb::TxnResponse& response) {
  TxnResult out;
  out.succeeded = response.succeeded();
  out.revision = response.header().revision();
  const auto& ops = out.succeeded ? txn.success : txn.failure;
  for (size_t i = 0; i < ops.size(); ++i) {
    TxnOpResult& r = out.results.emplace_back();
    if (static_cast<int>(i) >= response.responses_size()) continue;
    const auto& resp = response.responses(static_cast<int>(i));
    switch (ops[i].kind) {
      case TxnOp::Kind::kGet:
        if (resp.response_range().kvs_size() > 0) r.entry = to_entry(resp.response_range().kvs(0));
        break;
      case TxnOp::Kind::kErase:
      case TxnOp::Kind::kErasePrefix: r.erased = resp.response_delete_range().deleted(); break;
      case TxnOp::Kind::kPut: break;
    }
  }
  return out;
}

}  // namespace strata::coordinator
