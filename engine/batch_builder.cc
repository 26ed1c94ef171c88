#include "engine/batch_builder.h"

#include <algorithm>
#include <cstring>

#include "base/big_endian.h"
#include "base/varint.h"
#include "engine/compression.h"

namespace strata::engine {
namespace {

void put_varint(std::vector<std::byte>& out, int64_t v) {
  std::byte buf[10];
  size_t n = varint::write_zigzag64(buf, v);
  out.insert(out.end(), buf, buf + n);
}

void put_bytes(std::vector<std::byte>& out, const std::optional<std::string>& s) {
  if (!s) {
    put_varint(out, -1);
    return;
  }
  put_varint(out, static_cast<int64_t>(s->size()));
  const auto* p = reinterpret_cast<const std::byte*>(s->data());
  out.insert(out.end(), p, p + s->size());
}

}  // namespace

Result<std::vector<std::byte>> BatchBuilder::build() const {
  if (records_.empty()) return Error(Errc::kInvalidArgument, "a batch needs at least one record");
  TimestampMs base_ts = records_.front().timestamp;
  TimestampMs max_ts = base_ts;
  for (const auto& r : records_) {
    base_ts = std::min(base_ts, r.timestamp);
    max_ts = std::max(max_ts, r.timestamp);
  }

  std::vector<std::byte> records;
  std::vector<std::byte> body;
  for (size_t i = 0; i < records_.size(); ++i) {
    const auto& r = records_[i];
    body.clear();
    body.push_back(std::byte{0});  // record attributes
    put_varint(body, r.timestamp - base_ts);
    put_varint(body, static_cast<int64_t>(i));
    put_bytes(body, r.key);
    put_bytes(body, r.value);
    put_varint(body, static_cast<int64_t>(r.headers.size()));
    for (const auto& [k, v] : r.headers) {
      put_bytes(body, k);
      put_bytes(body, v);
    }
    put_varint(records, static_cast<int64_t>(body.size()));
    records.insert(records.end(), body.begin(), body.end());
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<std::byte> payload, compress(options_.compression, records));

  std::vector<std::byte> batch(kBatchHeaderSize + payload.size());
  std::byte* p = batch.data();
  using namespace batch_field;
  int16_t attrs = static_cast<int16_t>(options_.compression);
  if (options_.log_append_time) attrs |= batch_attr::kLogAppendTime;
  if (options_.transactional) attrs |= batch_attr::kTransactional;
  if (options_.control) attrs |= batch_attr::kControl;
  be::store<int64_t>(p + kBaseOffset, options_.base_offset.value());
  be::store<int32_t>(p + kLength, static_cast<int32_t>(batch.size() - kBatchLogOverhead));
  be::store<int32_t>(p + kLeaderEpoch, options_.leader_epoch.value());
  be::store<int8_t>(p + kMagic, kMagicV2);
  be::store<int16_t>(p + kAttributes, attrs);
  be::store<int32_t>(p + kLastOffsetDelta, static_cast<int32_t>(records_.size() - 1));
  be::store<int64_t>(p + kBaseTimestamp, base_ts);
  be::store<int64_t>(p + kMaxTimestamp, max_ts);
  be::store<int64_t>(p + kProducerId, options_.producer_id);
  be::store<int16_t>(p + kProducerEpoch, options_.producer_epoch);
  be::store<int32_t>(p + kBaseSequence, options_.base_sequence);
  be::store<int32_t>(p + kRecordsCount, static_cast<int32_t>(records_.size()));
  std::memcpy(p + kBatchHeaderSize, payload.data(), payload.size());
  be::store<uint32_t>(p + kCrc, compute_batch_crc(batch));
  return batch;
}

}  // namespace strata::engine
