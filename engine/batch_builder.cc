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

void put_span(std::vector<std::byte>& out, std::optional<std::span<const std::byte>> s) {
  if (!s) {
    put_varint(out, -1);
    return;
  }
  put_varint(out, static_cast<int64_t>(s->size()));
  out.insert(out.end(), s->begin(), s->end());
}

// Frames one record body (everything after its length) with its length.
void put_record(std::vector<std::byte>& records, const std::vector<std::byte>& body) {
  put_varint(records, static_cast<int64_t>(body.size()));
  records.insert(records.end(), body.begin(), body.end());
}

// Compresses encoded records and puts the batch header (with its CRC) in front.
Result<std::vector<std::byte>> seal(const BatchOptions& options, std::span<const std::byte> records,
                                    int32_t count, TimestampMs base_ts, TimestampMs max_ts) {
  STRATA_ASSIGN_OR_RETURN(std::vector<std::byte> payload, compress(options.compression, records));
  std::vector<std::byte> batch(kBatchHeaderSize + payload.size());
  std::byte* p = batch.data();
  using namespace batch_field;
  int16_t attrs = static_cast<int16_t>(options.compression);
  if (options.log_append_time) attrs |= batch_attr::kLogAppendTime;
  if (options.transactional) attrs |= batch_attr::kTransactional;
  if (options.control) attrs |= batch_attr::kControl;
  be::store<int64_t>(p + kBaseOffset, options.base_offset.value());
  be::store<int32_t>(p + kLength, static_cast<int32_t>(batch.size() - kBatchLogOverhead));
  be::store<int32_t>(p + kLeaderEpoch, options.leader_epoch.value());
  be::store<int8_t>(p + kMagic, kMagicV2);
  be::store<int16_t>(p + kAttributes, attrs);
  be::store<int32_t>(p + kLastOffsetDelta, count - 1);
  be::store<int64_t>(p + kBaseTimestamp, base_ts);
  be::store<int64_t>(p + kMaxTimestamp, max_ts);
  be::store<int64_t>(p + kProducerId, options.producer_id);
  be::store<int16_t>(p + kProducerEpoch, options.producer_epoch);
  be::store<int32_t>(p + kBaseSequence, options.base_sequence);
  be::store<int32_t>(p + kRecordsCount, count);
  if (!payload.empty()) std::memcpy(p + kBatchHeaderSize, payload.data(), payload.size());
  be::store<uint32_t>(p + kCrc, compute_batch_crc(batch));
  return batch;
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
    put_record(records, body);
  }
  return seal(options_, records, static_cast<int32_t>(records_.size()), base_ts, max_ts);
}

void BatchEncoder::add(std::optional<std::span<const std::byte>> key,
                       std::optional<std::span<const std::byte>> value, TimestampMs timestamp) {
  if (count_ == 0) {
    base_ts_ = timestamp;
    max_ts_ = timestamp;
  }
  max_ts_ = std::max(max_ts_, timestamp);
  body_.clear();
  body_.push_back(std::byte{0});  // record attributes
  put_varint(body_, timestamp - base_ts_);
  put_varint(body_, count_);
  put_span(body_, key);
  put_span(body_, value);
  put_varint(body_, 0);  // no headers
  put_record(records_, body_);
  ++count_;
}

Result<std::vector<std::byte>> BatchEncoder::finish() const {
  if (count_ == 0) return Error(Errc::kInvalidArgument, "a batch needs at least one record");
  return seal(options_, records_, count_, base_ts_, max_ts_);
}

}  // namespace strata::engine
