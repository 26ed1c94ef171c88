#include "engine/legacy_records.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <zlib.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"
#include "engine/legacy_lz4.h"

namespace strata::engine {
namespace {

constexpr size_t kLogOverhead = 12;  // offset and size
// crc, magic, attributes, key length, value length (+ timestamp in magic 1).
constexpr size_t kMinMessageV0 = 14;
constexpr size_t kMinMessageV1 = 22;

size_t min_message(int8_t magic) {
  return magic == kMagicV0 ? kMinMessageV0 : kMinMessageV1;
}

uint32_t crc32_ieee(std::span<const std::byte> data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

// One entry's message, checked: everything but the expansion of a wrapper.
struct Message {
  Offset offset;
  int8_t magic = 0;
  int8_t attributes = 0;
  TimestampMs timestamp = kNoRecordTimestamp;
  std::optional<std::span<const std::byte>> key;
  std::optional<std::span<const std::byte>> value;

  Compression codec() const {
    return static_cast<Compression>(attributes & legacy_attr::kCompressionMask);
  }
  bool log_append_time() const {
    return magic == kMagicV1 && (attributes & legacy_attr::kLogAppendTime) != 0;
  }
};

Result<std::optional<std::span<const std::byte>>> read_bytes(std::span<const std::byte> msg,
                                                             size_t& pos, const char* what,
                                                             Offset offset) {
  if (msg.size() - pos < 4) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("message at offset {}: {} length cut off", offset, what));
  }
  auto len = be::load<int32_t>(msg.data() + pos);
  pos += 4;
  if (len == -1) return std::optional<std::span<const std::byte>>();
  if (len < 0 || static_cast<size_t>(len) > msg.size() - pos) {
    return Error(Errc::kInvalidRecord, fmt::format("message at offset {}: {} length {} does not "
                                                   "fit its {}-byte message",
                                                   offset, what, len, msg.size()));
  }
  std::span<const std::byte> out = msg.subspan(pos, static_cast<size_t>(len));
  pos += static_cast<size_t>(len);
  return std::optional<std::span<const std::byte>>(out);
}

// Reads the entry at `pos` of `set` and advances `pos` past it.
Result<Message> read_message(std::span<const std::byte> set, size_t& pos) {
  size_t left = set.size() - pos;
  if (left < kLogOverhead) {
    return Error(Errc::kCorruptMessage, fmt::format("{} stray bytes after the last message", left));
  }
  const std::byte* p = set.data() + pos;
  Message m;
  m.offset = Offset(be::load<int64_t>(p + legacy_field::kOffset));
  auto size = be::load<int32_t>(p + legacy_field::kSize);
  if (size < static_cast<int32_t>(kMinMessageV0)) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("message at offset {}: size {} is below the {}-byte minimum", m.offset,
                             size, kMinMessageV0));
  }
  if (static_cast<size_t>(size) > left - kLogOverhead) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("message at offset {} of {} bytes cut off after {}", m.offset, size,
                             left - kLogOverhead));
  }
  std::span<const std::byte> msg = set.subspan(pos + kLogOverhead, static_cast<size_t>(size));
  pos += kLogOverhead + static_cast<size_t>(size);
  constexpr size_t kMagicAt = legacy_field::kMagic - kLogOverhead;
  m.magic = be::load<int8_t>(msg.data() + kMagicAt);
  if (m.magic != kMagicV0 && m.magic != kMagicV1) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("message at offset {}: magic {} in a magic 0/1 message set", m.offset,
                             m.magic));
  }
  if (msg.size() < min_message(m.magic)) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("message at offset {}: size {} is below the {}-byte minimum of "
                             "magic {}",
                             m.offset, size, min_message(m.magic), m.magic));
  }
  uint32_t stored = be::load<uint32_t>(msg.data());
  uint32_t crc = crc32_ieee(msg.subspan(kMagicAt));
  if (crc != stored) {
    return Error(
        Errc::kCorruptMessage,
        fmt::format("message at offset {}: CRC {:08x} but stored {:08x}", m.offset, crc, stored));
  }
  m.attributes = be::load<int8_t>(msg.data() + kMagicAt + 1);
  size_t at = kMagicAt + 2;
  if (m.magic == kMagicV1) {
    m.timestamp = be::load<int64_t>(msg.data() + at);
    at += 8;
    if (m.timestamp < kNoRecordTimestamp) {
      return Error(Errc::kInvalidRecord, fmt::format("message at offset {}: invalid timestamp {}",
                                                     m.offset, m.timestamp));
    }
  }
  auto codec = static_cast<int>(m.codec());
  if (codec == static_cast<int>(Compression::kZstd)) {
    return Error(Errc::kUnsupportedCompression,
                 fmt::format("message at offset {}: zstd needs magic 2", m.offset));
  }
  if (codec > static_cast<int>(Compression::kZstd)) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("message at offset {}: unknown codec {}", m.offset, codec));
  }
  STRATA_ASSIGN_OR_RETURN(m.key, read_bytes(msg, at, "key", m.offset));
  STRATA_ASSIGN_OR_RETURN(m.value, read_bytes(msg, at, "value", m.offset));
  if (at != msg.size()) {
    return Error(Errc::kInvalidRecord, fmt::format("message at offset {}: {} bytes after its value",
                                                   m.offset, msg.size() - at));
  }
  return m;
}

// a + b and a - b with two's-complement wrap-around: offsets from clients
// and timestamp deltas are not trusted to stay in range.
int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

// The offset field of the last entry of `set`, read by the size fields
// alone (the walk that follows checks the entries).
Offset last_entry_offset(std::span<const std::byte> set) {
  Offset last{0};
  size_t pos = 0;
  while (set.size() - pos >= kLogOverhead) {
    last = Offset(be::load<int64_t>(set.data() + pos));
    auto size = be::load<int32_t>(set.data() + pos + legacy_field::kSize);
    if (size < 0 || static_cast<size_t>(size) > set.size() - pos - kLogOverhead) break;
    pos += kLogOverhead + static_cast<size_t>(size);
  }
  return last;
}

Result<std::vector<std::byte>> expand(const Message& wrapper, size_t& budget) {
  std::span<const std::byte> data = *wrapper.value;
  std::vector<std::byte> fixed;
  if (wrapper.codec() == Compression::kLz4 && wrapper.magic == kMagicV0) {
    fixed.assign(data.begin(), data.end());
    STRATA_TRY(set_lz4_header_checksum(fixed, Lz4HeaderChecksum::kStandard));
    data = fixed;
  }
  auto plain = decompress(wrapper.codec(), data, budget);
  if (!plain) {
    return Error(plain.error().code(),
                 fmt::format("wrapper at offset {}: {}", wrapper.offset, plain.error().message()));
  }
  budget -= plain->size();
  return plain;
}

// Walks `set`; `outer` is the wrapper it was expanded from, if any.
Status walk(std::span<const std::byte> set, const Message* outer, size_t& budget,
            const std::function<bool(const LegacyRecord&)>& fn, bool& stop) {
  int64_t inner_base = 0;
  if (outer != nullptr && outer->magic == kMagicV1) {
    inner_base = wrapping_sub(outer->offset.value(), last_entry_offset(set).value());
  }
  size_t pos = 0;
  while (pos < set.size() && !stop) {
    STRATA_ASSIGN_OR_RETURN(Message m, read_message(set, pos));
    if (m.codec() != Compression::kNone) {
      if (outer != nullptr) {
        return Error(
            Errc::kInvalidRecord,
            fmt::format("wrapper at offset {} holds another compressed message", outer->offset));
      }
      if (!m.value) {
        return Error(Errc::kInvalidRecord,
                     fmt::format("compressed message at offset {} has no value", m.offset));
      }
      STRATA_ASSIGN_OR_RETURN(std::vector<std::byte> inner, expand(m, budget));
      if (inner.empty()) {
        return Error(Errc::kInvalidRecord,
                     fmt::format("wrapper at offset {} holds no messages", m.offset));
      }
      STRATA_TRY(walk(inner, &m, budget, fn, stop));
      continue;
    }
    LegacyRecord r;
    r.offset = m.offset;
    r.magic = m.magic;
    r.timestamp = m.timestamp;
    r.log_append_time = m.log_append_time();
    r.key = m.key;
    r.value = m.value;
    if (outer != nullptr) {
      if (m.magic != outer->magic) {
        return Error(Errc::kInvalidRecord,
                     fmt::format("magic {} message inside the magic {} wrapper at offset {}",
                                 m.magic, outer->magic, outer->offset));
      }
      if (outer->magic == kMagicV1) r.offset = Offset(wrapping_add(inner_base, m.offset.value()));
      r.wrapper_codec = outer->codec();
      if (outer->log_append_time()) {
        r.log_append_time = true;
        r.timestamp = outer->timestamp;
      }
    }
    if (!fn(r)) stop = true;
  }
  return ok_status();
}

// Appends one message entry to `out`.
void put_message(std::vector<std::byte>& out, int64_t offset, int8_t magic, int8_t attributes,
                 TimestampMs timestamp, std::optional<std::span<const std::byte>> key,
                 std::optional<std::span<const std::byte>> value) {
  size_t key_len = key ? key->size() : 0;
  size_t value_len = value ? value->size() : 0;
  size_t size = min_message(magic) + key_len + value_len;
  size_t start = out.size();
  out.resize(start + kLogOverhead + size);
  std::byte* p = out.data() + start;
  be::store<int64_t>(p + legacy_field::kOffset, offset);
  be::store<int32_t>(p + legacy_field::kSize, static_cast<int32_t>(size));
  be::store<int8_t>(p + legacy_field::kMagic, magic);
  be::store<int8_t>(p + legacy_field::kAttributes, attributes);
  size_t at = legacy_field::kAttributes + 1;
  if (magic == kMagicV1) {
    be::store<int64_t>(p + at, timestamp);
    at += 8;
  }
  for (const auto& field : {key, value}) {
    if (!field) {
      be::store<int32_t>(p + at, -1);
      at += 4;
      continue;
    }
    be::store<int32_t>(p + at, static_cast<int32_t>(field->size()));
    at += 4;
    if (!field->empty()) std::memcpy(p + at, field->data(), field->size());
    at += field->size();
  }
  uint32_t crc = crc32_ieee(std::span<const std::byte>(
      p + legacy_field::kMagic, size - (legacy_field::kMagic - kLogOverhead)));
  be::store<uint32_t>(p + legacy_field::kCrc, crc);
}

}  // namespace

bool starts_legacy(std::span<const std::byte> bytes) {
  if (bytes.size() <= legacy_field::kMagic) return false;
  auto magic = be::load<int8_t>(bytes.data() + legacy_field::kMagic);
  return magic == kMagicV0 || magic == kMagicV1;
}

Status for_each_legacy_record(std::span<const std::byte> set, const LegacyLimits& limits,
                              const std::function<bool(const LegacyRecord&)>& fn) {
  if (set.empty()) return Error(Errc::kInvalidRecord, "empty message set");
  size_t budget = limits.max_expanded_bytes;
  bool stop = false;
  return walk(set, nullptr, budget, fn, stop);
}

Result<std::vector<std::byte>> up_convert(std::span<const std::byte> set,
                                          const LegacyLimits& limits) {
  BatchEncoder encoder;
  Compression codec = Compression::kNone;
  std::optional<Error> error;
  STRATA_TRY(for_each_legacy_record(set, limits, [&](const LegacyRecord& r) {
    if (codec == Compression::kNone) codec = r.wrapper_codec;
    int64_t delta = 0;
    if (encoder.count() > 0 &&
        __builtin_sub_overflow(r.timestamp, encoder.base_timestamp(), &delta)) {
      error = Error(Errc::kInvalidRecord,
                    fmt::format("message at offset {}: timestamp {} too far from the first "
                                "one's",
                                r.offset, r.timestamp));
      return false;
    }
    if (encoder.count() == INT32_MAX) {
      error = Error(Errc::kInvalidRecord, "message set holds more than INT32_MAX records");
      return false;
    }
    encoder.add(r.key, r.value, r.timestamp);
    return true;
  }));
  if (error) return *error;
  encoder.set_compression(codec);
  return encoder.finish();
}

Result<std::vector<std::byte>> down_convert(std::span<const std::byte> batch, int8_t magic,
                                            Offset min_offset, size_t max_expanded_bytes) {
  STRATA_CHECK(magic == kMagicV0 || magic == kMagicV1, "down-conversion to magic {}", magic);
  if (batch.size() < kBatchHeaderSize ||
      peek_batch_size(batch.data()) != static_cast<int64_t>(batch.size())) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("{} bytes are not one record batch", batch.size()));
  }
  BatchHeader h = read_batch_header(batch.data());
  if (h.magic != kMagicV2) {
    return Error(Errc::kCorruptMessage,
                 fmt::format("batch at offset {} has magic {}, not 2", h.base_offset, h.magic));
  }
  std::vector<std::byte> out;
  if (h.control()) return out;  // transaction markers mean nothing to old readers
  Compression codec = h.compression();
  if (codec == Compression::kZstd) {
    return Error(Errc::kUnsupportedCompression,
                 fmt::format("zstd batch at offset {} cannot be down-converted to magic {}",
                             h.base_offset, magic));
  }
  std::span<const std::byte> payload = batch.subspan(kBatchHeaderSize);
  std::vector<std::byte> plain;
  if (codec != Compression::kNone) {
    STRATA_ASSIGN_OR_RETURN(plain, decompress(codec, payload, max_expanded_bytes));
    payload = plain;
  }
  bool log_append_time = magic == kMagicV1 && h.log_append_time();
  int8_t attributes = log_append_time ? legacy_attr::kLogAppendTime : 0;
  std::vector<std::byte> inner;
  std::vector<std::byte>& target = codec == Compression::kNone ? out : inner;
  int32_t count = 0;
  Offset first{0};
  Offset last{0};
  TimestampMs max_ts = kNoRecordTimestamp;
  STRATA_TRY(for_each_record(payload, h.records_count, [&](const RecordView& r) {
    Offset o = h.base_offset + r.offset_delta;
    if (o < min_offset) return true;
    if (count == 0) first = o;
    last = o;
    ++count;
    TimestampMs ts =
        log_append_time ? h.max_timestamp : wrapping_add(h.base_timestamp, r.timestamp_delta);
    max_ts = std::max(max_ts, ts);
    // Magic 1 wrappers number their messages from 0; magic 0 keeps offsets.
    int64_t written = codec != Compression::kNone && magic == kMagicV1 ? (o - first) : o.value();
    put_message(target, written, magic, attributes, ts, r.key, r.value);
    return true;
  }));
  if (count == 0 || codec == Compression::kNone) return out;
  STRATA_ASSIGN_OR_RETURN(std::vector<std::byte> compressed, compress(codec, inner));
  if (codec == Compression::kLz4 && magic == kMagicV0) {
    STRATA_TRY(set_lz4_header_checksum(compressed, Lz4HeaderChecksum::kKafkaLegacy));
  }
  TimestampMs wrapper_ts = log_append_time ? h.max_timestamp : max_ts;
  put_message(out, last.value(), magic,
              static_cast<int8_t>(attributes | static_cast<int8_t>(codec)), wrapper_ts,
              std::nullopt, std::span<const std::byte>(compressed));
  return out;
}

}  // namespace strata::engine
