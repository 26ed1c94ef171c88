#include "engine/record_batch.h"

#include <fmt/format.h>

#include "base/crc32c.h"
#include "base/varint.h"

namespace strata::engine {

BatchHeader read_batch_header(const std::byte* p) {
  using namespace batch_field;
  BatchHeader h;
  h.base_offset = Offset(be::load<int64_t>(p + kBaseOffset));
  h.batch_length = be::load<int32_t>(p + kLength);
  h.leader_epoch = LeaderEpoch(be::load<int32_t>(p + kLeaderEpoch));
  h.magic = be::load<int8_t>(p + kMagic);
  h.crc = be::load<uint32_t>(p + kCrc);
  h.attributes = be::load<int16_t>(p + kAttributes);
  h.last_offset_delta = be::load<int32_t>(p + kLastOffsetDelta);
  h.base_timestamp = be::load<int64_t>(p + kBaseTimestamp);
  h.max_timestamp = be::load<int64_t>(p + kMaxTimestamp);
  h.producer_id = be::load<int64_t>(p + kProducerId);
  h.producer_epoch = be::load<int16_t>(p + kProducerEpoch);
  h.base_sequence = be::load<int32_t>(p + kBaseSequence);
  h.records_count = be::load<int32_t>(p + kRecordsCount);
  return h;
}

uint32_t compute_batch_crc(std::span<const std::byte> batch) {
  return crc32c::value(batch.subspan(batch_field::kAttributes));
}

Result<BatchHeader> check_batch_integrity(std::span<const std::byte> bytes) {
  if (bytes.size() < kBatchLogOverhead) {
    return Error(Errc::kTruncatedBatch,
                 fmt::format("{} bytes cannot hold a batch's offset and length", bytes.size()));
  }
  int32_t length = be::load<int32_t>(bytes.data() + batch_field::kLength);
  if (length < 0) {
    return Error(Errc::kCorruptMessage, fmt::format("negative batch length {}", length));
  }
  // Magic first: a legacy (v0/v1) message is shorter than a v2 header, and
  // deserves UNSUPPORTED_FOR_MESSAGE_FORMAT rather than "corrupt".
  if (bytes.size() > batch_field::kMagic) {
    auto magic = be::load<int8_t>(bytes.data() + batch_field::kMagic);
    if (magic != kMagicV2) {
      return Error(Errc::kUnsupportedMagic,
                   fmt::format("record batch magic {} is not supported (only 2)", magic));
    }
  }
  if (static_cast<size_t>(length) < kBatchHeaderSize - kBatchLogOverhead) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("batch length {} is below the {}-byte v2 header", length,
                             kBatchHeaderSize - kBatchLogOverhead));
  }
  if (bytes.size() <= batch_field::kMagic) {
    return Error(Errc::kTruncatedBatch, fmt::format("batch cut off after {} bytes", bytes.size()));
  }
  size_t total = kBatchLogOverhead + static_cast<size_t>(length);
  if (bytes.size() < total) {
    return Error(Errc::kTruncatedBatch,
                 fmt::format("batch of {} bytes cut off after {} bytes", total, bytes.size()));
  }
  if (bytes.size() > total) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("{} bytes follow the {}-byte batch", bytes.size() - total, total));
  }
  BatchHeader h = read_batch_header(bytes.data());
  uint32_t crc = compute_batch_crc(bytes);
  if (crc != h.crc) {
    return Error(Errc::kCorruptMessage, fmt::format("batch at offset {}: CRC {:08x} but stored "
                                                    "{:08x}",
                                                    h.base_offset, crc, h.crc));
  }
  return h;
}

Result<BatchHeader> validate_batch(std::span<const std::byte> bytes, const BatchLimits& limits) {
  // Size is checked before the CRC so an oversize batch is not checksummed.
  if (bytes.size() >= kBatchLogOverhead) {
    int64_t total = peek_batch_size(bytes.data());
    if (total > static_cast<int64_t>(limits.max_batch_bytes) &&
        bytes.size() >= static_cast<size_t>(total)) {
      return Error(Errc::kMessageTooLarge,
                   fmt::format("batch of {} bytes is over max.message.bytes {}", total,
                               limits.max_batch_bytes));
    }
  }
  STRATA_ASSIGN_OR_RETURN(BatchHeader h, check_batch_integrity(bytes));
  if (h.total_size() > limits.max_batch_bytes) {
    return Error(Errc::kMessageTooLarge,
                 fmt::format("batch of {} bytes is over max.message.bytes {}", h.total_size(),
                             limits.max_batch_bytes));
  }
  if (limits.require_zero_base_offset && h.base_offset != Offset(0)) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("batch base offset {} from a client is not 0", h.base_offset));
  }
  if (h.records_count < (limits.allow_compacted ? 0 : 1)) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("record count {} is not positive", h.records_count));
  }
  if (limits.allow_compacted ? static_cast<int64_t>(h.last_offset_delta) + 1 < h.records_count ||
                                   h.last_offset_delta < 0
                             : static_cast<int64_t>(h.last_offset_delta) + 1 != h.records_count) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("lastOffsetDelta {} does not match record count {}",
                             h.last_offset_delta, h.records_count));
  }
  if (h.control() && !limits.allow_control) {
    return Error(Errc::kControlBatchRejected, "clients may not write control batches");
  }
  if (h.compression() > Compression::kZstd) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("unknown compression codec {}", static_cast<int>(h.compression())));
  }
  // A transaction marker has its producer but no sequence.
  if (h.producer_id >= 0 && h.base_sequence < 0 && !h.control()) {
    return Error(Errc::kInvalidRecord, fmt::format("producer id {} with negative base sequence {}",
                                                   h.producer_id, h.base_sequence));
  }
  if (limits.check_records && h.compression() == Compression::kNone) {
    int32_t expected_delta = 0;
    auto st =
        for_each_record(bytes.subspan(kBatchHeaderSize), h.records_count, [&](const RecordView& r) {
          if (r.offset_delta != expected_delta) return false;
          ++expected_delta;
          return true;
        });
    STRATA_TRY(st);
    if (expected_delta != h.records_count) {
      return Error(Errc::kInvalidRecord,
                   fmt::format("record {} has offset delta out of sequence", expected_delta));
    }
  }
  return h;
}

void set_base_offset(std::byte* batch, Offset offset) {
  be::store<int64_t>(batch + batch_field::kBaseOffset, offset.value());
}

void set_leader_epoch(std::byte* batch, LeaderEpoch epoch) {
  be::store<int32_t>(batch + batch_field::kLeaderEpoch, epoch.value());
}

void set_log_append_time(std::span<std::byte> batch, TimestampMs now) {
  auto attrs = be::load<int16_t>(batch.data() + batch_field::kAttributes);
  be::store<int16_t>(batch.data() + batch_field::kAttributes,
                     static_cast<int16_t>(attrs | batch_attr::kLogAppendTime));
  set_max_timestamp(batch, now);
}

void set_max_timestamp(std::span<std::byte> batch, TimestampMs max_timestamp) {
  be::store<int64_t>(batch.data() + batch_field::kMaxTimestamp, max_timestamp);
  be::store<uint32_t>(batch.data() + batch_field::kCrc, compute_batch_crc(batch));
}

namespace {

Result<std::optional<std::span<const std::byte>>> read_nullable_bytes(const std::byte*& p,
                                                                      const std::byte* end,
                                                                      const char* what) {
  auto len = varint::read_zigzag32(p, end);
  if (!len) return Error(Errc::kInvalidRecord, fmt::format("bad {} length varint", what));
  if (*len < -1)
    return Error(Errc::kInvalidRecord, fmt::format("negative {} length {}", what, *len));
  if (*len == -1) return std::optional<std::span<const std::byte>>();
  if (end - p < *len) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("{} of {} bytes overruns the record", what, *len));
  }
  std::span<const std::byte> s(p, static_cast<size_t>(*len));
  p += *len;
  return std::optional<std::span<const std::byte>>(s);
}

}  // namespace

Result<RecordView> read_record(const std::byte*& p, const std::byte* end) {
  auto length = varint::read_zigzag32(p, end);
  if (!length) return Error(Errc::kInvalidRecord, "bad record length varint");
  if (*length < 0)
    return Error(Errc::kInvalidRecord, fmt::format("negative record length {}", *length));
  if (end - p < *length) {
    return Error(Errc::kInvalidRecord, fmt::format("record of {} bytes overruns the batch by {}",
                                                   *length, *length - (end - p)));
  }
  const std::byte* rec_end = p + *length;
  RecordView r;
  if (p >= rec_end) return Error(Errc::kInvalidRecord, "empty record");
  r.attributes = static_cast<int8_t>(*p++);
  auto ts = varint::read_zigzag64(p, rec_end);
  if (!ts) return Error(Errc::kInvalidRecord, "bad timestamp delta");
  r.timestamp_delta = *ts;
  auto od = varint::read_zigzag32(p, rec_end);
  if (!od) return Error(Errc::kInvalidRecord, "bad offset delta");
  r.offset_delta = *od;
  STRATA_ASSIGN_OR_RETURN(r.key, read_nullable_bytes(p, rec_end, "key"));
  STRATA_ASSIGN_OR_RETURN(r.value, read_nullable_bytes(p, rec_end, "value"));
  auto hc = varint::read_zigzag32(p, rec_end);
  if (!hc || *hc < 0) return Error(Errc::kInvalidRecord, "bad header count");
  r.header_count = static_cast<uint32_t>(*hc);
  const std::byte* headers_start = p;
  for (uint32_t i = 0; i < r.header_count; ++i) {
    STRATA_ASSIGN_OR_RETURN(auto key, read_nullable_bytes(p, rec_end, "header key"));
    if (!key) return Error(Errc::kInvalidRecord, "null header key");
    STRATA_ASSIGN_OR_RETURN(auto value, read_nullable_bytes(p, rec_end, "header value"));
    (void)value;
  }
  r.headers = std::span<const std::byte>(headers_start, p);
  if (p != rec_end) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("record length {} disagrees with its fields", *length));
  }
  return r;
}

Status for_each_header(const RecordView& record,
                       const std::function<void(std::span<const std::byte>,
                                                std::optional<std::span<const std::byte>>)>& fn) {
  const std::byte* p = record.headers.data();
  const std::byte* end = p + record.headers.size();
  for (uint32_t i = 0; i < record.header_count; ++i) {
    STRATA_ASSIGN_OR_RETURN(auto key, read_nullable_bytes(p, end, "header key"));
    STRATA_ASSIGN_OR_RETURN(auto value, read_nullable_bytes(p, end, "header value"));
    fn(*key, value);
  }
  return ok_status();
}

}  // namespace strata::engine
