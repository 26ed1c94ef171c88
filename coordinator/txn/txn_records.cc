#include "coordinator/txn/txn_records.h"

#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "coordinator/group/group_records.h"
#include "coordinator/record_codec.h"

namespace strata::coordinator {

namespace {

constexpr int16_t kKeyVersion = 0;
constexpr int16_t kValueVersion = 0;

bool known_state(int8_t s) {
  return s >= static_cast<int8_t>(TxnState::kEmpty) &&
         s <= static_cast<int8_t>(TxnState::kPrepareEpochFence);
}

}  // namespace

std::string_view state_name(TxnState state) {
  switch (state) {
    case TxnState::kEmpty: return "Empty";
    case TxnState::kOngoing: return "Ongoing";
    case TxnState::kPrepareCommit: return "PrepareCommit";
    case TxnState::kPrepareAbort: return "PrepareAbort";
    case TxnState::kCompleteCommit: return "CompleteCommit";
    case TxnState::kCompleteAbort: return "CompleteAbort";
    case TxnState::kDead: return "Dead";
    case TxnState::kPrepareEpochFence: return "PrepareEpochFence";
  }
  return "Unknown";
}

int32_t txn_partition_for(std::string_view transactional_id) {
  return internal_partition_for(transactional_id, kTransactionStatePartitions);
}

std::vector<std::byte> encode_txn_key(std::string_view transactional_id) {
  records::Out o;
  o.fixed<int16_t>(kKeyVersion);
  o.str(transactional_id);
  return std::move(o.buf);
}

std::vector<std::byte> encode_txn_value(const TxnMetadata& m) {
  records::Out o;
  o.fixed<int16_t>(kValueVersion);
  o.fixed<int64_t>(m.producer_id);
  o.fixed<int16_t>(m.producer_epoch);
  o.fixed<int32_t>(m.timeout_ms);
  o.fixed<int8_t>(static_cast<int8_t>(m.state));
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& p : m.partitions)
    by_topic[p.topic].push_back(p.partition);
  o.fixed<int32_t>(static_cast<int32_t>(by_topic.size()));
  for (const auto& [topic, ids] : by_topic) {
    o.str(topic);
    o.fixed<int32_t>(static_cast<int32_t>(ids.size()));
    for (int32_t id : ids)
      o.fixed<int32_t>(id);
  }
  o.fixed<int64_t>(m.last_update_ms);
  o.fixed<int64_t>(m.start_ms);
  return std::move(o.buf);
}

Result<std::string> decode_txn_key(std::span<const std::byte> key) {
  records::In in(key);
  auto version = in.fixed<int16_t>();
  auto id = in.str();
  if (!in.ok() || version != kKeyVersion || !in.at_end()) {
    return Error(Errc::kCorruption, fmt::format("not a v{} __transaction_state key ({} bytes)",
                                                kKeyVersion, key.size()));
  }
  return id;
}

Result<TxnMetadata> decode_txn_value(std::span<const std::byte> value) {
  records::In in(value);
  auto bad = [&](std::string_view why) {
    return Error(Errc::kCorruption,
                 fmt::format("__transaction_state value of {} bytes: {}", value.size(), why));
  };
  auto version = in.fixed<int16_t>();
  if (in.ok() && version != kValueVersion) return bad(fmt::format("version {}", version));
  TxnMetadata m;
  m.producer_id = in.fixed<int64_t>();
  m.producer_epoch = in.fixed<int16_t>();
  m.timeout_ms = in.fixed<int32_t>();
  auto state = in.fixed<int8_t>();
  if (in.ok() && !known_state(state)) return bad(fmt::format("state {}", state));
  m.state = static_cast<TxnState>(state);
  auto topics = in.fixed<int32_t>();
  for (int32_t t = 0; in.ok() && t < topics; ++t) {
    auto topic = in.str();
    auto count = in.fixed<int32_t>();
    if (in.ok() && (count < 0 || static_cast<size_t>(count) * 4 > in.left())) {
      return bad(fmt::format("{} partitions of {}", count, topic));
    }
    for (int32_t i = 0; in.ok() && i < count; ++i)
      m.partitions.insert(TxnPartition{topic, in.fixed<int32_t>()});
  }
  m.last_update_ms = in.fixed<int64_t>();
  m.start_ms = in.fixed<int64_t>();
  if (!in.ok()) return bad("truncated");
  if (!in.at_end()) return bad("bytes after the last field");
  return m;
}

}  // namespace strata::coordinator
