#include "coordinator/txn/txn_store.h"

#include "base/bytes.h"
#include "coordinator/txn/txn_records.h"

namespace strata::coordinator {
namespace {

// The view's key of a transactional id ("I" and the id: a view key may
// not start with byte 0x01).
std::string view_key(std::string_view id) {
  return "I" + std::string(id);
}

// A record of the log as an operation on the view: the transactional id
// as the key, the value as it was written (checked here, so that a view
// never holds what does not decode).
Result<std::optional<LogView::KvOp>> map_record(std::span<const std::byte> key,
                                                std::optional<std::span<const std::byte>> value) {
  STRATA_ASSIGN_OR_RETURN(auto id, decode_txn_key(key));
  if (!value) return std::optional<LogView::KvOp>(LogView::KvOp{view_key(id), std::nullopt});
  if (auto meta = decode_txn_value(*value); !meta) return meta.error();
  return std::optional<LogView::KvOp>(LogView::KvOp{view_key(id), string_of(*value)});
}

}  // namespace

TxnStateStore::TxnStateStore(replication::Partition& partition, index::IndexStore& index)
    : view_(kTransactionStateTopic, partition, index, index::IndexStore::View::kTransactions,
            map_record) {}

void TxnStateStore::write(const std::string& transactional_id, const TxnMetadata& meta,
                          std::function<void(Status)> done) {
  view_.append({{string_of(encode_txn_key(transactional_id)), string_of(encode_txn_value(meta))}},
               std::move(done));
}

Result<std::vector<std::pair<std::string, TxnMetadata>>> TxnStateStore::all() const {
  STRATA_ASSIGN_OR_RETURN(auto rows, view_.scan("I"));
  std::vector<std::pair<std::string, TxnMetadata>> out;
  out.reserve(rows.size());
  for (auto& [key, value] : rows) {
    STRATA_ASSIGN_OR_RETURN(auto meta, decode_txn_value(bytes_of(value)));
    out.emplace_back(key.substr(1), std::move(meta));
  }
  return out;
}

}  // namespace strata::coordinator
